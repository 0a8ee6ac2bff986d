/** Random task graphs for property tests: a fast-check spec and the graph it describes. */
import fc from 'fast-check';
import { TaskGraph } from '../../src/core/graph.ts';
import { AccessMode } from '../../src/core/types.ts';
import { testPlatform } from './platforms.ts';

const MODES = [AccessMode.R, AccessMode.W, AccessMode.RW];

/** A plain description of a random graph (printable when a property fails). */
export const graphSpecArb = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }),
  tasks: fc.array(
    fc.record({
      accesses: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 3 }),
      kinds: fc.constantFrom<readonly ('cpu' | 'gpu')[]>(['gpu'], ['cpu', 'gpu'], ['cpu']),
      flops: fc.integer({ min: 1, max: 100 }),
      priority: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 30 },
  ),
  explicit: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 4 }),
});

/** A generated graph spec. */
export type GraphSpec = typeof graphSpecArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * Builds the graph: handles of 1000 to 4000 bytes, tasks with up to 3 distinct accesses on
 * codelets running on gpu, cpu+gpu or cpu, forward explicit dependencies. Returns the largest
 * task footprint (to size memories) and whether some task runs on CPUs only.
 */
export function buildGraph(
  spec: GraphSpec,
  hintEvery = 0,
): { g: TaskGraph; maxFootprint: number; needsCpu: boolean } {
  const g = new TaskGraph();
  const codelets = {
    gpu: g.addCodelet({ name: 'g', kinds: ['gpu'] }),
    'cpu,gpu': g.addCodelet({ name: 'cg', kinds: ['cpu', 'gpu'] }),
    cpu: g.addCodelet({ name: 'c', kinds: ['cpu'] }),
  };
  const handles = spec.sizes.map((s) => g.addHandle(s * 1000));
  let maxFootprint = 0;
  for (const t of spec.tasks) {
    const seen = new Set<number>();
    const acc: [number, AccessMode][] = [];
    for (const [h, m] of t.accesses) {
      const handle = handles[h % handles.length]!;
      if (seen.has(handle)) continue;
      seen.add(handle);
      acc.push([handle, MODES[m]!]);
    }
    maxFootprint = Math.max(
      maxFootprint,
      acc.reduce((s, [h]) => s + g.handleSize.data[h]!, 0),
    );
    g.submit(codelets[t.kinds.join(',') as keyof typeof codelets], acc, {
      flops: t.flops * 1e6,
      priority: t.priority,
    });
    // With hintEvery = k: a wontUse hint on the first datum of every k-th task, after it.
    if (hintEvery > 0 && acc.length > 0 && (g.taskCount - 1) % hintEvery === 0) g.wontUse(acc[0]![0]);
  }
  for (const [a, b] of spec.explicit) {
    const x = a % g.taskCount;
    const y = b % g.taskCount;
    if (x < y) g.addDependency(x, y);
  }
  const needsCpu = spec.tasks.some((t) => t.kinds.length === 1 && t.kinds[0] === 'cpu');
  return { g, maxFootprint, needsCpu };
}

/** A random machine: 1 to 3 GPUs, up to 2 CPU workers, peer-to-peer and a shared bus or not. */
export const machineArb = fc.record({
  gpus: fc.integer({ min: 1, max: 3 }),
  extra: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 3, maxLength: 3 }),
  cpus: fc.integer({ min: 0, max: 2 }),
  p2p: fc.boolean(),
  bus: fc.boolean(),
  latency: fc.constantFrom(0, 1e-5),
});

/** The test platform a machine spec describes, sized so that every task of the graph fits. */
export function machinePlatform(
  m: Omit<GraphMachine, 'latency'> & { latency?: number },
  graph: { maxFootprint: number; needsCpu: boolean },
) {
  return testPlatform({
    gpus: m.gpus,
    gpuCapacity: m.extra.map((e) => graph.maxFootprint + e * 1000),
    cpus: graph.needsCpu ? Math.max(1, m.cpus) : m.cpus,
    p2p: m.p2p,
    bus: m.bus,
    latency: m.latency,
  });
}

/** A generated machine spec. */
export type GraphMachine = typeof machineArb extends fc.Arbitrary<infer T> ? T : never;
