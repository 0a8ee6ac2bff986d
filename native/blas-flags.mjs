#!/usr/bin/env node
// Compiler and linker flags of the system's CBLAS and LAPACKE for the kernel addon
// (native/kernels/binding.gyp): pkg-config's openblas and lapacke where it knows them, else the
// plain names (-lcblas or -lblas, -llapacke). `node blas-flags.mjs cflags|libs|ldflags` prints
// one of them; `node blas-flags.mjs check` exits 1 with the reason when the headers are missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const pkg = (...args) => {
  const r = spawnSync('pkg-config', args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};
const openblas = pkg('--exists', 'openblas') !== undefined;
const lapacke = pkg('--exists', 'lapacke') !== undefined;

/** Include folders where cblas.h and lapacke.h may be. */
const INCLUDES = [
  '/usr/include',
  '/usr/local/include',
  '/usr/include/x86_64-linux-gnu',
  '/usr/include/aarch64-linux-gnu',
  '/usr/include/openblas',
  '/opt/homebrew/opt/openblas/include',
];

function cflags() {
  const f = [openblas ? pkg('--cflags', 'openblas') : '', lapacke ? pkg('--cflags', 'lapacke') : ''];
  return f.filter(Boolean).join(' ');
}

function libs() {
  const blas = openblas ? pkg('--libs', 'openblas') : '-lcblas -lblas';
  return `${lapacke ? pkg('--libs', 'lapacke') : '-llapacke'} ${blas}`;
}

function ldflags() {
  // An rpath for every -L folder: Debian's openblas-pthread/ is not on the loader's path.
  return libs()
    .split(/\s+/)
    .filter((f) => f.startsWith('-L'))
    .map((f) => `-Wl,-rpath,${f.slice(2)}`)
    .join(' ');
}

function check() {
  const dirs = [
    ...INCLUDES,
    ...cflags()
      .split(/\s+/)
      .filter((f) => f.startsWith('-I'))
      .map((f) => f.slice(2)),
  ];
  const missing = ['cblas.h', 'lapacke.h'].filter((h) => !dirs.some((d) => existsSync(`${d}/${h}`)));
  if (missing.length > 0) {
    console.log(
      `no ${missing.join(' or ')} found (on Debian: apt-get install libopenblas-dev liblapacke-dev)`,
    );
    process.exit(1);
  }
}

const what = process.argv[2];
if (what === 'check') check();
else console.log({ cflags, libs, ldflags }[what]?.() ?? '');
