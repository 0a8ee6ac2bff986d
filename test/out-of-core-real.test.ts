/**
 * Real runs out of core (issue 30): a disk node is a file in a folder of its own under the
 * directory given, read and written asynchronously; the engine evicts host replicas to it as
 * in a simulation. Cholesky and LU with data 4x the host cap give the sequential run's
 * results bit for bit, host buffers never exceed the cap, clean data are evicted first and
 * dirty data written before they are freed, the folder goes after success and failure alike,
 * and a full or unusable disk is a one-line error. Every test writes under os.tmpdir() only.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LocusError } from '../src/core/types.ts';
import { runWorkload } from '../src/exec/run-workload.ts';
import { Runtime } from '../src/exec/runtime.ts';

const KERNELS = new URL('./fixtures/access-kernels.ts', import.meta.url);
const base = mkdtempSync(join(tmpdir(), 'locus-ooc-test-'));
after(() => rmSync(base, { recursive: true, force: true }));

/** A fresh directory for one test's disk. */
function diskDir(): string {
  return mkdtempSync(join(base, 'disk-'));
}

/** A real runtime on `cpus` worker threads whose host copies are capped at `hostMem`, over a disk folder in `dir`. */
function realOnDisk(
  dir: string,
  cpus: number,
  hostMem: number | string,
  o: { pipeline?: number; capacity?: number; readAhead?: boolean } = {},
): Promise<Runtime> {
  return Runtime.create({
    mode: 'real',
    cpus,
    ...(o.pipeline !== undefined ? { pipeline: o.pipeline } : {}),
    ...(o.readAhead !== undefined ? { readAhead: o.readAhead } : {}),
    perfModels: 'off',
    hostMem,
    disk: { path: dir, ...(o.capacity !== undefined ? { capacity: o.capacity } : {}) },
  });
}

describe('real runs out of core', () => {
  for (const workload of ['cholesky', 'lu']) {
    test(`${workload} with data 4x the host cap gives the sequential results bit for bit`, async () => {
      const dir = diskDir();
      const hostMem = 256 * 1024;
      const rt = await realOnDisk(dir, 2, hostMem);
      assert.equal(readdirSync(dir).length, 1, 'the run has its own folder');
      const r = await runWorkload(workload, { tiles: 8, tileSize: 64, check: true, runtime: rt });
      const ooc = rt.outOfCore!;
      await rt.close();
      assert.equal(r.residual, 0);
      assert.ok(ooc.diskBytes >= 4 * hostMem, `${ooc.diskBytes} bytes of data for a ${hostMem}-byte cap`);
      assert.ok(ooc.hostPeakBytes <= hostMem, `host buffers peaked at ${ooc.hostPeakBytes} > ${hostMem}`);
      assert.ok(ooc.hostPeakBytes > 0);
      assert.ok(r.report.bytesToDisk! > 0 && r.report.bytesFromDisk! > 0);
      const host = r.report.nodes.find((n) => n.kind === 'host')!;
      assert.ok(host.peakBytes <= hostMem);
      assert.deepEqual(readdirSync(dir), [], 'the folder is removed at close');
    });
  }

  test("read-ahead: cholesky 4x over the cap reads ready tasks' inputs ahead, results bit for bit", async () => {
    const dir = diskDir();
    const hostMem = 256 * 1024;
    const rt = await realOnDisk(dir, 2, hostMem, { pipeline: 1, readAhead: true });
    const r = await runWorkload('cholesky', { tiles: 8, tileSize: 64, check: true, runtime: rt });
    const ooc = rt.outOfCore!;
    await rt.close();
    assert.equal(r.residual, 0);
    assert.ok(ooc.bytesReadAhead > 0, 'nothing read ahead');
    assert.ok(ooc.bytesReadAhead <= ooc.bytesRead);
    assert.ok(ooc.hostPeakBytes <= hostMem);
    // Off by default.
    const rt2 = await realOnDisk(diskDir(), 2, hostMem, { pipeline: 1 });
    await runWorkload('cholesky', { tiles: 4, tileSize: 64, runtime: rt2 });
    assert.equal(rt2.outOfCore!.bytesReadAhead, 0);
    await rt2.close();
  });

  test('host eviction drops clean data first and writes dirty data to the disk before freeing them', async () => {
    const dir = diskDir();
    const n = 1000;
    const rt = await realOnDisk(dir, 1, 2 * 8 * n, { pipeline: 1 });
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['cpu'] });
    const touch = rt.codelet({ name: 'touch', kinds: ['cpu'] });
    const arrays = [1, 2, 3].map((v) => new Float64Array(n).fill(v));
    const [a, b, c] = arrays.map((x, i) => rt.data(x, { name: 'abc'[i] }));
    rt.submit(inc, [[a!, 'RW']]); // a loaded and modified: dirty
    rt.submit(touch, [[b!, 'R']]); // b loaded: clean; host memory is full
    rt.submit(touch, [[c!, 'R']]); // room for c: b goes (clean), not a (dirty)
    const first = await rt.wait();
    assert.equal(first.bytesToDisk, 0, 'the clean datum was dropped, nothing written');
    rt.submit(touch, [
      [b!, 'R'],
      [c!, 'R'],
    ]); // room for b with c in use: a is written to the disk, then freed
    const second = await rt.wait();
    assert.equal(second.bytesToDisk, 8 * n, "a's modified content went to the disk");
    rt.submit(inc, [[a!, 'RW']]); // a comes back from the disk with its first increment
    await rt.close();
    assert.deepEqual([...new Set(arrays[0])], [3]);
    assert.deepEqual([...new Set(arrays[1])], [2]);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('acquire reads a datum from the disk, and a modified one goes back to it', async () => {
    const dir = diskDir();
    const rt = await realOnDisk(dir, 1, 16_000);
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['cpu'] });
    const xs = [0, 1, 2, 3].map((v) => rt.data(new Float64Array(1000).fill(v)));
    for (const x of xs) rt.submit(inc, [[x, 'RW']]);
    const got = await rt.acquire(xs[0]!, 'RW');
    assert.equal(got[0], 1);
    assert.equal(rt.read(xs[0]!), got);
    got.fill(10);
    rt.release(xs[0]!);
    assert.throws(
      () => rt.read(xs[0]!),
      (e: unknown) => e instanceof LocusError && e.code === 'LOCUS_STATE_INVALID',
    );
    rt.submit(inc, [[xs[0]!, 'RW']]);
    const again = await rt.acquire(xs[0]!);
    assert.equal(again[999], 11);
    rt.release(xs[0]!);
    await rt.close();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a tiled matrix comes back into its array at close, tile by tile', async () => {
    const dir = diskDir();
    const rt = await realOnDisk(dir, 2, 3 * 8 * 64);
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['cpu'] });
    const n = 24;
    const a = Float64Array.from({ length: n * n }, (_, i) => i);
    const m = rt.matrix(a, n, n, 8);
    for (let j = 0; j < m.tileCols; j++)
      for (let i = 0; i < m.tileRows; i++) rt.submit(inc, [[m.at(i, j), 'RW']]);
    await rt.close();
    assert.ok(a.every((v, i) => v === i + 1));
    assert.deepEqual(readdirSync(dir), []);
  });

  test('host buffers stay within the cap across engines (setPolicies)', async () => {
    const dir = diskDir();
    const hostMem = 3 * 8000;
    const rt = await realOnDisk(dir, 2, hostMem);
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['cpu'] });
    const arrays = Array.from({ length: 10 }, (_, i) => new Float64Array(1000).fill(i));
    const xs = arrays.map((a) => rt.data(a));
    for (const policy of ['eager', 'lws', 'eager']) {
      for (const x of xs) rt.submit(inc, [[x, 'RW']]);
      await rt.wait();
      rt.setPolicies(policy);
    }
    await rt.sync();
    assert.deepEqual(
      arrays.map((a) => a[999]),
      arrays.map((_, i) => i + 3),
    );
    assert.ok(rt.outOfCore!.hostPeakBytes <= hostMem, `${rt.outOfCore!.hostPeakBytes} > ${hostMem}`);
    await rt.close();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a program that exits without close() leaves no folder behind', () => {
    const dir = diskDir();
    const runtime = new URL('../src/exec/runtime.ts', import.meta.url).href;
    const code = `
      const { Runtime } = await import(${JSON.stringify(runtime)});
      const rt = await Runtime.create({ mode: 'real', cpus: 1, perfModels: 'off', hostMem: '1MiB', disk: { path: ${JSON.stringify(dir)} } });
      rt.data(new Float64Array(1000).fill(1));
      const fs = await import('node:fs');
      process.stdout.write(String(fs.readdirSync(${JSON.stringify(dir)}).length));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '1', 'the folder existed while the program ran');
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a directory that does not exist or is a file is one line, LOCUS_DISK_UNUSABLE', async () => {
    const file = join(base, 'a-file');
    writeFileSync(file, '');
    for (const path of [join(base, 'missing', 'dir'), file]) {
      await assert.rejects(
        Runtime.create({ mode: 'real', cpus: 1, hostMem: '1MiB', disk: { path } }),
        (e: unknown) =>
          e instanceof LocusError &&
          e.code === 'LOCUS_DISK_UNUSABLE' &&
          !e.message.includes('\n') &&
          e.message.includes(path),
      );
    }
  });

  test('data beyond the disk capacity are refused at registration, LOCUS_DISK_FULL, and the folder goes', async () => {
    const dir = diskDir();
    const rt = await realOnDisk(dir, 1, '1MiB', { capacity: 20_000 });
    const kept = new Float64Array(1000).fill(7);
    rt.data(kept, { name: 'first' });
    assert.throws(
      () => rt.data(new Float64Array(2000), { name: 'second' }),
      (e: unknown) =>
        e instanceof LocusError &&
        e.code === 'LOCUS_DISK_FULL' &&
        !e.message.includes('\n') &&
        /second/.test(e.message),
    );
    await rt.close();
    assert.deepEqual([...new Set(kept)], [7]);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a write that fails mid-run (ENOSPC) stops the run in one line; modified data stay in memory; the folder goes', async () => {
    const dir = diskDir();
    const n = 1000;
    const rt = await realOnDisk(dir, 1, 2 * 8 * n, { pipeline: 1 });
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' }, kinds: ['cpu'] });
    const xs = [0, 1, 2, 3].map((v) => rt.data(new Float64Array(n).fill(v)));
    // Every write of the run fails as on a full disk (reads go through).
    const disk = (rt as unknown as { store: { disk: { handle?: Promise<unknown> } } }).store.disk;
    const { open } = await import('node:fs/promises');
    const real = await open(join(dir, readdirSync(dir)[0]!, 'data'), 'r+');
    disk.handle = Promise.resolve({
      read: real.read.bind(real),
      write: () =>
        Promise.reject(
          Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
        ),
      close: () => real.close(),
    });
    for (const x of xs) rt.submit(inc, [[x, 'RW']]);
    await assert.rejects(
      rt.wait(),
      (e: unknown) => e instanceof LocusError && e.code === 'LOCUS_DISK_FULL' && !e.message.includes('\n'),
    );
    // The datum whose write failed is still valid in host memory (the engine freed nothing).
    const engine = (rt as unknown as { session: { engine: { isValidOn(h: number, n: number): boolean } } })
      .session.engine;
    const host = rt.platform.homeNode;
    assert.ok(
      xs.some((x) => engine.isValidOn(x.id, host)),
      'a modified datum is still in host memory',
    );
    await rt.close().catch(() => undefined);
    assert.deepEqual(readdirSync(dir), [], 'the folder is removed after the failure');
  });
});

describe('locus run --mode real --host-mem --disk DIR', () => {
  const locus = (args: string[]) =>
    spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8', env: { ...process.env } });

  test('cholesky 8x8 tiles of 128 with 1 MiB of host memory: residual 0, disk traffic in the JSON', () => {
    const dir = diskDir();
    const r = locus([
      'run',
      '--mode',
      'real',
      '-w',
      'cholesky',
      '--tiles',
      '8',
      '--tile-size',
      '128',
      '--cpus',
      '2',
      '--host-mem',
      '1MiB',
      '--disk',
      dir,
      '--check',
      '--json',
      '--no-record',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.equal(json.residual, 0);
    assert.ok(json.bytesToDisk > 0 && json.bytesFromDisk > 0);
    assert.ok(json.outOfCore.hostPeakBytes <= 2 ** 20);
    assert.ok(json.outOfCore.diskBytes >= 4 * 2 ** 20);
    assert.deepEqual(readdirSync(dir), []);
  });

  test('--disk NAME: a disk node of the platform file with a path', () => {
    const dir = diskDir();
    const file = join(base, 'cpus-and-disk.json');
    const platform = {
      name: 'cpus-and-disk',
      memoryNodes: [
        { name: 'ram', kind: 'host', capacity: '1GiB' },
        {
          name: 'ssd',
          kind: 'disk',
          capacity: '1GB',
          readBandwidth: '3GB/s',
          writeBandwidth: '2GB/s',
          path: dir,
        },
        { name: 'nopath', kind: 'disk', capacity: '1GB', readBandwidth: '3GB/s', writeBandwidth: '2GB/s' },
      ],
      workers: [{ name: 'cpu', kind: 'cpu', memory: 'ram', rate: '1GFlop/s', count: 2 }],
    };
    // A platform has one disk node: the one without a path, in a file of its own.
    writeFileSync(file, JSON.stringify({ ...platform, memoryNodes: platform.memoryNodes.slice(0, 2) }));
    const args = [
      'run',
      '--mode',
      'real',
      '-w',
      'lu',
      '--tiles',
      '6',
      '--tile-size',
      '64',
      '--check',
      '--json',
      '--no-record',
    ];
    const r = locus([...args, '-p', file, '--host-mem', '128KiB', '--disk', 'ssd']);
    assert.equal(r.status, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.equal(json.residual, 0);
    assert.equal(json.outOfCore.path, dir);
    assert.ok(json.bytesFromDisk > 0);
    assert.deepEqual(readdirSync(dir), []);
    const noPath = join(base, 'no-path.json');
    writeFileSync(
      noPath,
      JSON.stringify({ ...platform, memoryNodes: [platform.memoryNodes[0], platform.memoryNodes[2]] }),
    );
    const bad = locus([...args, '-p', noPath, '--disk', 'nopath']);
    assert.equal(bad.status, 2);
    assert.match(
      bad.stderr,
      /^locus: --disk nopath: disk node nopath of platform cpus-and-disk has no "path"/,
    );
  });

  test('an unusable directory is one line and exit code 2', () => {
    const r = locus([
      'run',
      '--mode',
      'real',
      '-w',
      'lu',
      '--tiles',
      '2',
      '--host-mem',
      '1MiB',
      '--disk',
      join(base, 'nope'),
    ]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^locus: disk .*nope: it does not exist \(ENOENT\); give a directory/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    for (const cluster of ['mpi', 'sim']) {
      const mode = cluster === 'mpi' ? ['--mode', 'real'] : [];
      const r2 = locus(['run', ...mode, '--cluster', cluster, '-w', 'cholesky', '--disk', base]);
      assert.equal(r2.status, 2);
      assert.match(
        r2.stderr,
        new RegExp(
          `^locus: --disk does not apply to --cluster ${cluster} \\(out of core runs on one machine`,
        ),
      );
      assert.equal(r2.stderr.trim().split('\n').length, 1);
    }
  });

  test('Ctrl-C removes the disk folder', async () => {
    const dir = diskDir();
    const child = spawn(
      process.execPath,
      [
        'bin/locus.mjs',
        'run',
        '--mode',
        'real',
        '-w',
        'cholesky',
        '--tiles',
        '32',
        '--tile-size',
        '256',
        '--cpus',
        '2',
        '--host-mem',
        '8MiB',
        '--disk',
        dir,
        '--no-record',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Once the run's folder exists, the run has started (registration writes the data first).
    while (readdirSync(dir).length === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    const code = await exited;
    assert.ok(code === 130 || code === 0, `exit code ${code}: ${stderr}`);
    assert.deepEqual(readdirSync(dir), [], 'the folder is removed after Ctrl-C');
  });
});
