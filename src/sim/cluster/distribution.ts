/**
 * The data distribution of a workload over a simulated cluster's nodes: the ones of the MPI
 * cluster (src/cluster/distribution.ts: 2d, 2d:PxQ, 1d), with the stencil's '1d' keeping each
 * block and its halos on one node, the blocks cyclic over the nodes (seed 001 section V.C:
 * "thanks to the 1D distribution, communication happens only between consecutive nodes").
 */
import { type Distribution, parseDistribution, squarestGrid } from '../../cluster/distribution.ts';
import { LocusError } from '../../core/types.ts';
import { stencilDataBlocks } from '../../workloads/stencil.ts';
import type { WorkloadInstance } from '../../workloads/types.ts';

/** A distribution and how the report names it. */
export interface NamedDistribution {
  /** Handle to node. */
  distribution: Distribution;
  /** '2d:PxQ', '1d', ... */
  name: string;
}

/**
 * The distribution `spec` (default: 1d for the stencil and jacobi, 2d otherwise) of workload
 * `workload` over `nodes` nodes.
 */
export function workloadDistribution(
  workload: string,
  instance: WorkloadInstance,
  spec: string | undefined,
  nodes: number,
): NamedDistribution {
  const given = spec ?? (workload === 'stencil' || workload === 'jacobi' ? '1d' : '2d');
  if (workload === 'stencil' && given === '1d') {
    const blocks = (instance as WorkloadInstance & { blocks: number }).blocks;
    const blockOf = stencilDataBlocks(blocks);
    return {
      name: '1d',
      distribution: ({ index }) => {
        const b = blockOf[index];
        if (b === undefined) {
          throw new LocusError(
            'LOCUS_STATE_INVALID',
            `the stencil declared datum ${index}, beyond its ${blockOf.length}`,
          );
        }
        return b % nodes;
      },
    };
  }
  const distribution = parseDistribution(given, nodes);
  return { name: given === '2d' ? `2d:${squarestGrid(nodes).join('x')}` : given, distribution };
}
