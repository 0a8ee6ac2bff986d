#!/usr/bin/env node
// The package's install step: builds the MPI addon (native/build/Release/locus_mpi.node) with
// node-gyp when `mpicc` is on the PATH, against Node's own headers (never downloads them);
// otherwise prints one line and succeeds, so Locus installs and works without MPI.
// LOCUS_MPI_BUILD=0 skips the build.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const say = (m) => console.log(`locus: ${m}`);

if (process.env.LOCUS_MPI_BUILD === '0') {
  say('MPI addon not built (LOCUS_MPI_BUILD=0)');
  process.exit(0);
}
if (spawnSync('mpicc', ['--showme:version'], { stdio: 'ignore' }).status !== 0) {
  say('MPI addon not built: no mpicc on the PATH (install libopenmpi-dev for --cluster mpi)');
  process.exit(0);
}

/** node-gyp: the one npm runs scripts with, or the one bundled with npm next to node. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  try {
    candidates.push(createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js'));
  } catch {}
  return candidates.find((c) => c && existsSync(c));
}

/** Node's headers on this machine (npm's nodedir setting, or next to the node binary). */
function nodeDir() {
  const candidates = [process.env.npm_config_nodedir, join(dirname(process.execPath), '..')];
  return candidates.find((d) => d && existsSync(join(d, 'include', 'node', 'node_api.h')));
}

const gyp = nodeGyp();
const dir = nodeDir();
if (!gyp || !dir) {
  say(`MPI addon not built: ${!gyp ? 'node-gyp not found' : "Node's headers (include/node/node_api.h) not found"}`);
  process.exit(0);
}
const r = spawnSync(process.execPath, [gyp, 'rebuild', `--nodedir=${dir}`, '--directory', here], {
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
});
if (r.status !== 0) {
  process.stderr.write(r.stdout + r.stderr);
  say('MPI addon build failed (output above); Locus works without it, --cluster mpi does not');
  process.exit(0);
}
say(`MPI addon built: ${join(here, 'build', 'Release', 'locus_mpi.node')}`);
