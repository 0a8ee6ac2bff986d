/**
 * The report page: one HTML file holding its style, the viewer script (web/report, bundled
 * into dist/web/report.js by the build) and the runs' payload, so that it opens from disk with
 * no network. The payload sits in a JSON script element; `<` is escaped in it and in the
 * script so that neither can close its element.
 */
import { readFileSync } from 'node:fs';
import { LocusError } from '../core/types.ts';
import type { ReportPayload } from './payload.ts';

/** The bundled viewer (same path from src/html-report and dist/html-report). */
const VIEWER = new URL('../../dist/web/report.js', import.meta.url);

/** The viewer script; a LocusError when the build did not make it. */
export function viewerScript(): string {
  try {
    return readFileSync(VIEWER, 'utf8');
  } catch {
    throw new LocusError(
      'LOCUS_FILE_READ_FAILED',
      `the report viewer ${VIEWER.pathname} is missing (a checkout that was not built): run npm run build`,
    );
  }
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;background:#fff}
header{padding:10px 14px 4px}
h1{font-size:17px;margin:0 0 2px}
.hint{color:#666;font-size:12px}
#app{padding:0 14px 20px}
.cols{display:flex;gap:12px}
.col{flex:1 1 0;min-width:0}
.heads .run-label{font-weight:600;padding-left:96px}
canvas{display:block;width:100%;cursor:crosshair}
.panel h2{font-size:13px;font-weight:600;margin:10px 0 2px;color:#333}
.legend{margin:6px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px}
.key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
#tip{position:fixed;z-index:2;pointer-events:none;background:rgba(255,255,255,.97);border:1px solid #bbb;
 border-radius:3px;padding:5px 7px;font-size:12px;max-width:460px;box-shadow:0 1px 4px rgba(0,0,0,.2)}
.muted{color:#777}
table.summary{border-collapse:collapse;margin-top:4px}
.summary th,.summary td{padding:2px 12px 2px 0;text-align:right;font-variant-numeric:tabular-nums}
.summary th:first-child{text-align:left;font-weight:normal;color:#555}
.summary thead th{font-weight:600;color:#222;border-bottom:1px solid #ccc}
`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The whole page for `payload`. */
export function reportPage(payload: ReportPayload): string {
  const data = JSON.stringify(payload).replace(/</g, '\\u003c');
  const script = viewerScript().replace(/<\/script/gi, '<\\/script');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src data:; img-src data:">
<title>${escapeHtml(payload.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(payload.title)}</h1>
<div class="hint">Wheel: zoom around the pointer · drag: pan · double click: whole run · hover: details. Panels share one time axis${payload.runs.length > 1 ? ' and, side by side, the same scales' : ''}.</div></header>
<div id="app"></div>
<div id="tip" hidden></div>
<script type="application/json" id="locus-data">${data}</script>
<script>${script}</script>
</body>
</html>
`;
}
