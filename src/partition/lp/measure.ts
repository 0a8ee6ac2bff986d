/**
 * From an iteration's measurements to the seed's f_d^k (section IV.A): the mean time of one
 * work-group of kernel k on device d, seconds[k][d] / (ng_k * x_d^k).
 *
 * A sub-kernel that did not run (x_d^k = 0, or a measured time of 0 because its share rounded to
 * no work-group) says nothing about its device: f keeps its last measured value. A device that has
 * never run kernel k gets an optimistic prior, the smallest f measured for k on any device: the LP
 * then gives it a share and the next iteration measures it. A pessimistic prior (say, infinity)
 * would never give it work, so it would never be measured; an optimistic one costs at most one
 * unbalanced iteration.
 */
import { LocusError } from '../../core/types.ts';
import type { IterationObservation, SequenceShape } from '../strategy.ts';

/** Throws a LocusError (one line: what, where, how to fix) unless `obs` fits `shape`. */
export function checkObservation(shape: SequenceShape, obs: IterationObservation, strategy: string): void {
  const m = shape.kernels;
  const n = shape.devices;
  const bad = (what: string) =>
    new LocusError(
      'LOCUS_DATA_INVALID',
      `${strategy}: iteration ${obs.iteration}: ${what}; the runner must report one row per kernel (${m}) with one finite, non-negative entry per device (${n})`,
    );
  for (const [name, table] of [
    ['ratios', obs.ratios],
    ['seconds', obs.seconds],
  ] as const) {
    if (table.length !== m) throw bad(`${name} has ${table.length} rows`);
    table.forEach((row, k) => {
      if (row.length !== n) throw bad(`${name}[${k}] has ${row.length} entries`);
      row.forEach((v, d) => {
        if (!(Number.isFinite(v) && v >= 0)) throw bad(`${name}[${k}][${d}] is ${v}`);
      });
    });
  }
  if (obs.workGroups.length !== m) throw bad(`workGroups has ${obs.workGroups.length} entries`);
  obs.workGroups.forEach((g, k) => {
    if (!(Number.isFinite(g) && g > 0)) throw bad(`workGroups[${k}] is ${g}`);
  });
  for (const t of obs.transfers) {
    if (!(Number.isFinite(t.bytes) && t.bytes >= 0) || t.device < 0 || t.device >= n) {
      throw bad(`a transfer (${t.producer} -> ${t.consumer}, device ${t.device}) has ${t.bytes} bytes`);
    }
  }
}

/** The running estimate of f_d^k across iterations. */
export class TimePerGroup {
  /** Last measured f, or undefined where never measured. */
  readonly #f: (number | undefined)[][];

  /** An estimator for `kernels` x `devices` sub-kernels, nothing measured yet. */
  constructor(kernels: number, devices: number) {
    this.#f = Array.from({ length: kernels }, () => new Array<number | undefined>(devices).fill(undefined));
  }

  /** Folds in one iteration's measurements. */
  update(obs: IterationObservation): void {
    this.#f.forEach((row, k) => {
      const ng = obs.workGroups[k]!;
      for (let d = 0; d < row.length; d++) {
        const x = obs.ratios[k]![d]!;
        const s = obs.seconds[k]![d]!;
        if (x > 0 && s > 0) row[d] = s / (ng * x);
      }
    });
  }

  /** f[k][d] for the LP: measured, else the prior described at the top of this file. */
  current(): number[][] {
    return this.#f.map((row) => {
      const known = row.filter((v): v is number => v !== undefined);
      // No device measured this kernel (its work took no time anywhere): equal costs split it evenly.
      const prior = known.length ? Math.min(...known) : 1;
      return row.map((v) => v ?? prior);
    });
  }
}
