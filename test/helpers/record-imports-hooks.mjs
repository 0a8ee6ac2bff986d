// Module hooks of record-imports.mjs: log each resolved URL, one per line.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.LOCUS_IMPORT_LOG) appendFileSync(process.env.LOCUS_IMPORT_LOG, `${result.url}\n`);
  return result;
}
