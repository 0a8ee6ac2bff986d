/**
 * `locus calibrate` (measure this machine's bus and tune the kernels' models) and
 * `locus platform export` (write a platform file from the calibrated models, so that a
 * simulated run predicts a real one: StarPU's simulation mode replays calibrated models).
 */
import type { Command } from 'commander';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { APP_CODELETS, calibrate } from '../exec/calibrate.ts';
import { exportCalibratedPlatform } from '../perf/export-platform.ts';
import { realMachineName } from '../perf/machine-name.ts';
import { ModelStore, machineDir } from '../perf/store.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { isInterrupted } from './errors.ts';
import { Interrupt } from './interrupt.ts';
import { naturalInt, positiveInt, size } from './options.ts';
import { writeOutOrStdout } from './output-files.ts';
import { registerPlatformImport } from './platform-import-command.ts';

interface MachineFlags {
  platform?: string;
  gpus?: number;
  cpus?: number;
  gpuMem?: number;
}

function machineOptions(cmd: Command): Command {
  return cmd
    .option('-p, --platform <name|file.json>', 'the machine: a preset or platform file (default local)')
    .option('--gpus <n>', 'GPUs of the preset (local: emulated devices)', naturalInt)
    .option('--cpus <n>', 'CPU workers', naturalInt)
    .option('--gpu-mem <size>', 'memory of every GPU / emulated device', size);
}

function machine(o: MachineFlags): Platform {
  return resolvePlatform(o.platform ?? 'local', { gpus: o.gpus, cpus: o.cpus, gpuMem: o.gpuMem });
}

interface CalibrateFlags extends MachineFlags {
  tileSize: string;
  samples: number;
  throttle?: boolean;
  backend?: string;
  inner?: string;
}

/** The --backend of calibrate and platform export. */
function backendOf(value: string | undefined): 'threads' | 'webgpu' {
  if (value === undefined || value === 'threads' || value === 'webgpu') return value ?? 'threads';
  throw new LocusError('LOCUS_OPTION_INVALID', `--backend must be threads or webgpu (got '${value}')`);
}

function tileList(value: string): number[] {
  const list = value.split(',').map((v) => Number(v.trim()));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1 || n > 4096)) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--tile-size must be a comma-separated list of integers in 1..4096 (got '${value}')`,
    );
  }
  return list;
}

/** Registers `calibrate` and `platform export`. */
export function registerCalibrateCommands(program: Command): void {
  machineOptions(
    program
      .command('calibrate')
      .description("measure this machine's bus and tune the kernels' performance models (real runs)"),
  )
    .option('--tile-size <list>', 'tile sizes to calibrate the kernels at (e.g. 128,256)', '256')
    .option('--samples <n>', 'measurements per codelet, worker kind and tile size', positiveInt, 10)
    .option('--throttle', "hold copies to emulated devices to the platform's link speed")
    .option('--backend <name>', 'threads (default) or webgpu (the GPUs through WebGPU)')
    .option('--inner <list>', "webgpu: matmul2d inner sizes to calibrate gemm's block product at")
    .action(async (o: CalibrateFlags) => {
      const platform = machine(o);
      const tileSizes = tileList(o.tileSize);
      const dir = ModelStore.defaultDir();
      if (backendOf(o.backend) === 'webgpu') {
        const { webgpuCalibrateCommand } = await import('../webgpu/calibrate-command.ts');
        await webgpuCalibrateCommand(platform, tileSizes, o.inner ? tileList(o.inner) : [], o.samples, dir);
        return;
      }
      const interrupt = new Interrupt();
      try {
        const r = await calibrate({
          platform,
          tileSizes,
          minSamples: o.samples,
          throttle: o.throttle,
          dir,
          signal: interrupt.signal,
          log: (line) => process.stderr.write(`${line}\n`),
        });
        process.stdout.write(
          `calibrated ${platform.name} (${platform.workers.length} workers): bus of ${r.bus.length} routes, ` +
            `kernels at tile ${tileSizes.join(', ')} in ${r.runs} runs; models in ${machineDir(dir, realMachineName(platform.name))}\n`,
        );
      } catch (e) {
        if (isInterrupted(e)) {
          process.stderr.write(`locus: ${interrupt.verb}; worker threads stopped\n`);
          process.exitCode = interrupt.exitCode;
          return;
        }
        throw e;
      } finally {
        interrupt.dispose();
      }
    });

  const platformCmd = program
    .command('platform')
    .description("platform files: export this machine's calibrated models, import StarPU's sampled machines");
  registerPlatformImport(platformCmd);
  machineOptions(
    platformCmd
      .command('export')
      .description(
        "write a platform file with this machine's calibrated rates and links, for simulations that predict real runs",
      ),
  )
    .option('--tile-size <n>', 'the tile size whose kernel rates to write', positiveInt, 256)
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .option('--backend <name>', 'threads (default) or webgpu: whose calibration to export')
    .action(async (o: MachineFlags & { tileSize: number; out?: string; backend?: string }) => {
      const platform = machine(o);
      const json =
        backendOf(o.backend) === 'webgpu'
          ? (await import('../webgpu/calibrate.ts')).exportWebGpuPlatform(platform, ModelStore.defaultDir())
          : exportPlatform(platform, ModelStore.defaultDir(), o.tileSize);
      if (writeOutOrStdout(o.out, json)) process.stdout.write(`wrote ${o.out}\n`);
    });
}

/**
 * The platform file of `platform` with the worker threads' calibration (the exporter of
 * src/perf/export-platform.ts): every worker's rate per codelet (flops of a tile-`tile` task
 * over its mean measured duration on the worker's kind; `rate` is gemm's), and every link's
 * bandwidth and latency from the calibrated bus. Copies in real runs are made one at a time by
 * the main thread, so with several devices a host bus at the slowest calibrated bandwidth is
 * shared by all of them.
 */
export function exportPlatform(platform: Platform, dir: string, tile: number): string {
  return exportCalibratedPlatform(platform, dir, {
    machine: realMachineName(platform.name),
    busName: platform.name,
    name: `${platform.name}-calibrated`,
    required: {
      codelets: APP_CODELETS,
      footprint: (c) => {
        const tiles = c === 'gemm' ? 3 : c === 'potrf' || c === 'getrf' ? 1 : 2;
        return Array.from({ length: tiles }, () => tile * tile * 8).join(',');
      },
      message: (missing) =>
        `no calibrated model at tile ${tile} for ${missing} in ${dir}: run \`locus calibrate --tile-size ${tile}\` with the same machine options first`,
    },
    sharedHostBus: true,
  });
}
