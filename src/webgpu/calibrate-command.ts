/**
 * `locus calibrate --backend webgpu`: runs the WebGPU calibration (src/webgpu/calibrate.ts)
 * with progress on stderr and a summary line, naming the adapter, on stdout.
 */
import type { Platform } from '../core/platform.ts';
import { machineDir } from '../perf/store.ts';
import { adapterReportLine } from './adapter-line.ts';
import { calibrateWebGpu } from './calibrate.ts';

/** Calibrates the platform's WebGPU devices into the model folder `dir`. */
export async function webgpuCalibrateCommand(
  platform: Platform,
  tileSizes: number[],
  inners: number[],
  repeats: number,
  dir: string,
): Promise<void> {
  const r = await calibrateWebGpu({
    platform,
    tileSizes,
    inners,
    repeats,
    dir,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(
    `calibrated ${r.machine}: bus of ${r.bus.length} routes, ${r.samples.length} kernel footprints; models in ${machineDir(dir, r.machine)}\n${adapterReportLine(r.adapter)}\n`,
  );
}
