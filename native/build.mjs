#!/usr/bin/env node
// The package's install step: builds the native addons with node-gyp, against Node's own
// headers (never downloads them), each on its own, each saying in one line what it did:
//
// - the kernel addon (native/kernels/build/Release/locus_kernels.node): the tile kernels
//   through the system's CBLAS and LAPACKE, when their headers are there (Debian:
//   libopenblas-dev liblapacke-dev); LOCUS_KERNELS_BUILD=0 skips it;
// - the MPI addon (native/build/Release/locus_mpi.node) when `mpicc` is on the PATH;
//   LOCUS_MPI_BUILD=0 skips it.
//
// A missing library, compiler or node-gyp never fails the install: Locus works without either
// addon (JavaScript kernels; no --cluster mpi). `node native/build.mjs kernels` (or `mpi`)
// builds one of them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const say = (m) => console.log(`locus: ${m}`);

/** node-gyp: the one npm runs scripts with, or the one bundled with npm next to node. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
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

/** Builds the addon in `dir`; returns the error output, or undefined when it built. */
function gypBuild(dir) {
  const gyp = nodeGyp();
  const nd = nodeDir();
  if (!gyp) return 'node-gyp not found';
  if (!nd) return "Node's headers (include/node/node_api.h) not found";
  const r = spawnSync(process.execPath, [gyp, 'rebuild', `--nodedir=${nd}`, '--directory', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  return r.status === 0 ? undefined : r.stdout + r.stderr;
}

function buildKernels() {
  if (process.env.LOCUS_KERNELS_BUILD === '0')
    return say('kernel addon not built (LOCUS_KERNELS_BUILD=0): JavaScript kernels');
  const check = spawnSync(process.execPath, [join(here, 'blas-flags.mjs'), 'check'], { encoding: 'utf8' });
  if (check.status !== 0)
    return say(`kernel addon not built: ${check.stdout.trim()}; the JavaScript kernels run instead`);
  const err = gypBuild(join(here, 'kernels'));
  if (err !== undefined) {
    if (err.includes('\n')) process.stderr.write(err);
    return say(
      `kernel addon build failed${err.includes('\n') ? ' (output above)' : `: ${err}`}; the JavaScript kernels run instead`,
    );
  }
  say(`kernel addon built: ${join(here, 'kernels', 'build', 'Release', 'locus_kernels.node')}`);
}

function buildMpi() {
  if (process.env.LOCUS_MPI_BUILD === '0') return say('MPI addon not built (LOCUS_MPI_BUILD=0)');
  if (spawnSync('mpicc', ['--showme:version'], { stdio: 'ignore' }).status !== 0)
    return say('MPI addon not built: no mpicc on the PATH (install libopenmpi-dev for --cluster mpi)');
  const err = gypBuild(here);
  if (err !== undefined) {
    if (err.includes('\n')) process.stderr.write(err);
    return say(
      `MPI addon build failed${err.includes('\n') ? ' (output above)' : `: ${err}`}; Locus works without it, --cluster mpi does not`,
    );
  }
  say(`MPI addon built: ${join(here, 'build', 'Release', 'locus_mpi.node')}`);
}

const only = process.argv[2];
if (only === undefined || only === 'kernels') buildKernels();
if (only === undefined || only === 'mpi') buildMpi();
