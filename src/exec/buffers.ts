/**
 * The real driver's memory: one SharedArrayBuffer per replica, identified by a small integer
 * id that worker threads learn once. A handle's home replica is the runtime's own copy of its
 * data and lives as long as the handle. Replicas on other nodes (emulated device memories)
 * are taken from a per-node pool of freed buffers of the same size and type, so a run in
 * steady state allocates nothing; the engine already keeps each node within its capacity.
 */
import { DTYPE_BYTES } from './protocol.ts';

/** Every buffer the runtime created, by id, and the replicas they hold. */
export class BufferStore {
  /** Buffer of each id. */
  readonly buffers: SharedArrayBuffer[] = [];
  /** Dtype code of each id. */
  readonly dtypes: number[] = [];
  /** Byte views of each id, for copies. */
  private readonly bytes: Uint8Array[] = [];
  /** Home buffer id of each handle. */
  readonly home: number[] = [];
  /** Dtype code of each handle. */
  readonly handleDtype: number[] = [];
  private replicas = new Int32Array(0);
  /** Handles whose home replica is entered in `replicas`. */
  private placed = 0;
  private nodes = 1;
  private homeNode = 0;
  private readonly pools = new Map<string, number[]>();
  /** Shared buffers registered in place, and the handle of each. */
  private readonly adopted = new WeakMap<SharedArrayBuffer, number>();

  /** The handle registered in place on `array`'s buffer, if any. */
  holderOf(array: { buffer: ArrayBufferLike }): number | undefined {
    return array.buffer instanceof SharedArrayBuffer ? this.adopted.get(array.buffer) : undefined;
  }

  /** Ends handle h's hold on a buffer registered in place (unregistered: it may come again). */
  forget(h: number): void {
    const b = this.buffers[this.home[h]!]!;
    if (this.adopted.get(b) === h) this.adopted.delete(b);
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
   * new buffer.
   */
  addHandle(dtype: number, elements: number, init?: ArrayLike<number>): number {
    const bytes = elements * DTYPE_BYTES[dtype as 0]!;
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
   * Sets the memory nodes replicas live on: every handle's home replica is on `homeNode`.
   * Called once, before the first task runs; handles registered later are placed as they come.
   */
  useNodes(nodes: number, homeNode: number): void {
    this.nodes = nodes;
    this.homeNode = homeNode;
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
    const homeId = this.home[h]!;
    const dtype = this.dtypes[homeId]!;
    const size = this.buffers[homeId]!.byteLength;
    const pool = this.pools.get(`${n}:${dtype}:${size}`);
    const got = pool !== undefined && pool.length > 0 ? pool.pop()! : this.create(dtype, size);
    this.replicas[slot] = got;
    return got;
  }

  /** Returns handle h's replica on node n (not its home) to the node's pool. */
  release(h: number, n: number): void {
    if (n === this.homeNode) return;
    const slot = h * this.nodes + n;
    const id = this.replicas[slot]!;
    if (id < 0) return;
    this.replicas[slot] = -1;
    const key = `${n}:${this.dtypes[id]}:${this.buffers[id]!.byteLength}`;
    let pool = this.pools.get(key);
    if (pool === undefined) {
      pool = [];
      this.pools.set(key, pool);
    }
    pool.push(id);
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
