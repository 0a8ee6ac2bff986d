/** Seed 002's energy model: power per worker state, idle policies poll / ea1 / ea2, EDP. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import type { Platform } from '../src/core/platform.ts';
import { AccessMode } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { simulate } from '../src/sim/simulate.ts';
import { parseIdlePolicy } from '../src/trace/energy.ts';
import { generateWorkload } from '../src/workloads/index.ts';
import { testPlatform } from './helpers/platforms.ts';

/** One GPU (1 Gflop/s) and one CPU (1 Gflop/s) with round power figures, static 10 W. */
function machine(): Platform {
  const p = testPlatform({
    gpus: 1,
    gpuCapacity: 1e9,
    cpus: 1,
    gpuRate: 1e9,
    cpuRate: 1e9,
    latency: 0,
    bandwidth: 1e12,
  });
  return {
    ...p,
    staticPower: 10,
    workers: p.workers.map((w) => ({
      ...w,
      power:
        w.kind === 'gpu'
          ? { computing: 100, polling: 40, blocked: 30, controlThread: 10 }
          : { computing: 20, polling: 15, blocked: 5, controlThread: 0 },
    })),
  };
}

/** A (1 s on the GPU) then B (1 s on the CPU), B depending on A. */
function chain(): TaskGraph {
  const g = new TaskGraph();
  const gpu = g.addCodelet({ name: 'g', kinds: ['gpu'] });
  const cpu = g.addCodelet({ name: 'c', kinds: ['cpu'] });
  const h = g.addHandle(8);
  g.submit(gpu, [[h, AccessMode.RW]], { flops: 1e9 });
  g.submit(cpu, [[h, AccessMode.RW]], { flops: 1e9 });
  return g;
}

describe('energy', () => {
  test('poll: busy x computing + idle x polling + static, by hand', () => {
    const { report } = simulate({ graph: chain(), platform: machine(), scheduler: 'eager' });
    const T = report.endS;
    assert.ok(Math.abs(report.makespanS - 2) < 1e-6);
    // GPU: 1 s computing (100 W), T - 1 polling (40 W); CPU: 1 s computing (20 W), T - 1 polling (15 W).
    const expected = 100 + (T - 1) * 40 + 20 + (T - 1) * 15 + 10 * T;
    assert.ok(Math.abs(report.energyJ! - expected) < 1e-6, `${report.energyJ} vs ${expected}`);
    assert.ok(Math.abs(report.averagePowerW! - expected / T) < 1e-6);
    assert.ok(Math.abs(report.edpJs! - expected * T) < 1e-6);
    assert.equal(report.idlePolicy, 'poll');
  });

  test('ea1 blocks idle threads and pays a wake-up; ea2 saves the control thread while the GPU computes', () => {
    const latency = 1e-3;
    const run = (idle: string) =>
      simulate({
        graph: chain(),
        platform: machine(),
        scheduler: 'eager',
        idle: parseIdlePolicy(idle),
        wakeLatency: latency,
      }).report;
    const poll = run('poll');
    const ea1 = run('ea1');
    const ea2 = run('ea2');
    const both = run('ea1+ea2');
    // ea1: each worker wakes once (its first task): the chain takes two wake-ups longer.
    assert.ok(Math.abs(ea1.makespanS - (poll.makespanS + 2 * latency)) < 1e-9);
    assert.equal(ea2.makespanS, poll.makespanS);
    const T1 = ea1.endS;
    const busyGpu = 1 + latency;
    const busyCpu = 1 + latency;
    const e1 = busyGpu * 100 + (T1 - busyGpu) * 30 + busyCpu * 20 + (T1 - busyCpu) * 5 + 10 * T1;
    assert.ok(Math.abs(ea1.energyJ! - e1) < 1e-6, `${ea1.energyJ} vs ${e1}`);
    assert.ok(Math.abs(ea2.energyJ! - (poll.energyJ! - 10)) < 1e-6); // 1 s of GPU compute x 10 W
    assert.ok(both.energyJ! < ea1.energyJ! && both.energyJ! < ea2.energyJ!);
    assert.throws(() => parseIdlePolicy('ea3'), {
      code: 'LOCUS_OPTION_INVALID',
      message: "idle policy must be poll, ea1, ea2 or ea1+ea2 (got 'ea3')",
    });
  });

  test('no power figures, no energy', () => {
    const { report } = simulate({
      graph: chain(),
      platform: testPlatform({ gpus: 1, gpuCapacity: 1e9, cpus: 1 }),
    });
    assert.equal(report.energyJ, null);
  });

  test('tsl: LU under ea1+ea2 uses less energy than poll, makespan within 2%', () => {
    const platform = resolvePlatform('tsl');
    const run = (idle: string) => {
      const wl = generateWorkload('lu', { tiles: 10, tileSize: 1024, precision: 'double' });
      return simulate({ graph: wl.graph, platform, scheduler: 'dmda', idle: parseIdlePolicy(idle) }).report;
    };
    const poll = run('poll');
    const both = run('ea1+ea2');
    assert.ok(both.energyJ! < poll.energyJ!, `${both.energyJ} vs ${poll.energyJ}`);
    assert.ok(both.makespanS <= poll.makespanS * 1.02, `${both.makespanS} vs ${poll.makespanS}`);
  });
});
