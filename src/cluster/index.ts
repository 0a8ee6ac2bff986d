/** The cluster API: MPI processes (Mpi) and seed 001's MPI-like library on data handles (MpiData). */
export { addonPath, type Completion, loadMpi, type MpiAddon } from './addon.ts';
export {
  type ClusterCounts,
  type ClusterData,
  type ClusterDataOptions,
  ClusterRuntime,
} from './cluster-runtime.ts';
export { type DetachedCallback, MpiData, MpiRequest } from './data.ts';
export {
  blockCyclic2d,
  cyclic1d,
  type Distribution,
  type HandleInfo,
  parseDistribution,
  squarestGrid,
} from './distribution.ts';
export {
  InsertionPlanner,
  type RankCounts,
  TAG_MODULUS,
  type TaskPlan,
  type Transfer,
} from './insert-plan.ts';
export { COMM_WORLD, type Comm, Mpi, type MpiInitOptions, type MpiStatus, type RawRequest } from './mpi.ts';
export { ClusterSubmitter, type RankStats } from './submitter.ts';
