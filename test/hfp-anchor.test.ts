import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../src/core/rng.ts';
import { AnchorScores } from '../src/sched/hfp/anchor-scores.ts';
import { PackInputs } from '../src/sched/hfp/pack-inputs.ts';

/** hfp's anchor choice before issue 25: every datum's readers rescanned at each step. */
function naiveBest(
  H: number,
  readers: number[][],
  inputs: number[][],
  planned: Uint8Array,
  inAnchor: Uint8Array,
  everywhere: Uint8Array,
  coRead: Int32Array,
  size: number[],
  budget: number,
): number {
  let best = -1;
  let b1 = -1;
  let b2 = -1;
  for (let d = 0; d < H; d++) {
    if (inAnchor[d] || everywhere[d] || size[d]! > budget) continue;
    let s1 = 0;
    let s2 = 0;
    let any = false;
    for (const t of readers[d]!) {
      if (planned[t]) continue;
      any = true;
      let m = 0;
      for (const x of inputs[t]!) {
        if (x === d || inAnchor[x] || everywhere[x]) continue;
        m++;
        if (coRead[x]! > 0) s2++;
      }
      if (m <= 1) s1++;
    }
    if (!any) continue;
    if (s1 > b1 || (s1 === b1 && s2 > b2)) {
      best = d;
      b1 = s1;
      b2 = s2;
    }
  }
  return best;
}

test('hfp anchor scores: the incremental choice equals the rescan at every step of every package', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed);
    const H = 20 + rng.int(40);
    const n = 50 + rng.int(200);
    const size = Array.from({ length: H }, () => 1 + rng.int(4));
    const everywhere = new Uint8Array(H);
    if (seed % 3 === 0) everywhere[rng.int(H)] = 1;
    const inputs: number[][] = [];
    const readers: number[][] = Array.from({ length: H }, () => []);
    for (let t = 0; t < n; t++) {
      const ins: number[] = [];
      const k = 1 + rng.int(seed % 2 === 0 ? 2 : 4);
      for (let j = 0; j < k; j++) {
        const h = rng.int(H);
        if (!ins.includes(h)) ins.push(h);
      }
      for (const h of everywhere.keys()) if (everywhere[h] && !ins.includes(h)) ins.push(h);
      inputs.push(ins);
      for (const h of ins) readers[h]!.push(t);
    }
    const tasks = Array.from({ length: n }, (_, t) => t);
    const inAnchor = new Uint8Array(H);
    const planned = new Uint8Array(n);
    const scores = new AnchorScores(
      PackInputs.ofLists(tasks, (t) => inputs[t]!, H, n),
      everywhere,
      inAnchor,
    );
    let steps = 0;
    for (let pkg = 0; pkg < 6; pkg++) {
      const coRead = new Int32Array(H);
      let budget = 4 + rng.int(12);
      const anchor: number[] = [];
      for (;;) {
        const want = naiveBest(H, readers, inputs, planned, inAnchor, everywhere, coRead, size, budget);
        assert.equal(scores.best(budget, size), want, `seed ${seed}, package ${pkg}, step ${anchor.length}`);
        steps++;
        if (want < 0) break;
        anchor.push(want);
        inAnchor[want] = 1;
        budget -= size[want]!;
        scores.add(want);
        for (const t of readers[want]!) {
          if (planned[t]) continue;
          for (const x of inputs[t]!) if (x !== want) coRead[x]!++;
        }
      }
      scores.endGrowth();
      // Plan some readers of the anchor, as a package does.
      for (const a of anchor) {
        for (const t of readers[a]!) {
          if (planned[t] || rng.int(3) === 0) continue;
          planned[t] = 1;
          scores.planned(t);
        }
      }
      for (const a of anchor) inAnchor[a] = 0;
    }
    assert.ok(steps > 6);
  }
});
