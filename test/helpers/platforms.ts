/** Small hand-built platforms for engine tests, independent of src/platform's presets. */
import type { Link, MemoryNode, Platform, Worker } from '../../src/core/platform.ts';

/** Options of a test machine: host + GPUs, optional CPU workers, shared bus, peer-to-peer. */
export interface TestMachine {
  gpus: number;
  gpuCapacity: number | number[];
  cpus?: number;
  p2p?: boolean;
  bus?: boolean;
  bandwidth?: number;
  latency?: number;
  gpuRate?: number;
  cpuRate?: number;
}

/** Builds a compiled Platform: node 0 is the host, nodes 1..gpus the GPUs. */
export function testPlatform(m: TestMachine): Platform {
  const bw = m.bandwidth ?? 1e9;
  const lat = m.latency ?? 1e-5;
  const nodes: MemoryNode[] = [{ name: 'ram', kind: 'host', capacity: Number.POSITIVE_INFINITY }];
  const workers: Worker[] = [];
  for (let g = 0; g < m.gpus; g++) {
    const cap = Array.isArray(m.gpuCapacity) ? m.gpuCapacity[g]! : m.gpuCapacity;
    nodes.push({ name: `gpu${g}`, kind: 'gpu', capacity: cap });
    workers.push({ name: `gpu${g}`, kind: 'gpu', node: g + 1, flops: m.gpuRate ?? 1e12, codeletFlops: {} });
  }
  for (let c = 0; c < (m.cpus ?? 0); c++) {
    workers.push({ name: `cpu${c}`, kind: 'cpu', node: 0, flops: m.cpuRate ?? 1e11, codeletFlops: {} });
  }
  const n = nodes.length;
  const links: Link[] = [];
  const routes: (number[] | null)[] = new Array(n * n).fill(null);
  const bus = m.bus ? links.push({ name: 'bus', bandwidth: bw, latency: 0 }) - 1 : -1;
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (a === b) continue;
      const hostPath = a === 0 || b === 0;
      if (!hostPath && !m.p2p) continue;
      const l = links.push({ name: `${nodes[a]!.name}->${nodes[b]!.name}`, bandwidth: bw, latency: lat }) - 1;
      routes[a * n + b] = hostPath && bus >= 0 ? [l, bus] : [l];
    }
  }
  return { name: 'test', nodes, homeNode: 0, workers, links, routes };
}
