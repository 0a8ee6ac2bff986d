/**
 * The owner-computes mapping of seed 001's static stencil placement, shared by `static` and
 * the `-init` variants: parts (affinity hints, e.g. stencil blocks) are split into as many
 * contiguous ranges as there are GPUs, part b of B going to GPU floor(b G / B).
 */
import type { SchedContext } from '../core/policy.ts';

/** Maps affinity hints to the GPU worker that owns them. */
export class OwnerMap {
  private gpus: number[] = [];
  private parts = 1;

  /** Reads the GPU workers and the number of parts from the graph. */
  init(ctx: SchedContext): void {
    this.gpus = ctx.platform.workers.flatMap((w, i) => (w.kind === 'gpu' ? [i] : []));
    const aff = ctx.graph.taskAffinity;
    let max = -1;
    for (let t = 0; t < aff.length; t++) if (aff.data[t]! > max) max = aff.data[t]!;
    this.parts = max + 1;
  }

  /** GPU workers in platform order. */
  get gpuWorkers(): readonly number[] {
    return this.gpus;
  }

  /** The worker owning `part`, or -1 without GPUs or for part < 0. */
  ownerOf(part: number): number {
    if (part < 0 || this.gpus.length === 0) return -1;
    return this.gpus[
      Math.min(this.gpus.length - 1, Math.floor((part * this.gpus.length) / Math.max(1, this.parts)))
    ]!;
  }
}
