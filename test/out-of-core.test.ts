/**
 * Out of core (issue 30): disk nodes in platform files, a disk attached below host memory,
 * host eviction (clean data first, dirty data written to the disk before they are freed), and
 * `locus run --host-mem --disk`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type Engine, type EngineObserver, type FreeReason, TransferKind } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { routeOf, soloTransferTime } from '../src/core/platform.ts';
import type { SchedContext } from '../src/core/policy.ts';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { describePlatform } from '../src/platform/describe.ts';
import { attachDisk, DISK_PRESETS, resolveDisk, withHostMemory } from '../src/platform/disk.ts';
import { parsePlatformFile, platformToJson } from '../src/platform/schema.ts';
import { runSweep } from '../src/report/sweep.ts';
import { testPlatform } from './helpers/platforms.ts';
import { checkedRun, FixedScheduler } from './helpers/run.ts';

const { R, RW } = AccessMode;

const FILE = {
  name: 'with-disk',
  memoryNodes: [
    { name: 'ram', kind: 'host', capacity: '1GiB' },
    { name: 'gpu0', kind: 'gpu', capacity: '100MiB' },
    {
      name: 'ssd',
      kind: 'disk',
      capacity: '1TB',
      readBandwidth: '3GB/s',
      writeBandwidth: '2GB/s',
      latency: '50us',
    },
  ],
  workers: [
    { name: 'gpu0', kind: 'gpu', memory: 'gpu0', rate: '10TFlop/s' },
    { name: 'cpu', kind: 'cpu', memory: 'ram', rate: '100GFlop/s' },
  ],
  links: [
    { from: 'ram', to: 'gpu0', bandwidth: '10GB/s', latency: '10us' },
    { from: 'gpu0', to: 'ram', bandwidth: '10GB/s', latency: '10us' },
  ],
};

describe('disk nodes in platform files', () => {
  test('a disk node is kept apart until a run attaches it', () => {
    const p = parsePlatformFile(JSON.stringify(FILE), 'with-disk.json');
    assert.deepEqual(
      p.nodes.map((n) => n.kind),
      ['host', 'gpu'],
    );
    assert.deepEqual(p.disks, [
      { name: 'ssd', capacity: 1e12, readBandwidth: 3e9, writeBandwidth: 2e9, latency: 50e-6 },
    ]);
    const withDisk = attachDisk(p, resolveDisk(p, 'ssd'));
    assert.deepEqual(
      withDisk.nodes.map((n) => `${n.name}:${n.kind}`),
      ['ram:host', 'gpu0:gpu', 'ssd:disk'],
    );
    // ram <-> ssd over the disk's own links; ssd <-> gpu0 through ram's routes.
    assert.deepEqual(
      routeOf(withDisk, 2, 0)!.map((l) => withDisk.links[l]!.name),
      ['ssd->ram'],
    );
    assert.deepEqual(
      routeOf(withDisk, 0, 2)!.map((l) => withDisk.links[l]!.name),
      ['ram->ssd'],
    );
    assert.deepEqual(
      routeOf(withDisk, 2, 1)!.map((l) => withDisk.links[l]!.name),
      ['ssd->ram', 'ram->gpu0'],
    );
    assert.deepEqual(
      routeOf(withDisk, 1, 2)!.map((l) => withDisk.links[l]!.name),
      ['gpu0->ram', 'ram->ssd'],
    );
    // A read of 3 GB: the latency plus a second at the read bandwidth.
    assert.equal(soloTransferTime(withDisk, 2, 0, 3e9), 50e-6 + 1);
    // The other nodes' routes are unchanged.
    assert.deepEqual(routeOf(withDisk, 0, 1), routeOf(p, 0, 1));
  });

  test('a disk node is described and written back to a file', () => {
    const p = parsePlatformFile(JSON.stringify(FILE), 'with-disk.json');
    assert.match(describePlatform(p), /disk ssd: .*read 3 GB\/s, write 2 GB\/s, 50 us/);
    const again = parsePlatformFile(platformToJson(p), 'again.json');
    assert.deepEqual(again.disks, p.disks);
    assert.throws(
      () => platformToJson(attachDisk(p, DISK_PRESETS.nvme!)),
      (e: unknown) => e instanceof LocusError && /disk 'nvme' is attached/.test(e.message),
    );
  });

  test('bad disk nodes are refused in one line', () => {
    const bad = (nodes: unknown[], workers = FILE.workers) => {
      try {
        parsePlatformFile(JSON.stringify({ ...FILE, memoryNodes: nodes, workers }), 'bad.json');
      } catch (e) {
        assert.ok(e instanceof LocusError);
        assert.equal(e.code, 'LOCUS_PLATFORM_INVALID');
        assert.doesNotMatch(e.message, /\n/);
        return e.message;
      }
      assert.fail('accepted');
    };
    const [ram, gpu, ssd] = FILE.memoryNodes as Record<string, unknown>[];
    const { readBandwidth: _r, ...noRead } = ssd!;
    assert.match(
      bad([ram, gpu, noRead]),
      /memoryNodes\[2\]\.readBandwidth: a disk node needs its readBandwidth/,
    );
    assert.match(bad([ram, gpu, ssd, { ...ssd, name: 'ssd2' }]), /at most one disk node/);
    assert.match(bad([{ ...ram, latency: '1us' }, gpu, ssd]), /only a disk node has a latency/);
    assert.match(
      bad([ram, gpu, ssd], [...FILE.workers, { name: 'x', kind: 'cpu', memory: 'ssd', rate: '1GFlop/s' }]),
      /'ssd' is a disk node/,
    );
  });

  test('--disk names a disk of the file or a preset', () => {
    const p = parsePlatformFile(JSON.stringify(FILE), 'with-disk.json');
    assert.equal(resolveDisk(p, 'ssd').readBandwidth, 3e9);
    assert.equal(resolveDisk(p, 'nvme'), DISK_PRESETS.nvme);
    assert.throws(
      () => resolveDisk(p, 'floppy'),
      (e: unknown) =>
        e instanceof LocusError && e.code === 'LOCUS_NAME_UNKNOWN' && /ssd, nvme/.test(e.message),
    );
  });
});

/** Records the replicas freed and the transfers finished, in order (`text` once the run ended). */
class Log implements EngineObserver {
  private readonly raw: (number | string)[] = [];
  transferFinished(id: number): void {
    this.raw.push(id);
  }
  replicaFreed(handle: number, node: number, reason: FreeReason): void {
    this.raw.push(`free ${handle} on ${node} (${reason})`);
  }
  /** The events, transfers as "copy HANDLE SRC->DST" (the engine keeps every transfer's record). */
  text(e: Engine): string[] {
    return this.raw.map((x) =>
      typeof x === 'string' ? x : `copy ${e.trHandle.data[x]} ${e.trSrc.data[x]}->${e.trDst.data[x]}`,
    );
  }
}

describe('host memory above a disk', () => {
  test('host eviction takes clean data first and writes dirty data to the disk before freeing them', () => {
    const g = new TaskGraph();
    const k = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const [a, b, c] = [g.addHandle(1000), g.addHandle(1000), g.addHandle(1000)];
    g.submit(k, [[a!, RW]], { flops: 1e6 }); // a loaded from the disk and modified: dirty
    g.submit(k, [[b!, R]], { flops: 1e6 }); // b loaded: clean; host memory is full
    g.submit(k, [[c!, R]], { flops: 1e6 }); // room for c: b goes (clean), not a (least recent, dirty)
    g.submit(
      k,
      [
        [b!, R],
        [c!, R],
      ],
      { flops: 1e6 },
    ); // room for b with c pinned: a is written, then freed
    const disk = { name: 'disk', capacity: 1e6, readBandwidth: 1e9, writeBandwidth: 1e9, latency: 0 };
    const platform = attachDisk(
      withHostMemory(testPlatform({ gpus: 0, gpuCapacity: [], cpus: 1 }), 2000),
      disk,
    );
    const log = new Log();
    const { checker, engine, stats } = checkedRun(g, platform, { cpuPipeline: 1, observers: [log] });
    assert.deepEqual(checker.violations, []);
    assert.ok(checker.finished);
    const host = 0;
    const d = 1;
    const ev = log.text(engine);
    const firstEviction = ev.findIndex((x) => x.endsWith('(evict)'));
    assert.equal(ev[firstEviction], `free ${b} on ${host} (evict)`, ev.join('\n'));
    const aWritten = ev.indexOf(`copy ${a} ${host}->${d}`);
    const aFreed = ev.indexOf(`free ${a} on ${host} (evict)`);
    assert.ok(aWritten >= 0 && aFreed > aWritten, ev.join('\n'));
    // b's first eviction wrote nothing: the only copy to the disk is a's.
    assert.equal(ev.filter((x) => x.endsWith(`${host}->${d}`)).length, 1, ev.join('\n'));
    assert.equal(stats.bytesToDisk, 1000);
    assert.equal(stats.bytesFromDisk, 5000, ev.join('\n')); // a, b, c, then b and c again
    assert.deepEqual(ev.slice(0, 9), [
      `copy ${a} ${d}->${host}`,
      `copy ${b} ${d}->${host}`,
      `free ${b} on ${host} (evict)`,
      `copy ${c} ${d}->${host}`,
      `free ${c} on ${host} (evict)`,
      `copy ${b} ${d}->${host}`,
      `copy ${a} ${host}->${d}`,
      `free ${a} on ${host} (evict)`,
      `copy ${c} ${d}->${host}`,
    ]);
  });

  test('a GPU reads data from the disk through host memory, which keeps them', () => {
    const g = new TaskGraph();
    const k = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(1000);
    g.submit(k, [[h, R]], { flops: 1e6 });
    const disk = { name: 'disk', capacity: 1e6, readBandwidth: 1e9, writeBandwidth: 1e9, latency: 0 };
    const platform = attachDisk(withHostMemory(testPlatform({ gpus: 1, gpuCapacity: 1000 }), 1000), disk);
    const log = new Log();
    const { checker, engine } = checkedRun(g, platform, { observers: [log] });
    assert.deepEqual(checker.violations, []);
    assert.deepEqual(log.text(engine), [`copy ${h} 2->0`, `copy ${h} 0->1`]);
    assert.ok(engine.isAllocated(h, 0));
  });
});

test('without peer-to-peer, a copy between GPUs goes through host memory, not the disk', () => {
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['gpu'] });
  const h = g.addHandle(1000);
  g.submit(k, [[h, RW]], { flops: 1e6 }); // on gpu0: modified there
  g.submit(k, [[h, R]], { flops: 1e6 }); // on gpu1: gpu0 -> ram -> gpu1
  const disk = { name: 'disk', capacity: 1e6, readBandwidth: 1e9, writeBandwidth: 1e9, latency: 0 };
  const platform = attachDisk(withHostMemory(testPlatform({ gpus: 2, gpuCapacity: 1000 }), 1000), disk);
  const log = new Log();
  const { checker, engine } = checkedRun(g, platform, {
    sched: new FixedScheduler((t) => t),
    observers: [log],
  });
  assert.deepEqual(checker.violations, []);
  assert.deepEqual(log.text(engine).slice(0, 5), [
    `copy ${h} 3->0`,
    `copy ${h} 0->1`,
    `free ${h} on 0 (invalidate)`, // gpu0 wrote it
    `copy ${h} 1->0`,
    `copy ${h} 0->2`,
  ]);
});

test("dm*'s transfer estimates price a datum only the disk holds as the two copies through host memory", () => {
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['gpu'] });
  const h = g.addHandle(1e6);
  g.submit(k, [[h, R]], { flops: 1e6 });
  const disk = { name: 'disk', capacity: 1e9, readBandwidth: 5e8, writeBandwidth: 4e8, latency: 1e-4 };
  const platform = attachDisk(withHostMemory(testPlatform({ gpus: 1, gpuCapacity: 1e6 }), 1e6), disk);
  const seen: number[] = [];
  class Probe extends FixedScheduler {
    private ctx!: SchedContext;
    override init(ctx: SchedContext): void {
      super.init(ctx);
      this.ctx = ctx;
    }
    override push(task: number): void {
      seen.push(this.ctx.transferTime(h, 1), this.ctx.transferTime(h, 0));
      super.push(task);
    }
  }
  checkedRun(g, platform, { sched: new Probe(() => 0) });
  assert.deepEqual(seen, [
    soloTransferTime(platform, 2, 0, 1e6) + soloTransferTime(platform, 0, 1, 1e6),
    soloTransferTime(platform, 2, 0, 1e6),
  ]);
});

test("dm*'s prefetch fills host memory from the disk for tasks queued on CPU workers", () => {
  // Out of core, host memory is one more cache: dmdar prefetches a CPU task's inputs from the
  // disk when it queues the task (without a disk nothing is prefetched to host memory, which
  // then holds every datum). 24 independent tasks over 12 data of 1 MB, 4 MB of host memory.
  const g = new TaskGraph();
  const k = g.addCodelet({ name: 'k', kinds: ['cpu'] });
  const data = Array.from({ length: 12 }, () => g.addHandle(1e6));
  for (let i = 0; i < 24; i++) {
    g.submit(
      k,
      [
        [data[i % 12]!, R],
        [data[(i * 5 + 1) % 12]!, R],
      ],
      { flops: 1e8 },
    );
  }
  const disk = { name: 'disk', capacity: 1e9, readBandwidth: 5e8, writeBandwidth: 4e8, latency: 1e-4 };
  const platform = attachDisk(withHostMemory(testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 2 }), 4e6), disk);
  const host = platform.homeNode;
  const { checker, stats } = checkedRun(g, platform, { sched: 'dmdar' });
  assert.deepEqual(checker.violations, []);
  // No GPU: every prefetch goes into host memory.
  assert.ok(stats.transfersByKind[TransferKind.PREFETCH]! > 0, 'no prefetch into host memory');
  assert.ok(stats.peakMemory[host]! <= 4e6);
  // The same tasks with every datum in host memory: nothing to prefetch there.
  const ram = checkedRun(g, testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 2 }), { sched: 'dmdar' });
  assert.equal(ram.stats.transfersByKind[TransferKind.PREFETCH], 0);
});

describe('locus run --host-mem --disk', () => {
  const locus = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const withoutWallClock = (out: string) => {
    const r = JSON.parse(out) as Record<string, unknown>;
    delete r.wallS;
    return JSON.stringify(r);
  };

  test('a disk that is never needed leaves the run as it is', () => {
    const args = [
      'run',
      '-w',
      'cholesky',
      '-n',
      '8',
      '--tile-size',
      '256',
      '--cpus',
      '2',
      '--host-mem',
      '1GiB',
      '--json',
    ];
    const plain = locus(...args);
    const disk = locus(...args, '--disk', 'nvme');
    assert.equal(plain.code, 0, plain.err);
    assert.equal(disk.code, 0, disk.err);
    assert.equal(withoutWallClock(disk.out), withoutWallClock(plain.out));
  });

  test('matmul2d -n 60 with 4 GiB of host memory runs out of core', () => {
    const r = locus('run', '-w', 'matmul2d', '-n', '60', '--host-mem', '4GiB', '--disk', 'nvme', '--json');
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out);
    assert.ok(report.bytesFromDisk > 0);
    assert.equal(typeof report.bytesToDisk, 'number');
    const ram = report.nodes.find((n: { name: string }) => n.name === 'ram');
    assert.ok(ram.peakBytes <= 4 * 2 ** 30);
    assert.ok(report.nodes.some((n: { kind: string }) => n.kind === 'disk'));
  });

  test('data beyond --host-mem without a disk, and unknown disks, are one-line errors', () => {
    const tooSmall = locus('run', '-w', 'matmul2d', '-n', '60', '--host-mem', '1GiB');
    assert.equal(tooSmall.code, 2);
    assert.match(tooSmall.err, /LOCUS_HOST_MEMORY_TOO_SMALL|do not fit in host memory/);
    const unknown = locus('run', '-w', 'matmul2d', '-n', '4', '--disk', 'floppy');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /--disk floppy: no such disk/);
    const dir = mkdtempSync(join(tmpdir(), 'locus-disk-'));
    const file = join(dir, 'p.json');
    writeFileSync(file, JSON.stringify(FILE));
    const own = locus(
      'run',
      '-w',
      'matmul2d',
      '-n',
      '8',
      '-p',
      file,
      '--host-mem',
      '30MiB',
      '--disk',
      'ssd',
      '--json',
    );
    assert.equal(own.code, 0, own.err);
    assert.ok(JSON.parse(own.out).bytesFromDisk > 0);
    const small = join(dir, 'small.json');
    const [ram, gpu, ssd] = FILE.memoryNodes;
    writeFileSync(small, JSON.stringify({ ...FILE, memoryNodes: [ram, gpu, { ...ssd, capacity: '10MB' }] }));
    const full = locus(
      'run',
      '-w',
      'matmul2d',
      '-n',
      '8',
      '-p',
      small,
      '--host-mem',
      '30MiB',
      '--disk',
      'ssd',
    );
    assert.equal(full.code, 2);
    assert.match(full.err, /^locus: the data \(.*\) do not fit in disk ssd \(9\.54 MiB\): use a larger disk/);
  });
});

test('a sweep with --host-mem and --disk attaches the disk to the sizes whose data exceed host memory', () => {
  const spec = {
    workload: 'cholesky',
    params: { tileSize: 256 },
    sizes: [2, 8],
    policies: ['eager'],
    platform: 'v100x2',
    gpus: 1,
    cpus: 0,
  };
  const hostMem = 4 * 256 * 256 * 8;
  const plain = runSweep({ ...spec, hostMem: 2 ** 30 });
  const ooc = runSweep({ ...spec, hostMem, disk: 'nvme' });
  const [small, large] = ooc.rows;
  assert.equal(small!.bytesFromDisk, 0, 'N = 2 fits in host memory: no disk');
  assert.equal(small!.makespanS, plain.rows[0]!.makespanS);
  assert.ok(large!.bytesFromDisk! > 0 && large!.bytesToDisk! >= 0);
  assert.equal(plain.rows[0]!.bytesToDisk, undefined, 'no disk column without --disk');
  assert.throws(
    () => runSweep({ ...spec, disk: 'floppy' }),
    (e: unknown) => e instanceof LocusError && e.code === 'LOCUS_NAME_UNKNOWN',
  );
});
