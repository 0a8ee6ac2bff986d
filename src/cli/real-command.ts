/**
 * `locus run --mode real`: runs a workload that has kernels (cholesky, lu, lupp, gemm,
 * jacobi: the generators the simulator reads) for real on worker threads of this machine (or a platform whose GPUs become emulated device
 * memories), optionally checks it against the sequential algorithm, and prints the same
 * report as a simulated run. Ctrl-C (SIGTERM) stops the worker threads and exits with code 130 (143).
 */
import { SingleBar } from 'cli-progress';
import type { ClusterSummary } from '../cluster/run-cluster.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { REAL_WORKLOAD_NAMES, type RealRunResult, runWorkload } from '../exec/run-workload.ts';
import { TaskFailedError } from '../exec/runtime.ts';
import { GPU_ONLY_WORKLOADS } from '../exec/workload-checks.ts';
import type { TraceJson } from '../html-report/extract.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { parsePolicySpec } from '../report/policy-spec.ts';
import { isInterrupted } from './errors.ts';
import { formatOutOfCore, formatReport } from './format.ts';
import { Interrupt } from './interrupt.ts';
import { checkOptionTable, runKind } from './option-table.ts';
import type { RunOptions } from './run-command.ts';
import {
  checkHtmlFile,
  checkPriorities,
  checkTraceFile,
  workloadParams,
  writeTraceFile,
} from './run-inputs.ts';
import { schedulerOptionsFrom } from './sim-options.ts';

/**
 * `--disk` of a real run: a disk node of the platform file by name (its `path`, and its
 * capacity), else a directory. Throws a one-line LocusError for a disk node without a path.
 */
export function realDisk(value: string, platform: Platform): { path: string; capacity?: number } {
  const node = platform.disks?.find((d) => d.name === value);
  if (node === undefined) return { path: value };
  if (node.path === undefined)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--disk ${value}: disk node ${value} of platform ${platform.name} has no "path" for a real run: give it one in the platform file (the directory for its file), or give --disk DIR`,
    );
  return { path: node.path, capacity: node.capacity };
}

/** Runs the application; resolves with the exit code. */
export async function realRunCommand(o: RunOptions): Promise<number> {
  // matmul2d and the stencil run for real on WebGPU only (their kernels have WGSL), reading --inner and --iterations.
  const gpuOnly = o.backend === 'webgpu' && GPU_ONLY_WORKLOADS.includes(o.workload);
  if (!gpuOnly && !REAL_WORKLOAD_NAMES.includes(o.workload)) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--mode real runs ${REAL_WORKLOAD_NAMES.join(', ')} (got --workload ${o.workload}); simulate the others with --mode simulated (the default)`,
    );
  }
  if (o.backend !== undefined && o.backend !== 'threads' && o.backend !== 'webgpu')
    throw new LocusError('LOCUS_OPTION_INVALID', `--backend must be threads or webgpu (got '${o.backend}')`);
  if (o.cluster !== undefined && o.cluster !== 'mpi')
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--cluster must be mpi with --mode real (got '${o.cluster}'${o.cluster === 'sim' ? '; --cluster sim simulates a cluster: drop --mode real' : ''})`,
    );
  checkOptionTable(o, runKind(o), parsePolicySpec(o.sched).scheduler);
  if (o.cluster !== undefined && (o.backend === 'webgpu' || o.trace !== undefined))
    throw new LocusError('LOCUS_OPTION_CONFLICT', '--cluster mpi runs the threads backend without --trace');
  if (o.backend === 'webgpu' && o.checkAccesses)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      "--check-accesses applies to the threads backend (WebGPU's GPU tasks cannot be checked)",
    );
  if (o.backend === 'webgpu') return (await import('../webgpu/command.ts')).webgpuRunCommand(o);
  if (o.precision !== undefined && o.precision !== 'single' && o.precision !== 'double') {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--precision must be single or double (got '${o.precision}')`,
    );
  }
  checkPriorities(o);
  if (o.taskTimeLimit !== undefined && !(o.taskTimeLimit > 0)) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--task-time-limit must be a positive duration such as 10s (got ${o.taskTimeLimit} s)`,
    );
  }
  const policy = parsePolicySpec(o.sched);
  if (policy.eviction !== undefined && o.eviction !== undefined && o.eviction !== policy.eviction) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--sched ${o.sched} names eviction ${policy.eviction} but --eviction says ${o.eviction}: give one`,
    );
  }
  const platform = resolvePlatform(o.platform ?? 'local', { gpus: o.gpus, cpus: o.cpus, gpuMem: o.gpuMem });
  checkTraceFile(o.trace);
  checkHtmlFile(o);
  // The run's trace as JSON, kept for --html.
  let traceJson: TraceJson | undefined;
  const tiles = o.tiles ?? 8;
  const tileSize = o.tileSize ?? 256;
  const interrupt = new Interrupt();
  const bar =
    o.progress && process.stderr.isTTY
      ? new SingleBar({
          format: 'running [{bar}] {percentage}% | {value}/{total} tasks | {eta}s left',
          stream: process.stderr,
          clearOnComplete: true,
        })
      : undefined;
  let started = false;
  let result: RealRunResult & { rank?: number; cluster?: ClusterSummary };
  // Warnings (models not saved, say) come after the run's results.
  const warnings: string[] = [];
  try {
    const run = o.cluster ? (await import('../cluster/run-cluster.ts')).runClusterWorkload : runWorkload;
    result = await run(o.workload, {
      distribution: o.distribution,
      tiles,
      tileSize,
      precision: o.precision as 'single' | 'double' | undefined,
      check: o.check,
      dataSeed: o.seed,
      iterations: o.iterations,
      mode: 'real',
      platform,
      scheduler: policy.scheduler,
      schedulerOptions: schedulerOptionsFrom(o),
      eviction: policy.eviction ?? o.eviction ?? 'lru',
      seed: o.seed,
      // Out of core: host memory capped, the disk's file in the directory --disk names.
      ...(o.hostMem !== undefined ? { hostMem: o.hostMem } : {}),
      ...(o.disk !== undefined ? { disk: realDisk(o.disk, platform) } : {}),
      ...(o.readAhead ? { readAhead: true } : {}),
      throttle: o.throttle,
      checkAccesses: o.checkAccesses,
      taskTimeLimit: o.taskTimeLimit,
      calibrate: o.calibrate,
      pipeline: o.pipeline,
      lookahead: o.lookahead,
      cleanFirst: o.cleanFirst,
      minClean: o.minClean,
      targetClean: o.targetClean,
      hints: o.hints,
      // The workload's own parameters (taskbench's pattern, width, ...), as a simulation reads them.
      ...(o.workload === 'taskbench' ? { workloadParams: workloadParams(o) } : {}),
      // Cholesky with cholesky_implicit's priorities (--priorities starpu), as a simulation has them.
      ...(o.priorities === 'starpu' ? { workloadParams: { starpuPriorities: true } } : {}),
      priorities: o.priorities === 'bottom-level' ? 'bottom-level' : undefined,
      trace: o.trace !== undefined || o.html !== undefined,
      signal: interrupt.signal,
      onWarning: (m) => {
        if (!warnings.includes(m)) warnings.push(m);
      },
      ...(o.record === false ? { perfModels: 'read' as const } : {}),
      onProgress: bar
        ? (done, total) => {
            if (!started) {
              bar.start(total, 0);
              started = true;
            }
            bar.update(done);
          }
        : undefined,
      onTrace:
        o.trace !== undefined || o.html !== undefined
          ? (json) => {
              if (o.trace !== undefined) writeTraceFile(o.trace, json);
              if (o.html !== undefined) traceJson = json as TraceJson;
            }
          : undefined,
    });
  } catch (e) {
    if (started) bar?.stop();
    if (isInterrupted(e)) {
      // The trace file is written whole at the end of a run (atomically): none was written.
      const trace = o.trace === undefined ? '' : `; no trace written to ${o.trace}`;
      process.stderr.write(`locus: ${interrupt.verb}; worker threads stopped${trace}\n`);
      return interrupt.exitCode;
    }
    if (e instanceof TaskFailedError) {
      process.stderr.write(`locus: ${e.message}\n`);
      for (const w of warnings) process.stderr.write(`locus: warning: ${w}\n`);
      return 1;
    }
    throw e;
  } finally {
    interrupt.dispose();
  }
  if (started) bar?.stop();
  // A distributed run: rank 0 prints, the others only when asked.
  if (result.rank !== undefined && result.rank !== 0 && !o.verboseRanks) return 0;
  const { report } = result;
  const { kernelsName } = await import('../kernels/native/addon.ts');
  const kernels = kernelsName();
  const json = {
    ...report,
    kernels,
    residual: result.residual ?? null,
    backwardError: result.backwardError ?? null,
    ...(result.outOfCore ? { outOfCore: result.outOfCore } : {}),
    ...(result.cluster ? { rank: result.rank, cluster: result.cluster } : {}),
  };
  let html: string | undefined;
  if (o.html !== undefined && traceJson !== undefined) {
    // The page's summary table: the report, as the simulated run's trace carries it.
    if (traceJson.locus) traceJson.locus.report = report;
    html = await (await import('./report-command.ts')).writeRunHtml(o.html, traceJson);
  }
  if (o.json) {
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    process.stdout.write(`${formatReport(report)}\nkernels: ${kernels}\n`);
    if (result.outOfCore) process.stdout.write(`${formatOutOfCore(result.outOfCore)}\n`);
    if (result.cluster) {
      const { formatClusterSummary } = await import('../cluster/run-cluster.ts');
      process.stdout.write(`${formatClusterSummary(result.cluster)}\n`);
    }
    if (result.residual !== undefined) {
      process.stdout.write(
        `check: relative difference to the sequential run ${result.residual.toExponential(2)}` +
          (result.backwardError !== undefined
            ? `, backward error ${result.backwardError.toExponential(2)}`
            : '') +
          '\n',
      );
    }
    if (o.trace) process.stdout.write(`trace written to ${o.trace} (open it in https://ui.perfetto.dev)\n`);
    if (html) process.stdout.write(`${html}\n`);
  }
  for (const w of warnings) {
    const hint = w.startsWith('performance models not saved') ? ' (--no-record skips saving)' : '';
    process.stderr.write(`locus: warning: ${w}${hint}\n`);
  }
  if (result.rank !== undefined && result.rank !== 0) return 0;
  if (o.check && !(result.residual! <= 1e-10 || (o.precision === 'single' && result.residual! <= 1e-4))) {
    process.stderr.write(
      `locus: check failed: the result differs from the sequential run by ${result.residual}\n`,
    );
    return 1;
  }
  return 0;
}
