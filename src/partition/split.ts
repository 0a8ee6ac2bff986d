/**
 * Splitting a kernel's `ng` work-groups into one contiguous sub-range per device, in device
 * order, from its ratios: boundary `d` is `round(ng * (x_0 + ... + x_{d-1}))`, so rounding is
 * deterministic, the sub-ranges tile `[0, ng)` and a device whose ratio is 0 gets nothing.
 */
import { LocusError } from '../core/types.ts';

/** `[lo, hi)` per device. */
export function splitRange(ng: number, ratios: readonly number[]): [number, number][] {
  let sum = 0;
  for (const r of ratios) {
    if (!(r >= 0) || !Number.isFinite(r))
      throw new LocusError('LOCUS_OPTION_INVALID', `partitioning ratio ${r} is not a finite number >= 0`);
    sum += r;
  }
  if (!(Math.abs(sum - 1) < 1e-6))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `partitioning ratios [${ratios.join(', ')}] sum to ${sum}, not 1`,
    );
  const out: [number, number][] = [];
  let acc = 0;
  let lo = 0;
  for (let d = 0; d < ratios.length; d++) {
    acc += ratios[d]!;
    const hi = d === ratios.length - 1 ? ng : Math.min(ng, Math.max(lo, Math.round(ng * acc)));
    out.push([lo, hi]);
    lo = hi;
  }
  return out;
}
