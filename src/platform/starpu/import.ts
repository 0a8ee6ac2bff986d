/**
 * `locus platform import starpu DIR --host NAME` (issue 28): a Locus platform file from one
 * machine of a StarPU sampling directory (StarPU's `tools/perfmodels/sampling`, or a
 * `$STARPU_HOME/.starpu/sampling` of your own):
 *
 * - memories, workers and links from `bus/<host>.platform.v4.xml` (SimGrid): one host memory,
 *   one GPU memory per CUDA device (its `memsize`, or `gpuMemory`), a CPU worker per CPU core
 *   and a GPU worker per CUDA device (OpenCL devices, the same GPUs seen through OpenCL, are
 *   left out); each route between RAM and a GPU (or two GPUs) becomes a link with its own
 *   SimGrid link's bandwidth and latency, crossing the shared links of the route (StarPU's `Host`
 *   PCI bus) as Locus buses; GPUs copy to each other directly when the file routes them so;
 * - per codelet, from `codelets/45/<symbol>.<host>`: one `{bytes, duration}` rule per measured
 *   footprint (StarPU's `size` is the total bytes of a task's data, as Locus's `bytes` rule),
 *   CUDA device d's history for GPU worker d and the one-core CPU history for every CPU worker,
 *   then as the catch-all the rate of the footprint measured most often (with flops) (StarPU symbols
 *   map to Locus codelet names through CODELET_MAP and `codeletMap`; several symbols may feed one
 *   codelet, e.g. single and double precision, whose sizes differ).
 *
 * What cannot be mapped is said in `notes`, one line each; every figure comes from one of the
 * files named in the platform's description. Cost: linear in the files read.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocusError } from '../../core/types.ts';
import type { FootprintRuleSpec, PlatformFile } from '../schema.ts';
import { type PerfmodelEntry, parsePerfmodel } from './perfmodel-file.ts';
import { parseSimgridPlatform } from './simgrid-platform.ts';

/**
 * StarPU's example codelets (their model symbols) that are Locus's workload codelets: the
 * tiled Cholesky (`chol_model_*`), the GEMM examples, and the LU examples (single and double
 * precision; the `_atlas`, `_goto`, `_openblas` variants are the same kernels over other BLAS).
 */
export const CODELET_MAP: Readonly<Record<string, string>> = {
  chol_model_potrf: 'potrf',
  chol_model_trsm: 'trsm',
  chol_model_syrk: 'syrk',
  chol_model_gemm: 'gemm',
  starpu_sgemm_gemm: 'gemm',
  starpu_dgemm_gemm: 'gemm',
  starpu_slu_lu_model_getrf: 'getrf',
  starpu_dlu_lu_model_getrf: 'getrf',
  starpu_slu_lu_model_trsm_ll: 'trsm',
  starpu_dlu_lu_model_trsm_ll: 'trsm',
  starpu_slu_lu_model_trsm_ru: 'trsm',
  starpu_dlu_lu_model_trsm_ru: 'trsm',
  starpu_slu_lu_model_gemm: 'gemm',
  starpu_dlu_lu_model_gemm: 'gemm',
};

/** Options of an import. */
export interface StarpuImportOptions {
  /** The sampling directory (holding `bus/` and `codelets/`). */
  dir: string;
  /** The machine's name in the file names (`sirocco` for `bus/sirocco.platform.v4.xml`). */
  host: string;
  /** CPU workers to keep (default: every CPU core of the file). */
  cpus?: number;
  /** GPUs to keep, the first ones (default: every CUDA device of the file). */
  gpus?: number;
  /** Capacity of every GPU memory in bytes (default: each device's `memsize`). */
  gpuMemory?: number;
  /** More (or other) StarPU symbol -> Locus codelet names, over CODELET_MAP. */
  codeletMap?: Readonly<Record<string, string>>;
  /** The imported platform's name (default `<host>-starpu`). */
  name?: string;
}

/** An imported platform, and what could not be mapped. */
export interface StarpuImport {
  platform: PlatformFile;
  /** One line per thing left out (a model for a device not kept, an unmapped symbol, ...). */
  notes: string[];
}

const MODEL_VERSION_DIR = '45';

/**
 * Reads `o.host` of the sampling directory `o.dir` into a platform file (asynchronous: the XML
 * parser is an optional package, loaded on first use).
 */
export async function importStarpuPlatform(o: StarpuImportOptions): Promise<StarpuImport> {
  const busFile = join(o.dir, 'bus', `${o.host}.platform.v4.xml`);
  if (!existsSync(busFile)) {
    const hosts = existsSync(join(o.dir, 'bus'))
      ? readdirSync(join(o.dir, 'bus'))
          .filter((f) => f.endsWith('.platform.v4.xml'))
          .map((f) => f.slice(0, -'.platform.v4.xml'.length))
      : [];
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${busFile} does not exist: ${hosts.length > 0 ? `hosts in ${o.dir}: ${hosts.join(', ')}` : `${o.dir} is not a StarPU sampling directory (it needs bus/<host>.platform.v4.xml)`}`,
    );
  }
  const sg = await parseSimgridPlatform(readFileSync(busFile, 'utf8'), busFile);
  const notes: string[] = [];
  const cpuHosts = sg.hosts.filter((h) => /^CPU\d+$/.test(h.id));
  const cudaHosts = sg.hosts.filter((h) => /^CUDA\d+$/.test(h.id));
  const opencl = sg.hosts.filter((h) => /^OpenCL\d+$/.test(h.id)).length;
  if (opencl > 0) notes.push(`${opencl} OpenCL devices left out (the CUDA devices are the same GPUs)`);
  const ncpu = count(o.cpus, cpuHosts.length, 'CPU cores', busFile);
  const ngpu = count(o.gpus, cudaHosts.length, 'CUDA devices', busFile);
  if (ncpu + ngpu === 0)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `${o.host}: no worker kept (--cpus 0 and --gpus 0): keep at least one`,
    );
  const gpus = cudaHosts.slice(0, ngpu);
  const gpuName = (id: string) => `gpu${id.slice('CUDA'.length)}`;
  const nodeOf = (id: string): string | undefined =>
    id === 'RAM' ? 'ram' : gpus.some((g) => g.id === id) ? gpuName(id) : undefined;

  // Codelet models: per Locus codelet, rules per worker kind/device.
  const map = { ...CODELET_MAP, ...o.codeletMap };
  const cpuRules = new Map<string, FootprintRuleSpec[]>();
  const gpuRules = gpus.map(() => new Map<string, FootprintRuleSpec[]>());
  const cpuRefs = new Map<string, PerfmodelEntry>();
  const gpuRefs = gpus.map(() => new Map<string, PerfmodelEntry>());
  const modelDir = join(o.dir, 'codelets', MODEL_VERSION_DIR);
  const modelFiles = existsSync(modelDir)
    ? readdirSync(modelDir).filter((f) => f.endsWith(`.${o.host}`))
    : [];
  const used: string[] = [];
  const dropped = new Set<number>();
  for (const f of modelFiles.sort()) {
    const symbol = f.slice(0, -(o.host.length + 1));
    const codelet = map[symbol];
    if (codelet === undefined) {
      notes.push(
        `codelet model ${symbol} has no Locus codelet (add --codelet-map ${symbol}=NAME to import it)`,
      );
      continue;
    }
    const file = join(modelDir, f);
    const model = parsePerfmodel(readFileSync(file, 'utf8'), file);
    used.push(f);
    for (const arch of model.archs) {
      if (arch.devices.length !== 1) {
        notes.push(
          `${symbol}: a model of ${arch.devices.length} devices together (a parallel task) left out`,
        );
        continue;
      }
      const dev = arch.devices[0]!;
      const entries = arch.implementations.flat().filter((e) => e.samples > 0 && e.meanUs > 0);
      if (entries.length === 0) continue;
      if (dev.type === 'cpu' && dev.cores === 1) {
        addRules(cpuRules, cpuRefs, codelet, entries);
      } else if (dev.type === 'cuda' && dev.id < gpus.length) {
        addRules(gpuRules[dev.id]!, gpuRefs[dev.id]!, codelet, entries);
      } else if (dev.type === 'cuda') {
        dropped.add(dev.id);
      } else {
        notes.push(`${symbol}: its ${dev.type} model (${dev.cores} cores, device ${dev.id}) left out`);
      }
    }
  }
  if (dropped.size > 0)
    notes.push(
      `the models of CUDA devices ${[...dropped].sort((a, b) => a - b).join(', ')} left out (${gpus.length} GPUs kept)`,
    );
  if (ncpu === 0 && cpuRules.size > 0) notes.push('the CPU models left out (no CPU worker kept)');
  if (modelFiles.length === 0)
    notes.push(`no codelet model of ${o.host} in ${modelDir}: workers keep the SimGrid speed`);

  const workers: PlatformFile['workers'] = [];
  for (let c = 0; c < ncpu; c++) {
    workers.push({
      name: `cpu${c}`,
      kind: 'cpu',
      memory: 'ram',
      rate: baseRate(cpuRefs, cpuHosts[c]!.speed),
      ...(cpuRules.size > 0 ? { codelets: finish(cpuRules, cpuRefs) } : {}),
    });
  }
  gpus.forEach((g, d) => {
    workers.push({
      name: gpuName(g.id),
      kind: 'gpu',
      memory: gpuName(g.id),
      rate: baseRate(gpuRefs[d]!, g.speed),
      ...(gpuRules[d]!.size > 0 ? { codelets: finish(gpuRules[d]!, gpuRefs[d]!) } : {}),
    });
  });

  // Links: each route between kept memories, through its own link and the shared ones.
  const links: NonNullable<PlatformFile['links']> = [];
  const shared = new Set<string>();
  const twice = new Set<string>();
  let peer = false;
  for (const r of sg.routes) {
    const from = nodeOf(r.src);
    const to = nodeOf(r.dst);
    if (from === undefined || to === undefined || from === to) continue;
    const own = r.links.find((id) => id === `${r.src}-${r.dst}`) ?? r.links[0]!;
    const l = sg.links.get(own)!;
    // A route may cross a shared link twice (up and down the same PCI switch): Locus's buses
    // are crossed once per route.
    const via = [...new Set(r.links.filter((id) => id !== own))];
    if (via.length < r.links.length - 1) twice.add(`${r.src} -> ${r.dst}`);
    for (const v of via) shared.add(v);
    if (from !== 'ram' && to !== 'ram') peer = true;
    links.push({
      from,
      to,
      bandwidth: `${l.bandwidth}B/s`,
      latency: `${l.latency}s`,
      ...(via.length > 0 ? { via } : {}),
    });
  }
  for (const g of gpus)
    for (const [a, b] of [
      ['RAM', g.id],
      [g.id, 'RAM'],
    ] as const)
      if (!sg.routes.some((r) => r.src === a && r.dst === b))
        throw new LocusError(
          'LOCUS_PLATFORM_INVALID',
          `${busFile}: no route from ${a} to ${b}: a GPU needs both`,
        );
  if (twice.size > 0)
    notes.push(
      `${twice.size} routes cross a shared link twice (${[...twice][0]}, ...): counted once per route`,
    );
  const buses = [...shared].map((id) => {
    const l = sg.links.get(id)!;
    return { name: id, bandwidth: `${l.bandwidth}B/s`, latency: `${l.latency}s` };
  });

  const memoryNodes: PlatformFile['memoryNodes'] = [
    { name: 'ram', kind: 'host', capacity: '1TiB' },
    ...gpus.map((g) => {
      const size = o.gpuMemory ?? Number(g.props.memsize);
      if (!(Number.isFinite(size) && size > 0))
        throw new LocusError('LOCUS_PLATFORM_INVALID', `${busFile}: ${g.id} has no memsize: give --gpu-mem`);
      return { name: gpuName(g.id), kind: 'gpu' as const, capacity: `${size}B` };
    }),
  ];
  const models = gpus.map((g) => g.props.model).filter((m): m is string => m !== undefined);
  const platform: PlatformFile = {
    name: o.name ?? `${o.host}-starpu`,
    description:
      `Imported from StarPU's sampling of ${o.host}${models.length > 0 ? ` (${[...new Set(models)].join(', ')})` : ''}: ` +
      `memories, workers and links from bus/${o.host}.platform.v4.xml` +
      (used.length > 0 ? `; codelet durations from codelets/${MODEL_VERSION_DIR}/{${used.join(',')}}` : '') +
      '; host memory capacity not sampled (1 TiB).',
    memoryNodes,
    workers,
    links,
    ...(buses.length > 0 ? { buses } : {}),
    peerToPeer: peer,
  };
  return { platform, notes };
}

/** How many of `available` to keep: all by default; more than there are is an error. */
function count(asked: number | undefined, available: number, what: string, file: string): number {
  if (asked === undefined) return available;
  if (!(Number.isInteger(asked) && asked >= 0 && asked <= available))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `${file} has ${available} ${what}: keep 0 to ${available} (got ${asked})`,
    );
  return asked;
}

/** Adds one duration rule per measured size (the first history of a size wins) and notes the reference entry. */
function addRules(
  rules: Map<string, FootprintRuleSpec[]>,
  refs: Map<string, PerfmodelEntry>,
  codelet: string,
  entries: readonly PerfmodelEntry[],
): void {
  const list = rules.get(codelet) ?? [];
  rules.set(codelet, list);
  for (const e of entries) {
    if (!list.some((r) => r.bytes === `${e.size}B`))
      list.push({ bytes: `${e.size}B`, duration: `${e.meanUs}us` });
    const ref = refs.get(codelet);
    if (e.flops > 0 && (ref === undefined || e.samples > ref.samples)) refs.set(codelet, e);
  }
}

/** A worker's codelet rules: its duration rules, then the reference footprint's rate where there is one. */
function finish(
  rules: Map<string, FootprintRuleSpec[]>,
  refs: Map<string, PerfmodelEntry>,
): Record<string, FootprintRuleSpec[]> {
  const out: Record<string, FootprintRuleSpec[]> = {};
  for (const [codelet, list] of rules) {
    const ref = refs.get(codelet);
    out[codelet] = ref ? [...list, { rate: rateOf(ref) }] : list;
  }
  return out;
}

const rateOf = (e: PerfmodelEntry): string => `${e.flops / (e.meanUs * 1e-6)}Flop/s`;

/**
 * A worker's base rate (the rate of codelets it has no model of): its gemm's reference rate,
 * else the SimGrid host's speed (for StarPU's devices a placeholder: say so in the notes).
 */
function baseRate(refs: Map<string, PerfmodelEntry>, speed: number): string {
  const gemm = refs.get('gemm');
  return gemm ? rateOf(gemm) : `${speed}Flop/s`;
}
