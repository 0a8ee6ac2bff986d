/**
 * The Submitter that builds the simulator's TaskGraph: data become handles of their size in
 * bytes, codelets are registered once each (kernels do not matter to a simulation), tasks are
 * submitted as given. Kernel arguments and initial values are ignored.
 */
import { type Codelet, TaskGraph } from '../core/graph.ts';
import {
  type DataSpec,
  ELEMENT_BYTES,
  type SubmitAccess,
  type Submitter,
  type TaskSpec,
} from './submitter.ts';

/** Builds `graph` from a workload's declarations and submissions. */
export class GraphSubmitter implements Submitter {
  /** The graph under construction. */
  readonly graph = new TaskGraph();
  /** A simulation computes no values. */
  readonly computes = false;
  private readonly codelets = new Map<Codelet, number>();

  /** Adds a handle of `length` elements of `type`, in bytes. */
  data(spec: DataSpec): number {
    return this.graph.addHandle(spec.length * ELEMENT_BYTES[spec.type], spec);
  }

  /** Registers `codelet` on its first declaration; later ones (other kernels) reuse its id. */
  codelet(codelet: Codelet): number {
    let id = this.codelets.get(codelet);
    if (id === undefined) {
      id = this.graph.addCodelet(codelet);
      this.codelets.set(codelet, id);
    }
    return id;
  }

  /** Records a wontUse hint in the graph (TaskGraph.wontUse). */
  wontUse(data: number): void {
    this.graph.wontUse(data);
  }

  /** Submits the task to the graph. */
  submit(codelet: number, accesses: readonly SubmitAccess[], task?: TaskSpec): void {
    this.graph.submit(codelet, accesses, task);
  }
}
