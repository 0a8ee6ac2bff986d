/**
 * The simulated network: transfers (flows) crossing links whose bandwidth they share
 * max-min fairly, recomputed whenever a flow starts or ends (the fluid model of SimGrid's
 * LMM solver, without its TCP corrections). Progressive filling: repeatedly take the link
 * with the smallest fair share (remaining capacity / unfixed flows), give that share to
 * its unfixed flows and remove their rate from every link they cross. Two classes, as StarPU
 * serves a node's fetch requests before its prefetch requests: urgent flows (a task waits for
 * them) are filled first; prefetches share the capacity they leave (none while urgent flows
 * take a whole link: such a prefetch resumes when they end, or when a task needs it and it is
 * promoted). Rates never add up to more than a link's bandwidth.
 * Cost: O(flows x links per flow x bottleneck rounds) per start or end, with flat typed
 * arrays and no allocation; flows in flight are few (bounded by the workers' pipelines and
 * prefetches).
 */
import type { IntList } from '../core/growable.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { PLATFORM_LIMITS } from '../platform/limits.ts';

/** Completion slack relative to the current time: four floating-point steps (ulps) of it. */
const TIME_STEPS = 4 * Number.EPSILON;

/** Active flows and the fair rates they currently get. */
export class Network {
  private ids = new Int32Array(64);
  private remaining = new Float64Array(64);
  private rates = new Float64Array(64);
  private routeOf = new Int32Array(64);
  private urgent = new Uint8Array(64);
  private count = 0;
  private lastUpdate = 0;
  private next = Number.POSITIVE_INFINITY;
  private lowPriority = 0;
  private readonly capacity: Float64Array;
  private readonly linkLeft: Float64Array;
  private readonly linkCount: Int32Array;
  private readonly touched: Int32Array;
  private readonly urgentUse: Float64Array;
  private readonly urgentTouched: Int32Array;
  private urgentTouchedCount = 0;
  private fixed = new Uint8Array(64);
  // Links of every route, flattened: route r's links are routeLinks[routeStart[r] .. routeStart[r+1]).
  private readonly routeStart: Int32Array;
  private readonly routeLinks: Int32Array;
  private readonly nodes: number;

  constructor(platform: Platform) {
    for (const l of platform.links) {
      if (!(l.bandwidth >= PLATFORM_LIMITS.minBandwidth))
        throw new LocusError(
          'LOCUS_PLATFORM_INVALID',
          `platform ${platform.name}: link ${l.name} has bandwidth ${l.bandwidth} B/s, below the smallest Locus simulates (${PLATFORM_LIMITS.minBandwidth} B/s): give it a realistic bandwidth`,
        );
    }
    this.capacity = new Float64Array(platform.links.map((l) => l.bandwidth));
    this.linkLeft = new Float64Array(platform.links.length);
    this.linkCount = new Int32Array(platform.links.length);
    this.touched = new Int32Array(platform.links.length);
    this.urgentUse = new Float64Array(platform.links.length);
    this.urgentTouched = new Int32Array(platform.links.length);
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

  /**
   * Adds a flow of `bytes` from node src to node dst at time `now`. Urgent flows (a task
   * waits for them) get their fair shares first; the others (prefetches) share what is left.
   */
  add(id: number, bytes: number, src: number, dst: number, urgent: boolean, now: number): void {
    this.advance(now);
    if (this.count === this.ids.length) this.grow();
    const i = this.count++;
    this.ids[i] = id;
    this.remaining[i] = bytes;
    this.rates[i] = 0;
    this.routeOf[i] = src * this.nodes + dst;
    this.urgent[i] = urgent ? 1 : 0;
    if (!urgent) this.lowPriority++;
    this.share();
  }

  /** Makes flow `id` urgent (a task now waits for this prefetch); no-op if not in flight. */
  promote(id: number, now: number): void {
    for (let i = 0; i < this.count; i++) {
      if (this.ids[i] === id && this.urgent[i] === 0) {
        this.advance(now);
        this.urgent[i] = 1;
        this.lowPriority--;
        this.share();
        return;
      }
    }
  }

  /** Time at which the next flow completes, or Infinity (O(1): kept by every rate change). */
  nextCompletion(): number {
    return this.next;
  }

  private updateNext(): void {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.count; i++) {
      const rate = this.rates[i]!;
      const left = this.remaining[i]!;
      // A flow at rate 0 (a starved prefetch) completes only when nothing is left of it (a
      // flow that ended at this very time, advanced past zero before its completion ran).
      const t = rate > 0 ? left / rate : left <= 0 ? 0 : Number.POSITIVE_INFINITY;
      if (t < best) best = t;
    }
    this.next = this.lastUpdate + best;
    if (this.count > 0 && !Number.isFinite(this.next)) {
      throw new LocusError(
        'LOCUS_SIMULATION_FAILED',
        `a transfer's completion time is not finite (${this.next} s at ${this.lastUpdate} s of virtual time, ${this.count} in flight): check the platform's bandwidths`,
      );
    }
  }

  /**
   * Advances to `now` (a completion time from nextCompletion) and removes the flows that
   * completed by then, appending their transfer ids to `done` in flow order (a growable list
   * the caller reuses: no allocation per event).
   */
  complete(now: number, done: IntList): void {
    const dt = now - this.lastUpdate;
    this.lastUpdate = now;
    // A flow within a nanosecond of its end, or within a few floating-point steps of `now`
    // (beyond 1e6 s of virtual time the step exceeds a nanosecond), completes now: otherwise
    // its completion time would round back to `now` and the event loop would spin.
    const slack = Math.max(1e-9, now * TIME_STEPS);
    let w = 0;
    for (let i = 0; i < this.count; i++) {
      const rate = this.rates[i]!;
      const left = this.remaining[i]! - rate * dt;
      if (left <= rate * slack) {
        done.push(this.ids[i]!);
        if (this.urgent[i] === 0) this.lowPriority--;
        continue;
      }
      this.ids[w] = this.ids[i]!;
      this.remaining[w] = left;
      this.rates[w] = rate;
      this.routeOf[w] = this.routeOf[i]!;
      this.urgent[w] = this.urgent[i]!;
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
    const urgent = new Uint8Array(n);
    urgent.set(this.urgent);
    this.urgent = urgent;
    this.fixed = new Uint8Array(n);
  }

  /** Recomputes the fair rates (urgent flows first, then the others), then the next completion. */
  private share(): void {
    if (this.count > 0) {
      if (this.lowPriority === 0 || this.lowPriority === this.count) {
        this.fill(-1, false);
      } else {
        this.fill(1, false);
        this.fill(0, true);
        for (let j = 0; j < this.urgentTouchedCount; j++) this.urgentUse[this.urgentTouched[j]!] = 0;
      }
    }
    this.updateNext();
  }

  /**
   * Max-min fair rates by progressive filling, over the flows of one class (urgent = 1 or 0;
   * -1 for all). With `residual`, link capacities are what the urgent flows left.
   */
  private fill(cls: number, residual: boolean): void {
    const n = this.count;
    const rs = this.routeStart;
    const rl = this.routeLinks;
    const cap = this.capacity;
    const linkLeft = this.linkLeft;
    const linkCount = this.linkCount;
    const touched = this.touched;
    const fixed = this.fixed;
    const used = this.urgentUse;
    let nt = 0;
    let unfixed = 0;
    for (let i = 0; i < n; i++) {
      const mine = cls < 0 || this.urgent[i] === cls;
      fixed[i] = mine ? 0 : 1;
      if (!mine) continue;
      unfixed++;
      const route = this.routeOf[i]!;
      for (let k = rs[route]!; k < rs[route + 1]!; k++) {
        const l = rl[k]!;
        if (linkCount[l] === 0) {
          touched[nt++] = l;
          linkLeft[l] = residual ? Math.max(0, cap[l]! - used[l]!) : cap[l]!;
        }
        linkCount[l]!++;
      }
    }
    while (unfixed > 0) {
      let bottleneck = -1;
      let share = Number.POSITIVE_INFINITY;
      for (let j = 0; j < nt; j++) {
        const l = touched[j]!;
        const c = linkCount[l]!;
        if (c > 0) {
          const sh = linkLeft[l]! / c;
          if (sh < share) {
            share = sh;
            bottleneck = l;
          }
        }
      }
      // No floor: a rate above the share would make the link carry more than its bandwidth
      // (issue 27). A prefetch starved by urgent flows (share 0) waits for them to end, or is
      // promoted once a task needs it (promote): its wait is bounded by the urgent traffic.
      const rate = share > 0 ? share : 0;
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
        this.rates[i] = rate;
        for (let k = rs[route]!; k < end; k++) {
          const l = rl[k]!;
          linkLeft[l]! -= share;
          linkCount[l]!--;
        }
      }
    }
    for (let j = 0; j < nt; j++) {
      const l = touched[j]!;
      linkCount[l] = 0;
      if (cls === 1) {
        // What the urgent flows use, for the residual pass (cleared after it).
        used[l] = cap[l]! - linkLeft[l]!;
        this.urgentTouched[j] = l;
      }
    }
    if (cls === 1) this.urgentTouchedCount = nt;
  }
}
