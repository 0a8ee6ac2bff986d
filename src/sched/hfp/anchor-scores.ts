/**
 * hfp's anchor scores, kept incrementally (issue 25): the (s1, s2) of every candidate datum D
 * for the anchor A being grown (see hfp.ts), with R the tasks not yet planned,
 *   s1(D) = |{t in R : D in inputs(t), |inputs(t) \ (A + D)| <= 1}|
 *   s2(D) = |{(t, x) : t in R reads D, x in inputs(t) \ (A + D), x co-read with A}|
 * (data every task reads left out of inputs), without rescanning every datum's readers at
 * each step. Per task t: M(t) = its inputs outside A, C(t) = those co-read with A; per datum:
 * U(D) = its readers in R, S1(D) = those with M <= 2, SC(D) = the sum of their C. Then, for D
 * outside A, s1(D) = S1(D) and s2(D) = SC(D) - U(D) [D co-read]. A datum joining A updates
 * its readers' M and C; a datum first co-read updates its readers' C; a planned task leaves
 * the counts of its inputs. The best datum is the first of greatest (s1, s2) in index order,
 * as the rescan found it.
 *
 * Cost: a step of the anchor growth O(candidates) for the choice plus O(readers x inputs) of
 * the datum added and of each datum it makes co-read, undone once at the end of the growth;
 * a planned task O(inputs). Before, each step rescanned every reader of every datum.
 */
import type { PackInputs } from './pack-inputs.ts';

/** Incremental anchor scores over the tasks of one hfp plan. */
export class AnchorScores {
  private readonly inStart: Int32Array;
  private readonly inList: Int32Array;
  private readonly rdStart: Int32Array;
  private readonly rdList: Int32Array;
  /** Inputs outside the shared data, per task (M with an empty anchor). */
  private readonly m0: Int32Array;
  private readonly m: Int32Array;
  private readonly c: Int32Array;
  private readonly done: Uint8Array;
  private readonly u: Int32Array;
  private readonly s1: Int32Array;
  private readonly sc: Int32Array;
  private readonly coRead: Int32Array;
  private readonly touched: Uint8Array;
  private touchedList: number[] = [];
  private coReadList: number[] = [];
  /** Data with readers left, outside the shared data, in index order. */
  private cand: Int32Array;
  private nCand = 0;
  private readonly local: Int32Array;

  /**
   * `inputs`: the tasks to plan and their distinct inputs (pack-inputs.ts, read, not
   * changed); `everywhere[d]` 1 for data every task reads; `inAnchor[d]` the anchor, which
   * the caller keeps (it reads it too).
   */
  constructor(
    inputs: PackInputs,
    private readonly everywhere: Uint8Array,
    private readonly inAnchor: Uint8Array,
  ) {
    const n = inputs.tasks.length;
    const handles = inputs.handles;
    this.local = inputs.local;
    this.inStart = inputs.inStart;
    this.inList = inputs.inList;
    this.rdStart = inputs.rdStart;
    this.rdList = inputs.rdList;
    this.m0 = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let m = 0;
      for (let k = this.inStart[i]!; k < this.inStart[i + 1]!; k++)
        if (everywhere[this.inList[k]!] === 0) m++;
      this.m0[i] = m;
    }
    this.m = this.m0.slice();
    this.c = new Int32Array(n);
    this.done = new Uint8Array(n);
    this.touched = new Uint8Array(n);
    this.u = new Int32Array(handles);
    this.s1 = new Int32Array(handles);
    this.sc = new Int32Array(handles);
    this.coRead = new Int32Array(handles);
    this.cand = new Int32Array(handles);
    for (let h = 0; h < handles; h++) {
      const readers = this.rdStart[h + 1]! - this.rdStart[h]!;
      this.u[h] = readers;
      for (let k = this.rdStart[h]!; k < this.rdStart[h + 1]!; k++)
        if (this.m0[this.rdList[k]!]! <= 2) this.s1[h]!++;
      if (readers > 0 && everywhere[h] === 0) this.cand[this.nCand++] = h;
    }
  }

  /**
   * The datum to add to the anchor: the first, in index order, of greatest (s1, s2) among
   * those outside the anchor and the shared data, read by a task left, of at most `budget`
   * bytes; -1 when none. O(candidates).
   */
  best(budget: number, size: ArrayLike<number>): number {
    let best = -1;
    let b1 = -1;
    let b2 = -1;
    let kept = 0;
    const cand = this.cand;
    for (let j = 0; j < this.nCand; j++) {
      const d = cand[j]!;
      const u = this.u[d]!;
      if (u === 0) continue; // no reader left, ever again
      cand[kept++] = d;
      if (this.inAnchor[d] === 1 || size[d]! > budget) continue;
      const s1 = this.s1[d]!;
      const s2 = this.sc[d]! - (this.coRead[d]! > 0 ? u : 0);
      if (s1 > b1 || (s1 === b1 && s2 > b2)) {
        best = d;
        b1 = s1;
        b2 = s2;
      }
    }
    this.nCand = kept;
    return best;
  }

  /** `d` joined the anchor (the caller set inAnchor[d]): its readers' counts follow. */
  add(d: number): void {
    const wasCoRead = this.coRead[d]! > 0;
    for (let k = this.rdStart[d]!; k < this.rdStart[d + 1]!; k++) {
      const i = this.rdList[k]!;
      if (this.done[i] === 1) continue;
      this.touch(i);
      if (--this.m[i]! === 2) this.bump(this.s1, i, 1);
      if (wasCoRead) {
        this.c[i]!--;
        this.bump(this.sc, i, -1);
      }
    }
    for (let k = this.rdStart[d]!; k < this.rdStart[d + 1]!; k++) {
      const i = this.rdList[k]!;
      if (this.done[i] === 1) continue;
      for (let q = this.inStart[i]!; q < this.inStart[i + 1]!; q++) {
        const x = this.inList[q]!;
        if (x === d || this.coRead[x]!++ > 0) continue;
        this.coReadList.push(x);
        if (this.inAnchor[x] === 1 || this.everywhere[x] === 1) continue;
        // x is co-read with the anchor from now on: its readers count it.
        for (let r = this.rdStart[x]!; r < this.rdStart[x + 1]!; r++) {
          const t = this.rdList[r]!;
          if (this.done[t] === 1) continue;
          this.touch(t);
          this.c[t]!++;
          this.bump(this.sc, t, 1);
        }
      }
    }
  }

  /** The anchor is complete: the counts go back to an empty anchor (the caller clears inAnchor later). */
  endGrowth(): void {
    for (const i of this.touchedList) {
      this.touched[i] = 0;
      const was = this.m[i]! <= 2 ? 1 : 0;
      const base = this.m0[i]! <= 2 ? 1 : 0;
      if (was !== base) this.bump(this.s1, i, base - was);
      if (this.c[i] !== 0) this.bump(this.sc, i, -this.c[i]!);
      this.m[i] = this.m0[i]!;
      this.c[i] = 0;
    }
    this.touchedList = [];
    for (const x of this.coReadList) this.coRead[x] = 0;
    this.coReadList = [];
  }

  /** Task `t` was planned (after endGrowth): it leaves its inputs' counts. */
  planned(t: number): void {
    const i = this.local[t]!;
    if (i < 0 || this.done[i] === 1) return;
    this.done[i] = 1;
    const counted = this.m0[i]! <= 2 ? 1 : 0;
    for (let k = this.inStart[i]!; k < this.inStart[i + 1]!; k++) {
      const x = this.inList[k]!;
      this.u[x]!--;
      this.s1[x]! -= counted;
    }
  }

  private touch(i: number): void {
    if (this.touched[i] === 1) return;
    this.touched[i] = 1;
    this.touchedList.push(i);
  }

  /** Adds `delta` to `table` at every input of task i. */
  private bump(table: Int32Array, i: number, delta: number): void {
    for (let k = this.inStart[i]!; k < this.inStart[i + 1]!; k++) table[this.inList[k]!]! += delta;
  }
}
