/**
 * Kernels for the real-driver tests, imported by the worker threads: a deterministic
 * "checksum" task (reads its inputs, writes a function of them), one that throws, one that
 * kills its thread, and an increment.
 */

/**
 * args = [task id, mode of access 0, mode of access 1, ...] (1 = R, 2 = W, 3 = RW). Hashes the
 * task id and every word it reads, then overwrites every word it writes with a mix of that
 * hash, the word's index and (RW) its old value. Integer arithmetic: bit-exact anywhere.
 */
export function checksum(data: readonly Int32Array[], args: Float64Array): void {
  let h = Math.imul(args[0]! | 0, 0x9e3779b1);
  for (let i = 0; i < data.length; i++) {
    if (((args[1 + i]! | 0) & 1) === 0) continue;
    const d = data[i]!;
    for (let k = 0; k < d.length; k++) h = Math.imul(h ^ d[k]!, 0x01000193);
  }
  for (let i = 0; i < data.length; i++) {
    const mode = args[1 + i]! | 0;
    if ((mode & 2) === 0) continue;
    const d = data[i]!;
    for (let k = 0; k < d.length; k++) d[k] = Math.imul(h + k, 0x85ebca6b) ^ (mode === 3 ? d[k]! : 0);
  }
}

/** Throws. */
export function boom(): void {
  throw new Error('kaboom');
}

/** Ends its worker thread. */
export function die(): void {
  process.exit(3);
}

/** Adds args[0] (default 1) to every element of its one datum. */
export function inc(data: readonly Float64Array[], args: Float64Array): void {
  const d = data[0]!;
  const v = args.length > 0 ? args[0]! : 1;
  for (let k = 0; k < d.length; k++) d[k]! += v;
}

/** Never returns: keeps adding 1 to every element of its one datum (for time limits). */
export function spin(data: readonly Float64Array[]): void {
  const d = data[0]!;
  for (;;) for (let k = 0; k < d.length; k++) d[k]! += 1;
}
