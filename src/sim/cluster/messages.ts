/**
 * The simulated cluster's network: messages between nodes, each crossing its sender's NIC
 * (out), the switch's backbone when it is not non-blocking, and its receiver's NIC (in), whose
 * bandwidths they share max-min fairly (the flow model of src/sim/network.ts, reused). A
 * message first pays the network's latency, then flows: alone on an idle network it takes
 * latency + bytes / NIC bandwidth. Deterministic: events at one time come in posting order.
 */
import { IntList } from '../../core/growable.ts';
import type { ClusterNetwork, Platform } from '../../core/platform.ts';
import { EventHeap } from '../event-heap.ts';
import { Network } from '../network.ts';

/** The platform the flow model needs: one node per cluster node, NIC and switch links. */
function networkPlatform(c: ClusterNetwork, nodes: number): Platform {
  const links = [
    ...Array.from({ length: nodes }, (_, r) => ({
      name: `${c.nodes[r]} out`,
      bandwidth: c.nicBandwidth,
      latency: 0,
    })),
    ...Array.from({ length: nodes }, (_, r) => ({
      name: `${c.nodes[r]} in`,
      bandwidth: c.nicBandwidth,
      latency: 0,
    })),
  ];
  const backbone = Number.isFinite(c.switchBandwidth) ? links.length : -1;
  if (backbone >= 0) links.push({ name: 'switch', bandwidth: c.switchBandwidth, latency: 0 });
  const routes: (number[] | null)[] = [];
  for (let s = 0; s < nodes; s++) {
    for (let d = 0; d < nodes; d++) {
      routes.push(s === d ? [] : backbone >= 0 ? [s, backbone, nodes + d] : [s, nodes + d]);
    }
  }
  return {
    name: 'network',
    nodes: Array.from({ length: nodes }, (_, r) => ({
      name: c.nodes[r]!,
      kind: 'host' as const,
      capacity: Infinity,
    })),
    homeNode: 0,
    workers: [],
    links,
    routes,
  };
}

/** Messages in flight on the cluster's network. */
export class MessageNetwork {
  private readonly starts = new EventHeap();
  private readonly flows: Network;
  private readonly done = new IntList(16);
  /** Messages waiting out their latency: bytes, sender, receiver. */
  private readonly pending = new Map<number, [bytes: number, from: number, to: number]>();
  private inFlight = 0;

  /** The network of the first `nodes` nodes of `cluster`. */
  constructor(
    private readonly cluster: ClusterNetwork,
    nodes: number,
  ) {
    this.flows = new Network(networkPlatform(cluster, nodes));
  }

  /** Messages posted and not yet delivered. */
  get active(): number {
    return this.inFlight;
  }

  /** Posts message `id` of `bytes` from node `from` to node `to` at time `now`. */
  post(id: number, bytes: number, from: number, to: number, now: number): void {
    this.inFlight++;
    this.starts.push(now + this.cluster.latency, 0, id);
    this.pending.set(id, [bytes, from, to]);
  }

  /** Time of the next event (a message starting to flow or delivered), Infinity when none. */
  nextTime(): number {
    return Math.min(this.starts.peekTime(), this.flows.nextCompletion());
  }

  /**
   * Handles the events at time `now` (= nextTime()): starts the flows whose latency has elapsed
   * and returns the ids of the messages delivered then, in order (possibly none).
   */
  step(now: number): number[] {
    this.done.length = 0;
    if (this.flows.nextCompletion() <= now) {
      this.flows.complete(now, this.done);
      this.inFlight -= this.done.length;
      return Array.from(this.done.data.subarray(0, this.done.length));
    }
    while (this.starts.peekTime() <= now) {
      const id = this.starts.peekPayload();
      this.starts.pop();
      const [bytes, from, to] = this.pending.get(id)!;
      this.pending.delete(id);
      this.flows.add(id, bytes, from, to, true, now);
    }
    return [];
  }
}
