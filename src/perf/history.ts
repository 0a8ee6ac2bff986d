/**
 * History performance models (seed 001 section III.B, StarPU's history-based models): per
 * codelet, worker kind and data footprint, the count, mean and spread of the measured task
 * durations, kept as Welford running sums so that samples can be added one at a time and two
 * sets of statistics merged exactly.
 */

/** One measured task duration. */
export interface Sample {
  codelet: string;
  kind: 'cpu' | 'gpu';
  /** Key of the task's data sizes, built by the caller (e.g. "524288,524288,524288"). */
  footprint: string;
  /** The regression variable: the task's flop count (or bytes when it has no flops). */
  size: number;
  /** Measured duration, seconds. */
  seconds: number;
}

/**
 * The statistics of one (codelet, kind, footprint): `count` samples of mean `mean` and sum of
 * squared deviations `m2` (Welford's running sums); std = sqrt(m2 / (count - 1)) for count > 1.
 */
export interface HistoryEntry {
  kind: 'cpu' | 'gpu';
  footprint: string;
  /** Regression variable of the footprint (the last recorded wins if it ever changes). */
  size: number;
  count: number;
  mean: number;
  m2: number;
}

/** Sample standard deviation of an entry: sqrt(m2 / (count - 1)), 0 with fewer than 2 samples. */
export function entryStd(entry: HistoryEntry): number {
  return entry.count > 1 ? Math.sqrt(Math.max(0, entry.m2) / (entry.count - 1)) : 0;
}

/**
 * Chan, Golub and LeVeque's exact combination of two sets of statistics (a into which b is
 * merged, in place): n = na + nb, delta = mb - ma, mean = ma + delta * nb / n,
 * m2 = m2a + m2b + delta^2 * na * nb / n.
 */
export function mergeEntry(a: HistoryEntry, b: HistoryEntry): void {
  if (b.count === 0) return;
  a.size = b.size;
  if (a.count === 0) {
    a.count = b.count;
    a.mean = b.mean;
    a.m2 = b.m2;
    return;
  }
  const n = a.count + b.count;
  const delta = b.mean - a.mean;
  a.mean += (delta * b.count) / n;
  a.m2 += b.m2 + (delta * delta * a.count * b.count) / n;
  a.count = n;
}

/** Key of an entry within its codelet. */
const keyOf = (kind: string, footprint: string) => `${kind}:${footprint}`;

/** Order of entries in listings and files: kind, then size, then footprint. */
function compareEntries(x: HistoryEntry, y: HistoryEntry): number {
  if (x.kind !== y.kind) return x.kind < y.kind ? -1 : 1;
  if (x.size !== y.size) return x.size - y.size;
  return x.footprint < y.footprint ? -1 : x.footprint > y.footprint ? 1 : 0;
}

/**
 * The history models of any number of codelets. Lookups return copies, so callers cannot
 * change the model's statistics by accident.
 */
export class HistoryModel {
  private readonly byCodelet = new Map<string, Map<string, HistoryEntry>>();

  /**
   * Adds one sample (Welford 1962): count += 1; delta = x - mean; mean += delta / count;
   * m2 += delta * (x - mean). Throws RangeError on a negative or non-finite duration or size.
   */
  record(s: Sample): void {
    if (!(Number.isFinite(s.seconds) && s.seconds >= 0)) {
      throw new RangeError(`sample of ${s.codelet} has duration ${s.seconds}: expected a finite number >= 0`);
    }
    if (!(Number.isFinite(s.size) && s.size >= 0)) {
      throw new RangeError(`sample of ${s.codelet} has size ${s.size}: expected a finite number >= 0`);
    }
    const e = this.slot(s.codelet, s.kind, s.footprint);
    e.size = s.size;
    e.count += 1;
    const delta = s.seconds - e.mean;
    e.mean += delta / e.count;
    e.m2 += delta * (s.seconds - e.mean);
  }

  /** Merges another set of statistics of `codelet` into this model exactly (see mergeEntry). */
  merge(codelet: string, entries: Iterable<HistoryEntry>): void {
    for (const b of entries) {
      if (b.count > 0) mergeEntry(this.slot(codelet, b.kind, b.footprint), b);
    }
  }

  /** Merges every codelet of another model into this one. */
  mergeModel(other: HistoryModel): void {
    for (const codelet of other.codelets()) this.merge(codelet, other.entries(codelet));
  }

  /** The statistics of (codelet, kind, footprint), or undefined when never measured. */
  entry(codelet: string, kind: 'cpu' | 'gpu', footprint: string): HistoryEntry | undefined {
    const e = this.byCodelet.get(codelet)?.get(keyOf(kind, footprint));
    return e === undefined ? undefined : { ...e };
  }

  /** The codelets with at least one entry, sorted. */
  codelets(): string[] {
    return [...this.byCodelet.keys()].sort();
  }

  /** The entries of a codelet, sorted by kind, size and footprint ([] when unknown). */
  entries(codelet: string): HistoryEntry[] {
    const m = this.byCodelet.get(codelet);
    return m === undefined ? [] : [...m.values()].map((e) => ({ ...e })).sort(compareEntries);
  }

  /** Sample standard deviation of an entry (see entryStd). */
  std(entry: HistoryEntry): number {
    return entryStd(entry);
  }

  /** The live entry of (codelet, kind, footprint), created empty when missing. */
  private slot(codelet: string, kind: 'cpu' | 'gpu', footprint: string): HistoryEntry {
    let m = this.byCodelet.get(codelet);
    if (m === undefined) {
      m = new Map();
      this.byCodelet.set(codelet, m);
    }
    const key = keyOf(kind, footprint);
    let e = m.get(key);
    if (e === undefined) {
      e = { kind, footprint, size: 0, count: 0, mean: 0, m2: 0 };
      m.set(key, e);
    }
    return e;
  }
}
