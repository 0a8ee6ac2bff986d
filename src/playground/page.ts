/**
 * The playground's page as the build made it (dist/web/playground.html.gz, see
 * scripts/build-web.mjs): one self-contained HTML file, stored compressed in the package.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { LocusError } from '../core/types.ts';

/** The built page (same path from src/playground and dist/playground). */
const PAGE = new URL('../../dist/web/playground.html.gz', import.meta.url);

/** The page's HTML; a LocusError when the build did not make it. */
export function playgroundHtml(): Buffer {
  let packed: Buffer;
  try {
    packed = readFileSync(PAGE);
  } catch {
    throw new LocusError(
      'LOCUS_FILE_READ_FAILED',
      `the playground page ${PAGE.pathname} is missing (a checkout that was not built): run npm run build`,
    );
  }
  return gunzipSync(packed);
}
