import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskGraph } from '../src/core/graph.ts';
import { AccessMode, LocusError } from '../src/core/types.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { compilePlatform } from '../src/platform/schema.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

/** Asserts that `f` throws a one-line LocusError matching `re`. */
function refuses(f: () => unknown, re: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof LocusError, String(e));
    assert.ok(!e.message.includes('\n'), e.message);
    assert.match(e.message, re);
    return true;
  });
}

// Issue 12 item 14: small inputs that were accepted or misreported.
describe('small inputs are refused with the right message', () => {
  test('cpus = -1 is not a count (not "the machine has 256 cores")', () => {
    refuses(
      () => resolvePlatform('local', { cpus: -1 }),
      /cpus = -1 is not a count; use an integer from 0 to \d+/,
    );
    refuses(
      () => resolvePlatform('v100x2', { cpus: -1 }),
      /cpus = -1 is not a count; use an integer from 0 to 40$/,
    );
    refuses(() => resolvePlatform('v100x2', { cpus: 41 }), /the machine has 40 cores/);
  });

  test('NaN flops are refused at submission, not reported as NaN GFlop/s', () => {
    const g = new TaskGraph();
    const cl = g.addCodelet({ name: 'k', kinds: ['cpu'] });
    const h = g.addHandle(8);
    refuses(() => g.submit(cl, [[h, AccessMode.RW]], { flops: Number.NaN }), /NaN flops/);
    refuses(() => g.submit(cl, [[h, AccessMode.RW]], { flops: -1 }), /-1 flops/);
    const byDims = g.addCodelet({ name: 'd', kinds: ['cpu'], flops: () => Number.POSITIVE_INFINITY });
    refuses(() => g.submit(byDims, [[h, AccessMode.RW]], { dims: [3] }), /codelet 'd'.*Infinity flops/);
    assert.equal(g.taskCount, 0, 'a refused task is not added');
    g.submit(cl, [[h, AccessMode.RW]], { flops: 1e9 });
    const { report } = simulate({ graph: g, platform: resolvePlatform('v100x2', { gpus: 0, cpus: 1 }) });
    assert.ok(Number.isFinite(report.gflops) && report.gflops > 0);
  });

  test('a seed that is not an integer is refused', () => {
    const { graph } = generateWorkload('matmul2d', { tiles: 2 });
    const platform = resolvePlatform('v100x2');
    for (const seed of ['x', 1.5, Number.NaN]) {
      refuses(() => simulate({ graph, platform, seed: seed as number }), /is not a seed; use an integer/);
    }
    assert.equal(simulate({ graph, platform, seed: 7 }).report.tasks, 4);
  });

  test("a bus repeated in a link's via is refused", () => {
    const file = {
      memoryNodes: [
        { name: 'ram', kind: 'host', capacity: '1GiB' },
        { name: 'gpu0', kind: 'gpu', capacity: '1GiB' },
      ],
      workers: [{ name: 'g', kind: 'gpu', memory: 'gpu0', rate: 1e12 }],
      buses: [{ name: 'pcie', bandwidth: '10GB/s' }],
      links: [
        { from: 'ram', to: 'gpu0', bandwidth: '10GB/s', via: ['pcie', 'pcie'] },
        { from: 'gpu0', to: 'ram', bandwidth: '10GB/s', via: ['pcie'] },
      ],
    };
    refuses(
      () => compilePlatform(file, 'p.json'),
      /^p\.json: links\[0\]\.via\[1\]: bus 'pcie' is listed twice/,
    );
    file.links[0]!.via = ['pcie'];
    assert.equal(compilePlatform(file, 'p.json').links.length, 3);
  });
});
