#!/usr/bin/env node
// Bundles the browser code under web/ into dist/web/ (run by `npm run build` after tsc;
// esbuild is a devDependency, the built files ship):
//  - report.js: the HTML report's viewer, which `locus report` inlines into every page;
//  - playground.html.gz: the playground, one self-contained page (its script, and its web
//    worker's, which bundles the simulator from src/), gzip-compressed to keep the installed
//    package small; `locus playground` serves or writes it uncompressed.
// Node's modules (node:fs, ...) that the simulator's sources import for the command line
// become stubs that throw if called: the browser never calls them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = `${root}dist/web`;
mkdirSync(out, { recursive: true });
const common = {
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  legalComments: 'none',
  logLevel: 'warning',
};

/** The names the sources import from node:* modules (a missing one fails the build). */
const NODE_NAMES = [
  'randomBytes',
  'closeSync',
  'openSync',
  'readFileSync',
  'writeFileSync',
  'writeSync',
  'renameSync',
  'rmSync',
  'statSync',
  'mkdirSync',
  'readdirSync',
  'createServer',
  'createRequire',
  'homedir',
  'dirname',
  'resolve',
  'isAbsolute',
  'fileURLToPath',
  'pathToFileURL',
  'receiveMessageOnPort',
  'Worker',
  'gunzipSync',
  'gzipSync',
];

/**
 * node:* imports as stubs: every name above throws when called; the few the simulator's
 * modules call as they load get harmless values (no cores to count, no files).
 */
const nodeStubs = {
  name: 'node-stubs',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (a) => ({ path: a.path, namespace: 'node-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'node-stub' }, (a) => ({
      loader: 'js',
      contents: [
        `const no = (k) => () => { throw new Error(${JSON.stringify(a.path)} + '.' + k + ' is not available in a browser'); };`,
        ...NODE_NAMES.map((k) => `export const ${k} = no('${k}');`),
        'export const availableParallelism = () => 1, totalmem = () => 0, existsSync = () => false;',
        "export const join = (...p) => p.join('/');",
        // A platform file's default name is its file's base name.
        "export const basename = (p, ext) => { const b = p.split('/').pop(); return ext && b.endsWith(ext) ? b.slice(0, -ext.length) : b; };",
        'export const MessageChannel = globalThis.MessageChannel, parentPort = null, workerData = undefined;',
        'export default {};',
      ].join('\n'),
    }));
  },
};

await build({ ...common, entryPoints: { report: `${root}web/report/main.ts` }, outdir: out });

const bundle = async (entry, plugins = []) => {
  const r = await build({ ...common, entryPoints: [entry], write: false, plugins });
  // Inlined in a script element: nothing may close it.
  return r.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
};
const worker = await bundle(`${root}web/playground/worker.ts`, [nodeStubs]);
const main = await bundle(`${root}web/playground/main.ts`, [nodeStubs]);
const page = readFileSync(`${root}web/playground/index.html`, 'utf8')
  .replace('/*WORKER*/', () => worker)
  .replace('/*MAIN*/', () => main);
writeFileSync(`${out}/playground.html.gz`, gzipSync(page, { level: 9 }));
