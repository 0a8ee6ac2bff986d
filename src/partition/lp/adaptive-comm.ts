/**
 * The `adaptive-comm` strategy (seed 003 section IV.B, "Adaptive w/ Comm"): the LP of IV.A plus
 * the host-to-device and device-to-host transfer times between data-dependent kernels.
 *
 * After every iteration, for every dependent pair (h, k), h != k, every device d and both
 * directions, one sample: x = S_d evaluated at the ratios used, y = the bytes the runner moved for
 * that pair and device (0 when none). The coefficient a_d^{h,k} is the slope of the least-squares
 * fit of all samples so far (regression.ts); the LP's coefficient is a_d^{h,k} * Omega_d, with
 * Omega_d from SequenceShape's seconds per byte. Pairs come from SequenceShape.dependencies and
 * from any attributed transfer seen (producer -1, initial inputs, and h = k, a kernel reading its
 * own writes, never depend on the ratios' alignment and are left out, as libsplit does).
 */
import type { IterationObservation, PartitionStrategy, SequenceShape } from '../strategy.ts';
import { type AdaptiveOptions, decide, uniformRatios } from './adaptive.ts';
import { checkObservation, TimePerGroup } from './measure.ts';
import { CoefficientSamples } from './regression.ts';
import { buildSystem, type PairCoefficients, transferVolume } from './system.ts';

/** The samples of one pair's coefficients, per direction and device. */
interface PairSamples {
  readonly producer: number;
  readonly consumer: number;
  readonly h2d: CoefficientSamples[];
  readonly d2h: CoefficientSamples[];
}

/** The regression state of adaptive-comm: one CoefficientSamples per pair, direction and device. */
export class TransferCoefficients {
  readonly #pairs = new Map<number, PairSamples>();
  readonly #m: number;
  readonly #n: number;

  /** Tracks the pairs of `shape.dependencies` (more are added as transfers reveal them). */
  constructor(shape: SequenceShape) {
    this.#m = shape.kernels;
    this.#n = shape.devices;
    for (const dep of shape.dependencies) this.#pair(dep.producer, dep.consumer);
  }

  #pair(h: number, k: number): PairSamples | undefined {
    if (h === k || h < 0 || h >= this.#m || k < 0 || k >= this.#m) return undefined;
    const key = h * this.#m + k;
    let p = this.#pairs.get(key);
    if (!p) {
      const make = () => Array.from({ length: this.#n }, () => new CoefficientSamples());
      p = { producer: h, consumer: k, h2d: make(), d2h: make() };
      this.#pairs.set(key, p);
    }
    return p;
  }

  /** Adds the samples of one iteration. */
  update(obs: IterationObservation): void {
    const bytes = new Map<string, number>();
    for (const t of obs.transfers) {
      if (!this.#pair(t.producer, t.consumer)) continue;
      const key = `${t.producer},${t.consumer},${t.device},${t.direction}`;
      bytes.set(key, (bytes.get(key) ?? 0) + t.bytes);
    }
    for (const p of this.#pairs.values()) {
      const xh = obs.ratios[p.producer]!;
      const xk = obs.ratios[p.consumer]!;
      for (const dir of ['h2d', 'd2h'] as const) {
        for (let d = 0; d < this.#n; d++) {
          const x = transferVolume(dir, d, xh, xk);
          p[dir][d]!.add(x, bytes.get(`${p.producer},${p.consumer},${d},${dir}`) ?? 0);
        }
      }
    }
  }

  /** The fitted a_d^{h,k} (bytes per unit of S_d) of every pair, per direction and device. */
  bytesPerUnit(): { producer: number; consumer: number; h2d: number[]; d2h: number[] }[] {
    return [...this.#pairs.values()].map((p) => ({
      producer: p.producer,
      consumer: p.consumer,
      h2d: p.h2d.map((s) => s.coefficient()),
      d2h: p.d2h.map((s) => s.coefficient()),
    }));
  }

  /** The LP's coefficients a_d^{h,k} * Omega_d, in seconds per unit of S_d. */
  lpCoefficients(shape: SequenceShape): PairCoefficients[] {
    return this.bytesPerUnit().map((p) => ({
      producer: p.producer,
      consumer: p.consumer,
      h2d: p.h2d.map((a, d) => a * shape.hostToDeviceSecondsPerByte[d]!),
      d2h: p.d2h.map((a, d) => a * shape.deviceToHostSecondsPerByte[d]!),
    }));
  }
}

/** The `adaptive-comm` strategy: computation and transfer times. */
export function adaptiveCommStrategy(options: AdaptiveOptions = {}): PartitionStrategy {
  let times: TimePerGroup | undefined;
  let coefficients: TransferCoefficients | undefined;
  return {
    name: 'adaptive-comm',
    initial(shape) {
      times = new TimePerGroup(shape.kernels, shape.devices);
      coefficients = new TransferCoefficients(shape);
      return uniformRatios(shape);
    },
    next(shape, observation) {
      checkObservation(shape, observation, 'adaptive-comm');
      times ??= new TimePerGroup(shape.kernels, shape.devices);
      coefficients ??= new TransferCoefficients(shape);
      times.update(observation);
      coefficients.update(observation);
      const f = times.current();
      const c = coefficients;
      return decide(
        () => buildSystem({ f, workGroups: observation.workGroups, pairs: c.lpCoefficients(shape) }),
        observation.iteration,
        options,
      );
    },
  };
}
