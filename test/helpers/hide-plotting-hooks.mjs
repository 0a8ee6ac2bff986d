// Module hooks of hide-plotting.mjs: resolving a plotting package fails as a missing one does.
const HIDDEN = new Set(['vega', 'vega-lite', '@resvg/resvg-js']);

export async function resolve(specifier, context, next) {
  if (HIDDEN.has(specifier)) {
    const e = new Error(`Cannot find package '${specifier}'`);
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return next(specifier, context);
}
