/**
 * Turns a workload written against the Submitter into a WorkloadGenerator: generate() checks
 * the instance's data against the host memory, then builds the simulated graph with a
 * GraphSubmitter.
 */
import { checkHostMemory, finishWorkload } from './common.ts';
import { GraphSubmitter } from './graph-submitter.ts';
import type { Workload, WorkloadGenerator, WorkloadInstance, WorkloadParams } from './types.ts';

/** A workload's name, description, instance() and submit(). */
export type WorkloadDefinition<I extends WorkloadInstance> = Omit<WorkloadGenerator<I>, 'generate'>;

/** The generator of a workload definition. */
export function defineWorkload<I extends WorkloadInstance>(def: WorkloadDefinition<I>): WorkloadGenerator<I> {
  return {
    ...def,
    generate(params: WorkloadParams): Workload {
      const instance = def.instance(params);
      // Refuse data larger than the host memory before generating the tasks.
      checkHostMemory(params, instance.dataBytes);
      const s = new GraphSubmitter();
      def.submit(s, instance);
      return finishWorkload(def.name, s.graph, instance.description, instance.params);
    },
  };
}
