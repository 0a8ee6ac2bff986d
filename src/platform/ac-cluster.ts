/**
 * The `ac-cluster` preset: seed 001's AC cluster (NCSA) as the experiments of its section V.C
 * used it, 4 nodes, each an `ac-node` (two dual-core Opteron 2.4 GHz, 8 GB, a Tesla S1070 with
 * four GT200 4 GB GPUs), joined by InfiniBand QDR. Every network figure has its source beside it.
 */
import type { Platform } from '../core/platform.ts';
import { type Figure, fig, figureLine, type Preset } from './machine.ts';
import { parseBandwidth, parseDuration } from './units.ts';

/** The cluster's figures: node count and network. */
export const AC_CLUSTER = {
  nodes: fig(
    'nodes',
    4,
    'seed 001 section V.C: the stencil and LU ran over up to 4 machines (16 GPUs) of the 32-node AC cluster',
  ),
  nic: fig(
    'NIC bandwidth (each direction)',
    '3.2GB/s',
    'assumed: InfiniBand QDR 4x signals 40 Gb/s, 32 Gb/s of data after 8b/10b coding (4 GB/s, IBTA spec); MPI reaches about 80% of it',
  ),
  latency: fig(
    'message latency (NIC to NIC)',
    '2us',
    'assumed: typical MPI ping-pong latency over InfiniBand QDR with a switch hop',
  ),
  switchBandwidth: fig(
    'switch backbone',
    'non-blocking',
    'assumed: one QDR switch with a port per node, non-blocking (seed 001 footnote 3: the switch is not saturated with 4 nodes)',
  ),
} as const;

/** The AC cluster built on `node`, the `ac-node` preset (its options apply to every node). */
export function acClusterPreset(node: Preset): Preset {
  const figures: readonly Figure[] = Object.values(AC_CLUSTER);
  return {
    description:
      "Seed 001's AC cluster as section V.C ran it: 4 nodes, each the ac-node machine (two dual-core Opteron, " +
      'a Tesla S1070 with 4 GT200 of 4 GB), joined by InfiniBand QDR through a non-blocking switch. ' +
      'Run it with --cluster sim (--nodes N uses the first N nodes); gpus, cpus and gpuMem apply to every node.',
    figures: () => [...node.figures().map((f) => `node: ${f}`), ...figures.map(figureLine)],
    build(opts): Platform {
      const machine = node.build(opts);
      const n = Number(AC_CLUSTER.nodes.value);
      return {
        ...machine,
        name: 'ac-cluster',
        cluster: {
          nodes: Array.from({ length: n }, (_, i) => `ac${i}`),
          nicBandwidth: parseBandwidth(AC_CLUSTER.nic.value),
          latency: parseDuration(AC_CLUSTER.latency.value),
          switchBandwidth: Number.POSITIVE_INFINITY,
        },
      };
    },
  };
}
