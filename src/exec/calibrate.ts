/**
 * Calibration of a machine for real runs (seed 001 III.B; StarPU measures the bus once and
 * tunes its codelet models by running them):
 *
 * - the bus: for every ordered pair of memory nodes with a direct route, copies of several
 *   sizes between shared buffers, timed as the real driver does them (the copy, then, with
 *   `throttle`, the hold to the route's latency and bandwidth); latency and bandwidth come
 *   from the least-squares line t = latency + bytes / bandwidth;
 * - the codelets: the real applications (Cholesky, LU, GEMM) run once unrecorded (the worker
 *   threads' JIT warms up), then in calibration mode, where the dm schedulers send each task
 *   to a worker kind whose model for it has fewer than `minSamples` measurements, until every
 *   (codelet, worker kind, footprint) has them.
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { realMachineName } from '../perf/machine-name.ts';
import type { BusPair } from '../perf/model.ts';
import { fitLinear } from '../perf/regression.ts';
import { ModelStore, machineDir } from '../perf/store.ts';
import { runWorkload } from './run-workload.ts';
import { Runtime } from './runtime.ts';

/** Copy sizes the bus calibration times (bytes). */
export const BUS_SIZES = [4096, 65536, 1 << 20, 8 << 20] as const;

/** Times copies between every connected pair of nodes; see the file comment. */
export function calibrateBus(
  platform: Platform,
  options: { throttle?: boolean; repeats?: number } = {},
): BusPair[] {
  const repeats = options.repeats ?? 7;
  const nn = platform.nodes.length;
  const pairs: BusPair[] = [];
  const buffers = BUS_SIZES.map((s) => [
    new Uint8Array(new SharedArrayBuffer(s)),
    new Uint8Array(new SharedArrayBuffer(s)),
  ]);
  for (let src = 0; src < nn; src++) {
    for (let dst = 0; dst < nn; dst++) {
      const route = platform.routes[src * nn + dst];
      if (src === dst || !route) continue;
      const latency = route.reduce((s, l) => s + platform.links[l]!.latency, 0);
      const bandwidth = Math.min(...route.map((l) => platform.links[l]!.bandwidth));
      const xs: number[] = [];
      const ys: number[] = [];
      BUS_SIZES.forEach((bytes, i) => {
        const [a, b] = buffers[i]!;
        const times: number[] = [];
        for (let r = 0; r < repeats + 2; r++) {
          const t0 = performance.now();
          b!.set(a!);
          if (options.throttle) {
            const until = t0 + (latency + bytes / bandwidth) * 1000;
            while (performance.now() < until) {
              // the driver holds a throttled copy's completion until this time
            }
          }
          const dt = (performance.now() - t0) / 1000;
          if (r >= 2) times.push(dt); // the first copies touch fresh pages
        }
        times.sort((x, y) => x - y);
        xs.push(bytes);
        ys.push(times[times.length >> 1]!);
      });
      const fit = fitLinear(xs, ys);
      pairs.push({
        src: platform.nodes[src]!.name,
        dst: platform.nodes[dst]!.name,
        bandwidth: fit.a > 0 ? 1 / fit.a : Number.POSITIVE_INFINITY,
        latency: Math.max(0, fit.b),
        samples: xs.length * repeats,
      });
    }
  }
  return pairs;
}

/** What `locus calibrate` does. */
export interface CalibrateOptions {
  platform: Platform;
  /** Tile sizes to calibrate the kernels at. */
  tileSizes: number[];
  /** Measurements needed per (codelet, worker kind, footprint) (default 10). */
  minSamples?: number;
  /** Hold copies to the platform's link speed (emulated device links). */
  throttle?: boolean;
  /** The model folder (default ModelStore.defaultDir()). */
  dir?: string;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Stops the calibration. */
  signal?: AbortSignal;
}

/** The codelets the real applications declare. */
export const APP_CODELETS = ['potrf', 'trsm', 'syrk', 'gemm', 'getrf'] as const;

/** Calibrates the bus and the applications' codelets on this machine; returns a summary. */
export async function calibrate(o: CalibrateOptions): Promise<{ bus: BusPair[]; runs: number }> {
  const log = o.log ?? (() => {});
  const store = new ModelStore(
    machineDir(o.dir ?? ModelStore.defaultDir(), realMachineName(o.platform.name)),
  );
  const minSamples = o.minSamples ?? 10;
  // Refuse a store this Locus cannot read before measuring anything (a run only warns).
  store.loadHistory();
  store.loadBus(o.platform.name);
  const bus = calibrateBus(o.platform, { throttle: o.throttle });
  store.saveBus(o.platform.name, bus);
  for (const p of bus) {
    log(
      `bus ${p.src} -> ${p.dst}: ${(p.bandwidth / 1e9).toFixed(2)} GB/s, latency ${(p.latency * 1e6).toFixed(1)} us`,
    );
  }
  const kinds = [...new Set(o.platform.workers.map((w) => w.kind))];
  const rt = await Runtime.create({
    platform: o.platform,
    scheduler: 'dmda',
    calibrate: true,
    minSamples,
    throttle: o.throttle,
    perfModelDir: o.dir,
    signal: o.signal,
  });
  let runs = 0;
  try {
    for (const n of o.tileSizes) {
      // Warm-up, not recorded: the worker threads' JIT compiles the kernels on their first
      // calls, which would weigh on the means of the codelets that run few times per run.
      rt.setPerfModels('read');
      await runWorkload('cholesky', { tiles: 4, tileSize: n, runtime: rt });
      await runWorkload('lu', { tiles: 4, tileSize: n, runtime: rt });
      await runWorkload('gemm', { tiles: 2, tileSize: n, runtime: rt });
      rt.setPerfModels('update');
      for (let round = 0; round < 50; round++) {
        const missing = missingSamples(store, n, kinds, minSamples);
        if (missing.length === 0) break;
        log(
          `tile ${n}: ${missing.length} models below ${minSamples} samples (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''})`,
        );
        const tiles = 4;
        await runWorkload('cholesky', { tiles, tileSize: n, runtime: rt });
        await runWorkload('lu', { tiles, tileSize: n, runtime: rt });
        await runWorkload('gemm', { tiles: 2, tileSize: n, runtime: rt });
        runs += 3;
      }
      const left = missingSamples(store, n, kinds, minSamples);
      if (left.length > 0)
        throw new LocusError(
          'LOCUS_MODEL_UNCALIBRATED',
          `calibration of tile ${n} did not converge: ${left.join(', ')} still lack samples`,
        );
    }
  } finally {
    await rt.close();
  }
  return { bus, runs };
}

/** "codelet/kind" names whose model at tile edge n has fewer than minSamples samples. */
function missingSamples(store: ModelStore, n: number, kinds: string[], minSamples: number): string[] {
  const history = store.loadHistory();
  const out: string[] = [];
  for (const codelet of APP_CODELETS) {
    const tiles = codelet === 'gemm' ? 3 : codelet === 'potrf' || codelet === 'getrf' ? 1 : 2;
    const footprint = Array.from({ length: tiles }, () => n * n * 8).join(',');
    for (const kind of kinds) {
      const e = history.entry(codelet, kind as 'cpu' | 'gpu', footprint);
      if ((e?.count ?? 0) < minSamples) out.push(`${codelet}/${kind}`);
    }
  }
  return out;
}
