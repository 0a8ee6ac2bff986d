/**
 * hfp's planner for graphs of independent accumulation chains (the tiled 3-D matrix product:
 * the N tasks GEMM(i, j, k) of one C[i, j] form a chain through C[i, j] along k, and read
 * A[i, k] and B[k, j], which no task writes). Such a graph has dependencies, so the whole-set
 * packing of independent tasks does not apply, yet every dependency stays inside a chain and
 * the whole future is known: hfp packs *whole chains*.
 *
 * A package is a set of chains planned on one GPU *step-major*: the first task of each of its
 * chains, then the second of each, and so on. Its accumulators stay resident for the whole
 * package; at step s it needs the step-s inputs of its chains only (on GEMM, for a package of
 * p x q C blocks: p blocks of A's column s and q of B's row s, p + q loads for p q tasks).
 * Its footprint is therefore
 *
 *   footprint(P) = acc(P) + STEP_COPIES x max_s stepInputs_s(P)                  (1)
 *
 * (STEP_COPIES = 1: Belady's rule drops step s's inputs as step s + 1's arrive; hfp keeps two
 * task footprints free besides, for the loads in flight; counting two copies measured worse),
 * and it loads acc(P) + inputs(P) bytes, inputs(P) the union of its chains' inputs. On GEMM that is
 * p q + N (p + q) blocks for p q N tasks: the blocked product of the I/O lower bounds, against
 * N (1 + 1/q) per chain for a strip of C.
 *
 * Chains join a package greedily, compared lexicographically on
 *   c1(c) = (acc(c) + |inputs(c) \ inputs(P)|) / tasks(c)     (new bytes per task, lower first)
 *   c2(c) = unpacked chains c' != c whose inputs the package would then cover in full and does
 *           not yet (chains c would make free; higher first)
 * c2 grows a p x q block along its shorter side (a new row of q blocks frees q - 1 more chains,
 * a new column p - 1): the package stays square, which minimises p + q for p q. A package
 * starts from the unpacked chain whose inputs the fewest unpacked chains share (a corner of
 * what is left) and goes to the GPU with the least planned work; it stops when (1) would
 * exceed the GPU's budget or when it holds what that GPU still lacks of its share of the work
 * (total / K): past that cap it takes only chains that load no new input (a row or column
 * being completed), up to SHARE_SLACK over the cap. So every GPU gets the same work, in as few
 * packages as the memory allows, with no small leftover package.
 *
 * Cost: per chain joining a package, O(unpacked chains) for c1 (the shared bytes are updated
 * incrementally, O(readers) per input joining the package) plus, for the chains tied on c1,
 * O(new inputs x their readers) for c2: O(C^2) and up for C chains; on GEMM N = 17 to 24 (289
 * to 576 chains) 0.1 to 0.7 s on a loaded 2-core machine.
 */

/** Copies of a step's inputs a package's footprint (1) counts. */
export const STEP_COPIES = 1;

/** A package at its cap may go this far over it with chains that load no new input. */
export const SHARE_SLACK = 0.1;

/** The chains of a graph: tasks grouped by the one datum each writes, in dependency order. */
export interface Chains {
  /** Chain count. */
  count: number;
  /** Tasks of chain c, in order: `tasks[start[c] .. start[c + 1])`. */
  start: Int32Array;
  tasks: Int32Array;
  /** The datum chain c writes (its accumulator). */
  acc: Int32Array;
  /** Per task: its chain and its position in it. */
  chainOf: Int32Array;
  stepOf: Int32Array;
  /** Inputs (read-only data) of task t: `inputs[inStart[t] .. inStart[t + 1])`, distinct. */
  inStart: Int32Array;
  inputs: Int32Array;
}

/** The graph view findChains reads (a TaskGraph has it). */
export interface ChainSource {
  readonly taskCount: number;
  readonly handleCount: number;
  readonly accessStart: { readonly data: ArrayLike<number> };
  readonly accessHandle: { readonly data: ArrayLike<number> };
  readonly accessMode: { readonly data: ArrayLike<number> };
  readonly succHead: { readonly data: ArrayLike<number> };
  readonly edgeTarget: { readonly data: ArrayLike<number> };
  readonly edgeNext: { readonly data: ArrayLike<number> };
}

const WRITE = 2;

/**
 * The graph's chains when it is made of them: every task writes exactly one datum, no datum
 * is both written by a task and read by another without writing it, and every dependency
 * joins two tasks writing the same datum. Otherwise undefined (Cholesky, LU, stencils).
 */
export function findChains(g: ChainSource): Chains | undefined {
  const T = g.taskCount;
  const H = g.handleCount;
  const as = g.accessStart.data;
  const ah = g.accessHandle.data;
  const am = g.accessMode.data;
  if (T === 0) return undefined;
  const accOf = new Int32Array(T);
  const written = new Uint8Array(H);
  for (let t = 0; t < T; t++) {
    let acc = -1;
    for (let a = as[t]!; a < as[t + 1]!; a++) {
      if ((am[a]! & WRITE) === 0) continue;
      if (acc >= 0 && acc !== ah[a]!) return undefined;
      acc = ah[a]!;
    }
    if (acc < 0) return undefined;
    accOf[t] = acc;
    written[acc] = 1;
  }
  const inStart = new Int32Array(T + 1);
  const flat: number[] = [];
  for (let t = 0; t < T; t++) {
    for (let a = as[t]!; a < as[t + 1]!; a++) {
      const h = ah[a]!;
      if (h === accOf[t]) continue;
      if (written[h] === 1) return undefined;
      let dup = false;
      for (let i = inStart[t]!; i < flat.length && !dup; i++) dup = flat[i] === h;
      if (!dup) flat.push(h);
    }
    inStart[t + 1] = flat.length;
  }
  for (let t = 0; t < T; t++)
    for (let e = g.succHead.data[t]!; e >= 0; e = g.edgeNext.data[e]!)
      if (accOf[g.edgeTarget.data[e]!] !== accOf[t]) return undefined;
  // Chains in order of their first task; tasks in submission order (their dependency order).
  const chainOfAcc = new Int32Array(H).fill(-1);
  const acc: number[] = [];
  const length: number[] = [];
  for (let t = 0; t < T; t++) {
    const h = accOf[t]!;
    if (chainOfAcc[h]! < 0) {
      chainOfAcc[h] = acc.length;
      acc.push(h);
      length.push(0);
    }
    length[chainOfAcc[h]!]!++;
  }
  const C = acc.length;
  const start = new Int32Array(C + 1);
  for (let c = 0; c < C; c++) start[c + 1] = start[c]! + length[c]!;
  const fill = start.slice(0, C);
  const tasks = new Int32Array(T);
  const chainOf = new Int32Array(T);
  const stepOf = new Int32Array(T);
  for (let t = 0; t < T; t++) {
    const c = chainOfAcc[accOf[t]!]!;
    chainOf[t] = c;
    stepOf[t] = fill[c]! - start[c]!;
    tasks[fill[c]!++] = t;
  }
  return {
    count: C,
    start,
    tasks,
    acc: Int32Array.from(acc),
    chainOf,
    stepOf,
    inStart,
    inputs: Int32Array.from(flat),
  };
}

/** What planChains needs besides the chains. */
export interface ChainPlanInput {
  chains: Chains;
  /** Bytes per handle id; handle count. */
  size: ArrayLike<number>;
  handles: number;
  /** Bytes each GPU may fill with a package's footprint (1). */
  budget: number[];
  /** Expected duration of task t (on any GPU: the GPUs are taken as alike for the shares). */
  duration: (t: number) => number;
}

/** The plan: per GPU, its packages' tasks in order (step-major within a package). */
export interface ChainPlan {
  order: Int32Array[];
  /** Per GPU, its chains in plan order (the order of their tasks at every step). */
  chainsOf: Int32Array[];
  /** Packages built, and bytes they load (accumulators and the union of inputs, each once). */
  packages: number;
  loadedBytes: number;
}

/**
 * Packs the chains onto the GPUs (see the file's comment); undefined when a chain alone does
 * not fit a GPU's budget.
 */
export function planChains(input: ChainPlanInput): ChainPlan | undefined {
  const { chains, size, handles: H, budget } = input;
  const K = budget.length;
  const C = chains.count;
  const { start, tasks, acc, inStart, inputs } = chains;
  // Per chain: distinct inputs (CSR), their bytes, its work; per input: the chains reading it.
  const cStart = new Int32Array(C + 1);
  const cIn: number[] = [];
  const seen = new Int32Array(H).fill(-1);
  const inBytes = new Float64Array(C);
  const work = new Float64Array(C);
  let maxLen = 0;
  for (let c = 0; c < C; c++) {
    maxLen = Math.max(maxLen, start[c + 1]! - start[c]!);
    for (let i = start[c]!; i < start[c + 1]!; i++) {
      const t = tasks[i]!;
      work[c]! += input.duration(t);
      for (let a = inStart[t]!; a < inStart[t + 1]!; a++) {
        const h = inputs[a]!;
        if (seen[h] === c) continue;
        seen[h] = c;
        cIn.push(h);
        inBytes[c]! += size[h]!;
      }
    }
    cStart[c + 1] = cIn.length;
  }
  const rCount = new Int32Array(H + 1);
  for (const h of cIn) rCount[h + 1]!++;
  for (let h = 0; h < H; h++) rCount[h + 1]! += rCount[h]!;
  const rList = new Int32Array(cIn.length);
  const rFill = rCount.slice(0, H);
  for (let c = 0; c < C; c++) for (let i = cStart[c]!; i < cStart[c + 1]!; i++) rList[rFill[cIn[i]!]!++] = c;
  // A chain alone must fit every GPU.
  const stepBytes = new Float64Array(maxLen);
  const stepSeen = new Map<number, number>();
  const stepNeed = (c: number, into: Float64Array | undefined): number => {
    // The largest step footprint of the package with c added (stepSeen holds the package's keys).
    let worst = 0;
    for (let i = start[c]!; i < start[c + 1]!; i++) {
      const t = tasks[i]!;
      const s = i - start[c]!;
      let add = 0;
      for (let a = inStart[t]!; a < inStart[t + 1]!; a++) {
        const key = inputs[a]! * maxLen + s;
        if (stepSeen.get(key) === undefined) {
          add += size[inputs[a]!]!;
          if (into) stepSeen.set(key, 1);
        }
      }
      const b = stepBytes[s]! + add;
      if (into) into[s] = b;
      worst = Math.max(worst, b);
    }
    return worst;
  };
  const minBudget = Math.min(...budget);
  for (let c = 0; c < C; c++)
    if (size[acc[c]!]! + STEP_COPIES * stepNeed(c, undefined) > minBudget) return undefined;

  const packedAt = new Int32Array(C).fill(-1); // package id, -1 unpacked
  const excluded = new Int32Array(C).fill(-1); // package id that found c too large
  const inPkg = new Int32Array(H).fill(-1); // package id holding the input
  const shared = new Float64Array(C); // bytes of c's inputs in the current package
  const touched: number[] = [];
  const unpackedReaders = new Int32Array(H);
  for (let h = 0; h < H; h++) unpackedReaders[h] = rCount[h + 1]! - rCount[h]!;
  const hits = new Int32Array(C);
  const missing = new Int32Array(C); // inputs of c outside the current package
  for (let c = 0; c < C; c++) missing[c] = cStart[c + 1]! - cStart[c]!;

  /** Unpacked chains other than c that c's new inputs would complete (c2). */
  const freed = (c: number, id: number): number => {
    const seenC: number[] = [];
    let n = 0;
    for (let i = cStart[c]!; i < cStart[c + 1]!; i++) {
      const h = cIn[i]!;
      if (inPkg[h] === id) continue;
      for (let r = rCount[h]!; r < rCount[h + 1]!; r++) {
        const d = rList[r]!;
        if (d === c || packedAt[d] >= 0) continue;
        if (hits[d] === 0) seenC.push(d);
        hits[d]!++;
      }
    }
    for (const d of seenC) {
      if (hits[d] === missing[d]) n++;
      hits[d] = 0;
    }
    return n;
  };
  // Each GPU's share of the work; a package goes to the GPU with the least planned work and
  // takes at most what that GPU's share still lacks (the memory budget permitting).
  let total = 0;
  for (let c = 0; c < C; c++) total += work[c]!;
  const share = total / K;
  const planned = budget.map(() => 0);
  const packages: { members: number[]; gpu: number }[] = [];
  {
    let left = C;
    while (left > 0) {
      const id = packages.length;
      let k = 0;
      for (let j = 1; j < K; j++) if (planned[j]! < planned[k]!) k = j;
      const cap = share - planned[k]! > 0 ? share - planned[k]! : Number.POSITIVE_INFINITY;
      const members: number[] = [];
      stepSeen.clear();
      stepBytes.fill(0);
      for (const c of touched) shared[c] = 0;
      touched.length = 0;
      for (let c = 0; c < C; c++) missing[c] = cStart[c + 1]! - cStart[c]!;
      let accBytes = 0;
      let pkgWork = 0;
      let maxStep = 0;
      const join = (c: number): void => {
        packedAt[c] = id;
        members.push(c);
        left--;
        accBytes += size[acc[c]!]!;
        pkgWork += work[c]!;
        maxStep = Math.max(maxStep, stepNeed(c, stepBytes));
        for (let i = cStart[c]!; i < cStart[c + 1]!; i++) {
          const h = cIn[i]!;
          unpackedReaders[h]!--;
          if (inPkg[h] === id) continue;
          inPkg[h] = id;
          for (let r = rCount[h]!; r < rCount[h + 1]!; r++) {
            const d = rList[r]!;
            if (shared[d] === 0) touched.push(d);
            shared[d]! += size[h]!;
            missing[d]!--;
          }
        }
      };
      // Seed: the unpacked chain whose inputs the fewest unpacked chains share.
      let seed = -1;
      let seedScore = Number.POSITIVE_INFINITY;
      for (let c = 0; c < C; c++) {
        if (packedAt[c] >= 0) continue;
        let s = 0;
        for (let i = cStart[c]!; i < cStart[c + 1]!; i++) s += unpackedReaders[cIn[i]!]!;
        if (s < seedScore) {
          seed = c;
          seedScore = s;
        }
      }
      join(seed);
      while (left > 0) {
        // c1: new bytes per task, lowest first; c2 breaks ties.
        let best = -1;
        let bestNew = 0;
        let bestTasks = 1;
        let ties: number[] = [];
        for (let c = 0; c < C; c++) {
          if (packedAt[c] >= 0 || excluded[c] === id) continue;
          const nb = size[acc[c]!]! + inBytes[c]! - shared[c]!;
          const nt = start[c + 1]! - start[c]!;
          const cmp = best < 0 ? -1 : nb * bestTasks - bestNew * nt;
          if (cmp < 0) {
            best = c;
            bestNew = nb;
            bestTasks = nt;
            ties = [c];
          } else if (cmp === 0) ties.push(c);
        }
        if (best < 0) break;
        if (ties.length > 1) {
          let top = -1;
          for (const c of ties) {
            const s = freed(c, id);
            if (s > top) {
              top = s;
              best = c;
            }
          }
        }
        // At its cap, a package still takes chains that load no new input (a row or column
        // being completed), up to SHARE_SLACK over the cap.
        if (pkgWork >= cap && (bestNew > size[acc[best]!]! || pkgWork >= cap * (1 + SHARE_SLACK))) break;
        const need =
          accBytes + size[acc[best]!]! + STEP_COPIES * Math.max(maxStep, stepNeed(best, undefined));
        if (need > minBudget) {
          excluded[best] = id;
          continue;
        }
        join(best);
      }
      planned[k]! += pkgWork;
      packages.push({ members, gpu: k });
    }
  }
  // Each GPU runs its packages in the order they were built, each step-major.
  const lists: number[][] = budget.map(() => []);
  const chainLists: number[][] = budget.map(() => []);
  let loadedBytes = 0;
  const mark = new Int32Array(H).fill(-1);
  packages.forEach(({ members, gpu: k }, id) => {
    for (const c of members) {
      chainLists[k]!.push(c);
      loadedBytes += size[acc[c]!]!;
      for (let i = cStart[c]!; i < cStart[c + 1]!; i++) {
        const h = cIn[i]!;
        if (mark[h] === id) continue;
        mark[h] = id;
        loadedBytes += size[h]!;
      }
    }
    for (let s = 0; s < maxLen; s++)
      for (const c of members) if (start[c]! + s < start[c + 1]!) lists[k]!.push(tasks[start[c]! + s]!);
  });
  const order = lists.map((l) => Int32Array.from(l));
  const chainsOf = chainLists.map((l) => Int32Array.from(l));
  return { order, chainsOf, packages: packages.length, loadedBytes };
}
