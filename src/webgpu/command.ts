/**
 * `locus run --mode real --backend webgpu` (docs/webgpu.md): the platform (`local` by default,
 * with 2 GPUs and 1 CPU worker unless --gpus / --cpus say otherwise; each GPU a logical WebGPU
 * device capped at --gpu-mem), the run, and the report with the adapter that ran it (JSON:
 * an `adapter` object; text: a last `adapter:` line). Where no adapter is found, the run
 * fails with that reason in one line.
 */

import { formatOutOfCore, formatReport } from '../cli/format.ts';
import { realDisk } from '../cli/real-command.ts';
import type { RunOptions } from '../cli/run-command.ts';
import { LocusError } from '../core/types.ts';
import { runWorkload } from '../exec/run-workload.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { parsePolicySpec } from '../report/policy-spec.ts';
import { writeFileAtomic } from '../trace/atomic-file.ts';
import type { RunReport } from '../trace/report.ts';
import { adapterReportLine } from './adapter-line.ts';

/** Runs the workload over WebGPU; resolves with the exit code. */
export async function webgpuRunCommand(o: RunOptions): Promise<number> {
  if (o.precision !== undefined && o.precision !== 'single' && o.precision !== 'double') {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--precision must be single or double (got '${o.precision}')`,
    );
  }
  for (const [set, flag] of [
    [o.throttle, '--throttle'],
    [o.taskTimeLimit, '--task-time-limit'],
    [o.calibrate, '--calibrate'],
  ] as const) {
    if (set !== undefined && set !== false)
      throw new LocusError('LOCUS_OPTION_CONFLICT', `${flag} is not supported with --backend webgpu yet`);
  }
  if (o.trace !== undefined) writeOrFail(o.trace, ''); // fail before the run, not after it
  const policy = parsePolicySpec(o.sched);
  const platform = resolvePlatform(o.platform ?? 'local', {
    gpus: o.gpus ?? (o.platform === undefined ? 2 : undefined),
    cpus: o.cpus ?? (o.platform === undefined ? 1 : undefined),
    gpuMem: o.gpuMem,
  });
  let trace: unknown;
  const result = await runWorkload(o.workload, {
    backend: 'webgpu',
    tiles: o.tiles ?? 8,
    tileSize: o.tileSize ?? 256,
    inner: o.inner,
    precision: o.precision as 'single' | 'double' | undefined,
    iterations: o.iterations,
    check: o.check,
    dataSeed: o.seed,
    platform,
    scheduler: policy.scheduler,
    eviction: policy.eviction ?? o.eviction ?? 'lru',
    seed: o.seed,
    trace: o.trace !== undefined,
    onTrace: (json) => {
      trace = json;
    },
    ...(o.record === false ? { perfModels: 'read' as const } : {}),
    // Out of core: host memory capped, the disk's file in the directory --disk names.
    ...(o.hostMem !== undefined ? { hostMem: o.hostMem } : {}),
    ...(o.disk !== undefined ? { disk: realDisk(o.disk, platform) } : {}),
    ...(o.readAhead ? { readAhead: true } : {}),
  });
  const report = result.report as RunReport & { adapter: NonNullable<RunReport['adapter']> };
  // The CPU implementations of the tile tasks: the addon's BLAS, or JavaScript.
  const { kernelsName } = await import('../kernels/native/addon.ts');
  const kernels = kernelsName();
  if (o.json) {
    process.stdout.write(
      `${JSON.stringify({ ...report, kernels, residual: result.residual ?? null, ...(result.outOfCore ? { outOfCore: result.outOfCore } : {}) }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(`${formatReport(report)}\nkernels: ${kernels}\n`);
    if (result.outOfCore) process.stdout.write(`${formatOutOfCore(result.outOfCore)}\n`);
    if (result.residual !== undefined)
      process.stdout.write(
        `check: relative difference to the sequential run ${result.residual.toExponential(2)}\n`,
      );
    process.stdout.write(`${adapterReportLine(report.adapter)}\n`);
  }
  // After the report, so that a trace that cannot be written never loses the run's results.
  if (o.trace !== undefined) {
    writeOrFail(o.trace, JSON.stringify(trace));
    if (!o.json) process.stdout.write(`trace written to ${o.trace} (open it in https://ui.perfetto.dev)\n`);
  }
  // Float32 kernels on the GPU against float32 tiles computed in double on the CPU.
  if (o.check && !(result.residual! <= 1e-4)) {
    process.stderr.write(
      `locus: check failed: the result differs from the sequential run by ${result.residual}\n`,
    );
    return 1;
  }
  return 0;
}

/** Writes `text` to the --trace file, or fails in one line. */
function writeOrFail(file: string, text: string): void {
  writeFileAtomic(file, text, `--trace ${file}: cannot write the trace`);
}
