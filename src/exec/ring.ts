/**
 * A single-producer single-consumer ring of 32-bit integers in a SharedArrayBuffer: the real
 * driver's main thread hands tasks to a worker thread through one, and the worker hands
 * completions back through another. Records are variable-length runs of integers; indices
 * grow without bound (mod 2^32 through Int32 wrap-around arithmetic) and are masked into the
 * power-of-two capacity. The consumer may sleep on the tail index with Atomics.wait; the
 * producer wakes it only when it said it sleeps (the SLEEP word), so a busy consumer costs no
 * system call.
 */

/** Index of the consumer's read position. */
const HEAD = 0;
/** Index of the producer's write position; a sleeping consumer waits on it. */
const TAIL = 1;
/** 1 while the consumer is about to sleep or sleeping. */
const SLEEP = 2;
/** Header words before the data. */
const HEADER = 4;

/** Both ends of one ring (each side uses only its half of the methods). */
export class Ring {
  /** The shared words: header then data. */
  readonly words: Int32Array;
  private readonly mask: number;
  /** Data capacity in integers (a power of two). */
  readonly capacity: number;

  /** Wraps an existing ring buffer (created by Ring.create on another thread). */
  constructor(buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer);
    this.capacity = this.words.length - HEADER;
    if (this.capacity <= 0 || (this.capacity & (this.capacity - 1)) !== 0) {
      throw new Error(`ring capacity must be a power of two (got ${this.capacity})`);
    }
    this.mask = this.capacity - 1;
  }

  /** Allocates a ring holding at least `minCapacity` integers. */
  static create(minCapacity: number): Ring {
    let c = 16;
    while (c < minCapacity) c *= 2;
    return new Ring(new SharedArrayBuffer((c + HEADER) * 4));
  }

  /** The underlying buffer, to send to the other thread. */
  get buffer(): SharedArrayBuffer {
    return this.words.buffer as SharedArrayBuffer;
  }

  // ---------------------------------------------------------------- producer side

  /** Free integers the producer may write now. */
  free(): number {
    return this.capacity - ((Atomics.load(this.words, TAIL) - Atomics.load(this.words, HEAD)) | 0);
  }

  /**
   * Writes `values` as one record (the caller checked free() first) and publishes it; wakes the
   * consumer if it sleeps. Returns false, writing nothing, when the record does not fit.
   */
  push(values: ArrayLike<number>, count = values.length): boolean {
    const w = this.words;
    const tail = Atomics.load(w, TAIL);
    if (this.capacity - ((tail - Atomics.load(w, HEAD)) | 0) < count) return false;
    for (let i = 0; i < count; i++) w[HEADER + ((tail + i) & this.mask)] = values[i]!;
    Atomics.store(w, TAIL, (tail + count) | 0);
    if (Atomics.load(w, SLEEP) === 1) Atomics.notify(w, TAIL);
    return true;
  }

  /** Writes a two-integer record (a completion); same contract as push. */
  push2(a: number, b: number): boolean {
    const w = this.words;
    const tail = Atomics.load(w, TAIL);
    if (this.capacity - ((tail - Atomics.load(w, HEAD)) | 0) < 2) return false;
    w[HEADER + (tail & this.mask)] = a;
    w[HEADER + ((tail + 1) & this.mask)] = b;
    Atomics.store(w, TAIL, (tail + 2) | 0);
    if (Atomics.load(w, SLEEP) === 1) Atomics.notify(w, TAIL);
    return true;
  }

  // ---------------------------------------------------------------- consumer side

  /** Integers published and not yet consumed. */
  available(): number {
    return (Atomics.load(this.words, TAIL) - Atomics.load(this.words, HEAD)) | 0;
  }

  /** The integer `offset` places after the read position (offset < available()). */
  peek(offset: number): number {
    return this.words[HEADER + ((Atomics.load(this.words, HEAD) + offset) & this.mask)]!;
  }

  /** Consumes `count` integers. */
  advance(count: number): void {
    Atomics.store(this.words, HEAD, (Atomics.load(this.words, HEAD) + count) | 0);
  }

  /**
   * Blocks the calling thread (a worker: the main thread must not) until something is
   * published or `timeoutMs` passes. Returns at once if data is already there.
   */
  sleep(timeoutMs: number): void {
    const w = this.words;
    const tail = Atomics.load(w, TAIL);
    Atomics.store(w, SLEEP, 1);
    if (((tail - Atomics.load(w, HEAD)) | 0) === 0) Atomics.wait(w, TAIL, tail, timeoutMs);
    Atomics.store(w, SLEEP, 0);
  }
}
