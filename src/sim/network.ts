/**
 * The simulated network: transfers (flows) crossing links whose bandwidth they share
 * max-min fairly, recomputed whenever a flow starts or ends (the fluid model of SimGrid's
 * LMM solver, without its TCP corrections). Progressive filling: repeatedly take the link
 * with the smallest fair share (remaining capacity / unfixed flows), give that share to
 * its unfixed flows and remove their rate from every link they cross.
 * Cost: O(flows x links per flow x bottleneck rounds) per start or end, with flat typed
 * arrays and no allocation; flows in flight are few (bounded by the workers' pipelines and
 * prefetches).
 */
import type { Platform } from '../core/platform.ts';

/** Active flows and the fair rates they currently get. */
export class Network {
  private ids = new Int32Array(64);
  private remaining = new Float64Array(64);
  private rates = new Float64Array(64);
  private routeOf = new Int32Array(64);
  private count = 0;
  private lastUpdate = 0;
  private next = Number.POSITIVE_INFINITY;
  private readonly capacity: Float64Array;
  private readonly linkLeft: Float64Array;
  private readonly linkCount: Int32Array;
  private readonly touched: Int32Array;
  private fixed = new Uint8Array(64);
  // Links of every route, flattened: route r's links are routeLinks[routeStart[r] .. routeStart[r+1]).
  private readonly routeStart: Int32Array;
  private readonly routeLinks: Int32Array;
  private readonly nodes: number;

  constructor(platform: Platform) {
    this.capacity = new Float64Array(platform.links.map((l) => l.bandwidth));
    this.linkLeft = new Float64Array(platform.links.length);
    this.linkCount = new Int32Array(platform.links.length);
    this.touched = new Int32Array(platform.links.length);
    this.nodes = platform.nodes.length;
    const n = this.nodes;
    this.routeStart = new Int32Array(n * n + 1);
    const flat: number[] = [];
    for (let r = 0; r < n * n; r++) {
      this.routeStart[r] = flat.length;
      for (const l of platform.routes[r] ?? []) flat.push(l);
    }
    this.routeStart[n * n] = flat.length;
    this.routeLinks = Int32Array.from(flat);
  }

  /** Number of flows in flight. */
  get active(): number {
    return this.count;
  }

  /** Adds a flow of `bytes` from node src to node dst at time `now`. */
  add(id: number, bytes: number, src: number, dst: number, now: number): void {
    this.advance(now);
    if (this.count === this.ids.length) this.grow();
    const i = this.count++;
    this.ids[i] = id;
    this.remaining[i] = bytes;
    this.rates[i] = 0;
    this.routeOf[i] = src * this.nodes + dst;
    this.share();
  }

  /** Time at which the next flow completes, or Infinity (O(1): kept by every rate change). */
  nextCompletion(): number {
    return this.next;
  }

  private updateNext(): void {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.count; i++) {
      const t = this.remaining[i]! / this.rates[i]!;
      if (t < best) best = t;
    }
    this.next = this.lastUpdate + best;
  }

  /**
   * Advances to `now` (a completion time from nextCompletion) and removes the flows that
   * completed by then, appending their transfer ids to `done` in flow order.
   */
  complete(now: number, done: number[]): void {
    const dt = now - this.lastUpdate;
    this.lastUpdate = now;
    let w = 0;
    for (let i = 0; i < this.count; i++) {
      const rate = this.rates[i]!;
      const left = this.remaining[i]! - rate * dt;
      // A flow within a nanosecond of its end completes now (floating-point slack).
      if (left <= rate * 1e-9) {
        done.push(this.ids[i]!);
        continue;
      }
      this.ids[w] = this.ids[i]!;
      this.remaining[w] = left;
      this.rates[w] = rate;
      this.routeOf[w] = this.routeOf[i]!;
      w++;
    }
    this.count = w;
    this.share();
  }

  private advance(now: number): void {
    const dt = now - this.lastUpdate;
    if (dt > 0) for (let i = 0; i < this.count; i++) this.remaining[i]! -= this.rates[i]! * dt;
    this.lastUpdate = now;
  }

  private grow(): void {
    const n = this.ids.length * 2;
    const ids = new Int32Array(n);
    ids.set(this.ids);
    this.ids = ids;
    const rem = new Float64Array(n);
    rem.set(this.remaining);
    this.remaining = rem;
    const rates = new Float64Array(n);
    rates.set(this.rates);
    this.rates = rates;
    const routes = new Int32Array(n);
    routes.set(this.routeOf);
    this.routeOf = routes;
    this.fixed = new Uint8Array(n);
  }

  /** Recomputes the fair rates, then the next completion time. */
  private share(): void {
    this.fairRates();
    this.updateNext();
  }

  /** Max-min fair rates by progressive filling. */
  private fairRates(): void {
    const n = this.count;
    if (n === 0) return;
    const rs = this.routeStart;
    const rl = this.routeLinks;
    const cap = this.capacity;
    if (n === 1) {
      let r = Number.POSITIVE_INFINITY;
      const route = this.routeOf[0]!;
      for (let k = rs[route]!; k < rs[route + 1]!; k++) if (cap[rl[k]!]! < r) r = cap[rl[k]!]!;
      this.rates[0] = r;
      return;
    }
    const linkLeft = this.linkLeft;
    const linkCount = this.linkCount;
    const touched = this.touched;
    const fixed = this.fixed;
    let nt = 0;
    for (let i = 0; i < n; i++) {
      fixed[i] = 0;
      const route = this.routeOf[i]!;
      for (let k = rs[route]!; k < rs[route + 1]!; k++) {
        const l = rl[k]!;
        if (linkCount[l] === 0) {
          touched[nt++] = l;
          linkLeft[l] = cap[l]!;
        }
        linkCount[l]!++;
      }
    }
    let unfixed = n;
    while (unfixed > 0) {
      let bottleneck = -1;
      let share = Number.POSITIVE_INFINITY;
      for (let j = 0; j < nt; j++) {
        const l = touched[j]!;
        const c = linkCount[l]!;
        if (c > 0) {
          const s = linkLeft[l]! / c;
          if (s < share) {
            share = s;
            bottleneck = l;
          }
        }
      }
      for (let i = 0; i < n; i++) {
        if (fixed[i] === 1) continue;
        const route = this.routeOf[i]!;
        const end = rs[route + 1]!;
        let crosses = false;
        for (let k = rs[route]!; k < end; k++) {
          if (rl[k] === bottleneck) {
            crosses = true;
            break;
          }
        }
        if (!crosses) continue;
        fixed[i] = 1;
        unfixed--;
        this.rates[i] = share;
        for (let k = rs[route]!; k < end; k++) {
          const l = rl[k]!;
          linkLeft[l]! -= share;
          linkCount[l]!--;
        }
      }
    }
    for (let j = 0; j < nt; j++) linkCount[touched[j]!] = 0;
  }
}
