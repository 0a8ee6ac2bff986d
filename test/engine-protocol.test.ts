/**
 * The engine as a state machine, without a driver: feed events, assert the exact commands
 * (in the manner of Dask distributed's worker state machine tests). Each test builds a tiny
 * platform (test/helpers/platforms.ts: ram = node 0, gpuN = node N + 1) and places tasks with
 * FixedScheduler, so every command is derivable by hand.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Engine } from '../src/core/engine.ts';
import { TaskGraph } from '../src/core/graph.ts';
import { PlatformModel } from '../src/core/model.ts';
import type { Platform } from '../src/core/platform.ts';
import { decode, formatCommand } from '../src/core/protocol.ts';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { createEviction } from '../src/evict/index.ts';
import { createScheduler } from '../src/sched/index.ts';
import { testPlatform } from './helpers/platforms.ts';
import { FixedScheduler } from './helpers/run.ts';

const { R, W, RW } = AccessMode;

/** An engine over `g` whose tasks run where `place` says, with no lookahead buffer. */
function engineFor(g: TaskGraph, platform: Platform, place: (t: number) => number, lookahead = 0): Engine {
  return new Engine({
    graph: g,
    platform,
    scheduler: new FixedScheduler(place),
    eviction: createEviction('lru'),
    model: new PlatformModel(platform, g),
    gpuLookahead: lookahead,
  });
}

/** The commands pending, as text, then cleared (what a driver would drain). */
function take(e: Engine): string[] {
  const out = decode(e).map(formatCommand);
  e.clearCommands();
  return out;
}

/**
 * Two tasks on gpu0 (node 1), which holds one handle: task 0 updates handle a (home: node
 * `home`), task 1 reads b (home: host), so a, the only valid copy, is written back to its home
 * before its room is given to b.
 */
function evictionWritesBackHome(home: number): void {
  const g = new TaskGraph();
  const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
  const a = g.addHandle(1000, { home });
  const b = g.addHandle(1000);
  g.submit(c, [[a, RW]], { flops: 1e6 });
  g.submit(c, [[b, R]], { flops: 1e6 });
  const e = engineFor(g, testPlatform({ gpus: 2, gpuCapacity: 1000, p2p: true }), () => 0);
  e.start(0);
  assert.deepEqual(take(e), [`transfer #0 h0 ${home}->1 fetch`]);
  e.transferFinished(0, 1);
  assert.deepEqual(take(e), ['run 0 on 0']);
  e.taskFinished(0, 2);
  assert.deepEqual(take(e), [`transfer #1 h0 1->${home} writeback`]);
  e.transferFinished(1, 3);
  assert.deepEqual(take(e), ['free h0 on 1', 'transfer #2 h1 0->1 fetch']);
  e.transferFinished(2, 4);
  assert.deepEqual(take(e), ['run 1 on 0']);
  e.taskFinished(1, 5);
  assert.deepEqual(take(e), ['finished']);
}

describe('engine protocol: events in, exact commands out', () => {
  test('a read after a write on another GPU is staged through host memory without peer-to-peer', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(1000);
    g.submit(c, [[h, RW]], { flops: 1e6 }); // task 0 on gpu0 (worker 0, node 1)
    g.submit(c, [[h, R]], { flops: 1e6 }); // task 1 on gpu1 (worker 1, node 2)
    const e = engineFor(g, testPlatform({ gpus: 2, gpuCapacity: 1e6, p2p: false }), (t) => t);
    e.start(0);
    assert.deepEqual(take(e), ['transfer #0 h0 0->1 fetch']);
    e.transferFinished(0, 1);
    assert.deepEqual(take(e), ['run 0 on 0']);
    e.taskFinished(0, 2);
    // The only valid copy is on gpu1's peer: no route gpu0 -> gpu1, so it goes home first.
    assert.deepEqual(take(e), ['transfer #1 h0 1->0 stage']);
    e.transferFinished(1, 3);
    assert.deepEqual(take(e), ['transfer #2 h0 0->2 fetch']);
    e.transferFinished(2, 4);
    assert.deepEqual(take(e), ['run 1 on 1']);
    e.taskFinished(1, 5);
    // Home got the value from the staging copy: nothing is modified anywhere, the run ends.
    assert.deepEqual(take(e), ['finished']);
    assert.equal(e.isFinished, true);
  });

  test('an eviction writes the only valid copy back before freeing it', () => {
    evictionWritesBackHome(0);
  });

  test('a failed task cancels its dependents, transitively; the others run', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const a = g.addHandle(8);
    const b = g.addHandle(8);
    g.submit(c, [[a, RW]], { flops: 1 }); // 0: fails
    g.submit(c, [[a, R]], { flops: 1 }); // 1: depends on 0
    g.submit(
      c,
      [
        [a, R],
        [b, RW],
      ],
      { flops: 1 },
    ); // 2: depends on 0
    g.submit(c, [[b, R]], { flops: 1 }); // 3: depends on 2
    g.submit(c, [[b, W]], { flops: 1 }); // 4: depends on 2 and 3 (write after read)
    const other = g.addHandle(8);
    g.submit(c, [[other, RW]], { flops: 1 }); // 5: independent
    const platform = testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 });
    const e = engineFor(g, platform, () => 0);
    e.start(0);
    assert.deepEqual(take(e), ['run 0 on 0']);
    e.taskFailed(0, 1);
    assert.deepEqual(take(e), ['cancelled 1', 'cancelled 2', 'cancelled 4', 'cancelled 3', 'run 5 on 0']);
    assert.equal(e.isFailed(0), true);
    assert.equal(e.isCancelled(3), true);
    e.taskFinished(5, 2);
    assert.deepEqual(take(e), ['finished']);
    assert.equal(e.finishedTasks, 6);
  });

  test('a task submitted while another runs waits for it (read after write), then runs', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(1000);
    g.submit(c, [[h, RW]], { flops: 1e6 });
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1e6 });
    const e = engineFor(g, platform, () => 0);
    e.open(0);
    e.submitted(0);
    assert.deepEqual(take(e), ['transfer #0 h0 0->1 fetch']);
    e.transferFinished(0, 1);
    assert.deepEqual(take(e), ['run 0 on 0']);
    // The application submits a reader of h and a new handle while task 0 runs.
    const k = g.addHandle(500);
    g.submit(
      c,
      [
        [h, R],
        [k, W],
      ],
      { flops: 1e6 },
    );
    e.submitted(1.5);
    assert.deepEqual(take(e), [], 'task 1 depends on the running task 0');
    e.taskFinished(0, 2);
    // h is valid on the GPU already; k is write-only: task 1 runs at once.
    assert.deepEqual(take(e), ['run 1 on 0']);
    e.taskFinished(1, 3);
    assert.deepEqual(take(e), ['idle 2'], 'every submitted task ended: the engine waits');
    // Data stay on the device while the run is open: nothing was written back.
    assert.equal(e.isValidOn(h, 1), true);
    assert.equal(e.isValidOn(h, 0), false);
    e.close(4);
    assert.deepEqual(take(e), ['transfer #1 h0 1->0 flush', 'transfer #2 h1 1->0 flush']);
    e.transferFinished(1, 5);
    e.transferFinished(2, 5);
    assert.deepEqual(take(e), ['finished']);
  });

  test('a task submitted after its predecessor finished counts no dependency', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const h = g.addHandle(8);
    g.submit(c, [[h, W]], { flops: 1 });
    const e = engineFor(g, testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 }), () => 0);
    e.open(0);
    e.submitted(0);
    assert.deepEqual(take(e), ['run 0 on 0']);
    e.taskFinished(0, 1);
    assert.deepEqual(take(e), ['idle 1']);
    g.submit(c, [[h, RW]], { flops: 1 });
    e.submitted(2);
    assert.deepEqual(take(e), ['run 1 on 0']);
  });

  test('a task submitted after its predecessor failed is cancelled at once', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const h = g.addHandle(8);
    g.submit(c, [[h, W]], { flops: 1 });
    const e = engineFor(g, testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 }), () => 0);
    e.open(0);
    e.submitted(0);
    take(e);
    e.taskFailed(0, 1);
    assert.deepEqual(take(e), ['idle 1']);
    g.submit(c, [[h, R]], { flops: 1 });
    g.submit(c, [[h, R]], { flops: 1 });
    e.submitted(2);
    assert.deepEqual(take(e), ['cancelled 1', 'cancelled 2', 'idle 3']);
  });

  test('once the application saw a failure, tasks submitted later run', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const h = g.addHandle(8);
    g.submit(c, [[h, W]], { flops: 1 });
    const e = engineFor(g, testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 }), () => 0);
    e.open(0);
    e.submitted(0);
    take(e);
    e.taskFailed(0, 1);
    assert.deepEqual(take(e), ['idle 1']);
    e.acknowledgeFailures(1);
    g.submit(c, [[h, RW]], { flops: 1 });
    e.submitted(2);
    assert.deepEqual(take(e), ['run 1 on 0']);
  });

  test('acquire: data come home, later writers wait for the release', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const app = g.addCodelet({ name: 'acquire', kinds: ['cpu'] });
    const h = g.addHandle(1000);
    g.submit(c, [[h, RW]], { flops: 1e6 }); // 0 on the GPU
    g.submit(app, [[h, R]], { app: true }); // 1: the application reads h
    g.submit(c, [[h, RW]], { flops: 1e6 }); // 2: must wait for the release
    const e = engineFor(g, testPlatform({ gpus: 1, gpuCapacity: 1e6 }), () => 0);
    e.open(0);
    e.submitted(0);
    assert.deepEqual(take(e), ['transfer #0 h0 0->1 fetch']);
    e.transferFinished(0, 1);
    assert.deepEqual(take(e), ['run 0 on 0']);
    e.taskFinished(0, 2);
    assert.deepEqual(take(e), ['transfer #1 h0 1->0 fetch']);
    e.transferFinished(1, 3);
    assert.deepEqual(take(e), ['acquired 1']);
    assert.equal(e.isValidOn(h, 0), true);
    e.release(1, 4);
    assert.deepEqual(take(e), ['run 2 on 0']);
    assert.throws(() => e.release(1, 5), LocusError);
  });

  test('commands carry the id of the event that caused them', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const h = g.addHandle(8);
    g.submit(c, [[h, RW]], { flops: 1 });
    g.submit(c, [[h, RW]], { flops: 1 });
    const e = engineFor(g, testPlatform({ gpus: 0, gpuCapacity: 0, cpus: 1 }), () => 0);
    e.start(0);
    const first = decode(e);
    e.clearCommands();
    e.taskFinished(0, 1);
    const second = decode(e);
    assert.equal(first.length, 1);
    assert.equal(second.length, 1);
    assert.ok(second[0]!.cause > first[0]!.cause, 'a later event has a larger id');
  });

  test('a policy without dynamic support refuses later submissions with a clear error', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(8);
    g.submit(c, [[h, RW]], { flops: 1 });
    const platform = testPlatform({ gpus: 1, gpuCapacity: 1e6 });
    const e = new Engine({
      graph: g,
      platform,
      // A policy that declares no `dynamic` (as static, supermatrix and heft-*-init).
      scheduler: { name: 'batch-only', init: () => {}, push: () => {}, pop: () => -1 },
      eviction: createEviction('lru'),
      model: new PlatformModel(platform, g),
    });
    e.open(0);
    e.submitted(0);
    g.submit(c, [[h, RW]], { flops: 1 });
    assert.throws(
      () => e.submitted(1),
      /scheduler batch-only does not take tasks submitted while the engine runs/,
    );
  });

  test('tables grow past their first capacity under a dynamic policy (dmdar)', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu', 'cpu'] });
    const platform = testPlatform({ gpus: 2, gpuCapacity: 4000, cpus: 1 });
    const e = new Engine({
      graph: g,
      platform,
      scheduler: createScheduler('dmdar'),
      eviction: createEviction('lru'),
      model: new PlatformModel(platform, g),
    });
    e.open(0);
    let now = 0;
    const running: number[] = [];
    const copies: number[] = [];
    const drain = () => {
      for (;;) {
        for (const cmd of decode(e)) {
          if (cmd.op === 'run') running.push(cmd.task);
          if (cmd.op === 'transfer') copies.push(cmd.id);
        }
        e.clearCommands();
        const id = copies.shift();
        if (id === undefined) return;
        e.transferFinished(id, ++now);
      }
    };
    // 200 rounds: submit three tasks over new and old handles, finish one running task.
    const handles: number[] = [];
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 3; i++) {
        handles.push(g.addHandle(1000));
        const hs = handles.length;
        const out = handles[hs - 1]!;
        if (hs === 1) g.submit(c, [[out, W]], { flops: 1e6 });
        else
          g.submit(
            c,
            [
              [out, W],
              [handles[(round * 7 + i) % (hs - 1)]!, R],
            ],
            { flops: 1e6 },
          );
      }
      e.submitted(++now);
      drain();
      const t = running.shift();
      if (t !== undefined) {
        e.taskFinished(t, ++now);
        drain();
      }
    }
    while (running.length > 0) {
      e.taskFinished(running.shift()!, ++now);
      drain();
    }
    assert.equal(e.finishedTasks, 600);
    assert.ok(e.taskCapacity >= 600);
  });
});

describe('engine protocol: a home node per handle', () => {
  test('a handle homed on a GPU is fetched from there and flushed back there, not to host memory', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    const h = g.addHandle(1000, { home: 2 }); // gpu1's memory
    g.submit(c, [[h, RW]], { flops: 1e6 }); // on gpu0 (node 1)
    const e = engineFor(g, testPlatform({ gpus: 2, gpuCapacity: 1e6, p2p: true }), () => 0);
    e.start(0);
    assert.equal(e.homeNode(h), 2);
    assert.equal(e.memoryUsed(0), 0);
    assert.equal(e.memoryUsed(2), 1000);
    assert.deepEqual(take(e), ['transfer #0 h0 2->1 fetch']);
    e.transferFinished(0, 1);
    assert.deepEqual(take(e), ['run 0 on 0']);
    e.taskFinished(0, 2);
    assert.deepEqual(take(e), ['transfer #1 h0 1->2 flush']);
    e.transferFinished(1, 3);
    assert.deepEqual(take(e), ['finished']);
  });

  test("an eviction writes a modified replica back to its handle's home", () => {
    evictionWritesBackHome(2); // gpu1's memory
  });

  test('a home no node can reach, or that does not exist, is refused in one line', () => {
    const g = new TaskGraph();
    const c = g.addCodelet({ name: 'k', kinds: ['gpu'] });
    g.addHandle(1000, { home: 2, name: 'x' });
    g.submit(c, [[0, R]], { flops: 1e6 });
    const e = engineFor(g, testPlatform({ gpus: 2, gpuCapacity: 1e6, p2p: false }), () => 0);
    assert.throws(
      () => e.start(0),
      (err: Error) =>
        err instanceof LocusError &&
        /gpu0 has no route to and from node gpu1, a handle's home/.test(err.message),
    );
    const g2 = new TaskGraph();
    g2.addCodelet({ name: 'k', kinds: ['gpu'] });
    g2.addHandle(8, { home: 7, name: 'y' });
    const e2 = engineFor(g2, testPlatform({ gpus: 1, gpuCapacity: 1e6 }), () => 0);
    assert.throws(
      () => e2.start(0),
      (err: Error) => err instanceof LocusError && /data y: home node 7 does not exist/.test(err.message),
    );
  });
});
