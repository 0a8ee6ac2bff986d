/**
 * Why the tests that run under mpirun must skip here, or false when they can run: Open MPI's
 * mpirun and the built addon (native/) are both needed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { addonPath } from '../../src/cluster/addon.ts';

/** The skip reason of the mpirun tests (false: mpirun and the addon are here). */
export const mpiSkip: string | false =
  spawnSync('mpirun', ['--version'], { stdio: 'ignore' }).status !== 0
    ? 'mpirun is not installed (apt-get install openmpi-bin libopenmpi-dev)'
    : !existsSync(addonPath())
      ? `the MPI addon is not built (${addonPath()}): run 'node native/build.mjs'`
      : false;
