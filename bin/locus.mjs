#!/usr/bin/env node
// Starts the `locus` command from its compiled JavaScript (dist/, built by `npm run build`,
// which `npm ci` and `npm install` run through the `prepare` script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/index.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('locus: dist/ is missing (a checkout that was not built): run `npm run build`\n');
  process.exit(2);
}
await import(entry.href);
