/**
 * The real driver's memory: one SharedArrayBuffer per replica, identified by a small integer
 * id that worker threads learn once. A handle's home replica is the runtime's own copy of its
 * data and lives as long as the handle. Replicas on other nodes (emulated device memories)
 * are taken from a per-node pool of freed buffers of the same size and type, so a run in
 * steady state allocates nothing; the engine already keeps each node within its capacity.
 *
 * Out of core (a DiskFiles given, issue 30): the home copy of every handle is its region on
 * the disk and the store keeps none in RAM; host memory holds replicas like a device memory.
 * The bytes of host buffers (in use and pooled) stay within the host capacity (pooled buffers
 * of other sizes are given up before one is allocated past it), and `hostPeak` records the
 * most they reached.
 */
import type { DiskFiles } from './disk-files.ts';
import { DTYPE_BYTES } from './protocol.ts';

/** Every buffer the runtime created, by id, and the replicas they hold. */
export class BufferStore {
  /** Buffer of each id. */
  readonly buffers: SharedArrayBuffer[] = [];
  /** Dtype code of each id. */
  readonly dtypes: number[] = [];
  /** Byte views of each id, for copies. */
  private readonly bytes: Uint8Array[] = [];
  /** Home buffer id of each handle (-1 out of core: the home copy is on the disk). */
  readonly home: number[] = [];
  /** Dtype code of each handle. */
  readonly handleDtype: number[] = [];
  /** Bytes of each handle. */
  readonly handleBytes: number[] = [];
  /** Out of core: the disk holding the home copies (undefined: they are in RAM). */
  readonly disk: DiskFiles | undefined;
  /** Out of core: bytes of host buffers (in use and pooled) and the most they reached. */
  hostBytes = 0;
  hostPeak = 0;
  /** Out of core: bytes of host replicas in use now, and the most there were at once. */
  hostInUse = 0;
  hostUseMax = 0;
  private readonly hostCapacity: number;
  private hostNode = -1;
  private replicas = new Int32Array(0);
  /** Handles whose home replica is entered in `replicas`. */
  private placed = 0;
  private nodes = 1;
  private homeNode = 0;
  private readonly pools = new Map<string, number[]>();
  /** Out of core: ids of host buffers given up since the backend last looked (see newHostBuffer). */
  readonly dropped: number[] = [];
  /** Shared buffers registered in place, and the handle of each. */
  private readonly adopted = new WeakMap<SharedArrayBuffer, number>();

  /** A store; with `disk`, out of core, host buffers within `hostCapacity` bytes. */
  constructor(disk?: DiskFiles, hostCapacity = Number.POSITIVE_INFINITY) {
    this.disk = disk;
    this.hostCapacity = hostCapacity;
  }

  /** The handle registered in place on `array`'s buffer, if any. */
  holderOf(array: { buffer: ArrayBufferLike }): number | undefined {
    return array.buffer instanceof SharedArrayBuffer ? this.adopted.get(array.buffer) : undefined;
  }

  /** Ends handle h's hold on a buffer registered in place (unregistered: it may come again). */
  forget(h: number): void {
    const b = this.buffers[this.home[h]!];
    if (b !== undefined && this.adopted.get(b) === h) this.adopted.delete(b);
  }

  /** Whether handle h's home replica is the registered array's own memory. */
  inPlace(h: number, array: { buffer: ArrayBufferLike }): boolean {
    return this.buffers[this.home[h]!] === array.buffer;
  }

  /**
   * Registers a handle of `elements` elements of dtype `dtype`, optionally with its content.
   * An `init` that views a whole SharedArrayBuffer of exactly that size becomes the home
   * replica itself (no copy: StarPU registers the application's pointer so; the caller
   * refuses a buffer already registered, see `holderOf`); any other content is copied into a
   * new buffer. Out of core, the content is written to the disk instead (`name` names the
   * datum in a LOCUS_DISK_FULL error).
   */
  addHandle(dtype: number, elements: number, init?: ArrayLike<number>, name = 'a datum'): number {
    const bytes = elements * DTYPE_BYTES[dtype as 0]!;
    if (this.disk !== undefined) {
      const h = this.home.length;
      this.disk.add(h, bytes, init === undefined ? undefined : bytesOfContent(dtype, init), name);
      this.home.push(-1);
      this.handleDtype.push(dtype);
      this.handleBytes.push(bytes);
      return h;
    }
    const shared = sharedWhole(init, bytes);
    let id: number;
    if (shared !== undefined && !this.adopted.has(shared)) {
      this.adopted.set(shared, this.home.length);
      id = this.push(dtype, shared);
    } else {
      id = this.create(dtype, bytes);
      if (init) (this.view(id) as unknown as { set(a: ArrayLike<number>): void }).set(init);
    }
    this.home.push(id);
    this.handleDtype.push(dtype);
    this.handleBytes.push(bytes);
    return this.home.length - 1;
  }

  /** Number of handles. */
  get handleCount(): number {
    return this.home.length;
  }

  /** A typed view of buffer `id` (created on each call: cache it in loops). */
  view(id: number): Float64Array | Float32Array | Int32Array | Uint8Array {
    const b = this.buffers[id]!;
    switch (this.dtypes[id]) {
      case 0:
        return new Float64Array(b);
      case 1:
        return new Float32Array(b);
      case 2:
        return new Int32Array(b);
      default:
        return new Uint8Array(b);
    }
  }

  /**
   * Sets the memory nodes replicas live on: every handle's home replica is on `homeNode`
   * (out of core: the disk node, with host memory `hostNode`). Called once, before the first
   * task runs; handles registered later are placed as they come.
   */
  useNodes(nodes: number, homeNode: number, hostNode = homeNode): void {
    // The replicas an earlier engine left go back to their pools: a new engine starts with
    // every datum at home only (out of core, host buffers stay counted, as pooled).
    for (let h = 0; h < this.placed; h++)
      for (let n = 0; n < this.nodes; n++) if (n !== this.homeNode) this.release(h, n);
    this.nodes = nodes;
    this.homeNode = homeNode;
    this.hostNode = this.disk === undefined ? -1 : hostNode;
    this.replicas = new Int32Array(Math.max(16, this.home.length) * nodes).fill(-1);
    this.placed = 0;
    this.placeHandles();
  }

  /** Enters the home replica of every handle registered since the last call. */
  private placeHandles(): void {
    const need = this.home.length * this.nodes;
    if (need > this.replicas.length) {
      const next = new Int32Array(Math.max(need, this.replicas.length * 2)).fill(-1);
      next.set(this.replicas);
      this.replicas = next;
    }
    for (let h = this.placed; h < this.home.length; h++)
      this.replicas[h * this.nodes + this.homeNode] = this.home[h]!;
    this.placed = this.home.length;
  }

  /** The buffer holding handle h's replica on node n, allocated if it has none. */
  replica(h: number, n: number): number {
    if (h >= this.placed) this.placeHandles();
    const slot = h * this.nodes + n;
    const id = this.replicas[slot]!;
    if (id >= 0) return id;
    const dtype = this.handleDtype[h]!;
    const size = this.handleBytes[h]!;
    const pool = this.pools.get(`${n}:${dtype}:${size}`);
    let got: number;
    if (pool !== undefined && pool.length > 0) got = pool.pop()!;
    else if (n === this.hostNode) got = this.newHostBuffer(dtype, size);
    else got = this.create(dtype, size);
    if (n === this.hostNode) {
      this.hostInUse += size;
      if (this.hostInUse > this.hostUseMax) this.hostUseMax = this.hostInUse;
    }
    this.replicas[slot] = got;
    return got;
  }

  /**
   * Out of core: a host buffer of `size` bytes, within the host capacity (the engine keeps the
   * replicas in use within it): pooled host buffers of other sizes are given up first. A
   * given-up id is never used again; it is listed in `dropped` for the worker threads to let
   * go of their reference too.
   */
  private newHostBuffer(dtype: number, size: number): number {
    for (const [key, pool] of this.pools) {
      if (this.hostBytes + size <= this.hostCapacity) break;
      if (!key.startsWith(`${this.hostNode}:`)) continue;
      while (pool.length > 0 && this.hostBytes + size > this.hostCapacity) {
        const id = pool.pop()!;
        this.hostBytes -= this.buffers[id]!.byteLength;
        this.buffers[id] = EMPTY;
        this.bytes[id] = new Uint8Array(EMPTY);
        this.dropped.push(id);
      }
    }
    this.hostBytes += size;
    if (this.hostBytes > this.hostPeak) this.hostPeak = this.hostBytes;
    return this.create(dtype, size);
  }

  /** Returns handle h's replica on node n (not its home) to the node's pool. */
  release(h: number, n: number): void {
    if (n === this.homeNode) return;
    const slot = h * this.nodes + n;
    const id = this.replicas[slot]!;
    if (id < 0) return;
    this.replicas[slot] = -1;
    if (n === this.hostNode) this.hostInUse -= this.buffers[id]!.byteLength;
    const key = `${n}:${this.dtypes[id]}:${this.buffers[id]!.byteLength}`;
    let pool = this.pools.get(key);
    if (pool === undefined) {
      pool = [];
      this.pools.set(key, pool);
    }
    pool.push(id);
  }

  /** A byte view of buffer `id` (kept: no allocation). */
  byteView(id: number): Uint8Array {
    return this.bytes[id]!;
  }

  /** Copies handle h's replica on `src` into its replica on `dst` (allocated if needed). */
  copy(h: number, src: number, dst: number): number {
    const from = this.replica(h, src);
    const to = this.replica(h, dst);
    this.bytes[to]!.set(this.bytes[from]!);
    return this.bytes[from]!.byteLength;
  }

  private create(dtype: number, bytes: number): number {
    return this.push(dtype, new SharedArrayBuffer(bytes));
  }

  private push(dtype: number, b: SharedArrayBuffer): number {
    this.buffers.push(b);
    this.dtypes.push(dtype);
    this.bytes.push(new Uint8Array(b));
    return this.buffers.length - 1;
  }
}

/** What a given-up buffer id holds. */
export const EMPTY = new SharedArrayBuffer(0);

/** `init` as bytes of dtype `dtype` (its own bytes when it is a typed array of that dtype). */
function bytesOfContent(dtype: number, init: ArrayLike<number>): Uint8Array {
  const Ctor = [Float64Array, Float32Array, Int32Array, Uint8Array][dtype]!;
  const typed = init instanceof Ctor ? init : Ctor.from(init);
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

/** The SharedArrayBuffer that `init` views whole, when it is a typed array of `bytes` bytes on one. */
function sharedWhole(init: ArrayLike<number> | undefined, bytes: number): SharedArrayBuffer | undefined {
  if (init === undefined || !ArrayBuffer.isView(init)) return undefined;
  const b = init.buffer;
  return b instanceof SharedArrayBuffer &&
    init.byteOffset === 0 &&
    init.byteLength === bytes &&
    b.byteLength === bytes
    ? b
    : undefined;
}
