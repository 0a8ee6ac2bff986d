/**
 * Issue 27 item 2: the simulated network never lets a link carry more than its bandwidth (no
 * absolute 1 B/s floor per flow), a starved prefetch resumes when the urgent flows end, and a
 * bandwidth outside the simulated range is refused in one line at platform load.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IntList } from '../src/core/growable.ts';
import { parsePlatformFile } from '../src/platform/schema.ts';
import { parseBandwidth } from '../src/platform/units.ts';
import { Network } from '../src/sim/network.ts';
import { testPlatform } from './helpers/platforms.ts';

/** Runs the network to the end; the completion time of each flow id. */
function drain(net: Network): Map<number, number> {
  const ends = new Map<number, number>();
  while (net.active > 0) {
    const t = net.nextCompletion();
    assert.ok(Number.isFinite(t), 'a flow in flight has a finite completion time');
    const done = new IntList();
    net.complete(t, done);
    for (const id of done.data.subarray(0, done.length)) ends.set(id, t);
  }
  return ends;
}

describe('network shares', () => {
  test('three copies on a 1 B/s link share it: 30 bytes take 30 s', () => {
    const net = new Network(testPlatform({ gpus: 1, gpuCapacity: 1e9, bandwidth: 1, latency: 0 }));
    for (let id = 0; id < 3; id++) net.add(id, 10, 0, 1, true, 0);
    const ends = drain(net);
    assert.deepEqual(
      [...ends.values()].map((t) => Math.round(t * 1e6) / 1e6),
      [30, 30, 30],
    );
  });

  test('a prefetch starved by an urgent copy waits for it, then takes the whole link', () => {
    const net = new Network(testPlatform({ gpus: 1, gpuCapacity: 1e9, bandwidth: 1, latency: 0 }));
    net.add(0, 10, 0, 1, true, 0);
    net.add(1, 10, 0, 1, false, 0);
    const ends = drain(net);
    assert.equal(ends.get(0), 10);
    assert.equal(ends.get(1), 20);
  });

  test('a promoted prefetch shares the link with the urgent copy from then on', () => {
    const net = new Network(testPlatform({ gpus: 1, gpuCapacity: 1e9, bandwidth: 4, latency: 0 }));
    net.add(0, 40, 0, 1, true, 0);
    net.add(1, 20, 0, 1, false, 0);
    net.promote(1, 5); // copy 0 has 20 bytes left, copy 1 all 20: both at 2 B/s
    const ends = drain(net);
    assert.equal(ends.get(0), 15);
    assert.equal(ends.get(1), 15);
  });

  test('a prefetch advanced past its end as urgent traffic starts completes at once', () => {
    // The prefetch alone runs at 1 B/s and ends at 10 s; an urgent copy starts just after,
    // before that completion ran: the prefetch (nothing left, rate 0 now) completes first.
    const net = new Network(testPlatform({ gpus: 1, gpuCapacity: 1e9, bandwidth: 1, latency: 0 }));
    net.add(0, 10, 0, 1, false, 0);
    net.add(1, 10, 0, 1, true, 10.5);
    assert.equal(net.nextCompletion(), 10.5);
    const ends = drain(net);
    assert.equal(ends.get(0), 10.5);
    assert.equal(ends.get(1), 20.5);
  });

  test('a platform object with a link below the smallest bandwidth is refused', () => {
    assert.throws(() => new Network(testPlatform({ gpus: 1, gpuCapacity: 1e9, bandwidth: 1e-300 })), {
      code: 'LOCUS_PLATFORM_INVALID',
      message:
        /^platform test: link ram->gpu0 has bandwidth 1e-300 B\/s, below the smallest Locus simulates \(1 B\/s\)/,
    });
  });

  test('bandwidths outside [1 B/s, 1e15 B/s] are refused when parsed', () => {
    assert.equal(parseBandwidth('1'), 1);
    assert.equal(parseBandwidth('1000TB/s'), 1e15);
    assert.throws(() => parseBandwidth(1e-300, 'links[0].bandwidth'), {
      message: /^links\[0\]\.bandwidth: 1e-300 is below 1 B\/s, outside the bandwidths Locus simulates/,
    });
    assert.throws(() => parseBandwidth('2000TB/s'), {
      message: /^'2000TB\/s' is above 1000000000000000 B\/s/,
    });
  });

  test('a platform file with a 1e-300 B/s link is refused in one line', () => {
    const file = {
      name: 'slow',
      memoryNodes: [
        { name: 'ram', kind: 'host', capacity: '1GiB' },
        { name: 'gpu0', kind: 'gpu', capacity: '1GiB' },
      ],
      workers: [{ name: 'gpu0', kind: 'gpu', memory: 'gpu0', rate: '1TFlop/s' }],
      links: [
        { name: 'up', from: 'ram', to: 'gpu0', bandwidth: 1e-300 },
        { name: 'down', from: 'gpu0', to: 'ram', bandwidth: '1GB/s' },
      ],
    };
    assert.throws(
      () => parsePlatformFile(JSON.stringify(file), 'slow.json'),
      (e: Error) => {
        assert.match(e.message, /^slow\.json: links\[0\]\.bandwidth: 1e-300 is below 1 B\/s/);
        assert.doesNotMatch(e.message, /\n/);
        return true;
      },
    );
  });
});
