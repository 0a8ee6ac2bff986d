/**
 * Observers of a real run's engine: the driver reports task times itself (the engine hands
 * tasks out ahead of their start), so observers are attached without their task callbacks.
 */
import type { EngineObserver } from '../core/engine.ts';

/**
 * The same observer without its task callbacks, to attach to a real run's engine while the
 * driver reports task times itself (the engine hands tasks out ahead of their start).
 */
export function withoutTaskEvents(ob: EngineObserver): EngineObserver {
  return {
    transferStarted: ob.transferStarted?.bind(ob),
    transferFinished: ob.transferFinished?.bind(ob),
    replicaAllocated: ob.replicaAllocated?.bind(ob),
    replicaFreed: ob.replicaFreed?.bind(ob),
    runFinished: ob.runFinished?.bind(ob),
    grow: ob.grow?.bind(ob),
    rebase: ob.rebase?.bind(ob),
  };
}
