/**
 * The simulated network: transfers (flows) crossing links whose bandwidth they share
 * max-min fairly, recomputed whenever a flow starts or ends (the fluid model of SimGrid's
 * LMM solver, without its TCP corrections). Progressive filling: repeatedly take the link
 * with the smallest fair share (remaining capacity / unfixed flows), give that share to
 * its unfixed flows and remove their rate from every link they cross.
 * Cost: O(flows x links per flow x bottleneck rounds) per start or end; flows in flight are
 * few (bounded by the workers' pipelines and prefetches).
 */
import type { Platform } from '../core/platform.ts';

/** Active flows and the fair rates they currently get. */
export class Network {
  /** Transfer id of each active flow. */
  private ids: number[] = [];
  private remaining: number[] = [];
  private rates: number[] = [];
  private routes: (readonly number[])[] = [];
  private lastUpdate = 0;
  private readonly capacity: Float64Array;
  private readonly linkLeft: Float64Array;
  private readonly linkCount: Int32Array;

  constructor(platform: Platform) {
    this.capacity = new Float64Array(platform.links.map((l) => l.bandwidth));
    this.linkLeft = new Float64Array(platform.links.length);
    this.linkCount = new Int32Array(platform.links.length);
  }

  /** Number of flows in flight. */
  get active(): number {
    return this.ids.length;
  }

  /** Adds a flow of `bytes` over `route` at time `now`. */
  add(id: number, bytes: number, route: readonly number[], now: number): void {
    this.advance(now);
    this.ids.push(id);
    this.remaining.push(bytes);
    this.rates.push(0);
    this.routes.push(route);
    this.share();
  }

  /** Time at which the next flow completes, or Infinity. */
  nextCompletion(): number {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.ids.length; i++) {
      const t = this.remaining[i]! / this.rates[i]!;
      if (t < best) best = t;
    }
    return this.lastUpdate + best;
  }

  /**
   * Advances to `now` (a completion time from nextCompletion) and removes the flows that
   * completed by then, appending their transfer ids to `done` in flow order.
   */
  complete(now: number, done: number[]): void {
    const dt = now - this.lastUpdate;
    this.lastUpdate = now;
    let w = 0;
    for (let i = 0; i < this.ids.length; i++) {
      const left = this.remaining[i]! - this.rates[i]! * dt;
      // A flow within a nanosecond of its end completes now (floating-point slack).
      if (left <= this.rates[i]! * 1e-9) {
        done.push(this.ids[i]!);
        continue;
      }
      this.ids[w] = this.ids[i]!;
      this.remaining[w] = left;
      this.rates[w] = this.rates[i]!;
      this.routes[w] = this.routes[i]!;
      w++;
    }
    this.ids.length = w;
    this.remaining.length = w;
    this.rates.length = w;
    this.routes.length = w;
    this.share();
  }

  private advance(now: number): void {
    const dt = now - this.lastUpdate;
    if (dt > 0) for (let i = 0; i < this.ids.length; i++) this.remaining[i]! -= this.rates[i]! * dt;
    this.lastUpdate = now;
  }

  /** Max-min fair rates by progressive filling. */
  private share(): void {
    const n = this.ids.length;
    if (n === 0) return;
    if (n === 1) {
      let r = Number.POSITIVE_INFINITY;
      for (const l of this.routes[0]!) if (this.capacity[l]! < r) r = this.capacity[l]!;
      this.rates[0] = r;
      return;
    }
    const linkLeft = this.linkLeft;
    const linkCount = this.linkCount;
    const touched: number[] = [];
    for (let i = 0; i < n; i++) {
      for (const l of this.routes[i]!) {
        if (linkCount[l] === 0) {
          touched.push(l);
          linkLeft[l] = this.capacity[l]!;
        }
        linkCount[l]!++;
      }
    }
    const fixed = new Uint8Array(n);
    let unfixed = n;
    while (unfixed > 0) {
      let bottleneck = -1;
      let share = Number.POSITIVE_INFINITY;
      for (const l of touched) {
        if (linkCount[l]! > 0) {
          const s = linkLeft[l]! / linkCount[l]!;
          if (s < share) {
            share = s;
            bottleneck = l;
          }
        }
      }
      for (let i = 0; i < n; i++) {
        if (fixed[i] || !this.routes[i]!.includes(bottleneck)) continue;
        fixed[i] = 1;
        unfixed--;
        this.rates[i] = share;
        for (const l of this.routes[i]!) {
          linkLeft[l]! -= share;
          linkCount[l]!--;
        }
      }
    }
    for (const l of touched) linkCount[l] = 0;
  }
}
