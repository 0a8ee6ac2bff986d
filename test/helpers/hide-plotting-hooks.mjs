// Module hooks of hide-plotting.mjs: resolving an optional package (the plotting ones, and
// fast-xml-parser for StarPU imports) fails as a missing one does.
const HIDDEN = new Set(['vega', 'vega-lite', '@resvg/resvg-js', 'fast-xml-parser']);

export async function resolve(specifier, context, next) {
  if (HIDDEN.has(specifier)) {
    const e = new Error(`Cannot find package '${specifier}'`);
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return next(specifier, context);
}
