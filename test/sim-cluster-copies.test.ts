/**
 * Received copies in the simulated cluster (src/sim/cluster/copies.ts): a copy is dropped once
 * its last reader on the receiving node has ended, the host memory peak per node is the kept
 * data plus the copies alive at once (derived by hand on a 4-task program, recomputed from the
 * copies' intervals on LU and Cholesky), host memory overflows fail with one line naming the
 * node, keepReceived gives the results of the runs before copies were dropped, and a task that
 * would read a dropped copy is caught.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { compilePlatform } from '../src/platform/schema.ts';
import { CopyLifetimes, type CopyPlan } from '../src/sim/cluster/copies.ts';
import { type ClusterSimOptions, simulateCluster } from '../src/sim/cluster/simulate.ts';
import { WORKLOADS } from '../src/workloads/index.ts';
import type { Submitter } from '../src/workloads/submitter.ts';

const LOCUS = fileURLToPath(new URL('../bin/locus.mjs', import.meta.url));
const MiB = 1024 * 1024;

/** Two nodes of one CPU (1 GFlop/s) each, host memory `capacity`, a 1 GB/s network. */
function twoNodes(capacity: string) {
  return compilePlatform(
    {
      name: 'tiny',
      memoryNodes: [{ name: 'ram', kind: 'host', capacity }],
      workers: [{ name: 'cpu', kind: 'cpu', memory: 'ram', rate: '1GFlop/s' }],
      cluster: { nodes: 2, network: { nicBandwidth: '1GB/s', latency: '10us' } },
    },
    'tiny.json',
  );
}

/**
 * X, Y on node 0, B, C on node 1, 1 MiB each. T1 writes X (node 0); T2 reads X, writes B
 * (node 1: X 0 -> 1); T3 reads B, writes Y (node 0: B 1 -> 0); T4 reads Y, writes C (node 1:
 * Y 0 -> 1). Y is posted after T3, which waits for B, written by T2, X's last reader: node 1
 * never holds X and Y at once.
 */
const chain = (s: Submitter): void => {
  const spec = (name: string, block: [number, number]) =>
    s.data({ name, type: 'float64', length: MiB / 8, block });
  const x = spec('X', [0, 0]);
  const y = spec('Y', [0, 0]);
  const b = spec('B', [0, 1]);
  const c = spec('C', [0, 1]);
  const k = s.codelet({ name: 't', kinds: ['cpu'] });
  s.submit(k, [[x, AccessMode.W]], { flops: 1e6, name: 'T1' });
  s.submit(
    k,
    [
      [b, AccessMode.W],
      [x, AccessMode.R],
    ],
    { flops: 1e6, name: 'T2' },
  );
  s.submit(
    k,
    [
      [y, AccessMode.W],
      [b, AccessMode.R],
    ],
    { flops: 1e6, name: 'T3' },
  );
  s.submit(
    k,
    [
      [c, AccessMode.W],
      [y, AccessMode.R],
    ],
    { flops: 1e6, name: 'T4' },
  );
};

const runChain = (capacity: string, keepReceived?: boolean) =>
  simulateCluster({ platform: twoNodes(capacity), submit: chain, distribution: '2d:1x2', keepReceived });

describe('received copies: by hand', () => {
  test('each copy is dropped after its last reader; peaks are the kept data plus the live copies', () => {
    const r = runChain('unlimited');
    assert.equal(r.report.messages, 3);
    assert.deepEqual(
      r.report.perNode.map((p) => [p.copiesDropped, p.hostPeakBytes / MiB]),
      [
        [1, 3], // X, Y kept; B alive from T2's end to T3's end
        [2, 3], // B, C kept; X, then Y, never both
      ],
    );
    // Each copy is dropped when its reader ends, after it was delivered.
    const names = r.messages.map((m) => ['X', 'Y', 'B', 'C'][m.handle]);
    assert.deepEqual(names, ['X', 'B', 'Y']);
    for (let i = 0; i < 3; i++) assert.ok(r.droppedAt[i]! > r.deliveredAt[i]!);
    // X dropped (T2 ended) before Y was posted.
    assert.ok(r.droppedAt[0]! <= r.postedAt[2]!);
    const kept = runChain('unlimited', true);
    assert.equal(kept.report.keepReceived, true);
    assert.deepEqual(
      kept.report.perNode.map((p) => [p.copiesDropped, p.hostPeakBytes / MiB]),
      [
        [0, 3],
        [0, 4],
      ],
    );
    assert.equal(kept.report.makespanS, r.report.makespanS);
  });

  test('host memory: 3.5 MiB fits when copies are dropped, not when kept; 2.5 MiB fails during the run', () => {
    assert.equal(runChain('3.5MiB').report.messages, 3);
    assert.throws(
      () => runChain('3.5MiB', true),
      (e: unknown) =>
        e instanceof LocusError &&
        e.code === 'LOCUS_HOST_MEMORY_TOO_SMALL' &&
        /^node node1 of 2: the data it owns and every copy it receives \(--keep-received\) \(4\.00 MiB\) do not fit in its host memory \(3\.50 MiB\): .*more nodes$/.test(
          e.message,
        ),
    );
    assert.throws(
      () => runChain('2.5MiB'),
      (e: unknown) =>
        e instanceof LocusError &&
        e.code === 'LOCUS_HOST_MEMORY_TOO_SMALL' &&
        /^node node1 of 2: at [0-9.e-]+ s a received copy of 1\.00 MiB would bring its host memory to 3145728 bytes .* over its 2621440 bytes \(2\.50 MiB\): .*more nodes$/.test(
          e.message,
        ),
    );
  });

  test('a task that would read a copy not received or dropped is caught', () => {
    // One message (0 -> node 1), read by task 5 of node 1, its only reader.
    const plan: CopyPlan = {
      droppable: Uint8Array.of(1),
      local: Int32Array.of(2),
      readers: Int32Array.of(1),
      readStart: [new Int32Array(8), Int32Array.of(0, 0, 0, 0, 0, 0, 1, 1)],
      readMessage: [new Int32Array(0), Int32Array.of(0)],
      keptBytes: Float64Array.of(10, 10),
      receivedOnlyBytes: Float64Array.of(0, 4),
    };
    const c = new CopyLifetimes(plan, Float64Array.of(4), Int32Array.of(1), ['a', 'b'], [100, 100], false);
    assert.throws(
      () => c.started(1, 5),
      /task 5 of node b starts while the copy of message 0 it reads is not received/,
    );
    c.posted(0, 1);
    c.started(1, 5);
    c.started(1, 6); // reads nothing
    const dropped: number[] = [];
    c.ended(1, 5, 2, (l) => dropped.push(l));
    assert.deepEqual(dropped, [2]);
    assert.deepEqual([...c.used, ...c.peak, ...c.dropped], [10, 10, 10, 14, 0, 1]);
    assert.throws(() => c.started(1, 5), /copy of message 0 it reads is dropped/);
  });
});

/** Runs `name` on 2 nodes of the AC cluster with dmdas. */
function run(name: string, params: Record<string, unknown>, extra: Partial<ClusterSimOptions> = {}) {
  const g = WORKLOADS[name]!;
  const instance = g.instance(params);
  return simulateCluster({
    platform: resolvePlatform('ac-cluster'),
    nodes: 2,
    submit: (s) => g.submit(s, instance),
    scheduler: 'dmdas',
    workload: name,
    ...extra,
  });
}

describe('received copies: LU and Cholesky on 2 nodes', () => {
  for (const name of ['lu', 'cholesky']) {
    test(`${name}: every received copy dropped once; peaks from the copies' intervals`, () => {
      const r = run(name, { tiles: 6, tileSize: 256 });
      const tile = 256 * 256 * 4;
      for (let node = 0; node < 2; node++) {
        const p = r.report.perNode[node]!;
        // Every received datum here is a tile its node never writes: every copy is dropped.
        assert.equal(p.copiesDropped, p.messagesReceived);
        // Independently: the kept tiles (those the node owns under the 2 x 1 grid... 1 x 2
        // here: columns alternate) plus the most copies alive at once, by a sweep over the
        // intervals [posted, dropped) of its copies.
        const events: [number, number][] = [];
        r.messages.forEach((m, i) => {
          if (m.to !== node) return;
          assert.ok(r.droppedAt[i]! >= r.deliveredAt[i]!);
          events.push([r.postedAt[i]!, m.bytes], [r.droppedAt[i]!, -m.bytes]);
        });
        // At one instant, drops before posts (a copy is dropped in the same event that lets
        // the next message be posted).
        events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        let live = 0;
        let most = 0;
        for (const [, d] of events) {
          live += d;
          most = Math.max(most, live);
        }
        const owned = countOwned(name, 6, node) * tile;
        assert.equal(p.hostPeakBytes, owned + most);
        assert.ok(most < p.bytesReceived, 'some copies are dropped before others arrive');
      }
    });
  }

  test('dropped copies leave no GPU replica; kept ones do', () => {
    // Bytes of received tiles (column parity other than the node's, 1 x 2 grid) still
    // allocated on a GPU of their node at the end of the run.
    const onGpus = (keepReceived: boolean) => {
      const left = [0, 0];
      run(
        'lu',
        { tiles: 6, tileSize: 256 },
        {
          keepReceived,
          inspect: (rank, e) => {
            const g = e.graph;
            for (let h = 0; h < g.handleCount; h++) {
              const col = Number(/,(\d+)\]$/.exec(g.handleLabel(h))![1]);
              if (col % 2 === rank) continue;
              e.platform.nodes.forEach((n, i) => {
                if (n.kind === 'gpu' && e.isAllocated(h, i)) left[rank]! += g.handleSize.data[h]!;
              });
            }
          },
        },
      );
      return left;
    };
    assert.deepEqual(onGpus(false), [0, 0]);
    assert.ok(onGpus(true).every((b) => b > 0));
  });

  test("keepReceived: today's makespans and messages (measured before copies were dropped)", () => {
    const before: Record<string, [number, number, number, number[]]> = {
      lu: [0.004709030954989899, 20, 5242880, [0.004380481216969696, 0.004709030954989899]],
      cholesky: [0.003875074324686868, 15, 3932160, [0.0035435143647676763, 0.003875074324686868]],
    };
    for (const [name, [makespan, messages, bytes, perNode]] of Object.entries(before)) {
      const r = run(name, { tiles: 6, tileSize: 256 }, { keepReceived: true }).report;
      assert.deepEqual(
        [r.makespanS, r.messages, r.messageBytes, r.perNode.map((p) => p.makespanS)],
        [makespan, messages, bytes, perNode],
        name,
      );
      assert.deepEqual(
        r.perNode.map((p) => p.copiesDropped),
        [0, 0],
      );
    }
  });

  test('locus run --cluster sim --keep-received: the JSON report says so; bad value: one line', () => {
    const args = [
      'run',
      '--cluster',
      'sim',
      '--platform',
      'ac-cluster',
      '--nodes',
      '2',
      '-w',
      'lu',
      '-n',
      '4',
    ];
    const a = spawnSync(process.execPath, [LOCUS, ...args, '--json'], { encoding: 'utf8' });
    const b = spawnSync(process.execPath, [LOCUS, ...args, '--keep-received', '--json'], {
      encoding: 'utf8',
    });
    assert.equal(a.status, 0, a.stderr);
    assert.equal(b.status, 0, b.stderr);
    const ra = JSON.parse(a.stdout);
    const rb = JSON.parse(b.stdout);
    assert.deepEqual([ra.keepReceived, rb.keepReceived], [false, true]);
    assert.equal(ra.messages, rb.messages);
    assert.ok(
      ra.perNode.every(
        (p: { copiesDropped: number; messagesReceived: number }) => p.copiesDropped === p.messagesReceived,
      ),
    );
    const text = spawnSync(process.execPath, [LOCUS, ...args], { encoding: 'utf8' });
    assert.match(text.stdout, /host peak/);
  });
});

/** Tiles a node owns of an n x n tiled workload on a 1 x 2 grid (column j on node j % 2). */
function countOwned(name: string, n: number, node: number): number {
  let count = 0;
  const g = WORKLOADS[name]!;
  g.submit(
    {
      computes: false,
      data: (spec) => {
        if (spec.block && spec.block[1] % 2 === node) count++;
        return 0;
      },
      codelet: () => 0,
      submit: () => {},
    },
    g.instance({ tiles: n, tileSize: 256 }),
  );
  return count;
}
