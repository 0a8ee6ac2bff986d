/**
 * The same statistics of a tiled Cholesky run from StarPU's FxT output (starpu_fxt_tool's
 * tasks.rec and paje.trace) and from Locus's Chrome trace (`locus run --trace`), so that the two
 * runtimes can be compared figure for figure (docs/policies/darts.md, "Locus vs StarPU master
 * on sirocco"). What is counted:
 * - per GPU: tasks by kind and busy time; the makespan (first start to last end);
 * - the copies by route (host to GPU, GPU to host, GPU to GPU), in bytes;
 * - write-backs (copies to host memory) split into "final" (the tile is not written again
 *   afterwards: one per tile is the least any run makes) and "again" (written again later,
 *   so loaded again: the avoidable ones);
 * - loads (copies to a GPU) by the access of the first task on that GPU to use the tile
 *   after the copy: read-only (a panel tile) or written (a trailing tile), or never used;
 * - the prefetch lead: time from a load's end to the start of that first task (a small lead
 *   means the GPU waited for the copy); `late` is the share under 50 us;
 * - `rwSameGpu`: the share of writes made on the GPU that made the tile's previous write;
 * - `idleBusBusy`: the share of the GPUs' idle time (gaps between their tasks) during which
 *   some copy is in flight on the machine;
 * - `requests` (StarPU only): the copies by the request kind StarPU traced (F fetch, TF task
 *   prefetch, PF prefetch, IF idle fetch), to the GPUs and to host memory;
 * - `panels`: when POTRF(k) ends for k = N/4, N/2 and 3N/4 (rounded down), as a share of the
 *   makespan (how fast the run goes down the critical path).
 * Cost: linear in the trace (tasks x accesses + copies), plus a sort per tile.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** One use of a tile by a task on a GPU. */
interface Use {
  startMs: number;
  writes: boolean;
}

/** One copy between memory nodes (gpu: index of the GPU, -1 for host memory). */
interface Copy {
  startMs: number;
  endMs: number;
  from: number;
  to: number;
  tile: string;
  bytes: number;
}

/** One task as both runtimes record it. */
interface TaskRun {
  kind: string;
  gpu: number;
  startMs: number;
  endMs: number;
  tiles: string[];
  writes: boolean[];
}

/** The compared figures of one run (see the file's comment). */
export interface CholeskyTraceStats {
  tasks: number;
  makespanMs: number;
  perGpu: { tasks: Record<string, number>; busyMs: number }[];
  bytes: { toGpus: number; toHost: number; gpuToGpu: number };
  writebacks: { final: number; again: number };
  loads: { thenRead: number; thenWritten: number; unused: number };
  leadMs: { p10: number; median: number; p90: number; late: number };
  rwSameGpu: number;
  idleBusBusy: number;
  panels: number[];
  requests?: { toGpus: Record<string, number>; toHost: Record<string, number> };
}

/** Computes the statistics from the tasks and copies of a run. */
export function traceStats(tasks: TaskRun[], copies: Copy[]): CholeskyTraceStats {
  const uses = new Map<string, Use[]>();
  const writes = new Map<string, number[]>();
  const nGpu = Math.max(...tasks.map((t) => t.gpu)) + 1;
  const perGpu = Array.from({ length: nGpu }, () => ({ tasks: {} as Record<string, number>, busyMs: 0 }));
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const t of tasks) {
    const g = perGpu[t.gpu]!;
    g.tasks[t.kind] = (g.tasks[t.kind] ?? 0) + 1;
    g.busyMs += t.endMs - t.startMs;
    first = Math.min(first, t.startMs);
    last = Math.max(last, t.endMs);
    t.tiles.forEach((tile, i) => {
      const key = `${t.gpu}:${tile}`;
      let u = uses.get(key);
      if (!u) {
        u = [];
        uses.set(key, u);
      }
      u.push({ startMs: t.startMs, writes: t.writes[i]! });
      if (t.writes[i]) {
        let w = writes.get(tile);
        if (!w) {
          w = [];
          writes.set(tile, w);
        }
        w.push(t.startMs);
      }
    });
  }
  for (const u of uses.values()) u.sort((a, b) => a.startMs - b.startMs);
  for (const w of writes.values()) w.sort((a, b) => a - b);
  // Same GPU as the tile's previous writer, in start order.
  const lastWriter = new Map<string, number>();
  let rw = 0;
  let same = 0;
  for (const t of [...tasks].sort((a, b) => a.startMs - b.startMs)) {
    t.tiles.forEach((tile, i) => {
      if (!t.writes[i]) return;
      const prev = lastWriter.get(tile);
      if (prev !== undefined) {
        rw++;
        if (prev === t.gpu) same++;
      }
      lastWriter.set(tile, t.gpu);
    });
  }
  const bytes = { toGpus: 0, toHost: 0, gpuToGpu: 0 };
  const writebacks = { final: 0, again: 0 };
  const loads = { thenRead: 0, thenWritten: 0, unused: 0 };
  const leads: number[] = [];
  for (const c of copies) {
    if (c.to < 0) {
      bytes.toHost += c.bytes;
      const w = writes.get(c.tile) ?? [];
      if (lowerBound(w, (x) => x >= c.startMs) < w.length) writebacks.again++;
      else writebacks.final++;
      continue;
    }
    if (c.from < 0) bytes.toGpus += c.bytes;
    else bytes.gpuToGpu += c.bytes;
    const u = uses.get(`${c.to}:${c.tile}`) ?? [];
    const i = lowerBound(u, (x) => x.startMs >= c.endMs);
    if (i >= u.length) {
      loads.unused++;
      continue;
    }
    if (u[i]!.writes) loads.thenWritten++;
    else loads.thenRead++;
    leads.push(u[i]!.startMs - c.endMs);
  }
  leads.sort((a, b) => a - b);
  const q = (p: number) => (leads.length === 0 ? 0 : leads[Math.floor(p * leads.length)]!);
  return {
    tasks: tasks.length,
    makespanMs: last - first,
    perGpu,
    bytes,
    writebacks,
    loads,
    leadMs: {
      p10: q(0.1),
      median: q(0.5),
      p90: q(0.9),
      late: leads.length === 0 ? 0 : leads.filter((x) => x < 0.05).length / leads.length,
    },
    rwSameGpu: rw === 0 ? 1 : same / rw,
    idleBusBusy: idleBusBusy(tasks, copies),
    panels: panelShares(tasks, first, last),
  };
}

/** The share of the GPUs' idle time between tasks during which some copy is in flight. */
function idleBusBusy(tasks: TaskRun[], copies: Copy[]): number {
  // Union of the copies' intervals, in start order.
  const busy: [number, number][] = [];
  for (const c of [...copies].sort((a, b) => a.startMs - b.startMs)) {
    const last = busy[busy.length - 1];
    if (last && c.startMs <= last[1]) last[1] = Math.max(last[1], c.endMs);
    else busy.push([c.startMs, c.endMs]);
  }
  const starts = busy.map((b) => b[0]);
  let idle = 0;
  let covered = 0;
  const gpus = new Set(tasks.map((t) => t.gpu));
  for (const g of gpus) {
    const mine = tasks.filter((t) => t.gpu === g).sort((a, b) => a.startMs - b.startMs);
    for (let i = 0; i + 1 < mine.length; i++) {
      const a = mine[i]!.endMs;
      const b = mine[i + 1]!.startMs;
      if (b <= a) continue;
      idle += b - a;
      for (let j = Math.max(0, lowerBound(starts, (x) => x > a) - 1); j < busy.length && busy[j]![0] < b; j++)
        covered += Math.max(0, Math.min(b, busy[j]![1]) - Math.max(a, busy[j]![0]));
    }
  }
  return idle === 0 ? 0 : covered / idle;
}

/** End of POTRF(k) for k = N/4, N/2, 3N/4 as a share of the makespan (POTRFs in end order). */
function panelShares(tasks: TaskRun[], first: number, last: number): number[] {
  const ends = tasks
    .filter((t) => t.kind === 'POTRF')
    .map((t) => t.endMs)
    .sort((a, b) => a - b);
  const n = ends.length;
  return [Math.floor(n / 4), Math.floor(n / 2), Math.floor((3 * n) / 4)].map(
    (k) => (ends[k]! - first) / (last - first),
  );
}

/** The first index of sorted `a` whose element satisfies `ok` (a monotone predicate). */
function lowerBound<T>(a: T[], ok: (x: T) => boolean): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ok(a[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Cholesky's tiles per task from Locus's labels, POTRF(k), TRSM(m,k), SYRK(n,k), GEMM(m,n,k). */
function locusTiles(label: string): { tiles: string[]; writes: boolean[] } | undefined {
  const m = /^(POTRF|TRSM|SYRK|GEMM)\(([\d,]+)\)$/.exec(label);
  if (!m) return undefined;
  const a = m[2]!.split(',').map(Number);
  const t = (i: number, j: number) => `${i},${j}`;
  switch (m[1]) {
    case 'POTRF':
      return { tiles: [t(a[0]!, a[0]!)], writes: [true] };
    case 'TRSM':
      return { tiles: [t(a[1]!, a[1]!), t(a[0]!, a[1]!)], writes: [false, true] };
    case 'SYRK':
      return { tiles: [t(a[0]!, a[1]!), t(a[0]!, a[0]!)], writes: [false, true] };
    default:
      return { tiles: [t(a[0]!, a[2]!), t(a[1]!, a[2]!), t(a[0]!, a[1]!)], writes: [false, false, true] };
  }
}

/** Statistics of a Locus Chrome trace (`locus run -w cholesky ... --trace file`). */
export function locusTraceStats(file: string): CholeskyTraceStats {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents?: unknown[] } | unknown[];
  const events = (Array.isArray(raw) ? raw : (raw.traceEvents ?? [])) as {
    name: string;
    ph: string;
    pid: number;
    tid: number;
    ts: number;
    dur?: number;
    args?: { bytes?: number };
  }[];
  // Thread names: the workers' (pid 1) and the nodes' copy lanes are named in metadata.
  const tasks: TaskRun[] = [];
  const copies: Copy[] = [];
  const node = (name: string) => (name === 'ram' ? -1 : Number(/(\d+)$/.exec(name)?.[1] ?? -1));
  for (const e of events) {
    if (e.ph !== 'X' || e.dur === undefined) continue;
    if (e.pid === 1) {
      const t = locusTiles(e.name);
      if (!t) continue;
      tasks.push({
        kind: e.name.slice(0, e.name.indexOf('(')),
        gpu: e.tid,
        startMs: e.ts / 1e3,
        endMs: (e.ts + e.dur) / 1e3,
        ...t,
      });
    } else if (e.pid === 2) {
      const m = /^A\[(\d+),(\d+)\] (\w+)->(\w+)$/.exec(e.name);
      if (!m) continue;
      copies.push({
        startMs: e.ts / 1e3,
        endMs: (e.ts + e.dur) / 1e3,
        from: node(m[3]!),
        to: node(m[4]!),
        tile: `${m[1]},${m[2]}`,
        bytes: e.args?.bytes ?? 0,
      });
    }
  }
  return traceStats(tasks, copies);
}

/** The records of a rec file (blank-line separated `Key: value` lines). */
async function* recRecords(file: string): AsyncGenerator<Map<string, string>> {
  let r = new Map<string, string>();
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') {
      if (r.size > 0) yield r;
      r = new Map();
      continue;
    }
    const i = line.indexOf(': ');
    if (i > 0) r.set(line.slice(0, i), line.slice(i + 2));
  }
  if (r.size > 0) yield r;
}

/**
 * Statistics of StarPU's cholesky_implicit from starpu_fxt_tool's output folder (tasks.rec,
 * paje.trace). Tiles are named by their handles; memory node 0 is host memory and node g + 1
 * is CUDA g (as on sirocco with STARPU_NCPU=0).
 */
export async function starpuTraceStats(dir: string): Promise<CholeskyTraceStats> {
  const tasks: TaskRun[] = [];
  for await (const r of recRecords(`${dir}/tasks.rec`)) {
    const kind = r.get('Name');
    if (!kind || !['POTRF', 'TRSM', 'SYRK', 'GEMM'].includes(kind) || !r.has('WorkerId')) continue;
    const handles = (r.get('Handles') ?? '').trim().split(/\s+/);
    const modes = (r.get('Modes') ?? '').trim().split(/\s+/);
    tasks.push({
      kind,
      gpu: Number(r.get('WorkerId')),
      startMs: Number(r.get('StartTime')),
      endMs: Number(r.get('EndTime')),
      tiles: handles,
      writes: modes.map((m) => m.includes('W')),
    });
  }
  // Paje links: 24 = start (time, type, container, size, source, key, handle, ...), 19 = end.
  const started = new Map<string, { t: number; kind: string; from: number; tile: string; bytes: number }>();
  const copies: Copy[] = [];
  const requests = { toGpus: {} as Record<string, number>, toHost: {} as Record<string, number> };
  const mm = (s: string) => Number(s.slice(2)) - 1;
  for await (const line of createInterface({
    input: createReadStream(`${dir}/paje.trace`),
    crlfDelay: Infinity,
  })) {
    if (line.startsWith('24\t')) {
      const f = line.split('\t');
      started.set(f[6]!, { t: Number(f[1]), kind: f[2]!, from: mm(f[5]!), tile: f[7]!, bytes: Number(f[4]) });
    } else if (line.startsWith('19\t')) {
      const f = line.split('\t');
      const s = started.get(f[6]!.trim());
      if (!s) continue;
      started.delete(f[6]!.trim());
      const to = mm(f[5]!);
      copies.push({ startMs: s.t, endMs: Number(f[1]), from: s.from, to, tile: s.tile, bytes: s.bytes });
      const side = to < 0 ? requests.toHost : requests.toGpus;
      side[s.kind] = (side[s.kind] ?? 0) + 1;
    }
  }
  return { ...traceStats(tasks, copies), requests };
}
