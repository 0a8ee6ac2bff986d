/**
 * A test oracle attached to the engine as an observer. It mirrors symbolic data values
 * through every transfer and task, and checks at every event that:
 * - no memory node exceeds its capacity;
 * - a task starts only after all its predecessors finished, with every input valid on its
 *   node and holding the value a sequential execution would read;
 * - a transfer reads a valid replica, and no replica is freed while it holds the only copy
 *   of the latest value;
 * - at the end, every handle's home copy equals the sequential execution's final value.
 * It also records a textual trace, to compare two runs for determinism.
 */
import { type Engine, type EngineObserver, type FreeReason, Replica } from '../../src/core/engine.ts';
import { AccessMode } from '../../src/core/types.ts';

/** Mixes a task id and its input values into an output value (a deterministic "checksum" kernel). */
function mix(task: number, inputs: number[], access: number): number {
  let h = (task * 2654435761 + access * 40503) >>> 0;
  for (const v of inputs) h = (Math.imul(h ^ v, 2246822519) + 0x9e3779b9) >>> 0;
  return h;
}

/** The invariant checker; `violations` lists what went wrong (empty when all holds). */
export class InvariantChecker implements EngineObserver {
  readonly violations: string[] = [];
  readonly trace: string[] = [];
  private readonly nn: number;
  private readonly value: Float64Array;
  private readonly captured: number[] = [];
  private readonly latest: Float64Array;
  private readonly expectedIn: number[][] = [];
  private readonly expectedOut: number[][] = [];
  private readonly finalValue: Float64Array;
  private readonly preds: number[][];
  private readonly done: Uint8Array;
  private readonly writersRunning: Int32Array;
  finished = false;

  constructor(private readonly engine: Engine) {
    const g = engine.graph;
    this.nn = engine.platform.nodes.length;
    this.value = new Float64Array(g.handleCount * this.nn).fill(-1);
    this.latest = new Float64Array(g.handleCount);
    const seq = new Float64Array(g.handleCount);
    for (let h = 0; h < g.handleCount; h++) {
      seq[h] = h + 1;
      this.latest[h] = h + 1;
      this.value[h * this.nn + this.homeOf(h)] = h + 1;
    }
    // The sequential execution, in submission order.
    for (let t = 0; t < g.taskCount; t++) {
      const acc = g.accesses(t);
      const inputs = acc.filter(([, m]) => m & AccessMode.R).map(([h]) => seq[h]!);
      this.expectedIn.push(inputs);
      const outs: number[] = [];
      acc.forEach(([h, m], i) => {
        if (m & AccessMode.W) {
          const v = mix(t, inputs, i);
          outs.push(v);
          seq[h] = v;
        }
      });
      this.expectedOut.push(outs);
    }
    this.finalValue = seq;
    this.preds = Array.from({ length: g.taskCount }, () => []);
    for (let t = 0; t < g.taskCount; t++) for (const s of g.successors(t)) this.preds[s]!.push(t);
    this.done = new Uint8Array(g.taskCount);
    this.writersRunning = new Int32Array(g.handleCount);
  }

  private checkMemory(where: string): void {
    const e = this.engine;
    e.platform.nodes.forEach((n, i) => {
      if (e.memoryUsed(i) > n.capacity)
        this.fail(`${where}: node ${n.name} uses ${e.memoryUsed(i)} > ${n.capacity}`);
    });
  }

  private fail(msg: string): void {
    if (this.violations.length < 20) this.violations.push(msg);
  }

  taskStarted(task: number, worker: number, now: number): void {
    const e = this.engine;
    const g = e.graph;
    const node = e.platform.workers[worker]!.node;
    this.trace.push(`${now.toFixed(9)} start ${task} w${worker}`);
    for (const p of this.preds[task]!)
      if (!this.done[p]) this.fail(`task ${task} started before predecessor ${p}`);
    const inputs = g
      .accesses(task)
      .filter(([, m]) => m & AccessMode.R)
      .map(([h]) => {
        if (!e.isValidOn(h, node))
          this.fail(`task ${task} started with input ${h} not valid on node ${node}`);
        return this.value[h * this.nn + node]!;
      });
    const want = this.expectedIn[task]!;
    inputs.forEach((v, i) => {
      if (v !== want[i])
        this.fail(`task ${task} read value ${v} of its input #${i}, sequential run reads ${want[i]}`);
    });
    for (const [h, m] of g.accesses(task)) if (m & AccessMode.W) this.writersRunning[h]!++;
    this.checkMemory(`start of task ${task}`);
  }

  taskFinished(task: number, worker: number, now: number): void {
    const e = this.engine;
    const node = e.platform.workers[worker]!.node;
    this.trace.push(`${now.toFixed(9)} end ${task} w${worker}`);
    this.done[task] = 1;
    let k = 0;
    for (const [h, m] of e.graph.accesses(task)) {
      if (!(m & AccessMode.W)) continue;
      const v = this.expectedOut[task]![k++]!;
      this.value[h * this.nn + node] = v;
      this.latest[h] = v;
      this.writersRunning[h]!--;
    }
  }

  transferStarted(id: number, now: number): void {
    const e = this.engine;
    const h = e.trHandle.data[id]!;
    const src = e.trSrc.data[id]!;
    this.trace.push(`${now.toFixed(9)} copy ${h} ${src}->${e.trDst.data[id]} kind ${e.trKind.data[id]}`);
    if (!e.isValidOn(h, src))
      this.fail(`transfer ${id} of handle ${h} reads node ${src} where it is not valid`);
    this.captured[id] = this.value[h * this.nn + src]!;
    this.checkMemory(`transfer ${id}`);
  }

  transferFinished(id: number, now: number, applied: boolean): void {
    const e = this.engine;
    this.trace.push(`${now.toFixed(9)} copied ${id}${applied ? '' : ' (stale)'}`);
    if (applied) this.value[e.trHandle.data[id]! * this.nn + e.trDst.data[id]!] = this.captured[id]!;
  }

  replicaAllocated(handle: number, node: number): void {
    this.checkMemory(`allocation of ${handle} on ${node}`);
  }

  replicaFreed(handle: number, node: number, reason: FreeReason, now: number): void {
    this.trace.push(`${now.toFixed(9)} free ${handle}@${node} ${reason}`);
    const e = this.engine;
    if (reason === 'discard' || this.writersRunning[handle]! > 0) return;
    // A ready task at home will overwrite the value (write-only): it is dead, dropping is fine.
    if (e.replicaState(handle, this.homeOf(handle)) === Replica.ALLOCATED) return;
    let kept = false;
    for (let m = 0; m < this.nn; m++) {
      if (m !== node && e.isValidOn(handle, m) && this.value[handle * this.nn + m] === this.latest[handle])
        kept = true;
    }
    if (!kept)
      this.fail(`replica of ${handle} on node ${node} freed (${reason}) while it held the only latest copy`);
  }

  /** The home of handle h: the graph's, else the disk when one is attached (out of core), else host memory. */
  private homeOf(h: number): number {
    const own = this.engine.graph.handleHome.data[h]!;
    if (own >= 0) return own;
    const disk = this.engine.platform.nodes.findIndex((n) => n.kind === 'disk');
    return disk >= 0 ? disk : this.engine.platform.homeNode;
  }

  runFinished(now: number): void {
    const e = this.engine;
    const g = e.graph;
    this.finished = true;
    this.trace.push(`${now.toFixed(9)} finished`);
    for (let t = 0; t < g.taskCount; t++) if (!this.done[t]) this.fail(`task ${t} never ran`);
    for (let h = 0; h < g.handleCount; h++) {
      const home = this.homeOf(h);
      if (g.handleDiscard.data[h] === 1) continue;
      if (!e.isValidOn(h, home)) this.fail(`handle ${h} not valid at home at the end`);
      if (this.value[h * this.nn + home] !== this.finalValue[h]) {
        this.fail(
          `handle ${h} ends with ${this.value[h * this.nn + home]} at home, sequential run gives ${this.finalValue[h]}`,
        );
      }
    }
  }
}
