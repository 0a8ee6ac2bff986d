/**
 * The `sbac18` preset: seed 003's machine (Huchant, Barthou, Counilh, SBAC-PAD 2018, section V), a
 * 16-core Xeon E5-2650 at 2.0 GHz run by OpenCL as ONE device, and 3 Tesla M2075 (6 GB) on
 * PCIe 2.0 x16, with per-codelet rates for the seed's four benchmarks.
 *
 * Codelet rates are in work items per second (written as Flop/s, the platform format's unit): a
 * partitioned sub-kernel's task declares its number of work items as its flops, so its time is
 * items / rate. What an item is, per codelet, is in SBAC18_KERNELS. Each rate is
 * 1 / max(bytes / bandwidth, flops / peak): every kernel but the N-body force is memory-bound on
 * both devices, the force kernel is compute-bound.
 */
import {
  checkOptions,
  compilePreset,
  type Figure,
  fig,
  figureLine,
  gpuMachine,
  gpuMemNote,
  type Preset,
} from './machine.ts';
import { formatBandwidth, formatRate, parseBandwidth, parseRate, parseSize } from './units.ts';

/** The codelet names of seed 003's benchmarks, as the partitioned runner names its kernels. */
export type Sbac18Codelet =
  | 'jacobi-stencil'
  | 'jacobi-copy'
  | 'fdtd-ey'
  | 'fdtd-ex'
  | 'fdtd-hz'
  | 'spmv'
  | 'nbody-bin'
  | 'nbody-count'
  | 'nbody-scan'
  | 'nbody-scatter'
  | 'nbody-force'
  | 'nbody-move'
  | 'nbody-restart';

/** The cost of one work item of a codelet. */
export interface KernelCost {
  /** What one work item is. */
  readonly item: string;
  /** DRAM bytes one item reads and writes (neighbours reused from caches counted once). */
  readonly bytes: number;
  /** Floating-point operations of one item. */
  readonly flops: number;
  /** Precision of its arithmetic (selects the peak). */
  readonly precision: 'single' | 'double';
  /** How bytes and flops were counted. */
  readonly derivation: string;
}

/**
 * Per-item costs of the seed's kernels. Jacobi and FDTD-2D in double precision (PolyBench's
 * default DATA_TYPE); SpMV in double with 4-byte column indices; the N-body (SOTL) in single
 * precision with float4 positions.
 */
export const SBAC18_KERNELS: Readonly<Record<Sbac18Codelet, KernelCost>> = {
  'jacobi-stencil': {
    item: 'grid point',
    bytes: 16,
    flops: 5,
    precision: 'double',
    derivation: '5-point stencil: read A once (neighbours from cache) 8 B + write B 8 B; 4 adds, 1 multiply',
  },
  'jacobi-copy': {
    item: 'grid point',
    bytes: 16,
    flops: 0,
    precision: 'double',
    derivation: 'copy B to A: read 8 B + write 8 B',
  },
  'fdtd-ey': {
    item: 'grid point',
    bytes: 24,
    flops: 3,
    precision: 'double',
    derivation: 'ey -= 0.5*(hz[i][j]-hz[i-1][j]): read ey, hz (row i-1 from cache), write ey: 24 B; 3 flops',
  },
  'fdtd-ex': {
    item: 'grid point',
    bytes: 24,
    flops: 3,
    precision: 'double',
    derivation: 'ex -= 0.5*(hz[i][j]-hz[i][j-1]): read ex, hz, write ex: 24 B; 3 flops',
  },
  'fdtd-hz': {
    item: 'grid point',
    bytes: 32,
    flops: 5,
    precision: 'double',
    derivation:
      'hz -= 0.7*(ex[i][j+1]-ex[i][j]+ey[i+1][j]-ey[i][j]): read hz, ex, ey, write hz: 32 B; 5 flops',
  },
  spmv: {
    item: 'non-zero',
    bytes: 20,
    flops: 2,
    precision: 'double',
    derivation: 'value 8 B + column index 4 B + gathered x 8 B (no reuse assumed); 1 multiply-add',
  },
  'nbody-bin': {
    item: 'particle',
    bytes: 20,
    flops: 3,
    precision: 'single',
    derivation:
      'read its float4 position 16 B, write its bin index 4 B; 2 multiplies (x, y over the bin side), 1 multiply-add for the bin number',
  },
  'nbody-count': {
    item: 'particle scanned in the neighbourhood of a bin',
    bytes: 4,
    flops: 0,
    precision: 'single',
    derivation:
      'read its bin index 4 B and compare it with the counted bin (the sort reads the old neighbourhood of each bin through the old start offsets)',
  },
  'nbody-scan': {
    item: 'bin count added in a prefix',
    bytes: 4,
    flops: 0,
    precision: 'single',
    derivation: 'read one 4 B count (each bin sums the counts before it)',
  },
  'nbody-scatter': {
    item: '4-byte word',
    bytes: 4,
    flops: 0,
    precision: 'single',
    derivation:
      'one word per particle scanned (its bin index) and 16 per particle moved (position and velocity as 2 float4, read and written: 64 B)',
  },
  'nbody-force': {
    item: 'particle pair within the neighbouring bins',
    bytes: 0,
    flops: 20,
    precision: 'single',
    derivation:
      'Coulomb with cut-off: difference 3, squared distance 5, cut-off test 1, rsqrt about 4, r^-3 2, accumulate 5; neighbours from shared memory or cache, so no DRAM bytes per pair',
  },
  'nbody-move': {
    item: 'particle',
    bytes: 80,
    flops: 12,
    precision: 'single',
    derivation:
      'read position, velocity and force (3 float4) 48 B, write position and velocity 32 B; 2 components x (v += a dt, clamp, x += v dt, wall test) about 12 flops',
  },
  'nbody-restart': {
    item: 'bin',
    bytes: 8,
    flops: 0,
    precision: 'single',
    derivation: 'copy a new start offset to the old ones: read 4 B + write 4 B',
  },
};

/** The figures of the machine, each with its source. */
export const SBAC18 = {
  gpus: fig('GPUs', 3, 'seed 003 section V: 3 Nvidia Tesla M2075'),
  gpuMem: fig('GPU memory', '6GiB', 'NVIDIA Tesla M2075 datasheet: 6 GB GDDR5'),
  gpuBandwidth: fig('GPU memory bandwidth', '150GB/s', 'NVIDIA Tesla M2075 datasheet: 150 GB/s (ECC off)'),
  gpuBandwidthShare: fig(
    'GPU achieved share of bandwidth',
    0.7,
    'assumed: ECC on (the Tesla default) and Fermi streaming kernels reach about 70% of peak',
  ),
  gpuDouble: fig(
    'GPU peak (double)',
    '515GFlop/s',
    'NVIDIA Tesla M2075 datasheet: 515 GFlop/s double precision',
  ),
  gpuSingle: fig(
    'GPU peak (single)',
    '1030GFlop/s',
    'NVIDIA Tesla M2075 datasheet: 1030 GFlop/s single precision',
  ),
  cpu: fig(
    'CPU device',
    '1 OpenCL device, 16 cores',
    'seed 003 section V: a 16-core Xeon E5-2650 at 2.00 GHz; the E5-2650 has 8 cores (Intel ARK), so two sockets',
  ),
  cpuDouble: fig(
    'CPU peak (double)',
    '256GFlop/s',
    'Intel ARK E5-2650: 16 cores x 2.0 GHz x 8 double flop/cycle (AVX: 4-wide add + 4-wide multiply)',
  ),
  cpuSingle: fig(
    'CPU peak (single)',
    '512GFlop/s',
    'the same with 8-wide single-precision AVX: 16 flop/cycle',
  ),
  cpuBandwidth: fig(
    'CPU memory bandwidth',
    '102.4GB/s',
    'Intel ARK E5-2650: 51.2 GB/s per socket (4 channels DDR3-1600), 2 sockets',
  ),
  cpuBandwidthShare: fig(
    'CPU achieved share of bandwidth',
    0.6,
    'assumed: an OpenCL CPU runtime on a 2-socket NUMA machine reaches about 60% of peak (STREAM-like)',
  ),
  flopShare: fig(
    'achieved share of peak flops',
    0.5,
    'assumed: half of peak on both devices (binds the force kernel only: rsqrt and the cut-off branch; the others are memory-bound)',
  ),
  ram: fig('RAM', '64GiB', 'assumed: not given by the seed; a 2-socket server of 2012'),
  pcie: fig(
    'RAM <-> GPU bandwidth (each direction)',
    '6GB/s',
    'PCIe 2.0 x16: 8 GB/s theoretical (5 GT/s x 16 lanes, 8b/10b); about 6 GB/s achieved with pinned memory (assumed)',
  ),
  latency: fig('RAM <-> GPU latency', '15us', 'assumed: typical CUDA transfer latency'),
  hostBus: fig('shared host link', 'none', 'assumed: each GPU has its own PCIe 2.0 x16 slot'),
  peer: fig('GPU <-> GPU copies', 'none', 'seed 003: transfers go through the host'),
} as const;

/** Work items per second of `codelet` on a device with these bandwidth and peaks (the rule at the top). */
export function itemsPerSecond(
  cost: KernelCost,
  bytesPerSecond: number,
  flopsPerSecond: { single: number; double: number },
): number {
  const seconds = Math.max(cost.bytes / bytesPerSecond, cost.flops / flopsPerSecond[cost.precision]);
  return 1 / seconds;
}

/** The effective bandwidths and peaks of the two device kinds. */
function deviceRates(): Record<'cpu' | 'gpu', { bw: number; peak: { single: number; double: number } }> {
  const share = +SBAC18.flopShare.value;
  return {
    cpu: {
      bw: parseBandwidth(SBAC18.cpuBandwidth.value) * +SBAC18.cpuBandwidthShare.value,
      peak: {
        single: parseRate(SBAC18.cpuSingle.value) * share,
        double: parseRate(SBAC18.cpuDouble.value) * share,
      },
    },
    gpu: {
      bw: parseBandwidth(SBAC18.gpuBandwidth.value) * +SBAC18.gpuBandwidthShare.value,
      peak: {
        single: parseRate(SBAC18.gpuSingle.value) * share,
        double: parseRate(SBAC18.gpuDouble.value) * share,
      },
    },
  };
}

/** Per-codelet rates (work items per second) of one device kind. */
export function sbac18CodeletRates(kind: 'cpu' | 'gpu'): Record<Sbac18Codelet, number> {
  const r = deviceRates()[kind];
  const out = {} as Record<Sbac18Codelet, number>;
  for (const [name, cost] of Object.entries(SBAC18_KERNELS) as [Sbac18Codelet, KernelCost][]) {
    out[name] = itemsPerSecond(cost, r.bw, r.peak);
  }
  return out;
}

/** One figure line per codelet and device kind: the derived rate and how. */
function codeletFigures(): Figure[] {
  const rates = deviceRates();
  const figures: Figure[] = [];
  for (const kind of ['cpu', 'gpu'] as const) {
    const r = sbac18CodeletRates(kind);
    for (const [name, cost] of Object.entries(SBAC18_KERNELS) as [Sbac18Codelet, KernelCost][]) {
      figures.push(
        fig(
          `${kind} ${name} (items/s)`,
          formatRate(r[name]),
          `derived: 1 / max(${cost.bytes} B / ${formatBandwidth(rates[kind].bw)}, ${cost.flops} flop / ${formatRate(rates[kind].peak[cost.precision])}) per ${cost.item}; ${cost.derivation}`,
        ),
      );
    }
  }
  return figures;
}

/** Seed 003's machine as a preset. */
export const sbac18: Preset = {
  description:
    "Seed 003's machine: a 16-core Xeon E5-2650 (two sockets) at 2.0 GHz as ONE OpenCL device and 3 Tesla M2075 " +
    '(6 GB) each on its own PCIe 2.0 x16 link, no peer-to-peer copies. Per-codelet rates for the seed benchmarks ' +
    '(jacobi-*, fdtd-*, spmv, nbody-*) are in work items per second: a sub-kernel declares its items as its flops. ' +
    gpuMemNote(parseSize(SBAC18.gpuMem.value)),
  figures: () => [...Object.values(SBAC18), ...codeletFigures()].map(figureLine),
  build(opts) {
    const gpus = +SBAC18.gpus.value;
    const o = checkOptions('sbac18', { gpus, defaultGpus: gpus, cores: 1, defaultCpus: () => 1 }, opts);
    const rates = deviceRates();
    const link = { bandwidth: SBAC18.pcie.value, latency: SBAC18.latency.value };
    const file = gpuMachine({
      name: 'sbac18',
      ram: SBAC18.ram.value,
      gpuMem: o.gpuMem ?? SBAC18.gpuMem.value,
      gpus: o.gpus,
      cpus: o.cpus,
      cpuRate: rates.cpu.peak.double,
      gpuRate: rates.gpu.peak.double,
      gpuCodelets: sbac18CodeletRates('gpu'),
      toGpu: link,
      toRam: link,
    });
    // gpuMachine writes GPU codelets only; the CPU device gets its own.
    const cpuCodelets = sbac18CodeletRates('cpu');
    return compilePreset({
      ...file,
      workers: file.workers.map((w) => (w.kind === 'cpu' ? { ...w, codelets: { ...cpuCodelets } } : w)),
    });
  },
};
