/**
 * The one exporter of calibrated platforms (`locus platform export`, `locus calibrate
 * --export`; issue 23): a platform file whose figures are the performance models of a model
 * folder, so that the simulator predicts the machine they were measured on. Every worker gets,
 * per codelet, one `duration` rule per footprint measured on its kind and, as the catch-all,
 * the rate of a reference footprint (its flops over its mean time; gemm's is also the worker's
 * `rate`); every link the bus calibration measured gets its bandwidth and latency. The worker
 * threads' models (src/cli/calibrate-command.ts) and WebGPU's (src/webgpu/calibrate.ts) differ
 * only in the options below. Cost: one pass over the history per worker.
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { type FootprintRuleSpec, parsePlatformFile } from '../platform/schema.ts';
import { platformToJson } from '../platform/to-json.ts';
import type { HistoryEntry } from './history.ts';
import { ModelStore, machineDir } from './store.ts';

/** How one kind of calibration is exported. */
export interface ExportOptions {
  /** The model folder's machine name (dir/<machine>). */
  machine: string;
  /** The name the bus calibration was saved under (default `machine`). */
  busName?: string;
  /** The exported platform's name. */
  name: string;
  /** The exported platform's description (default: the platform's). */
  description?: string;
  /**
   * Codelets every worker kind must have measured, each at its reference footprint (the
   * export is refused in one line, `message` of the missing 'codelet/kind' list, when one is
   * missing); the other codelets of the history are not exported. Without it every measured
   * codelet is, with its largest measured footprint as the reference.
   */
  required?: {
    codelets: readonly string[];
    footprint: (codelet: string) => string;
    message: (missing: string) => string;
  };
  /** Refuse the export with this one-line message when the folder holds no bus calibration. */
  busRequired?: string;
  /**
   * With several devices, a host bus at the slowest calibrated bandwidth shared by all of
   * them (real runs' copies are made one at a time by the main thread).
   */
  sharedHostBus?: boolean;
}

interface PlatformFile {
  name: string;
  description?: string;
  workers: { kind: 'cpu' | 'gpu'; rate: string; codelets?: Record<string, string | FootprintRuleSpec[]> }[];
  links: { from: string; to: string; bandwidth: string; latency: string }[];
  hostBus?: { bandwidth: string; latency: string };
}

const rateOf = (e: HistoryEntry): string => `${(e.size / e.mean / 1e9).toPrecision(6)}GFlop/s`;

/** The platform file (JSON text) of `platform` with the calibration in model folder `dir`. */
export function exportCalibratedPlatform(platform: Platform, dir: string, o: ExportOptions): string {
  const store = new ModelStore(machineDir(dir, o.machine));
  const history = store.loadHistory();
  const bus = store.loadBus(o.busName ?? o.machine)?.pairs;
  if (bus === undefined && o.busRequired !== undefined)
    throw new LocusError('LOCUS_MODEL_UNCALIBRATED', o.busRequired);
  const file = JSON.parse(platformToJson(platform)) as PlatformFile;
  file.name = o.name;
  if (o.description !== undefined) file.description = o.description;
  const missing: string[] = [];
  for (const w of file.workers) {
    const codelets: Record<string, FootprintRuleSpec[]> = {};
    for (const c of o.required?.codelets ?? history.codelets()) {
      const entries = history.entries(c).filter((e) => e.kind === w.kind && e.count > 0);
      const reference = o.required
        ? history.entry(c, w.kind, o.required.footprint(c))
        : entries.reduce<HistoryEntry | undefined>(
            (x, y) => (x === undefined || y.size > x.size ? y : x),
            undefined,
          );
      if (reference === undefined || reference.count === 0) {
        missing.push(`${c}/${w.kind}`);
        continue;
      }
      const rate = rateOf(reference);
      if (c === 'gemm') w.rate = rate;
      codelets[c] = [
        ...entries.map((e) => ({ footprint: e.footprint.split(',').map(Number), duration: `${e.mean}s` })),
        { rate },
      ];
    }
    w.codelets = codelets;
  }
  if (o.required && missing.length > 0)
    throw new LocusError('LOCUS_MODEL_UNCALIBRATED', o.required.message([...new Set(missing)].join(', ')));
  let slowest = Number.POSITIVE_INFINITY;
  for (const l of file.links) {
    const p = bus?.find((b) => b.src === l.from && b.dst === l.to);
    if (!p) continue;
    if (Number.isFinite(p.bandwidth)) l.bandwidth = `${(p.bandwidth / 1e9).toPrecision(6)}GB/s`;
    l.latency = `${(p.latency * 1e6).toPrecision(4)}us`;
    slowest = Math.min(slowest, p.bandwidth);
  }
  const devices = platform.nodes.filter((n) => n.kind === 'gpu').length;
  if (o.sharedHostBus && devices > 1 && Number.isFinite(slowest))
    file.hostBus = { bandwidth: `${(slowest / 1e9).toPrecision(6)}GB/s`, latency: '0us' };
  const text = `${JSON.stringify(file, null, 2)}\n`;
  parsePlatformFile(text, 'the exported platform'); // a bug here must not produce a bad file
  return text;
}
