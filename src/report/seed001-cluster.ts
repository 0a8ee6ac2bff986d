/**
 * `locus sweep --figure seed001-cluster`: the analogues of seed 001's Figures 3(c) and 4(c), the
 * stencil and LU over 1, 2 and 4 nodes of the simulated AC cluster (the `ac-cluster` preset),
 * with heft-tmdp-pr inside each node (the policy the seed names for Fig. 3(c)) and a static
 * distribution between nodes: the stencil's blocks 1-D cyclic, LU's tiles 2-D block-cyclic.
 *
 * - Stencil (Fig. 3(c)): weak scaling, every node keeps STENCIL_BLOCKS_PER_NODE blocks of the
 *   seed's 256 x 256 x 64 planes (the seed's 256 x 256 x 4096 grid in 64 blocks) and runs
 *   STENCIL_ITERATIONS iterations; the throughput per node says what the network costs.
 * - LU (Fig. 4(c)): GFlop/s against the matrix size for each node count, tiles of 960 single;
 *   a size for which a node's host memory overflows (the tiles it owns, or those plus the
 *   received copies alive at once during the run: copies are dropped after their last reader)
 *   is recorded as not run.
 *
 * Writes `stencil.csv`, `lu.csv`, `fig3c.svg/png` and `fig4c.svg/png`.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { workloadDistribution } from '../sim/cluster/distribution.ts';
import { simulateCluster } from '../sim/cluster/simulate.ts';
import { WORKLOADS } from '../workloads/index.ts';
import type { WorkloadParams } from '../workloads/types.ts';
import { type RenderedPlot, renderPlot } from './plots.ts';

/** The figure's name for `--figure`. */
export const SEED001_CLUSTER_FIGURE = 'seed001-cluster';

/** Node counts of both figures (the seed's runs: 1 to 4 machines). */
export const CLUSTER_NODES = [1, 2, 4] as const;
/** Stencil blocks per node (4 per GPU of an AC node). */
export const STENCIL_BLOCKS_PER_NODE = 16;
/** Planes per stencil block: the seed's 4096 planes in 64 blocks. */
export const STENCIL_PLANES = 64;
/** Edge of a stencil plane (the seed's 256 x 256). */
export const STENCIL_XY = 256;
/** Iterations of every stencil run: enough that the first loads weigh little. */
export const STENCIL_ITERATIONS = 50;
/** LU tile edge (single precision, LU's default). */
export const LU_TILE = 960;
/** LU sizes, in tiles per dimension: 3840 to 92160 (past what 4 nodes' host memories hold). */
export const LU_TILES = [4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96] as const;
/** The scheduler inside each node. */
export const CLUSTER_SCHEDULER = 'heft-tmdp-pr';

/** One stencil run. */
export interface StencilRow {
  nodes: number;
  blocks: number;
  planes: number;
  iterations: number;
  makespanS: number;
  gflops: number;
  gflopsPerNode: number;
  messages: number;
  messageBytes: number;
}

/** One LU point: run, or not (its data do not fit). */
export interface LuRow {
  nodes: number;
  tiles: number;
  matrixSize: number;
  /** False when the data did not fit in the nodes' host memories (the other fields are null). */
  ran: boolean;
  makespanS: number | null;
  gflops: number | null;
  messages: number | null;
  messageBytes: number | null;
  /** The most bytes any node's host memory held at once (owned tiles and live copies). */
  hostPeakBytes: number | null;
}

/** Column order of stencil.csv. */
export const STENCIL_COLUMNS = [
  'nodes',
  'blocks',
  'planes',
  'iterations',
  'makespanS',
  'gflops',
  'gflopsPerNode',
  'messages',
  'messageBytes',
] as const;

/** Column order of lu.csv. */
export const LU_COLUMNS = [
  'nodes',
  'tiles',
  'matrixSize',
  'ran',
  'makespanS',
  'gflops',
  'messages',
  'messageBytes',
  'hostPeakBytes',
] as const;

/** Options of runSeed001Cluster(). */
export interface Seed001ClusterOptions {
  /** A cluster platform with at least 4 nodes (ac-cluster by default, resolved by the caller). */
  platform: Platform;
  /** Seed (default 1). */
  seed?: number;
  /** Called before each run. */
  onRun?: (what: string, done: number, total: number) => void;
}

/** Both figures' runs. */
export interface Seed001ClusterResult {
  stencil: StencilRow[];
  lu: LuRow[];
}

/** Runs one workload on `nodes` nodes. */
function run(o: Seed001ClusterOptions, workload: string, params: WorkloadParams, nodes: number) {
  const generator = WORKLOADS[workload]!;
  const instance = generator.instance(params);
  const d = workloadDistribution(workload, instance, undefined, nodes);
  return simulateCluster({
    platform: o.platform,
    nodes,
    submit: (s) => generator.submit(s, instance),
    distribution: d.distribution,
    distributionName: d.name,
    scheduler: CLUSTER_SCHEDULER,
    seed: o.seed ?? 1,
    workload,
  }).report;
}

/** Runs every point of both figures. */
export function runSeed001Cluster(o: Seed001ClusterOptions): Seed001ClusterResult {
  const total = CLUSTER_NODES.length * (1 + LU_TILES.length);
  let done = 0;
  const stencil: StencilRow[] = [];
  for (const nodes of CLUSTER_NODES) {
    const blocks = STENCIL_BLOCKS_PER_NODE * nodes;
    o.onRun?.(`stencil on ${nodes} nodes`, done++, total);
    const r = run(
      o,
      'stencil',
      { tiles: blocks, tileSize: STENCIL_XY, inner: blocks * STENCIL_PLANES, iterations: STENCIL_ITERATIONS },
      nodes,
    );
    stencil.push({
      nodes,
      blocks,
      planes: blocks * STENCIL_PLANES,
      iterations: STENCIL_ITERATIONS,
      makespanS: r.makespanS,
      gflops: r.gflops,
      gflopsPerNode: r.gflops / nodes,
      messages: r.messages,
      messageBytes: r.messageBytes,
    });
  }
  const lu: LuRow[] = [];
  for (const nodes of CLUSTER_NODES) {
    for (const tiles of LU_TILES) {
      o.onRun?.(`lu ${tiles}x${tiles} tiles on ${nodes} nodes`, done++, total);
      const point = { nodes, tiles, matrixSize: tiles * LU_TILE };
      try {
        const r = run(o, 'lu', { tiles, tileSize: LU_TILE, precision: 'single' }, nodes);
        lu.push({
          ...point,
          ran: true,
          makespanS: r.makespanS,
          gflops: r.gflops,
          messages: r.messages,
          messageBytes: r.messageBytes,
          hostPeakBytes: Math.max(...r.perNode.map((p) => p.hostPeakBytes)),
        });
      } catch (e) {
        if (!(e instanceof LocusError && e.code === 'LOCUS_HOST_MEMORY_TOO_SMALL')) throw e;
        lu.push({
          ...point,
          ran: false,
          makespanS: null,
          gflops: null,
          messages: null,
          messageBytes: null,
          hostPeakBytes: null,
        });
      }
    }
  }
  return { stencil, lu };
}

/** Fig. 3(c): the stencil's throughput per node against the node count. */
export function stencilSpec(rows: readonly StencilRow[], platform: string): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `Seed 001 Fig. 3(c) analogue: stencil over MPI, ${STENCIL_BLOCKS_PER_NODE} blocks per node (${platform}, simulated)`,
    width: 560,
    height: 280,
    background: 'white',
    data: { values: rows.map((r) => ({ ...r })) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'nodes', type: 'ordinal', title: 'nodes', axis: { labelAngle: 0 } },
      y: { field: 'gflopsPerNode', type: 'quantitative', title: 'GFlop/s per node', scale: { zero: true } },
    },
  } as TopLevelSpec;
}

/** Fig. 4(c): LU's GFlop/s against the matrix size, one line per node count. */
export function luSpec(rows: readonly LuRow[], platform: string): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `Seed 001 Fig. 4(c) analogue: LU over MPI, tiles of ${LU_TILE} single (${platform}, simulated)`,
    width: 520,
    height: 300,
    background: 'white',
    data: {
      values: rows
        .filter((r) => r.ran)
        .map((r) => ({ ...r, nodeCount: `${r.nodes} node${r.nodes > 1 ? 's' : ''}` })),
    },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'matrixSize', type: 'quantitative', title: 'matrix size (N)' },
      y: { field: 'gflops', type: 'quantitative', title: 'GFlop/s' },
      color: { field: 'nodeCount', type: 'nominal', title: null },
    },
  } as TopLevelSpec;
}

/** Both plots. */
export async function plotSeed001Cluster(
  r: Seed001ClusterResult,
  platform: string,
): Promise<{ fig3c: RenderedPlot; fig4c: RenderedPlot }> {
  const [fig3c, fig4c] = await Promise.all([
    renderPlot(stencilSpec(r.stencil, platform)),
    renderPlot(luSpec(r.lu, platform)),
  ]);
  return { fig3c, fig4c };
}
