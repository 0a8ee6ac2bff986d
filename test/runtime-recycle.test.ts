/**
 * A long library session in bounded memory (issue 25): the Runtime's engine recycles the
 * records of finished tasks (Engine.compact) and the backend, the driver and the runtime's
 * own tables follow the shift. The same program with recycling forced off (RuntimeOptions
 * .recycle: false) and on gives the same data, task states, failures and callbacks, on the
 * worker threads and simulated; Task objects and their promises keep working for tasks whose
 * records were recycled, a failed one and a cancelled one included.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { TaskGraph } from '../src/core/graph.ts';
import {
  Runtime,
  type RuntimeOptions,
  type Task,
  TaskCancelledError,
  TaskFailedError,
} from '../src/exec/runtime.ts';
import type { RunReport } from '../src/trace/report.ts';
import { noAdapter, SCALE_WGSL } from './helpers/webgpu.ts';

process.env.LOCUS_PERFMODEL_DIR = mkdtempSync(join(tmpdir(), 'locus-models-'));

const KERNELS = new URL('./helpers/kernels.ts', import.meta.url);
/** Tasks per batch: above the engine's minimum compaction (4,096 finished tasks). */
const BATCH = 5000;

/** Tasks the runtime's graph dropped so far (the test reads the runtime's private graph). */
function retired(rt: Runtime): number {
  return (rt as unknown as { graph: TaskGraph }).graph.retired;
}

/** What a run of the program leaves: data, task states, callbacks, what failed. */
interface Outcome {
  data: number[][];
  acquired: number[];
  states: string[];
  callbacks: string[];
  failedWait: string;
  reports: RunReport[];
  retired: number;
}

/**
 * Three batches of increments over four data (each task also reads the next datum, so they
 * chain), a wait after each; with `failing`, the second batch holds a task that throws and one
 * that depends on it (cancelled), and the third batch a task on the same datum (it runs: the
 * failure was reported). An acquire between the second and third batches.
 */
async function program(options: RuntimeOptions, failing: boolean): Promise<Outcome> {
  const rt = await Runtime.create({ cpus: 2, ...options });
  const arrays = [0, 1, 2, 3].map(() => new Float64Array(4));
  const failed = new Float64Array(2);
  const tasks: Task[] = [];
  const callbacks: string[] = [];
  const reports: RunReport[] = [];
  let failedWait = '';
  let acquired: number[] = [];
  try {
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
    const boom = rt.codelet({ name: 'boom', kernel: { module: KERNELS, export: 'boom' } });
    const x = arrays.map((a, i) => rt.data(a, { name: `x${i}` }));
    const f = rt.data(failed, { name: 'f' });
    const batch = (b: number): void => {
      for (let i = 0; i < BATCH; i++) {
        const n = b * BATCH + i;
        if (failing && b === 1 && i === 100) tasks.push(rt.submit(boom, [[f, 'RW']], { name: 'BOOM' }));
        if (failing && b === 1 && i === 101) tasks.push(rt.submit(inc, [[f, 'RW']], { name: 'AFTER' }));
        if (failing && b === 2 && i === 0) tasks.push(rt.submit(inc, [[f, 'RW']], { name: 'LATER' }));
        tasks.push(
          rt.submit(
            inc,
            [
              [x[n % 4]!, 'RW'],
              [x[(n + 1) % 4]!, 'R'],
            ],
            {
              args: [n % 7],
              ...(n % 1000 === 7
                ? { onDone: (e?: Error) => callbacks.push(`${n}:${e?.constructor.name ?? 'ok'}`) }
                : {}),
            },
          ),
        );
      }
    };
    batch(0);
    reports.push(await rt.wait());
    batch(1);
    try {
      reports.push(await rt.wait());
    } catch (e) {
      assert.ok(e instanceof TaskFailedError, String(e));
      failedWait = `${e.message} [${e.failures.map((x) => x.task).join(',')}]`;
      if (e.report) reports.push(e.report);
    }
    const v = await rt.acquire(x[0]!, 'R');
    acquired = [...v];
    rt.release(x[0]!);
    batch(2);
    reports.push(await rt.wait());
    const out: Outcome = {
      data: [],
      acquired,
      states: tasks.map((t) => `${t.id}:${t.name}:${t.state}`),
      callbacks,
      failedWait,
      reports,
      retired: retired(rt),
    };
    await rt.close();
    out.data = [...arrays, failed].map((a) => [...a]);
    return out;
  } finally {
    await rt.close();
  }
}

/**
 * Two batches on the webgpu backend (a CPU thread and a WebGPU device): mostly tasks with no
 * kernel over small data moving between host and device, every 1,000th doubling x on the
 * device (WGSL), every 100th incrementing y on the CPU. The data, states and recycled count.
 */
async function webgpuProgram(
  recycle: boolean,
): Promise<{ data: number[][]; states: string[]; retired: number }> {
  const rt = await Runtime.create({ backend: 'webgpu', cpus: 1, gpus: 1, gpuMemory: '1MiB', recycle });
  const x = new Float32Array(64).fill(1);
  const y = new Float64Array(2);
  const small = [0, 1, 2].map(() => new Float32Array(4));
  const tasks: Task[] = [];
  try {
    const none = rt.codelet({ name: 'none' });
    const scale = rt.codelet({
      name: 'scale',
      gpu: { wgsl: SCALE_WGSL, workgroups: (_b, a) => Math.ceil(a[0]! / 64) },
    });
    const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
    const xs = rt.data(x, { name: 'x' });
    const ys = rt.data(y, { name: 'y' });
    const ds = small.map((a, i) => rt.data(a, { name: `s${i}` }));
    for (let b = 0; b < 2; b++) {
      for (let i = 0; i < BATCH; i++) {
        const n = b * BATCH + i;
        if (n % 1000 === 0) tasks.push(rt.submit(scale, [[xs, 'RW']], { args: [64] }));
        else if (n % 100 === 1) tasks.push(rt.submit(inc, [[ys, 'RW']]));
        else
          tasks.push(
            rt.submit(none, [
              [ds[n % 3]!, 'R'],
              [ds[(n + 1) % 3]!, 'RW'],
            ]),
          );
      }
      await rt.wait();
    }
    const retiredNow = retired(rt);
    await rt.close();
    return {
      data: [[...x], [...y]],
      states: tasks.map((t) => `${t.id}:${t.state}`),
      retired: retiredNow,
    };
  } finally {
    await rt.close();
  }
}

/** What a real run's report says of the program rather than of the machine's timing. */
function comparable(r: RunReport): unknown {
  const { workload, scheduler, eviction, tasks, totalFlops, transfers, loads, evictions, writebacks } = r;
  return { workload, scheduler, eviction, tasks, totalFlops, transfers, loads, evictions, writebacks };
}

describe('recycling in a long Runtime session (issue 25)', { timeout: 300_000 }, () => {
  test('threads: the same program with recycling off and on gives the same data, states and failures', async () => {
    const off = await program({ recycle: false }, true);
    const on = await program({}, true);
    assert.equal(off.retired, 0, 'recycling off keeps every record');
    assert.ok(on.retired > BATCH + 101, `the failed task's record was recycled (${on.retired} recycled)`);
    assert.deepEqual(on.data, off.data);
    assert.deepEqual(on.acquired, off.acquired);
    assert.deepEqual(on.states, off.states);
    assert.deepEqual(on.callbacks.sort(), off.callbacks.sort());
    assert.equal(on.failedWait, off.failedWait);
    assert.match(
      on.failedWait,
      /^task BOOM \(codelet boom\) failed: kaboom; 1 dependent task cancelled \[5100\]$/,
    );
    assert.deepEqual(on.reports.map(comparable), off.reports.map(comparable));
    // The increments ran: x0 got n % 7 for every n = 0 mod 4 of the 15,000 tasks.
    let x0 = 0;
    for (let n = 0; n < 3 * BATCH; n += 4) x0 += n % 7;
    assert.deepEqual(on.data[0], [x0, x0, x0, x0]);
    // LATER ran on f after the failure was reported (BOOM's writes are whatever it left: none).
    assert.deepEqual(on.data[4], [1, 1]);
    assert.deepEqual(on.states.slice(5100, 5103), [
      '5100:BOOM (#5100):failed',
      '5101:#5101:finished',
      '5102:AFTER (#5102):cancelled',
    ]);
  });

  test('threads: Task ids, states and promises still resolve after their records were recycled', async () => {
    const rt = await Runtime.create({ cpus: 2 });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const boom = rt.codelet({ name: 'boom', kernel: { module: KERNELS, export: 'boom' } });
      const a = new Float64Array(1);
      const x = rt.data(a, { name: 'x' });
      const y = rt.data(new Float64Array(1), { name: 'y' });
      const first = rt.submit(inc, [[x, 'RW']], { name: 'FIRST' });
      const bad = rt.submit(boom, [[y, 'RW']], { name: 'BAD' });
      const dependent = rt.submit(inc, [[y, 'RW']], { name: 'DEPENDENT' });
      await assert.rejects(rt.wait(), TaskFailedError);
      const tasks: Task[] = [];
      for (let b = 0; b < 3; b++) {
        for (let i = 0; i < BATCH; i++) tasks.push(rt.submit(inc, [[x, 'RW']]));
        await rt.wait();
      }
      assert.ok(retired(rt) > tasks[BATCH]!.id, `recycled ${retired(rt)}`);
      assert.deepEqual([first.id, bad.id, dependent.id, tasks[0]!.id], [0, 1, 2, 3]);
      assert.equal(tasks.at(-1)!.id, 3 + 3 * BATCH - 1);
      assert.equal(first.state, 'finished');
      await first.done;
      await tasks[0]!.done;
      assert.equal(tasks[0]!.state, 'finished');
      assert.equal(bad.state, 'failed');
      await assert.rejects(bad.done, (e: unknown) => {
        assert.ok(e instanceof TaskFailedError);
        assert.match(e.message, /^task BAD \(codelet boom\) failed: kaboom$/);
        assert.equal(e.failures[0]!.task, 1);
        return true;
      });
      assert.equal(dependent.state, 'cancelled');
      await assert.rejects(dependent.done, (e: unknown) => {
        assert.ok(e instanceof TaskCancelledError);
        assert.match(e.message, /^task DEPENDENT \(#2\) was cancelled/);
        return true;
      });
      // An acquire after recycling: its ticket is an application id and releases.
      const { ticket, data } = rt.acquireTicket(x, 'R');
      assert.equal(ticket, 3 + 3 * BATCH);
      assert.deepEqual([...(await data)], [1 + 3 * BATCH]);
      rt.releaseTicket(ticket);
      const late = rt.submit(inc, [[x, 'RW']], { name: 'LATE' });
      assert.equal(late.id, ticket + 1);
      await late.done;
      assert.equal(late.name, `LATE (#${late.id})`);
    } finally {
      await rt.close();
    }
  });

  test('threads: a task past its time limit after recycling fails, its writes undone, its dependent cancelled', async () => {
    const rt = await Runtime.create({ cpus: 2 });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const spin = rt.codelet({ name: 'spin', kernel: { module: KERNELS, export: 'spin' }, timeLimit: 0.2 });
      const x = rt.data(new Float64Array(1), { name: 'x' });
      const y = rt.data(new Float64Array(4), { name: 'y' });
      for (let b = 0; b < 2; b++) {
        for (let i = 0; i < BATCH; i++) rt.submit(inc, [[x, 'RW']]);
        await rt.wait();
      }
      assert.ok(retired(rt) >= BATCH, `recycled ${retired(rt)}`);
      rt.submit(inc, [[y, 'RW']]);
      const spinning = rt.submit(spin, [[y, 'RW']], { name: 'SPIN' });
      const after = rt.submit(inc, [[y, 'RW']], { name: 'AFTER' });
      await assert.rejects(rt.wait(), (e: unknown) => {
        assert.ok(e instanceof TaskFailedError);
        assert.deepEqual(
          e.failures.map((f) => f.task),
          [spinning.id],
        );
        assert.match(e.message, /^task SPIN \(codelet spin\) failed: it ran past its time limit of 200 ms/);
        return true;
      });
      assert.equal(spinning.id, 2 * BATCH + 1);
      assert.equal(spinning.state, 'failed');
      assert.equal(after.state, 'cancelled');
      assert.deepEqual([...(await rt.acquire(y))], [1, 1, 1, 1], "the spinning task's writes were undone");
      rt.release(y);
      assert.deepEqual([...(await rt.acquire(x))], [2 * BATCH]);
      rt.release(x);
    } finally {
      await rt.close();
    }
  });

  test('threads: new engines after recycling (a static policy in batches, then a dynamic one) go on counting', async () => {
    const rt = await Runtime.create({ cpus: 2 });
    try {
      const inc = rt.codelet({ name: 'inc', kernel: { module: KERNELS, export: 'inc' } });
      const a = new Float64Array(1);
      const x = rt.data(a, { name: 'x' });
      const tasks: Task[] = [];
      const batch = (n: number) => {
        for (let i = 0; i < n; i++) tasks.push(rt.submit(inc, [[x, 'RW']]));
      };
      batch(BATCH);
      await rt.wait();
      const recycled = retired(rt);
      assert.ok(recycled >= BATCH / 2, `recycled ${recycled}`);
      rt.setPolicies('supermatrix');
      batch(10);
      const r1 = await rt.wait();
      assert.equal(r1.scheduler, 'supermatrix');
      assert.equal(r1.tasks, BATCH + 10);
      rt.setPolicies('dmdas');
      batch(BATCH);
      const r2 = await rt.wait();
      assert.equal(r2.tasks, 2 * BATCH + 10);
      assert.ok(retired(rt) > recycled, `recycled ${retired(rt)} after ${recycled}`);
      assert.deepEqual(
        tasks.map((t) => t.id),
        tasks.map((_, i) => i),
      );
      assert.ok(tasks.every((t) => t.state === 'finished'));
      await rt.sync();
      assert.deepEqual([...a], [2 * BATCH + 10]);
    } finally {
      await rt.close();
    }
  });

  test(
    'webgpu: recycling off and on give the same data and states',
    noAdapter ? { skip: noAdapter } : {},
    async () => {
      const off = await webgpuProgram(false);
      const on = await webgpuProgram(true);
      assert.equal(off.retired, 0);
      assert.ok(on.retired >= BATCH, `recycled ${on.retired}`);
      assert.deepEqual(on.states, off.states);
      assert.deepEqual(on.data, off.data);
      assert.deepEqual(on.data, [Array(64).fill(1024), [100, 100]]);
    },
  );

  for (const scheduler of [undefined, 'dmdas']) {
    test(`simulated${scheduler ? ` (${scheduler})` : ''}: recycling off and on give the same reports and states`, async () => {
      const options: RuntimeOptions = { mode: 'simulated', ...(scheduler ? { scheduler } : {}) };
      const off = await program({ ...options, recycle: false }, false);
      const on = await program(options, false);
      assert.equal(off.retired, 0);
      assert.ok(on.retired >= 2 * BATCH, `recycled ${on.retired}`);
      assert.deepEqual(on.states, off.states);
      assert.deepEqual(on.callbacks.sort(), off.callbacks.sort());
      // Virtual time: the whole report is the same, makespan and workers included.
      const exact = (r: RunReport) => ({ ...r, wallS: 0 });
      assert.deepEqual(on.reports.map(exact), off.reports.map(exact));
    });
  }
});
