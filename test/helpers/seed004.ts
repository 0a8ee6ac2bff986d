/**
 * Seed 004's runtime versions 1-4 worked by hand: the tasks of a 4 x 4-block Cholesky in the
 * order of Table 5.2 and the block transfers each version's rules give (shared by
 * test/runtime-versions.test.ts and the coherence conformance suite).
 */

/** Table 5.2's order: CHOL A00; TRSM A10, A20, A30; SYRK A11; GEMM A21, A31; SYRK A22; ... */
export function choleskyTasks(n: number): { out: [number, number]; ins: [number, number][] }[] {
  const tasks: { out: [number, number]; ins: [number, number][] }[] = [];
  for (let k = 0; k < n; k++) {
    tasks.push({ out: [k, k], ins: [] });
    for (let m = k + 1; m < n; m++) tasks.push({ out: [m, k], ins: [[k, k]] });
    for (let c = k + 1; c < n; c++) {
      tasks.push({ out: [c, c], ins: [[c, k]] });
      for (let m = c + 1; m < n; m++)
        tasks.push({
          out: [m, c],
          ins: [
            [m, k],
            [c, k],
          ],
        });
    }
  }
  return tasks;
}

/**
 * The rules of seed 004's Algorithms 3-10, applied by hand to a sequence of tasks: the task on
 * block (i, j) runs on GPU (i mod 2) * 2 + (j mod 2); an operand not valid in the GPU's memory
 * is written there ("write"), after a v4 owner flushes it home first if it holds the only
 * valid copy ("read"); v1-v3 write the output through to host memory ("read"); v3 and v4
 * invalidate the other GPUs' copies of the output; v1 frees every operand after the task, v2
 * the alien ones; v4 flushes its modified blocks at the end of a complete run.
 */
export function byHand(version: string, count: number): { writes: number; reads: number } {
  const all = choleskyTasks(4);
  const tasks = all.slice(0, count);
  const key = (b: [number, number]) => `${b[0]},${b[1]}`;
  const owner = (b: [number, number]) => (b[0] % 2) * 2 + (b[1] % 2);
  const resident = [0, 1, 2, 3].map(() => new Set<string>()); // valid copies per GPU
  const dirty = new Map<string, number>(); // block -> GPU holding the only valid copy (v4)
  let writes = 0;
  let reads = 0;
  for (const t of tasks) {
    const g = owner(t.out);
    const operands = [...t.ins, t.out];
    for (const o of operands) {
      if (resident[g]!.has(key(o))) continue;
      const holder = dirty.get(key(o));
      if (holder !== undefined) {
        reads++; // the owner flushes it home, then the requester loads it
        dirty.delete(key(o));
      }
      writes++;
      resident[g]!.add(key(o));
    }
    // The output: every other copy is now stale.
    for (let x = 0; x < 4; x++) if (x !== g) resident[x]!.delete(key(t.out));
    if (version === 'v4') dirty.set(key(t.out), g);
    else reads++; // write-through
    if (version === 'v1') for (const o of operands) resident[g]!.delete(key(o));
    if (version === 'v2') for (const o of operands) if (owner(o) !== g) resident[g]!.delete(key(o));
  }
  if (count >= all.length && version === 'v4') reads += dirty.size; // final flush
  return { writes, reads };
}
