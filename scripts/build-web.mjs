#!/usr/bin/env node
// Bundles the browser code under web/ (the HTML report's viewer) into dist/web/, minified,
// one self-contained script each: `locus report` inlines it into every page it writes.
// Run by `npm run build` after tsc; esbuild is a devDependency (the built files ship).
import { mkdirSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
mkdirSync(`${root}dist/web`, { recursive: true });
await build({
  entryPoints: { report: `${root}web/report/main.ts` },
  outdir: `${root}dist/web`,
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome110', 'firefox115', 'safari16'],
  legalComments: 'none',
  logLevel: 'warning',
});
