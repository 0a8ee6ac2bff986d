/**
 * The run's seeded generator (src/core/rng.ts): reproducible from its seed, uniform integers in
 * range, and seeds that differ by little start unrelated streams (the seed is hashed before it
 * seeds xoroshiro128+, whose first draws from raw small seeds agree).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mixSeed, Rng } from '../src/core/rng.ts';
import { AccessMode } from '../src/core/types.ts';
import { generateWorkload } from '../src/workloads/index.ts';

test('the same seed gives the same draws; every draw is in range', () => {
  const a = new Rng(7);
  const b = new Rng(7);
  for (let i = 0; i < 1000; i++) {
    const n = 1 + (i % 13);
    const x = a.int(n);
    assert.equal(x, b.int(n));
    assert.ok(Number.isInteger(x) && x >= 0 && x < n);
  }
  assert.equal(new Rng(3).int(1), 0);
});

test('consecutive seeds start unrelated streams: their early draws spread like independent ones', () => {
  // Each of the first four draws, over seeds 1..1000: every value of int(3) about a third of the time.
  for (let draw = 0; draw < 4; draw++) {
    const count = [0, 0, 0];
    for (let s = 1; s <= 1000; s++) {
      const r = new Rng(s);
      for (let k = 0; k < draw; k++) r.int(3);
      count[r.int(3)]!++;
    }
    for (const c of count) assert.ok(c > 280 && c < 390, `draw ${draw}: ${count.join(', ')}`);
  }
});

test('mixSeed is a bijection on 32-bit integers near zero (distinct seeds stay distinct)', () => {
  const seen = new Set<number>();
  for (let s = -5000; s <= 5000; s++) seen.add(mixSeed(s));
  assert.equal(seen.size, 10001);
  assert.equal(mixSeed(0), 0);
});

test('consecutive seeds do not draw in step: the first draws of seeds s and s + 1 differ by no common step', () => {
  // Raw seeds drew 646, 645, 644... (first draw in [0, 1000) for seeds 1, 2, 3...): a constant
  // step. Independent streams give steps spread over 2000 values; none repeats often.
  const steps = new Map<number, number>();
  let prev = new Rng(1).int(1000);
  for (let s = 2; s <= 200; s++) {
    const x = new Rng(s).int(1000);
    steps.set(x - prev, (steps.get(x - prev) ?? 0) + 1);
    prev = x;
  }
  const most = Math.max(...steps.values());
  assert.ok(most <= 4, `one step between consecutive seeds' first draws recurs ${most} times in 199`);
});

test("the random workload's consecutive seeds start with unrelated draws (a sweep's repetitions)", () => {
  // The first datum the first task reads, over seeds 1..100 (100 data, 2 a task): the step from
  // one seed's to the next's recurs no more than chance allows.
  const first: number[] = [];
  for (let seed = 1; seed <= 100; seed++) {
    const { graph } = generateWorkload('random', { tasks: 1, data: 100, degree: 2, tileSize: 8, seed });
    const inputs = graph.accesses(0).filter(([, mode]) => mode === AccessMode.R);
    first.push(Math.min(...inputs.map(([h]) => h)));
  }
  const steps = new Map<number, number>();
  for (let i = 1; i < first.length; i++) {
    const d = first[i]! - first[i - 1]!;
    steps.set(d, (steps.get(d) ?? 0) + 1);
  }
  const most = Math.max(...steps.values());
  assert.ok(most <= 6, `one step between consecutive seeds' first data recurs ${most} times in 99`);
});
