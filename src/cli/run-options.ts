/**
 * The options of `locus run`, grouped in its help (workload, platform, scheduling, simulation,
 * real execution, output) with examples; the action imports the simulated or the real run.
 */

import { type Command, Option } from 'commander';
import {
  DEFAULT_REAL_SCHEDULER,
  DEFAULT_SIM_SCHEDULER,
  defaultScheduler,
} from '../core/default-scheduler.ts';
import { parseRunMode } from '../core/mode-word.ts';
import { EVICTION_POLICIES } from '../evict/index.ts';
import { SCHEDULERS } from '../sched/index.ts';
import { WORKLOADS } from '../workloads/index.ts';
import {
  bandwidthValue,
  durationValue,
  naturalInt,
  noiseValue,
  positiveInt,
  seedValue,
  size,
} from './options.ts';
import type { RunOptions } from './run-command.ts';
import { addSimulationOptions } from './sim-options.ts';

/** The examples `locus run --help` ends with. */
const EXAMPLES = `
Examples:
  locus run --workload cholesky --tiles 20 --platform v100x2 --gpu-mem 500MB --sched eager
  locus run -w matmul2d -n 40 --sched darts+luf --json
  locus run -w cholesky -n 30 --sched dmdar --trace trace.json
  locus run -w cholesky -n 30 --sched darts+luf --html run.html
  locus run --mode real -w cholesky --tiles 8 --tile-size 128 --sched dmdar --check
  locus run -w cholesky -n 8 --sched static --runtime v3 --cache-lines 4
  locus run --cluster sim --platform ac-cluster --nodes 4 -w lu -n 16 --sched dmdas --json`;

/** Adds the options, help groups, examples and action of `locus run` to `cmd`. */
export function registerRunCommand(cmd: Command): void {
  cmd
    .optionsGroup('Workload:')
    .addOption(
      new Option('-w, --workload <name>', `task graph: ${Object.keys(WORKLOADS).join(', ')}`).default(
        'cholesky',
      ),
    )
    .option('-n, --tiles <n>', 'tiles per dimension (matmul2d: N x N tasks)', positiveInt)
    .option('--tile-size <n>', 'tile edge in elements', positiveInt)
    .option('--inner <n>', 'inner dimension of matmul2d blocks (stencil: grid depth)', positiveInt)
    .option('--precision <p>', 'single or double')
    .option('--iterations <n>', 'iterations (stencil, jacobi; taskbench: kernel iterations)', naturalInt)
    .option('--tasks <n>', 'task count (random)', positiveInt)
    .option('--data <n>', 'data count (random)', positiveInt)
    .option('--degree <n>', 'inputs per task (random)', positiveInt)
    .option('--shared <n>', 'data every task also reads (random; default 0)', naturalInt)
    .option('--pattern <name>', "taskbench: Task Bench's dependence pattern (trivial, stencil_1d, fft, ...)")
    .option('--width <n>', 'taskbench: points per timestep', positiveInt)
    .option('--steps <n>', 'taskbench: timesteps', positiveInt)
    .option('--kernel <name>', 'taskbench: empty, busy_wait, compute_bound, memory_bound or load_imbalance')
    .option(
      '--radix <n>',
      'taskbench: dependencies per point of nearest, spread, random_nearest (default 3)',
      naturalInt,
    )
    .option('--period <n>', 'taskbench: dependence sets of spread and random_nearest (default 3)', naturalInt)
    .option('--output-bytes <n>', "taskbench: bytes of each task's output (default 16)", positiveInt)
    .option('--imbalance <x>', "taskbench: spread of load_imbalance's iterations (default 0)", parseFloat)
    .option(
      '--scratch-bytes <n>',
      "taskbench: bytes of each task's scratch memory, which memory_bound streams through (default 0)",
      naturalInt,
    )
    .option('--keep-outputs', "write matmul2d's C blocks back instead of discarding them")
    .option('--no-hints', "no wontUse hints (cholesky's finished tiles, matmul2d's kept C blocks)")
    .option(
      '--order <order>',
      "cholesky: trailing updates by columns (default: StarPU's cholesky_implicit order, seed 004's Table 5.2) or rows",
    )
    .option('--stop-after <n>', 'keep only the first n tasks and skip the final write-back', positiveInt)
    .optionsGroup('Platform:')
    .option(
      '-p, --platform <name|file.json>',
      'preset name or platform file (default v100x2; --mode real: local, this machine)',
    )
    .option('--gpus <n>', 'GPUs of the preset to use (local: emulated devices)', naturalInt)
    .option('--cpus <n>', 'CPU cores that compute', naturalInt)
    .option('--gpu-mem <size>', 'cap every GPU memory (e.g. 500MiB, 2GB)', size)
    .option('--host-mem <size>', 'cap host memory (e.g. 4GiB); data beyond it need --disk', size)
    .option(
      '--disk <name>',
      'out of core: a disk below host memory; simulated, used when the data exceed it (a preset: nvme; or a disk node of the platform file); --mode real: a directory for its file',
    )
    .optionsGroup('Scheduling:')
    .option(
      '-s, --sched <name>',
      `scheduler, or SCHEDULER+EVICTION (darts+luf), default ${DEFAULT_SIM_SCHEDULER} (real runs: ${DEFAULT_REAL_SCHEDULER}): ${Object.keys(SCHEDULERS).join(', ')}`,
    )
    .option(
      '-e, --eviction <name>',
      `eviction policy (default lru): ${Object.keys(EVICTION_POLICIES).join(', ')}`,
    )
    .option(
      '--pipeline <n>',
      'tasks a GPU worker holds, the running one included (default 2; real: every worker, 4)',
      positiveInt,
    )
    .option(
      '--ready-first',
      "a GPU takes the first buffered task whose inputs are in its memory (StarPU's STARPU_SCHED_READY)",
    )
    .option(
      '--prefetch-window <n>',
      "at most n copies in flight into a GPU before its buffered tasks' next prefetch, issued in their order (default 0: no limit)",
      naturalInt,
    )
    .option('--parallel-evictions', 'each prefetch waiting for memory evicts for itself (a write-back each)')
    .option(
      '--lazy-writebacks',
      "write-backs no task waits for (a prefetch's evictions, hinted data) share the bus as prefetches do",
    )
    .option(
      '--priorities <kind>',
      "task priorities: none, bottom-level or starpu (cholesky: StarPU's cholesky_implicit ones)",
      'none',
    )
    .option('--runtime <version>', "static: seed 004's runtime v1, v2, v3 or v4 (coherence presets)")
    .option(
      '--coherence <list>',
      'static: write-through|write-back, free=none|aliens|all, cache=N (comma-separated; instead of --runtime)',
    )
    .option('--mapping <kind>', 'static: blocks to GPUs: 2d, 2d:PxQ, rows, cols or a .json grid (default 2d)')
    .option('--cache-lines <n>', 'v3, v4: alien blocks each GPU caches (LRU; default unlimited)', naturalInt)
    .option('--serial', 'run tasks one at a time in submission order')
    .optionsGroup('Simulation:')
    .option('--seed <n>', 'seed of random draws (deterministic runs)', seedValue, 1)
    .option('--noise <x>', 'relative spread of task durations, in [0, 1) (default 0)', noiseValue)
    .option('--charge-scheduling', "add the schedulers' measured decision time to the workers' time")
    .option(
      '--submit-window <n>',
      'submit tasks progressively: at most n submitted and not ended (StarPU_LIMIT_MAX_SUBMITTED_TASKS)',
      positiveInt,
    )
    .option(
      '--idle <policy>',
      "idle threads: poll, ea1 (block when no task), ea2 (GPU threads block while their GPU computes) or ea1+ea2 (seed 002's energy model)",
    )
    .option(
      '--wake-latency <duration>',
      'ea1: wake-up latency of a blocked thread (default 50us)',
      durationValue,
    );
  addSimulationOptions(cmd)
    .optionsGroup('Real execution:')
    .option(
      '--mode <mode>',
      'simulated (or sim: the simulated platform) or real (worker threads on this machine)',
      'simulated',
    )
    .option('--backend <name>', 'real: threads (default; emulated devices) or webgpu (GPUs through WebGPU)')
    .option('--check', 'real: compare the result with a sequential run (prints the relative difference)')
    .option('--throttle', "real: hold copies to emulated devices to the platform's link speed")
    .option(
      '--check-accesses',
      'real: poison W data before each kernel and verify R data after it; a kernel that breaks its declared accesses fails its task',
    )
    .option('--no-record', "real: do not save the run's measurements into the performance models")
    .option(
      '--read-ahead',
      'real, out of core: also read from the disk the inputs of ready tasks not popped yet, into host memory the popped ones do not need',
    )
    .option(
      '--task-time-limit <duration>',
      'real: fail a task whose kernel runs longer (e.g. 10s); its thread is replaced',
      durationValue,
    )
    .option(
      '--cluster <kind>',
      'sim: simulate a cluster platform (ac-cluster or a file with "cluster"); real: run distributed over MPI under mpirun (mpi), rank 0 prints the report',
    )
    .option('--nodes <n>', 'cluster sim: nodes used, the first n of the platform (default all)', positiveInt)
    .option(
      '--nic-bandwidth <bw>',
      "cluster sim: every node's NIC bandwidth instead of the platform's (e.g. 6.4GB/s)",
      bandwidthValue,
    )
    .option(
      '--network-latency <duration>',
      "cluster sim: the network's latency instead of the platform's (e.g. 5us)",
      durationValue,
    )
    .option(
      '--keep-received',
      "cluster sim: keep every received copy in the receiver's host memory for the whole run (default: drop it after its last reader there)",
    )
    .option(
      '--distribution <spec>',
      'cluster: data to ranks: 2d (squarest grid), 2d:PxQ or 1d (default 2d; jacobi 1d)',
    )
    .option('--verbose-ranks', 'cluster: every rank prints its report, not only rank 0')
    .option(
      '--calibrate',
      'real: send tasks where their performance models lack measurements (StarPU_CALIBRATE)',
    )
    .optionsGroup('Output:')
    .option('--json', 'print the report as one JSON object')
    .option('--trace <file>', 'write a Chrome trace (open in Perfetto)')
    .option('--html <file>', 'write the run as one self-contained HTML page (see locus report)')
    .option('--no-progress', 'no progress bar')
    .addHelpText('after', EXAMPLES)
    .action(async (opts: RunOptions) => {
      // One word for a simulation: 'sim' and 'simulated' alike (the checks below say 'sim').
      opts.mode = parseRunMode(opts.mode, '--mode') === 'real' ? 'real' : 'sim';
      opts.sched ??= defaultScheduler(opts.mode === 'real' ? 'real' : 'simulated');
      if (opts.mode === 'real') {
        const code = await (await import('./real-command.ts')).realRunCommand(opts);
        if (code !== 0) process.exitCode = code;
      } else {
        await (await import('./run-command.ts')).runCommand(opts);
      }
    });
}
