/** Interval sets and region instantiation (seed 003 section III), on hand-checked cases. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { IntervalSet } from '../src/partition/intervals.ts';
import { affine, indirect, instantiate, prefix, WHOLE } from '../src/partition/kernel.ts';
import { splitRange } from '../src/partition/split.ts';

const set = (...pairs: [number, number][]) => IntervalSet.fromPairs(pairs);

describe('IntervalSet', () => {
  test('union merges overlapping and touching intervals', () => {
    assert.equal(set([0, 3], [3, 5], [7, 9], [8, 12]).toString(), '[0,5) [7,12)');
    assert.equal(
      set([0, 2])
        .union(set([5, 6], [1, 4]))
        .toString(),
      '[0,4) [5,6)',
    );
  });
  test('difference and intersection are exact', () => {
    const a = set([0, 10], [20, 30]);
    const b = set([5, 22], [25, 26]);
    assert.equal(a.minus(b).toString(), '[0,5) [22,25) [26,30)');
    assert.equal(a.intersect(b).toString(), '[5,10) [20,22) [25,26)');
    assert.equal(a.minus(a).isEmpty, true);
    assert.equal(a.minus(b).size, 5 + 3 + 4);
  });
  test('agrees with plain sets on random inputs', () => {
    const arb = fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 12 })), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(arb, arb, (xs, ys) => {
        const toSet = (ps: [number, number][]) =>
          set(...ps.map(([lo, len]) => [lo, lo + len] as [number, number]));
        const els = (s: IntervalSet) =>
          new Set(Array.from({ length: 60 }, (_, i) => i).filter((i) => s.has(i)));
        const a = toSet(xs);
        const b = toSet(ys);
        const ea = els(a);
        const eb = els(b);
        assert.deepEqual(
          [...els(a.minus(b))],
          [...ea].filter((i) => !eb.has(i)),
        );
        assert.deepEqual(
          [...els(a.intersect(b))],
          [...ea].filter((i) => eb.has(i)),
        );
        assert.deepEqual(
          [...els(a.union(b))].sort((p, q) => p - q),
          [...new Set([...ea, ...eb])].sort((p, q) => p - q),
        );
      }),
    );
  });
});

describe('region instantiation', () => {
  const noIndex = () => {
    throw new Error('no index expected');
  };
  test('affine with halo, clipped to the buffer', () => {
    // 8 x 8 grid, rows [2, 5) read with one row of halo: rows 1..5 = elements [8, 48).
    assert.equal(instantiate([affine(8, -8, 8)], 2, 5, 64, noIndex, noIndex).toString(), '[8,48)');
    // First rows: the halo above is clipped at 0; last rows: clipped at 64.
    assert.equal(instantiate([affine(8, -8, 8)], 0, 2, 64, noIndex, noIndex).toString(), '[0,24)');
    assert.equal(instantiate([affine(8, -8, 8)], 6, 8, 64, noIndex, noIndex).toString(), '[40,64)');
    // An empty sub-range reads nothing; a prefix reads [0, hi); the whole buffer is whole.
    assert.equal(instantiate([affine(8, -8, 8)], 3, 3, 64, noIndex, noIndex).isEmpty, true);
    assert.equal(instantiate([prefix(1, 0)], 5, 9, 20, noIndex, noIndex).toString(), '[0,9)');
    assert.equal(instantiate([WHOLE], 1, 2, 20, noIndex, noIndex).toString(), '[0,20)');
  });
  test('CSR row pointer: the non-zeros of rows [lo, hi) are [rowptr[lo], rowptr[hi])', () => {
    const rowptr = [0, 2, 5, 5, 9];
    const read = (b: string, i: number) => {
      assert.equal(b, 'rp');
      return rowptr[i]!;
    };
    const len = () => rowptr.length;
    assert.equal(instantiate([indirect('rp', 1, 0, 0)], 1, 3, 9, read, len).toString(), '[2,5)');
    assert.equal(instantiate([indirect('rp', 1, 0, 0)], 2, 3, 9, read, len).isEmpty, true); // empty row
    assert.equal(instantiate([indirect('rp', 1, 0, 0)], 0, 4, 9, read, len).toString(), '[0,9)');
    // Two values per entry (x, y pairs): scale 2.
    assert.equal(instantiate([indirect('rp', 1, 0, 0, 2)], 1, 3, 18, read, len).toString(), '[4,10)');
    // Neighbouring bins: positions lo-1 .. hi+1, clamped to the index array.
    assert.equal(instantiate([indirect('rp', 1, -1, 1)], 0, 1, 9, read, len).toString(), '[0,5)');
    assert.equal(instantiate([indirect('rp', 1, -1, 1)], 3, 4, 9, read, len).toString(), '[5,9)');
    // A union of an affine piece and an indirection.
    assert.equal(
      instantiate([indirect('rp', 1, 0, 0), affine(1, 7, 7)], 0, 1, 9, read, len).toString(),
      '[0,2) [7,8)',
    );
  });
});

describe('splitRange', () => {
  test('contiguous sub-ranges in device order, rounded at the cumulative boundaries', () => {
    assert.deepEqual(splitRange(10, [1 / 3, 1 / 3, 1 / 3]), [
      [0, 3],
      [3, 7],
      [7, 10],
    ]);
    assert.deepEqual(splitRange(10, [0, 1, 0]), [
      [0, 0],
      [0, 10],
      [10, 10],
    ]);
    assert.throws(() => splitRange(10, [0.5, 0.6]), /sum to/);
  });
});
