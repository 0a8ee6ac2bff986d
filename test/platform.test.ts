import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type Platform, routeOf, soloTransferTime, workerRate } from '../src/core/platform.ts';
import { LocusError } from '../src/core/types.ts';
import {
  DGX1V_NVLINK,
  describePlatform,
  describePresets,
  formatBandwidth,
  formatBytes,
  formatDuration,
  formatRate,
  PRESETS,
  parseBandwidth,
  parseDuration,
  parsePlatformFile,
  parseRate,
  parseSize,
  platformToJson,
  resolvePlatform,
} from '../src/platform/index.ts';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** Asserts that fn throws a LocusError of one line containing every fragment. */
function throwsLocus(fn: () => unknown, ...fragments: string[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof LocusError, `expected a LocusError, got ${e}`);
    assert.ok(!e.message.includes('\n'), `message has several lines: ${e.message}`);
    for (const f of fragments) assert.ok(e.message.includes(f), `'${e.message}' lacks '${f}'`);
    return true;
  });
}

const node = (p: Platform, name: string) => p.nodes.findIndex((n) => n.name === name);
const routeNames = (p: Platform, src: string, dst: string) =>
  routeOf(p, node(p, src), node(p, dst))?.map((l) => p.links[l]!.name) ?? null;

describe('units', () => {
  test('sizes', () => {
    assert.equal(parseSize('500MiB'), 500 * MiB);
    assert.equal(parseSize('500MB'), 500e6);
    assert.equal(parseSize('2GiB'), 2 * GiB);
    assert.equal(parseSize('14.06MiB'), Math.round(14.06 * MiB));
    assert.equal(parseSize('1024'), 1024);
    assert.equal(parseSize('4 GB'), 4e9);
    assert.equal(parseSize('4 gib'), 4 * GiB);
    assert.equal(parseSize('1TiB'), 2 ** 40);
    assert.equal(parseSize('3KB'), 3000);
    assert.equal(parseSize(4096), 4096);
    throwsLocus(
      () => parseSize('500 megs', '--gpu-mem'),
      "--gpu-mem: '500 megs' is not a size; use e.g. 500MiB",
    );
    throwsLocus(() => parseSize('-1GB'), 'is not a size');
    throwsLocus(() => parseSize('GB'), 'is not a size');
    throwsLocus(() => parseSize(Number.NaN), 'is not a size');
  });

  test('bandwidths', () => {
    assert.equal(parseBandwidth('10.9GB/s'), 10.9e9);
    assert.equal(parseBandwidth('12.38 GB/s'), 12.38e9);
    assert.equal(parseBandwidth('800MiB/s'), 800 * MiB);
    assert.equal(parseBandwidth(5e9), 5e9);
    assert.equal(parseBandwidth('5e9'), 5e9);
    throwsLocus(() => parseBandwidth('10 GB'), "'10 GB' is not a bandwidth; use e.g. 10.9GB/s");
    throwsLocus(() => parseBandwidth('0GB/s'), 'is not a bandwidth');
    throwsLocus(() => parseBandwidth('/s'), 'is not a bandwidth');
  });

  test('durations', () => {
    assert.equal(parseDuration('10us'), 1e-5);
    assert.equal(parseDuration('10µs'), 1e-5);
    assert.equal(parseDuration('1.5ms'), 1.5e-3);
    assert.equal(parseDuration('2s'), 2);
    assert.equal(parseDuration('30ns'), 3e-8);
    assert.equal(parseDuration(0.25), 0.25);
    assert.equal(parseDuration('0us'), 0);
    throwsLocus(() => parseDuration('5 min', 'latency'), "latency: '5 min' is not a duration; use e.g. 10us");
  });

  test('rates', () => {
    assert.equal(parseRate('12.6TFlop/s'), 12.6e12);
    assert.equal(parseRate('14.1GFlop/s'), 14.1e9);
    assert.equal(parseRate('50 GFLOPS'), 50e9);
    assert.equal(parseRate(1e9), 1e9);
    throwsLocus(() => parseRate('fast'), "'fast' is not a rate; use e.g. 12.6TFlop/s");
    throwsLocus(() => parseRate('12 GB/s'), 'is not a rate');
  });

  test('formatting', () => {
    assert.equal(formatBytes(14.06 * MiB), '14.06 MiB');
    assert.equal(formatBytes(1.25 * GiB), '1.25 GiB');
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(Number.POSITIVE_INFINITY), 'unlimited');
    assert.equal(formatBandwidth(10.9e9), '10.9 GB/s');
    assert.equal(formatDuration(560e-6), '560 us');
    assert.equal(formatDuration(20.9e-3), '20.9 ms');
    assert.equal(formatDuration(0), '0 s');
    assert.equal(formatRate(12.6e12), '12.6 TFlop/s');
    assert.equal(formatRate(14.1e9), '14.1 GFlop/s');
  });
});

describe('presets', () => {
  test('v100x2 default: 3 nodes, 2 GPU workers, no CPU, 500 MiB GPUs', () => {
    const p = resolvePlatform('v100x2', {});
    assert.equal(p.nodes.length, 3);
    assert.equal(p.nodes[p.homeNode]!.kind, 'host');
    assert.equal(p.workers.filter((w) => w.kind === 'gpu').length, 2);
    assert.equal(p.workers.filter((w) => w.kind === 'cpu').length, 0);
    for (const n of p.nodes) if (n.kind === 'gpu') assert.equal(n.capacity, 500 * MiB);
    assert.equal(workerRate(p.workers[0]!, 'gemm'), 12.64e12);
    assert.equal(workerRate(p.workers[0]!, 'potrf'), 14.1e9);
    assert.equal(workerRate(p.workers[0]!, 'something'), 12.6e12);
  });

  test('v100x2 routes: host transfers cross the host bus, GPUs copy peer-to-peer', () => {
    const p = PRESETS['v100x2']!.build({ gpus: 4 });
    assert.deepEqual(routeNames(p, 'ram', 'gpu0'), ['ram->gpu0', 'host-bus']);
    assert.deepEqual(routeNames(p, 'gpu3', 'ram'), ['gpu3->ram', 'host-bus']);
    assert.deepEqual(routeNames(p, 'gpu0', 'gpu1'), ['gpu0->gpu1']);
    // Solo time of 1 GB from RAM: 10 us latency plus 1e9 bytes over the slower 10.9 GB/s link.
    assert.ok(Math.abs(soloTransferTime(p, 0, node(p, 'gpu0'), 1e9) - (1e-5 + 1e9 / 10.9e9)) < 1e-12);
    const bw = (a: string, b: string) => p.links[routeOf(p, node(p, a), node(p, b))![0]!]!.bandwidth;
    assert.equal(bw('gpu0', 'gpu3'), 47.7e9); // NV2
    assert.equal(bw('gpu0', 'gpu1'), 24e9); // NV1
    assert.equal(bw('gpu1', 'gpu2'), 47.7e9); // NV2
    const p8 = PRESETS['v100x2']!.build({ gpus: 8 });
    assert.equal(routeOf(p8, node(p8, 'gpu0'), node(p8, 'gpu7'))!.length, 1);
    assert.equal(p8.links[routeOf(p8, node(p8, 'gpu0'), node(p8, 'gpu7'))![0]!]!.bandwidth, 10.2e9);
  });

  test('the DGX-1V topology table is symmetric and disjoint', () => {
    DGX1V_NVLINK.forEach((t, i) => {
      for (const j of t.nv1) assert.ok(DGX1V_NVLINK[j]!.nv1.includes(i), `NV1 ${i}-${j}`);
      for (const j of t.nv2) assert.ok(DGX1V_NVLINK[j]!.nv2.includes(i), `NV2 ${i}-${j}`);
      assert.ok(!t.nv1.some((j) => t.nv2.includes(j) || j === i));
    });
  });

  test('options: gpus, cpus and gpuMem', () => {
    const p = resolvePlatform('v100x2', { gpus: 4, cpus: 3, gpuMem: 2 * GiB });
    assert.equal(p.workers.filter((w) => w.kind === 'gpu').length, 4);
    assert.deepEqual(
      p.workers.filter((w) => w.kind === 'cpu').map((w) => w.name),
      ['cpu0', 'cpu1', 'cpu2'],
    );
    for (const n of p.nodes) if (n.kind === 'gpu') assert.equal(n.capacity, 2 * GiB);
    throwsLocus(() => resolvePlatform('v100x2', { gpus: 9 }), 'v100x2', 'gpus = 9', '0 to 8');
    throwsLocus(() => resolvePlatform('hannibal', { gpus: 4 }), 'hannibal', '3 GPUs');
    throwsLocus(() => resolvePlatform('v100x2', { gpus: 0 }), 'no workers');
    throwsLocus(() => resolvePlatform('tsl', { cpus: 9 }), 'cores');
    throwsLocus(() => resolvePlatform('tsl', { gpuMem: -1 }), 'gpuMem');
    assert.equal(resolvePlatform('hannibal', { gpus: 0 }).workers.length, 8);
  });

  test('hannibal: 3 GPUs, 5 CPU workers, no peer-to-peer, no host bus', () => {
    const p = resolvePlatform('hannibal');
    assert.equal(p.nodes.length, 4);
    assert.equal(p.workers.filter((w) => w.kind === 'gpu').length, 3);
    assert.equal(p.workers.filter((w) => w.kind === 'cpu').length, 5);
    assert.equal(routeOf(p, node(p, 'gpu0'), node(p, 'gpu1')), null);
    assert.deepEqual(routeNames(p, 'ram', 'gpu2'), ['ram->gpu2']);
    assert.equal(resolvePlatform('hannibal', { gpus: 1 }).workers.filter((w) => w.kind === 'cpu').length, 7);
  });

  test('tsl and ac-node: pairs of GPUs share a host link', () => {
    const p = resolvePlatform('tsl');
    assert.equal(p.workers.filter((w) => w.kind === 'cpu').length, 4);
    assert.deepEqual(routeNames(p, 'ram', 'gpu0'), ['ram->gpu0', 'pcie-a']);
    assert.deepEqual(routeNames(p, 'gpu1', 'ram'), ['gpu1->ram', 'pcie-a']);
    assert.deepEqual(routeNames(p, 'ram', 'gpu3'), ['ram->gpu3', 'pcie-b']);
    assert.equal(routeOf(p, node(p, 'gpu0'), node(p, 'gpu1')), null);
    assert.equal(workerRate(p.workers[0]!, 'getrf'), 30e9);
    const ac = resolvePlatform('ac-node');
    assert.equal(ac.workers.length, 4);
    assert.ok(ac.workers.every((w) => w.kind === 'gpu'));
    assert.deepEqual(routeNames(ac, 'gpu2', 'ram'), ['gpu2->ram', 'pcie-b']);
    assert.equal(resolvePlatform('ac-node', { gpus: 2 }).workers.filter((w) => w.kind === 'cpu').length, 2);
  });

  test('cpu+gpu: 3 GPUs and 9 CPU workers', () => {
    const p = resolvePlatform('cpu+gpu');
    assert.equal(p.workers.filter((w) => w.kind === 'gpu').length, 3);
    assert.equal(p.workers.filter((w) => w.kind === 'cpu').length, 9);
  });

  test('every preset round-trips through platformToJson and parsePlatformFile', () => {
    for (const [name, preset] of Object.entries(PRESETS)) {
      const p = preset.build();
      assert.deepEqual(parsePlatformFile(platformToJson(p), `${name}.json`), p, name);
      assert.ok(preset.figures().length > 5 && preset.figures().every((f) => /\(.+\)$/.test(f)), name);
      assert.match(describePlatform(p), new RegExp(`^${name.replace('+', '\\+')}: `));
    }
    const big = resolvePlatform('v100x2', { gpus: 8, cpus: 40, gpuMem: 14.06 * MiB });
    assert.deepEqual(parsePlatformFile(platformToJson(big), 'big.json'), big);
    assert.match(describePresets(), /v100x2[\s\S]*hannibal[\s\S]*tsl[\s\S]*ac-node[\s\S]*cpu\+gpu/);
  });

  test('unknown names and files', () => {
    throwsLocus(
      () => resolvePlatform('x'),
      "unknown platform 'x': use a preset (v100x2, hannibal, tsl, ac-node, ac-cluster, cpu+gpu, local, sbac18) or a path to a .json platform file",
    );
    throwsLocus(() => resolvePlatform('missing.json'), "'missing.json' not found");
    const dir = mkdtempSync(join(tmpdir(), 'locus-platform-'));
    const file = join(dir, 'mine.json');
    writeFileSync(file, platformToJson(resolvePlatform('hannibal')));
    const p = resolvePlatform(file, { gpuMem: 1 * GiB });
    assert.equal(p.nodes[1]!.capacity, GiB);
    throwsLocus(() => resolvePlatform(file, { gpus: 1 }), 'presets only');
  });
});

describe('platform files', () => {
  const base = () => ({
    name: 'my-machine',
    memoryNodes: [
      { name: 'ram', kind: 'host', capacity: '192GiB' },
      { name: 'gpu0', kind: 'gpu', capacity: '500MiB' },
    ] as Record<string, unknown>[],
    workers: [
      { name: 'gpu0', kind: 'gpu', memory: 'gpu0', rate: '12.6TFlop/s', codelets: { potrf: '14.1GFlop/s' } },
      { name: 'cpu', kind: 'cpu', memory: 'ram', rate: '50GFlop/s', count: 4 },
    ] as Record<string, unknown>[],
    links: [
      { name: 'ram->gpu0', from: 'ram', to: 'gpu0', bandwidth: '10.9GB/s', latency: '10us' },
      { name: 'gpu0->ram', from: 'gpu0', to: 'ram', bandwidth: '12.4GB/s', latency: '10us' },
    ] as Record<string, unknown>[],
    hostBus: { bandwidth: '12.38GB/s', latency: '0us' } as Record<string, unknown>,
    peerToPeer: true,
  });
  const parse = (f: unknown) => parsePlatformFile(JSON.stringify(f), 'platform.json');

  test('the example compiles', () => {
    const p = parse(base());
    assert.equal(p.name, 'my-machine');
    assert.deepEqual(
      p.workers.map((w) => w.name),
      ['gpu0', 'cpu0', 'cpu1', 'cpu2', 'cpu3'],
    );
    assert.equal(p.homeNode, 0);
    assert.equal(p.nodes[0]!.capacity, 192 * GiB);
    assert.deepEqual(routeNames(p, 'gpu0', 'ram'), ['gpu0->ram', 'host-bus']);
    assert.deepEqual(routeOf(p, 0, 0), []);
    assert.deepEqual(parse(JSON.parse(platformToJson(p))), p);
  });

  test('bidirectional links, unlimited capacity, default names, peerToPeer false', () => {
    const f = base();
    f.memoryNodes[0]!.capacity = 'unlimited';
    f.memoryNodes.push({ name: 'gpu1', kind: 'gpu', capacity: '1GB' });
    f.links = [
      { from: 'ram', to: 'gpu0', bandwidth: '10GB/s', bidirectional: true },
      { from: 'ram', to: 'gpu1', bandwidth: '10GB/s', bidirectional: true },
      { from: 'gpu0', to: 'gpu1', bandwidth: '40GB/s', bidirectional: true },
    ];
    const p = parse(f);
    assert.equal(p.nodes[0]!.capacity, Number.POSITIVE_INFINITY);
    assert.deepEqual(routeNames(p, 'gpu1', 'ram'), ['gpu1->ram', 'host-bus']);
    assert.deepEqual(routeNames(p, 'gpu1', 'gpu0'), ['gpu1->gpu0']);
    assert.equal(parsePlatformFile(platformToJson(p), 'p.json').routes.length, 9);
    const q = parse({ ...f, peerToPeer: false, name: undefined });
    assert.equal(routeNames(q, 'gpu0', 'gpu1'), null);
    assert.equal(q.name, 'platform');
    assert.deepEqual(parse(JSON.parse(platformToJson(q))).routes, q.routes);
  });

  test('buses: routes share extra links named in via', () => {
    const f = base();
    f.memoryNodes.push({ name: 'gpu1', kind: 'gpu', capacity: '1GB' });
    f.links = ['gpu0', 'gpu1'].map((g) => ({
      from: 'ram',
      to: g,
      bandwidth: '6GB/s',
      bidirectional: true,
      via: ['pcie-a'],
    }));
    const p = parse({ ...f, buses: [{ name: 'pcie-a', bandwidth: '5.7GB/s' }] });
    assert.deepEqual(routeNames(p, 'ram', 'gpu1'), ['ram->gpu1', 'pcie-a', 'host-bus']);
    assert.deepEqual(routeNames(p, 'gpu0', 'ram'), ['gpu0->ram', 'pcie-a', 'host-bus']);
    assert.deepEqual(parse(JSON.parse(platformToJson(p))), p);
  });

  test('errors are one line naming the file and the field', () => {
    const f = base();
    f.workers[1]!.memory = 'gpu9';
    throwsLocus(
      () => parse(f),
      "platform.json: workers[1].memory: no memory node named 'gpu9' (known: ram, gpu0)",
    );

    const g = base();
    g.links[0]!.bandwidth = '10 GB';
    throwsLocus(
      () => parse(g),
      "platform.json: links[0].bandwidth: '10 GB' is not a bandwidth; use e.g. 10.9GB/s",
    );

    const h = base();
    h.links.pop();
    throwsLocus(() => parse(h), 'platform.json: links: ', "no link from 'gpu0' to 'ram'");

    const i = base();
    i.memoryNodes.push({ name: 'gpu0', kind: 'gpu', capacity: '1GB' });
    throwsLocus(() => parse(i), 'platform.json: memoryNodes[2].name: ', "duplicate name 'gpu0'");

    const j = base();
    j.workers.push({ name: 'cpu', kind: 'cpu', memory: 'ram', rate: 1e9, count: 2 });
    throwsLocus(() => parse(j), 'platform.json: workers[2].name: ', "duplicate worker name 'cpu0'");

    const k = base();
    k.memoryNodes[1]!.kind = 'host';
    throwsLocus(() => parse(k), 'platform.json: memoryNodes: ', "exactly one node must be of kind 'host'");

    const l = base();
    delete l.memoryNodes[1]!.capacity;
    throwsLocus(() => parse(l), 'platform.json: memoryNodes[1].capacity: missing');

    const m = base();
    m.workers[0]!.rtae = 3;
    throwsLocus(() => parse(m), 'platform.json: workers[0]: ', "unknown field 'rtae'");

    const n = base();
    n.workers[0]!.kind = 'fpga';
    throwsLocus(() => parse(n), 'platform.json: workers[0].kind: ');

    const o = base();
    o.links[0]!.via = ['nope'];
    throwsLocus(() => parse(o), "platform.json: links[0].via[0]: no bus named 'nope'");

    const q = base();
    q.links.push({ from: 'ram', to: 'gpu0', bandwidth: 1e9 });
    throwsLocus(() => parse(q), 'platform.json: links[2]: ', "second link from 'ram' to 'gpu0'");

    const r = base();
    r.workers[0]!.codelets = { potrf: 'slow' };
    throwsLocus(() => parse(r), "platform.json: workers[0].codelets.potrf: 'slow' is not a rate");

    const s = base();
    s.workers[1]!.memory = 'gpu0';
    throwsLocus(() => parse(s), 'platform.json: workers[1].memory: ', 'cpu worker');
  });

  test('invalid JSON is one line with the file name and the parser message', () => {
    throwsLocus(
      () => parsePlatformFile('{"name": "x",\n "workers": [,]}', 'broken.json'),
      'broken.json: invalid JSON: ',
      'Unexpected token',
    );
    throwsLocus(
      () => parsePlatformFile('{"name": "x",\n "workers": []', 'broken.json'),
      'broken.json: invalid JSON: ',
      'line 2',
    );
    throwsLocus(
      () => parsePlatformFile('[]', 'list.json'),
      'list.json: a platform file holds one JSON object',
    );
  });
});
