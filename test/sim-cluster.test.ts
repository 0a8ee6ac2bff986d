/**
 * The simulated cluster (src/sim/cluster/): its messages are exactly the insertion planner's
 * (by hand on 2 x 2-tile Cholesky and LU over a 2 x 2 grid, and against the planner on larger
 * runs), one node is the single-machine simulation of the same machine, a message on an idle
 * network takes latency + bytes / bandwidth, shared NICs and switches split their bandwidth,
 * cluster platform files fail with one clear line, runs are deterministic, and the CLI and the
 * seed001-cluster figure work end to end.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { blockCyclic2d } from '../src/cluster/distribution.ts';
import { InsertionPlanner } from '../src/cluster/insert-plan.ts';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { compilePlatform, parsePlatformFile, platformToJson } from '../src/platform/schema.ts';
import { MessageNetwork } from '../src/sim/cluster/messages.ts';
import { type ClusterSimOptions, simulateCluster } from '../src/sim/cluster/simulate.ts';
import { simulate } from '../src/sim/simulate.ts';
import { GraphSubmitter } from '../src/workloads/graph-submitter.ts';
import { WORKLOADS } from '../src/workloads/index.ts';
import { stencilDataBlocks } from '../src/workloads/stencil.ts';
import type { Submitter } from '../src/workloads/submitter.ts';

const LOCUS = fileURLToPath(new URL('../bin/locus.mjs', import.meta.url));

/** Runs workload `name` with `params` on `nodes` nodes of `platform` (ac-cluster by default). */
function runWorkload(
  name: string,
  params: Record<string, unknown>,
  nodes: number,
  extra: Partial<ClusterSimOptions> = {},
) {
  const g = WORKLOADS[name]!;
  const instance = g.instance(params);
  return simulateCluster({
    platform: resolvePlatform('ac-cluster'),
    nodes,
    submit: (s) => g.submit(s, instance),
    scheduler: 'dmdas',
    workload: name,
    ...extra,
  });
}

/** The planner's own per-rank counts for the workload (no simulation). */
function plannedCounts(name: string, params: Record<string, unknown>, nodes: number, p: number, q: number) {
  const g = WORKLOADS[name]!;
  const planner = new InsertionPlanner(nodes, blockCyclic2d(p, q));
  const s: Submitter = {
    computes: false,
    data: (spec) => planner.declare(spec.length * 4, spec.block),
    codelet: () => 0,
    submit: (_c, accesses) => {
      planner.task(accesses);
    },
  };
  g.submit(s, g.instance(params));
  return planner.counts;
}

/** A two-level platform file: one CPU of 1 GFlop/s per node, unlimited RAM, the given network. */
function cpuCluster(network: Record<string, unknown>, nodes: unknown = 2): Record<string, unknown> {
  return {
    name: 'tiny',
    memoryNodes: [{ name: 'ram', kind: 'host', capacity: 'unlimited' }],
    workers: [{ name: 'cpu', kind: 'cpu', memory: 'ram', rate: '1GFlop/s' }],
    cluster: { nodes, network },
  };
}

describe('simulated cluster: messages are the planner’s', () => {
  test('2 x 2-tile Cholesky and LU on a 2 x 2 grid: the messages derived by hand', () => {
    // Cholesky: A00 (rank 0), A10 (rank 2), A11 (rank 3). TRSM(1,0) on rank 2 needs A00 from
    // rank 0; SYRK(1,1) on rank 3 needs A10 from rank 2: 2 messages.
    const ch = runWorkload('cholesky', { tiles: 2, tileSize: 64 }, 4).report;
    assert.equal(ch.distribution, '2d:2x2');
    assert.equal(ch.messages, 2);
    assert.deepEqual(
      ch.perNode.map((n) => [n.tasks, n.messagesSent, n.messagesReceived]),
      [
        [1, 1, 0],
        [0, 0, 0],
        [1, 1, 1],
        [2, 0, 1],
      ],
    );
    assert.equal(ch.messageBytes, 2 * 64 * 64 * 4);
    // LU: A00 r0, A01 r1, A10 r2, A11 r3. Both TRSMs need A00 (to r1, r2); the GEMM on r3 needs
    // A01 and A10: 4 messages.
    const lu = runWorkload('lu', { tiles: 2, tileSize: 64 }, 4).report;
    assert.equal(lu.messages, 4);
    assert.deepEqual(
      lu.perNode.map((n) => [n.tasks, n.messagesSent, n.messagesReceived]),
      [
        [1, 2, 0],
        [1, 1, 1],
        [1, 1, 1],
        [2, 0, 2],
      ],
    );
  });

  test('larger Cholesky and LU: every node sends and receives what the planner planned', () => {
    for (const [name, nodes, p, q] of [
      ['cholesky', 4, 2, 2],
      ['lu', 4, 2, 2],
      ['lu', 2, 1, 2],
    ] as const) {
      const params = { tiles: 6, tileSize: 64 };
      const r = runWorkload(name, params, nodes).report;
      const planned = plannedCounts(name, params, nodes, p, q);
      assert.equal(r.messages, r.plannedMessages, name);
      assert.deepEqual(
        r.perNode.map((n) => [n.tasks, n.messagesSent, n.messagesReceived, n.bytesSent, n.bytesReceived]),
        planned.map((c) => [c.tasks, c.messagesSent, c.messagesReceived, c.bytesSent, c.bytesReceived]),
        `${name} on ${nodes} nodes`,
      );
      assert.ok(r.messages > 0);
      assert.equal(r.tasks, WORKLOADS[name]!.generate(params).graph.taskCount);
    }
  });

  test("the stencil's 1-D distribution keeps a block and its halos on one node", () => {
    const blocks = stencilDataBlocks(5);
    const s = new GraphSubmitter();
    WORKLOADS.stencil!.submit(
      s,
      WORKLOADS.stencil!.instance({ tiles: 5, tileSize: 4, inner: 10, iterations: 2 }),
    );
    assert.equal(blocks.length, s.graph.handleCount);
    for (let h = 0; h < blocks.length; h++) {
      const name = s.graph.handleNames[h]!;
      assert.match(name, new RegExp(`^(block|halo)\\[${blocks[h]}\\]`), name);
    }
    // 4 blocks cyclic over 2 nodes: each of the 3 inner boundaries crosses the network, and
    // every iteration reads 2 halos across each (iteration 0 the initial ones): 3 x 3 x 2.
    const four = stencilDataBlocks(4);
    const r = runWorkload('stencil', { tiles: 4, tileSize: 16, inner: 8, iterations: 3 }, 2, {
      distribution: (h) => four[h.index]! % 2,
      distributionName: '1d',
    }).report;
    assert.equal(r.distribution, '1d');
    assert.equal(r.messages, 3 * 3 * 2);
    assert.deepEqual(
      r.perNode.map((n) => [n.messagesSent, n.messagesReceived]),
      [
        [9, 9],
        [9, 9],
      ],
    );
  });
});

describe('simulated cluster: one node is the single machine', () => {
  for (const [name, params, sched] of [
    ['lu', { tiles: 6, tileSize: 960 }, 'dmdas'],
    ['cholesky', { tiles: 8, tileSize: 960 }, 'heft-tmdp-pr'],
    ['stencil', { tiles: 8, tileSize: 256, inner: 512, iterations: 4 }, 'heft-tmdp-pr'],
  ] as const) {
    test(`${name} under ${sched}: same makespan, bytes and transfers`, () => {
      const cluster = resolvePlatform('ac-cluster');
      const { cluster: _, ...machine } = cluster;
      const r = runWorkload(name, params, 1, { scheduler: sched });
      const gs = new GraphSubmitter();
      WORKLOADS[name]!.submit(gs, WORKLOADS[name]!.instance(params));
      const single = simulate({ graph: gs.graph, platform: machine, scheduler: sched }).report;
      const node = r.nodeReports[0]!;
      assert.equal(r.report.messages, 0);
      assert.equal(r.report.makespanS, single.makespanS);
      assert.equal(r.report.gflops, single.gflops);
      assert.equal(node.bytesToDevices, single.bytesToDevices);
      assert.equal(node.bytesFromDevices, single.bytesFromDevices);
      assert.equal(node.transfers, single.transfers);
      assert.equal(node.endS, single.endS);
    });
  }
});

describe('simulated cluster: memory options reach every node', () => {
  for (const memory of [{ cleanFirst: false }, { minClean: 80, targetClean: 100 }] as const) {
    test(`one node with ${JSON.stringify(memory)} is the single machine with them`, () => {
      const params = { tiles: 10, tileSize: 960 };
      const gpuMem = 60 * 2 ** 20;
      const cluster = resolvePlatform('ac-cluster', { gpuMem });
      const { cluster: _, ...machine } = cluster;
      const g = WORKLOADS.cholesky!;
      const instance = g.instance(params);
      const run = (extra: Partial<ClusterSimOptions>) =>
        simulateCluster({
          platform: cluster,
          nodes: 1,
          submit: (s) => g.submit(s, instance),
          scheduler: 'dmdar',
          ...extra,
        });
      const gs = new GraphSubmitter();
      g.submit(gs, instance);
      const single = simulate({ graph: gs.graph, platform: machine, scheduler: 'dmdar', ...memory }).report;
      const r = run(memory);
      assert.equal(r.report.makespanS, single.makespanS);
      assert.equal(r.nodeReports[0]!.bytesFromDevices, single.bytesFromDevices);
      // The option changes the run: the comparison is not vacuous.
      assert.notEqual(run({}).nodeReports[0]!.bytesFromDevices, single.bytesFromDevices);
    });
  }
});

describe('simulated cluster: bottom-level priorities', () => {
  test('one node: the single machine with the same priorities; several: every task gets its global bottom level', () => {
    const params = { tiles: 6, tileSize: 960 };
    const { cluster: _, ...machine } = resolvePlatform('ac-cluster');
    const gs = new GraphSubmitter();
    WORKLOADS.lu!.submit(gs, WORKLOADS.lu!.instance(params));
    gs.graph.setBottomLevelPriorities();
    const single = simulate({ graph: gs.graph, platform: machine, scheduler: 'dmdas' }).report;
    const one = runWorkload('lu', params, 1, { priorities: 'bottom-level' }).report;
    assert.equal(one.makespanS, single.makespanS);
    const plain = runWorkload('lu', params, 1).report;
    assert.notEqual(plain.makespanS, single.makespanS);
    // On 4 nodes the messages are the same with or without priorities.
    const four = runWorkload('lu', params, 4, { priorities: 'bottom-level' }).report;
    assert.equal(four.messages, runWorkload('lu', params, 4).report.messages);
  });
});

describe('simulated cluster: the network', () => {
  test('a message on an idle network takes latency + bytes / NIC bandwidth', () => {
    const platform = compilePlatform(cpuCluster({ nicBandwidth: '1GB/s', latency: '10us' }), 'tiny.json');
    const codelet = { name: 't', kinds: ['cpu' as const] };
    // A on node 0, B on node 1; the task on node 1 writes B and reads A: one message of A.
    const submit = (s: Submitter) => {
      const a = s.data({ name: 'A', type: 'float64', length: 1e6, block: [0, 0] });
      const b = s.data({ name: 'B', type: 'float64', length: 10, block: [0, 1] });
      const c = s.codelet(codelet);
      s.submit(
        c,
        [
          [b, AccessMode.W],
          [a, AccessMode.R],
        ],
        { flops: 1e6, name: 'T' },
      );
    };
    const r = simulateCluster({ platform, submit, distribution: '2d:1x2', trace: true });
    const message = 10e-6 + 8e6 / 1e9;
    assert.equal(r.report.messages, 1);
    assert.equal(r.report.messageBytes, 8e6);
    // The task starts when A arrives and lasts 1e6 flop / 1 GFlop/s.
    assert.ok(Math.abs(r.report.makespanS - (message + 1e-3)) < 1e-15, String(r.report.makespanS));
    const slices = r.trace!.traceEvents.filter((e) => e.cat === 'message');
    assert.equal(slices.length, 1);
    assert.equal(slices[0]!.ts, 0);
    assert.ok(Math.abs(slices[0]!.dur! - message * 1e6) < 1e-9);
    assert.equal(slices[0]!.name, 'A to node1');
    // Node 1's workers and node 0's appear under their node's name.
    const names = r.trace!.traceEvents.filter((e) => e.name === 'process_name').map((e) => e.args!.name);
    assert.ok(names.includes('node0: workers') && names.includes('node1: workers'));
  });

  test('NICs and the switch share their bandwidth max-min fairly', () => {
    const at = (network: Record<string, unknown>, pairs: [number, number][]) => {
      const c = compilePlatform(cpuCluster(network, 4), 'n.json').cluster!;
      const net = new MessageNetwork(c, 4);
      pairs.forEach(([from, to], i) => {
        net.post(i, 1e6, from, to, 0);
      });
      const ends: number[] = [];
      while (net.active > 0) {
        const t = net.nextTime();
        for (const _ of net.step(t)) ends.push(t);
      }
      return ends;
    };
    const close = (a: number[], b: number[]) =>
      assert.ok(a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < 1e-12), `${a} vs ${b}`);
    // Disjoint pairs through a non-blocking switch: 1 ms each.
    close(
      at({ nicBandwidth: '1GB/s' }, [
        [0, 1],
        [2, 3],
      ]),
      [1e-3, 1e-3],
    );
    // The same through a 1 GB/s backbone: half each.
    close(
      at({ nicBandwidth: '1GB/s', switchBandwidth: '1GB/s' }, [
        [0, 1],
        [2, 3],
      ]),
      [2e-3, 2e-3],
    );
    // One sender's NIC shared by two messages; latency paid once each.
    close(
      at({ nicBandwidth: '1GB/s', latency: '5us' }, [
        [0, 1],
        [0, 2],
      ]),
      [2e-3 + 5e-6, 2e-3 + 5e-6],
    );
  });
});

describe('simulated cluster: platforms and errors', () => {
  test('cluster files compile, describe and round-trip; single-machine files are unchanged', () => {
    const p = compilePlatform(
      cpuCluster({ nicBandwidth: '3.2GB/s', latency: '2us', switchBandwidth: '10GB/s' }, ['a', 'b', 'c']),
      'c.json',
    );
    assert.deepEqual(p.cluster, {
      nodes: ['a', 'b', 'c'],
      nicBandwidth: 3.2e9,
      latency: 2e-6,
      switchBandwidth: 10e9,
    });
    assert.deepEqual(parsePlatformFile(platformToJson(p), 'c.json'), p);
    const counted = compilePlatform(cpuCluster({ nicBandwidth: 1e9 }, 3), 'c.json').cluster!;
    assert.deepEqual(counted.nodes, ['node0', 'node1', 'node2']);
    assert.equal(counted.latency, 0);
    assert.equal(counted.switchBandwidth, Number.POSITIVE_INFINITY);
    assert.equal(resolvePlatform('ac-node').cluster, undefined);
    const ac = resolvePlatform('ac-cluster');
    assert.equal(ac.cluster!.nodes.length, 4);
    assert.deepEqual(ac.nodes, resolvePlatform('ac-node').nodes);
    assert.equal(
      resolvePlatform('ac-cluster', { gpus: 2 }).workers.filter((w) => w.kind === 'gpu').length,
      2,
    );
  });

  test('invalid cluster files: one line each, naming the field', () => {
    const cases: [unknown, string][] = [
      [
        { nodes: 0, network: { nicBandwidth: '1GB/s' } },
        'c.json: cluster.nodes: 0 is not a node count; give a count from 1 to 1024',
      ],
      [{ nodes: 'x', network: { nicBandwidth: '1GB/s' } }, 'c.json: cluster.nodes: "x" is not a node count'],
      [
        { nodes: ['a', 'a'], network: { nicBandwidth: '1GB/s' } },
        "c.json: cluster.nodes[1]: duplicate node name 'a' (also cluster.nodes[0])",
      ],
      [
        { nodes: [], network: { nicBandwidth: '1GB/s' } },
        'c.json: cluster.nodes: needs at least 1 node name',
      ],
      [{ network: { nicBandwidth: '1GB/s' } }, 'c.json: cluster.nodes: missing; give a count'],
      [{ nodes: 2 }, 'c.json: cluster.network: missing (expected object)'],
      [{ nodes: 2, network: {} }, 'c.json: cluster.network.nicBandwidth: missing; use e.g. 10.9GB/s'],
      [
        { nodes: 2, network: { nicBandwidth: 'fast' } },
        "c.json: cluster.network.nicBandwidth: 'fast' is not a bandwidth",
      ],
      [
        { nodes: 2, network: { nicBandwidth: '1GB/s', latency: '-1us' } },
        "c.json: cluster.network.latency: '-1us' is not a duration",
      ],
      [
        { nodes: 2, network: { nicBandwidth: '1GB/s', switch: 1 } },
        "c.json: cluster.network: unknown field 'switch'",
      ],
      [{ nodes: 2, network: { nicBandwidth: '1GB/s' }, extra: 1 }, "c.json: cluster: unknown field 'extra'"],
    ];
    for (const [cluster, message] of cases) {
      const file = { ...cpuCluster({}), cluster };
      assert.throws(
        () => compilePlatform(file, 'c.json'),
        (e: unknown) =>
          e instanceof LocusError &&
          e.code === 'LOCUS_PLATFORM_INVALID' &&
          e.message.startsWith(message) &&
          !e.message.includes('\n'),
        message,
      );
    }
  });

  test('a single machine is no cluster; --nodes within the cluster', () => {
    const g = WORKLOADS.lu!;
    const instance = g.instance({ tiles: 2, tileSize: 64 });
    const submit = (s: Submitter) => g.submit(s, instance);
    assert.throws(
      () => simulateCluster({ platform: resolvePlatform('ac-node'), submit }),
      /platform ac-node is one machine, not a cluster: give a platform file with a "cluster" field or the ac-cluster preset/,
    );
    assert.throws(
      () => simulateCluster({ platform: resolvePlatform('ac-cluster'), submit, nodes: 5 }),
      /--nodes must be an integer from 1 to 4 \(platform ac-cluster has 4 nodes; got 5\)/,
    );
  });
});

describe('simulated cluster: determinism', () => {
  test('two runs give the same report and trace', () => {
    const run = () => {
      const r = runWorkload('lu', { tiles: 8, tileSize: 960 }, 4, { scheduler: 'heft-tmdp-pr', trace: true });
      return {
        ...r,
        report: { ...r.report, wallS: 0 },
        nodeReports: r.nodeReports.map((n) => ({ ...n, wallS: 0 })),
      };
    };
    const a = run();
    const b = run();
    assert.deepEqual(a, b);
    assert.ok(a.report.messages > 0);
    assert.equal(a.trace!.traceEvents.filter((e) => e.cat === 'message').length, a.report.messages);
  });
});

describe('simulated cluster: command line', () => {
  const locus = (...args: string[]) =>
    spawnSync(process.execPath, [LOCUS, ...args], { encoding: 'utf8', timeout: 120_000 });

  test('locus run --cluster sim: JSON report, text report and trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-simcluster-'));
    const trace = join(dir, 't.json');
    const args = [
      'run',
      '--cluster',
      'sim',
      '--platform',
      'ac-cluster',
      '--nodes',
      '2',
      '-w',
      'cholesky',
      '-n',
      '4',
      '--tile-size',
      '64',
    ];
    const j = locus(...args, '--json', '--trace', trace);
    assert.equal(j.status, 0, j.stderr);
    const r = JSON.parse(j.stdout);
    assert.equal(r.nodes, 2);
    assert.equal(r.distribution, '2d:1x2');
    assert.equal(r.messages, r.plannedMessages);
    assert.equal(r.perNode.length, 2);
    const t = JSON.parse(readFileSync(trace, 'utf8'));
    assert.equal(t.traceEvents.filter((e: { cat?: string }) => e.cat === 'message').length, r.messages);
    const text = locus(...args);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /on 2 nodes of ac-cluster \(simulated cluster\)/);
    assert.match(text.stdout, /node +tasks +sent/);
  });

  test('bad uses: one line and exit code 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locus-simcluster-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify(cpuCluster({ nicBandwidth: 'fast' })));
    for (const [args, message] of [
      [
        ['run', '--cluster', 'sim', '--platform', 'ac-cluster', '--nodes', '8', '-w', 'lu'],
        '--nodes must be an integer from 1 to 4',
      ],
      [
        ['run', '--cluster', 'sim', '--platform', 'ac-node', '-w', 'lu'],
        'platform ac-node is one machine, not a cluster',
      ],
      [
        ['run', '--platform', 'ac-cluster', '-w', 'lu'],
        'platform ac-cluster is a cluster of 4 nodes: simulate it with --cluster sim',
      ],
      [
        ['run', '--cluster', 'sim', '--platform', bad, '-w', 'lu'],
        "cluster.network.nicBandwidth: 'fast' is not a bandwidth",
      ],
      [
        ['run', '--cluster', 'sim', '--platform', 'ac-cluster', '-w', 'lu', '--serial'],
        '--serial does not apply to --cluster sim',
      ],
      [['run', '--cluster', 'nope', '-w', 'lu'], '--cluster nope: a simulation takes --cluster sim'],
      [['run', '--nodes', '2', '-w', 'lu'], '--nodes applies to --cluster sim'],
      [['run', '--cluster', 'sim', '-w', 'lu'], '--cluster sim needs --platform'],
      [
        [
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
          '64',
          '--keep-received',
        ],
        'node ac0 of 2: the data it owns and every copy it receives (--keep-received) (10.54 GiB) do not fit in its host memory (8.00 GiB)',
      ],
      [
        ['run', '--cluster', 'sim', '--platform', 'ac-cluster', '--nodes', '2', '-w', 'lu', '-n', '72'],
        'node ac0 of 2: the data it owns (8.90 GiB) do not fit in its host memory (8.00 GiB)',
      ],
      [
        // The owned tiles fit; the copies alive at once overflow during the run.
        ['run', '--cluster', 'sim', '--platform', 'ac-cluster', '--nodes', '2', '-w', 'lu', '-n', '68'],
        'over its 8589934592 bytes (8.00 GiB): use a platform with more memory, a smaller workload, or more nodes',
      ],
      [['run', '--keep-received', '-w', 'lu'], '--keep-received applies to --cluster sim'],
      [
        ['run', '--cluster', 'sim', '--platform', 'ac-cluster', '-w', 'lu', '--nic-bandwidth', 'fast'],
        "'fast' is not a bandwidth",
      ],
    ] as const) {
      const r = locus(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.includes(message), `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
});

describe('simulated cluster: the seed001-cluster figure', () => {
  test('CSV rows and plots; the stencil drops from 1 to 2 nodes, larger LU runs only on more nodes', () => {
    const out = mkdtempSync(join(tmpdir(), 'locus-seed001-cluster-'));
    const r = spawnSync(
      process.execPath,
      [LOCUS, 'sweep', '--figure', 'seed001-cluster', '--out', out, '--json'],
      {
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const { stencil, lu } = JSON.parse(r.stdout);
    assert.deepEqual(
      stencil.map((s: { nodes: number }) => s.nodes),
      [1, 2, 4],
    );
    assert.equal(stencil[0].messages, 0);
    assert.ok(stencil[1].gflopsPerNode < stencil[0].gflopsPerNode);
    assert.equal(lu.length, 3 * 13);
    const ran = (nodes: number, size: number) =>
      lu.find((l: { nodes: number; matrixSize: number }) => l.nodes === nodes && l.matrixSize === size).ran;
    // Received copies are dropped after their last reader: each node holds its own tiles and
    // the copies alive at once, so 2 nodes run larger sizes than one and 4 larger than 2.
    assert.equal(ran(1, 46080), true);
    assert.equal(ran(1, 53760), false);
    assert.equal(ran(2, 61440), true);
    assert.equal(ran(2, 69120), false);
    assert.equal(ran(4, 84480), true);
    assert.equal(ran(4, 92160), false);
    const csv = readFileSync(join(out, 'lu.csv'), 'utf8').trim().split('\n');
    assert.equal(csv[0], 'nodes,tiles,matrixSize,ran,makespanS,gflops,messages,messageBytes,hostPeakBytes');
    assert.equal(csv.length, 1 + 39);
    for (const f of ['stencil.csv', 'fig3c.svg', 'fig3c.png', 'fig4c.svg', 'fig4c.png']) {
      assert.ok(readFileSync(join(out, f)).length > 0, f);
    }
    // index.html shows the plots and tables and links the files.
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    for (const f of ['fig3c.svg', 'fig4c.svg', 'lu.csv']) assert.ok(index.includes(`"${f}"`), f);
    assert.match(index, /<h2>Seed 001 Fig\. 4\(c\): LU GFlop\/s<\/h2><table>/);
  });
});
