/**
 * hfp's planner for tasks of any number of inputs (what its strip packages leave): a
 * dmdar-like "fewest missing data" rule played out before the run against a simulated resident
 * set per GPU, so the order it produces is the one Belady's eviction then serves at run time.
 *
 * State per GPU k: its simulated resident set (at most `capacity[k]` bytes), and for every task
 * not planned yet `miss[k][t]`, its inputs not resident on k. A step plans on the GPU with the
 * least planned work:
 *   1. a task with nothing missing (a stack per GPU, entries checked lazily), else
 *   2. the datum D that completes the most tasks (`one[k][D]`: tasks whose only missing input
 *      on k is D; ties: more remaining readers): D is loaded, and step 1 then runs its tasks;
 *      this is HFP's streamed datum generalised to k inputs, else
 *   3. the task with the fewest missing inputs (ties: its missing data have more remaining
 *      readers; tasks another GPU holds every input of only if no other is left): all its
 *      missing inputs are loaded.
 * A load into a full set evicts the resident datum whose remaining readers are the least close
 * to ready on k (sum over readers of 2^-miss; ties: least recently loaded or used).
 * The counts are updated incrementally on each load, eviction and planned task (readers of the
 * datum only), so a step costs O(readers x inputs) plus a scan of the data in case 2 and of
 * the tasks in case 3 (rare: only when no task is one datum away) and of the resident set on
 * an eviction: O(loads x (D + resident x readers)) in all, D the data some task reads (the
 * scans skip the others: a matrix product's outputs, N^2 of them against 2N inputs).
 */
import { readerRows } from './pack-inputs.ts';

/** Pin levels while loading: never evicted, evicted last. */
const HARD = 2;
const SOFT = 1;
/** Added to a soft-pinned datum's eviction value: above any sum of reader weights. */
const SOFT_COST = 2 ** 40;

/** The task set to plan: local tasks 0..n-1 with their inputs (handle ids) in CSR form. */
export interface GreedyInput {
  /** Task count. */
  n: number;
  /** Inputs of local task t: `inputs[start[t] .. start[t + 1])`. */
  start: Int32Array;
  inputs: Int32Array;
  /** Bytes per handle id. */
  size: ArrayLike<number>;
  /** Handle count. */
  handles: number;
  /** Bytes each GPU may keep resident for inputs. */
  capacity: number[];
  /** Expected duration of local task t on GPU k. */
  duration: (t: number, k: number) => number;
  /** Work already planned on each GPU (its packages), in the units of `duration`. */
  work: number[];
}

/** Per GPU, the local tasks in planned order; tasks that cannot fit anywhere are left out. */
export interface GreedyPlan {
  order: number[][];
  /** Loads the simulation made (inputs brought to a GPU), in bytes. */
  loadedBytes: number;
}

/** Plans `input`'s tasks onto its GPUs (see the file's comment). */
export function planGreedy(input: GreedyInput): GreedyPlan {
  const { n, start, inputs, size, handles: H, capacity } = input;
  const K = capacity.length;
  const work = [...input.work];
  const order: number[][] = capacity.map(() => []);
  const planned = new Uint8Array(n);
  let left = 0;
  for (let t = 0; t < n; t++) {
    let bytes = 0;
    for (let a = start[t]!; a < start[t + 1]!; a++) bytes += size[inputs[a]!]!;
    // A task whose inputs do not fit on every GPU is left to the run-time scheduler.
    if (!capacity.every((c) => bytes <= c)) {
      planned[t] = 2;
      continue;
    }
    left++;
  }
  // Each datum's readers among the tasks that fit, in task order: rdList[rdStart[h] .. rdStart[h + 1]).
  const { start: rdStart, list: rdList } = readerRows(n, start, inputs, H, planned);
  const remainingReaders = new Int32Array(H);
  for (let h = 0; h < H; h++) remainingReaders[h] = rdStart[h + 1]! - rdStart[h]!;
  // The data some task reads, in index order: the only ones ever resident or completing tasks.
  const data: number[] = [];
  for (let h = 0; h < H; h++) if (remainingReaders[h]! > 0) data.push(h);
  const resident = capacity.map(() => new Uint8Array(H));
  const used = capacity.map(() => 0);
  const stamp = capacity.map(() => new Float64Array(H));
  let clock = 0;
  const miss = capacity.map(() => new Int32Array(n));
  const one = capacity.map(() => new Int32Array(H));
  const ready: number[][] = capacity.map(() => []);
  const pinned = new Uint8Array(H);
  // val[k][h]: sum over h's unplanned readers t of 2^-miss[k][t] (the eviction value), kept up to date.
  const val = capacity.map(() => new Float64Array(H));
  const shift = (k: number, t: number, delta: number): void => {
    const v = val[k]!;
    for (let a = start[t]!; a < start[t + 1]!; a++) v[inputs[a]!]! += delta;
  };
  let loadedBytes = 0;
  for (let k = 0; k < K; k++)
    for (let t = 0; t < n; t++) {
      const m = start[t + 1]! - start[t]!;
      miss[k]![t] = m;
      if (planned[t] !== 0) continue;
      shift(k, t, 2 ** -m);
      if (m === 0) ready[k]!.push(t);
      else if (m === 1) one[k]![inputs[start[t]!]!]!++;
    }
  /** The only input of t not resident on k (t has miss 1). */
  const lone = (k: number, t: number): number => {
    const r = resident[k]!;
    for (let a = start[t]!; a < start[t + 1]!; a++) if (r[inputs[a]!] === 0) return inputs[a]!;
    return -1;
  };
  const load = (k: number, d: number): void => {
    const r = resident[k]!;
    const s = size[d]!;
    while (used[k]! + s > capacity[k]!) evict(k);
    r[d] = 1;
    used[k]! += s;
    stamp[k]![d] = ++clock;
    loadedBytes += s;
    const m = miss[k]!;
    const o = one[k]!;
    for (let i = rdStart[d]!; i < rdStart[d + 1]!; i++) {
      const t = rdList[i]!;
      if (planned[t] !== 0) continue;
      const before = m[t]!;
      m[t] = before - 1;
      shift(k, t, 2 ** -before);
      if (before === 1) {
        o[d]!--;
        ready[k]!.push(t);
      } else if (before === 2) o[lone(k, t)]!++;
    }
  };
  const evict = (k: number): void => {
    const r = resident[k]!;
    const m = miss[k]!;
    let victim = -1;
    let best = Number.POSITIVE_INFINITY;
    for (const h of data) {
      if (r[h] === 0 || pinned[h] === HARD) continue;
      // A soft-pinned datum (input of the tasks the load completes) goes only when nothing else can.
      const v = (pinned[h] === SOFT ? SOFT_COST : 0) + val[k]![h]!;
      if (v < best || (v === best && stamp[k]![h]! < stamp[k]![victim]!)) {
        best = v;
        victim = h;
      }
    }
    if (victim < 0) throw new Error('hfp planner: nothing to evict (capacity below one task)');
    r[victim] = 0;
    used[k]! -= size[victim]!;
    const o = one[k]!;
    for (let i = rdStart[victim]!; i < rdStart[victim + 1]!; i++) {
      const t = rdList[i]!;
      if (planned[t] !== 0) continue;
      const before = m[t]!;
      m[t] = before + 1;
      shift(k, t, -(2 ** -(before + 1)));
      if (before === 0) o[victim]!++;
      else if (before === 1) {
        // The other missing input z was t's only one; now t misses two.
        r[victim] = 1;
        const z = lone(k, t);
        r[victim] = 0;
        o[z]!--;
      }
    }
  };
  const plan = (k: number, t: number): void => {
    planned[t] = 1;
    left--;
    order[k]!.push(t);
    work[k]! += input.duration(t, k);
    for (let a = start[t]!; a < start[t + 1]!; a++) {
      const h = inputs[a]!;
      remainingReaders[h]!--;
      stamp[k]![h] = ++clock;
    }
    for (let j = 0; j < K; j++) {
      if (miss[j]![t] === 1) one[j]![lone(j, t)]!--;
      shift(j, t, -(2 ** -miss[j]![t]!));
    }
  };
  while (left > 0) {
    let k = 0;
    for (let j = 1; j < K; j++) if (work[j]! < work[k]!) k = j;
    // 1. A task with nothing missing.
    const rk = ready[k]!;
    let t = -1;
    while (rk.length > 0) {
      const c = rk.pop()!;
      if (planned[c] === 0 && miss[k]![c] === 0) {
        t = c;
        break;
      }
    }
    if (t >= 0) {
      plan(k, t);
      continue;
    }
    // 2. The datum that completes the most tasks.
    const o = one[k]!;
    let d = -1;
    for (const h of data) {
      if (o[h]! <= 0) continue;
      if (d < 0 || o[h]! > o[d]! || (o[h] === o[d] && remainingReaders[h]! > remainingReaders[d]!)) d = h;
    }
    if (d >= 0) {
      const soft: number[] = [];
      for (let i = rdStart[d]!; i < rdStart[d + 1]!; i++) {
        const c = rdList[i]!;
        if (planned[c] !== 0 || miss[k]![c] !== 1) continue;
        for (let a = start[c]!; a < start[c + 1]!; a++) {
          const h = inputs[a]!;
          if (pinned[h] === 0 && resident[k]![h] === 1) {
            pinned[h] = SOFT;
            soft.push(h);
          }
        }
      }
      pinned[d] = HARD;
      load(k, d);
      pinned[d] = 0;
      for (const h of soft) pinned[h] = 0;
      continue;
    }
    // 3. The task with the fewest missing inputs.
    const m = miss[k]!;
    let pick = -1;
    let pickScore = -1;
    for (let pass = 0; pass < 2 && pick < 0; pass++)
      for (let c = 0; c < n; c++) {
        if (planned[c] !== 0) continue;
        let score = 0;
        if (pick >= 0 && m[c]! > m[pick]!) continue;
        // First pass: leave a task another GPU holds every input of to that GPU.
        if (pass === 0 && miss.some((mj, j) => j !== k && mj[c] === 0)) continue;
        for (let a = start[c]!; a < start[c + 1]!; a++)
          if (resident[k]![inputs[a]!] === 0) score += remainingReaders[inputs[a]!]!;
        if (pick < 0 || m[c]! < m[pick]! || score > pickScore) {
          pick = c;
          pickScore = score;
        }
      }
    const missing: number[] = [];
    for (let a = start[pick]!; a < start[pick + 1]!; a++) {
      const h = inputs[a]!;
      pinned[h] = HARD;
      if (resident[k]![h] === 0) missing.push(h);
    }
    for (const h of missing) load(k, h);
    for (let a = start[pick]!; a < start[pick + 1]!; a++) pinned[inputs[a]!] = 0;
  }
  return { order, loadedBytes };
}
