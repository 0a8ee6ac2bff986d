import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import { compilePlatform } from '../src/platform/schema.ts';
import { generateWorkload, WORKLOADS } from '../src/workloads/index.ts';

// Issue 12 item 4: an oversize run is refused before its tasks are generated.
describe('workloads: data larger than the host memory are refused up front', () => {
  for (const name of Object.keys(WORKLOADS)) {
    test(`${name}: refused exactly when its handles exceed the host capacity`, () => {
      const params = { tiles: 4, tileSize: 16, inner: 32 };
      const wl = generateWorkload(name, params);
      let total = 0;
      for (let h = 0; h < wl.graph.handleCount; h++) total += wl.graph.handleSize.data[h]!;
      // Exactly the data fit: generated.
      generateWorkload(name, { ...params, host: { name: 'ram', capacity: total } });
      assert.throws(
        () => generateWorkload(name, { ...params, host: { name: 'ram', capacity: total - 1 } }),
        (e: unknown) =>
          e instanceof LocusError && /^the data \(.*\) do not fit in host memory ram \(/.test(e.message),
      );
    });
  }

  test('cholesky --tiles 300 at 1920 (620 GiB) is refused against 512 GiB without generating 4.5M tasks', () => {
    assert.throws(
      () => generateWorkload('cholesky', { tiles: 300, host: { name: 'ram', capacity: 512 * 2 ** 30 } }),
      /the data \(620\.04 GiB\) do not fit in host memory ram \(512\.00 GiB\)/,
    );
  });
});

describe('platform files: counts and sizes are bounded', () => {
  const base = () => ({
    memoryNodes: [{ name: 'ram', kind: 'host', capacity: '1TB' }] as object[],
    workers: [{ name: 'c', kind: 'cpu', memory: 'ram', rate: '1GFlop/s', count: 4 }] as object[],
  });
  const refused = (file: object, re: RegExp) =>
    assert.throws(
      () => compilePlatform(file, 'p.json'),
      (e: unknown) => e instanceof LocusError && !e.message.includes('\n') && re.test(e.message),
    );

  test('count 1e7 is refused in one line', () => {
    const f = base();
    (f.workers[0] as { count: number }).count = 1e7;
    refused(f, /^p\.json: workers\[0\]\.count: 10000000 is more than 4096 \(the limit\)$/);
  });

  test('4096 workers in all, over several entries', () => {
    const f = base();
    f.workers = [
      { name: 'a', kind: 'cpu', memory: 'ram', rate: 1e9, count: 4000 },
      { name: 'b', kind: 'cpu', memory: 'ram', rate: 1e9, count: 96 },
    ];
    assert.equal(compilePlatform(f, 'p.json').workers.length, 4096);
    f.workers.push({ name: 'x', kind: 'cpu', memory: 'ram', rate: 1e9 });
    refused(f, /^p\.json: workers\[2\]\.count: the platform would have more than 4096 workers/);
  });

  test('memory nodes, capacities', () => {
    const f = base();
    for (let g = 0; g < 256; g++) f.memoryNodes.push({ name: `g${g}`, kind: 'gpu', capacity: '1GB' });
    refused(f, /^p\.json: memoryNodes: has more than 256 entries \(the limit\)/);
    const c = base();
    c.memoryNodes = [{ name: 'ram', kind: 'host', capacity: '1e30B' }];
    refused(
      c,
      /^p\.json: memoryNodes\[0\]\.capacity: '1e30B' is more than 1 EiB \(the limit\), or unlimited$/,
    );
    c.memoryNodes = [{ name: 'ram', kind: 'host', capacity: 'unlimited' }];
    assert.equal(compilePlatform(c, 'p.json').nodes[0]!.capacity, Number.POSITIVE_INFINITY);
  });
});
