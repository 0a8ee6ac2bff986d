/** Seed 004's coherence policies and runtime versions (see docs/policies/static.md). */
export { CoherencePolicies } from './after-task.ts';
export { type CoherenceOptions, coherenceActive } from './options.ts';
export { parseCoherence, RUNTIME_VERSIONS, type RuntimeVersion, runtimeVersion } from './versions.ts';
