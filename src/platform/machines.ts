/**
 * The seed machines as presets. Every number is a Figure whose `source` says where it comes
 * from: the seed paper or its notes, a vendor specification, or "assumed: why".
 *
 * Over 500 lines because it is a table: each preset machine with every figure and its source.
 */
import { availableParallelism, totalmem } from 'node:os';
import { acClusterPreset } from './ac-cluster.ts';
import {
  checkOptions,
  compilePreset,
  type Figure,
  fig,
  figureLine,
  gpuMachine,
  gpuMemNote,
  type LinkFigures,
  type MachineSpec,
  type Preset,
} from './machine.ts';
import { sbac18 } from './sbac18.ts';
import { parsePower, parseSize } from './units.ts';

/** Builds the Preset object from its figures and a builder. */
function preset(description: string, figures: readonly Figure[], build: Preset['build']): Preset {
  return { description, build, figures: () => figures.map(figureLine) };
}

/** A link's figures from two Figures. */
const link = (bandwidth: Figure, latency: Figure): LinkFigures => ({
  bandwidth: bandwidth.value,
  latency: latency.value,
});

/** The power figures of a machine: a CPU core and a GPU per state, and the static power. */
interface PowerSet {
  coreComputing: Figure;
  corePolling: Figure;
  coreBlocked: Figure;
  gpuBusy: Figure;
  gpuIdle: Figure;
  staticPower: Figure;
}

/**
 * Watts per state of a machine's workers (seed 002's model): a CPU worker is one core; a GPU
 * worker is its GPU plus the core of its control thread, which spins on the GPU while it
 * computes (saved by ea2) and spins or blocks while idle.
 */
function powerOf(f: PowerSet): NonNullable<MachineSpec['power']> {
  const w = (x: Figure) => parsePower(x.value);
  const core = { computing: w(f.coreComputing), polling: w(f.corePolling), blocked: w(f.coreBlocked) };
  return {
    cpu: { ...core, controlThread: 0 },
    gpu: {
      computing: w(f.gpuBusy) + core.polling,
      polling: w(f.gpuIdle) + core.polling,
      blocked: w(f.gpuIdle) + core.blocked,
      controlThread: core.polling - core.blocked,
    },
    static: f.staticPower.value,
  };
}

/** A core spinning in a busy-wait draws about 90% of its computing power (assumed). */
const SPIN_NOTE = 'assumed: a busy-wait loop keeps the core at about 90% of its computing power';
/** A blocked thread lets its core reach a C-state (assumed). */
const BLOCKED_NOTE = 'assumed: a blocked thread lets its core reach a C-state, about a fifth of its power';

// ---------------------------------------------------------------------------------------------
// v100x2: seed 000's node, 8 Tesla V100 SXM2 32 GB with NVLink, of which the runs used 2.

/** DGX-1V hybrid cube-mesh NVLink topology: GPU i's NV1 and NV2 neighbours (assumed, see V100). */
export const DGX1V_NVLINK: readonly { nv1: readonly number[]; nv2: readonly number[] }[] = [
  { nv1: [1, 2], nv2: [3, 4] },
  { nv1: [0, 3], nv2: [2, 5] },
  { nv1: [0, 6], nv2: [1, 3] },
  { nv1: [1, 7], nv2: [0, 2] },
  { nv1: [5, 6], nv2: [0, 7] },
  { nv1: [4, 7], nv2: [1, 6] },
  { nv1: [2, 4], nv2: [5, 7] },
  { nv1: [3, 5], nv2: [4, 6] },
];

const V100_POWER: PowerSet = {
  coreComputing: fig('CPU core computing', '7.5W', 'assumed: a 20-core Skylake-SP at 150 W TDP'),
  corePolling: fig('CPU core polling', '6.8W', SPIN_NOTE),
  coreBlocked: fig('CPU core blocked', '1.5W', BLOCKED_NOTE),
  gpuBusy: fig('GPU computing', '300W', 'NVIDIA Tesla V100 SXM2 spec: 300 W TDP'),
  gpuIdle: fig('GPU idle', '40W', 'assumed: an idle V100 SXM2 at its lowest performance state'),
  staticPower: fig('static power', '400W', 'assumed: a DGX-1V-class node at rest, GPUs and cores apart'),
};

const V100 = {
  gpus: fig('GPUs', 8, 'seed 000: a node with 8 Tesla V100 32 GB (NVLink); the runs used 2'),
  defaultGpus: fig('GPUs used by default', 2, 'seed 000: the runs used 2 GPUs'),
  physicalMem: fig('GPU memory (physical)', '32GiB', 'NVIDIA Tesla V100 SXM2 32 GB spec'),
  gpuMem: fig('GPU memory (default cap)', '500MiB', 'seed 000 Fig. 2: GPU memory capped at 500 MB'),
  ram: fig('RAM', '512GiB', 'assumed: not given by the seed; 512 GB is usual for an 8 x V100 node (DGX-1V)'),
  toGpuBw: fig('RAM -> GPU bandwidth', '10.9GB/s', 'seed 000'),
  toRamBw: fig('GPU -> RAM bandwidth', '12.4GB/s', 'seed 000'),
  hostLatency: fig('RAM <-> GPU latency', '10us', 'seed 000'),
  hostBus: fig(
    'shared host link (every host transfer)',
    '12.38GB/s',
    'seed 000: one 12.38 GB/s link shared by all GPUs',
  ),
  hostBusLatency: fig(
    'shared host link latency',
    '0us',
    'assumed: the 10 us per-GPU latency already counts it',
  ),
  nv2: fig(
    'GPU <-> GPU NV2 pairs',
    '47.7GB/s',
    'assumed: DGX-1V hybrid cube-mesh NVLink topology, double link',
  ),
  nv1: fig(
    'GPU <-> GPU NV1 pairs',
    '24GB/s',
    'assumed: DGX-1V hybrid cube-mesh NVLink topology, single link',
  ),
  pcie: fig('GPU <-> GPU other pairs', '10.2GB/s', 'assumed: DGX-1V pairs without NVLink copy through PCIe'),
  peerLatency: fig('GPU <-> GPU latency', '10us', 'assumed: same as host transfers'),
  gemm: fig(
    'GPU gemm',
    '12.64TFlop/s',
    'seed 000 / NOTES: SGEMM 960x960x3840 = 7.08 GFlop in about 560 us on one V100',
  ),
  potrf: fig(
    'GPU potrf',
    '14.1GFlop/s',
    "StarPU's sampled V100 model: POTRF of a 960 tile (n^3/3 flop) in 20.9 ms",
  ),
  trsm: fig(
    'GPU trsm',
    '1.36TFlop/s',
    "StarPU's sampled V100 model: TRSM of a 960 tile (n^3 flop) in 0.65 ms",
  ),
  syrk: fig(
    'GPU syrk',
    '6.3TFlop/s',
    "assumed: half of gemm's rate; SYRK does n^3 flop on a 960 tile, half of GEMM's, in about GEMM's time " +
      "(0.15 ms in StarPU's V100 model): cuBLAS runs it as GEMM-like blocks over a triangle",
  ),
  getrf: fig(
    'GPU getrf',
    '14.1GFlop/s',
    "assumed: potrf's rate; both are latency-bound factorisations of one tile, so getrf (2n^3/3 flop) takes about twice potrf's 20.9 ms",
  ),
  gpuRate: fig('GPU other codelets', '12.6TFlop/s', "seed 000: about gemm's rate"),
  cores: fig('CPU cores', 40, 'assumed: 2 x 20-core Xeon Skylake-SP, not given by the seed'),
  defaultCpus: fig('CPU workers by default', 0, 'seed 000: the runs used GPUs only'),
  cpuRate: fig(
    'CPU rate per core',
    '50GFlop/s',
    'assumed: a Skylake-SP core sustains about 50 GFlop/s single precision on tile kernels (AVX-512, below peak)',
  ),
};

/** Seed 000's V100 node (DGX-1V-like), 2 GPUs capped at 500 MiB by default. */
const v100x2 = preset(
  "Seed 000's node: 8 Tesla V100 32 GB with NVLink (DGX-1V cube-mesh assumed), 2 used by default, each capped " +
    'at 500 MiB; host transfers 10.9 / 12.4 GB/s all crossing one shared 12.38 GB/s host link; no CPU workers ' +
    `by default (cpus adds Skylake-SP cores). ${gpuMemNote(parseSize(V100.physicalMem.value))}`,
  [...Object.values(V100), ...Object.values(V100_POWER)],
  (opts) => {
    const limits = { gpus: +V100.gpus.value, defaultGpus: +V100.defaultGpus.value, cores: +V100.cores.value };
    const o = checkOptions('v100x2', { ...limits, defaultCpus: () => +V100.defaultCpus.value }, opts);
    const peer = (i: number, j: number) => {
      const t = DGX1V_NVLINK[i]!;
      const bw = t.nv2.includes(j) ? V100.nv2 : t.nv1.includes(j) ? V100.nv1 : V100.pcie;
      return link(bw, V100.peerLatency);
    };
    return compilePreset(
      gpuMachine({
        name: 'v100x2',
        power: powerOf(V100_POWER),
        ram: V100.ram.value,
        gpuMem: o.gpuMem ?? V100.gpuMem.value,
        gpus: o.gpus,
        cpus: o.cpus,
        cpuRate: V100.cpuRate.value,
        gpuRate: V100.gpuRate.value,
        gpuCodelets: {
          gemm: V100.gemm.value,
          potrf: V100.potrf.value,
          trsm: V100.trsm.value,
          syrk: V100.syrk.value,
          getrf: V100.getrf.value,
        },
        toGpu: link(V100.toGpuBw, V100.hostLatency),
        toRam: link(V100.toRamBw, V100.hostLatency),
        hostBus: link(V100.hostBus, V100.hostBusLatency),
        peer,
      }),
    );
  },
);

// ---------------------------------------------------------------------------------------------
// GT200 GPUs (hannibal's Quadro FX5800, ac-node's Tesla S1070), single precision.

const GT200 = {
  mem: fig('GPU memory', '4GiB', 'seed 001 / NVIDIA spec: Quadro FX5800 and Tesla S1070 GPUs have 4 GB'),
  rate: fig(
    'GPU rate (single precision)',
    '375GFlop/s',
    "assumed: GT200 SGEMM achieves about 375 GFlop/s (DGEMM about 75, peak 78); single because the seed's LU and stencil runs are",
  ),
  pcie: fig(
    'RAM <-> GPU bandwidth (each direction)',
    '5.5GB/s',
    'assumed: PCIe 2.0 x16, typical CUDA 3.0 pinned transfers',
  ),
  latency: fig('RAM <-> GPU latency', '15us', 'assumed: typical CUDA 3.0 transfer latency'),
  stencil: fig(
    'GPU stencil rate',
    '40GFlop/s',
    'assumed: a 7-point stencil is memory-bound; GT200 moves 102 GB/s (NVIDIA spec), about 8 B per point per sweep without full reuse, 8 flop per point, at ~40% of that bandwidth',
  ),
  peer: fig(
    'GPU <-> GPU copies',
    'none',
    'seed 001: CUDA 3.0, no peer copies; StarPU chains requests through host',
  ),
};

const HANNIBAL_POWER: PowerSet = {
  coreComputing: fig('CPU core computing', '24W', 'Intel X5550 spec: 95 W TDP for 4 cores'),
  corePolling: fig('CPU core polling', '21.6W', SPIN_NOTE),
  coreBlocked: fig('CPU core blocked', '5W', BLOCKED_NOTE),
  gpuBusy: fig('GPU computing', '189W', 'NVIDIA Quadro FX5800 spec: 189 W maximum'),
  gpuIdle: fig('GPU idle', '60W', 'assumed: GT200 boards idle near a third of their maximum'),
  staticPower: fig('static power', '150W', 'assumed: a 2-socket workstation at rest'),
};

const HANNIBAL = {
  gpus: fig('GPUs', 3, 'seed 001: 3 NVIDIA Quadro FX5800'),
  cores: fig('CPU cores', 8, 'seed 001: two quad-core Nehalem X5550 at 2.67 GHz'),
  defaultCpus: fig(
    'CPU workers by default',
    '8 - gpus',
    'seed 001: StarPU dedicates one core to drive each GPU',
  ),
  ram: fig('RAM', '48GiB', 'seed 001'),
  cpuRate: fig(
    'CPU rate per core (single precision)',
    '21.3GFlop/s',
    'Intel X5550 spec: 2.67 GHz x 8 single-precision flop/cycle with SSE (10.7 GFlop/s in double)',
  ),
  hostBus: fig('shared host link', 'none', 'assumed: the GPUs sit in separate x16 slots on two IOHs'),
  ...GT200,
};

/** Seed 001's hannibal: 2 x quad-core Nehalem + 3 Quadro FX5800, no GPU-GPU copies. */
const hannibal = preset(
  "Seed 001's hannibal: two quad-core Nehalem X5550 (48 GB) and 3 Quadro FX5800 4 GB on PCIe 2.0, CUDA 3.0: " +
    'no peer-to-peer copies (staged through RAM); one core drives each GPU, so 5 CPU workers by default; ' +
    `single-precision rates. ${gpuMemNote(parseSize(GT200.mem.value))}`,
  [...Object.values(HANNIBAL), ...Object.values(HANNIBAL_POWER)],
  (opts) => {
    const [gpus, cores] = [+HANNIBAL.gpus.value, +HANNIBAL.cores.value];
    const o = checkOptions(
      'hannibal',
      { gpus, defaultGpus: gpus, cores, defaultCpus: (g) => cores - g },
      opts,
    );
    return compilePreset(
      gpuMachine({
        name: 'hannibal',
        power: powerOf(HANNIBAL_POWER),
        ram: HANNIBAL.ram.value,
        gpuMem: o.gpuMem ?? GT200.mem.value,
        gpus: o.gpus,
        cpus: o.cpus,
        cpuRate: HANNIBAL.cpuRate.value,
        gpuRate: GT200.rate.value,
        gpuCodelets: { stencil: GT200.stencil.value },
        toGpu: link(GT200.pcie, GT200.latency),
        toRam: link(GT200.pcie, GT200.latency),
      }),
    );
  },
);

const AC_POWER: PowerSet = {
  coreComputing: fig(
    'CPU core computing',
    '24W',
    'assumed: a dual-core Opteron at 2.4 GHz, about 95 W per socket',
  ),
  corePolling: fig('CPU core polling', '21.6W', SPIN_NOTE),
  coreBlocked: fig('CPU core blocked', '5W', BLOCKED_NOTE),
  gpuBusy: fig('GPU computing', '200W', 'NVIDIA Tesla S1070 spec: 800 W typical for its 4 GPUs'),
  gpuIdle: fig('GPU idle', '50W', 'assumed: GT200 boards idle near a quarter of their typical power'),
  staticPower: fig('static power', '120W', 'assumed: a 2-socket server at rest'),
};

const AC = {
  gpus: fig('GPUs', 4, 'seed 001: a Tesla S1070 holds 4 GT200 GPUs of 4 GB'),
  cores: fig('CPU cores', 4, 'seed 001: two dual-core Opteron at 2.4 GHz'),
  defaultCpus: fig(
    'CPU workers by default',
    'max(0, 4 - gpus)',
    'seed 001: StarPU dedicates one core per GPU, so the 4 cores all drive GPUs and none computes',
  ),
  ram: fig('RAM', '8GiB', 'seed 001'),
  cpuRate: fig(
    'CPU rate per core (single precision)',
    '9.6GFlop/s',
    'assumed: 2.4 GHz x 4 single-precision flop/cycle (K8 Opteron SSE)',
  ),
  pairBus: fig(
    'host link per pair of GPUs',
    '5.5GB/s',
    'assumed: the S1070 connects 2 GPUs per PCIe 2.0 x16 host interface, shared both ways',
  ),
  ...GT200,
};

/** Seed 001's AC cluster node: 2 x dual-core Opteron + Tesla S1070 (4 GT200). */
const acNode = preset(
  "Seed 001's AC cluster node: two dual-core Opteron 2.4 GHz (8 GB) and a Tesla S1070 (4 GT200, 4 GB each); " +
    'each pair of GPUs shares one PCIe 2.0 x16 host link; no peer-to-peer copies; every core drives a GPU, so no ' +
    `CPU workers by default. ${gpuMemNote(parseSize(GT200.mem.value))}`,
  [...Object.values(AC), ...Object.values(AC_POWER)],
  (opts) => {
    const [gpus, cores] = [+AC.gpus.value, +AC.cores.value];
    const defaultCpus = (g: number) => Math.max(0, cores - g);
    const o = checkOptions('ac-node', { gpus, defaultGpus: gpus, cores, defaultCpus }, opts);
    return compilePreset(
      gpuMachine({
        name: 'ac-node',
        power: powerOf(AC_POWER),
        ram: AC.ram.value,
        gpuMem: o.gpuMem ?? GT200.mem.value,
        gpus: o.gpus,
        cpus: o.cpus,
        cpuRate: AC.cpuRate.value,
        gpuRate: GT200.rate.value,
        gpuCodelets: { stencil: GT200.stencil.value },
        toGpu: link(GT200.pcie, GT200.latency),
        toRam: link(GT200.pcie, GT200.latency),
        pairBus: { bandwidth: AC.pairBus.value, latency: 0 }, // latency: counted once, on the per-GPU link
      }),
    );
  },
);

// ---------------------------------------------------------------------------------------------
// Fermi GPUs (tsl's Tesla S2050, cpu+gpu's M2070), double precision.

const FERMI = {
  rate: fig(
    'GPU rate, gemm and others (double)',
    '300GFlop/s',
    'assumed: achieved DGEMM (M2050/M2070 peak 515 DP)',
  ),
  panel: fig('GPU getrf and potrf', '30GFlop/s', 'assumed: panel factorisations on the GPU are much slower'),
  trsm: fig('GPU trsm', '150GFlop/s', "assumed: about half of gemm's rate"),
  pcie: fig('RAM <-> GPU bandwidth (each direction)', '5.7GB/s', 'assumed: PCIe 2.0 x16 pinned transfers'),
  latency: fig('RAM <-> GPU latency', '15us', 'assumed: typical CUDA transfer latency'),
};

const TSL = {
  gpus: fig('GPUs', 4, 'seed 002: a Tesla S2050 (4 Fermi GPUs)'),
  mem: fig('GPU memory', '3GiB', 'seed 002 / NVIDIA spec: 3 GB per S2050 GPU'),
  cores: fig('CPU cores', 8, 'seed 002: two quad-core Xeon E5440 at 2.83 GHz'),
  defaultCpus: fig(
    'CPU workers by default',
    '8 - gpus',
    "seed 002: SuperMatrix dedicates a core to each GPU's control thread",
  ),
  ram: fig('RAM', '16GiB', 'seed 002'),
  cpuRate: fig(
    'CPU rate per core (double)',
    '11.3GFlop/s',
    'Intel E5440 spec: 2.83 GHz x 4 double-precision flop/cycle',
  ),
  pairBus: fig(
    'host link per pair of GPUs',
    '5.7GB/s',
    'assumed: the S2050 connects 2 GPUs per PCIe 2.0 x16 host interface card (GPUs 0-1 on pcie-a, 2-3 on pcie-b), shared both ways',
  ),
  peer: fig('GPU <-> GPU copies', 'none', 'seed 002: copies go through host memory'),
  coreComputing: fig('CPU core computing', '20W', 'Intel E5440 spec: 80 W TDP for 4 cores'),
  corePolling: fig(
    'CPU core polling (spinning)',
    '18W',
    'assumed: a busy-wait loop keeps the core at about 90% of its computing power',
  ),
  coreBlocked: fig('CPU core blocked', '4W', 'assumed: a blocked thread lets its core enter a C-state'),
  gpuBusy: fig(
    'GPU computing',
    '200W',
    'NVIDIA Tesla S2050 spec: 900 W typical for its 4 GPUs (225 W each, less enclosure fans)',
  ),
  gpuIdle: fig('GPU idle', '45W', 'assumed: an idle Fermi board at its lowest performance state'),
  staticPower: fig(
    'static power (host board, memory, disks, fans)',
    '150W',
    'assumed: not measured by the seed; a 2-socket server and the S2050 enclosure at rest',
  ),
  ...FERMI,
};

/** Seed 002's tsl: 2 x quad-core Xeon E5440 + Tesla S2050 (4 Fermi). */
const tsl = preset(
  "Seed 002's machine: two quad-core Xeon E5440 (16 GB) and a Tesla S2050 (4 Fermi, 3 GB each); GPUs 0-1 and " +
    '2-3 each share one PCIe 2.0 x16 host link; no peer-to-peer copies; one core per GPU control thread, so 4 CPU ' +
    `workers by default; double-precision rates. ${gpuMemNote(parseSize(TSL.mem.value))}`,
  Object.values(TSL),
  (opts) => {
    const [gpus, cores] = [+TSL.gpus.value, +TSL.cores.value];
    const o = checkOptions('tsl', { gpus, defaultGpus: gpus, cores, defaultCpus: (g) => cores - g }, opts);
    return compilePreset(
      gpuMachine({
        name: 'tsl',
        ram: TSL.ram.value,
        gpuMem: o.gpuMem ?? TSL.mem.value,
        gpus: o.gpus,
        cpus: o.cpus,
        cpuRate: TSL.cpuRate.value,
        gpuRate: FERMI.rate.value,
        gpuCodelets: { getrf: FERMI.panel.value, potrf: FERMI.panel.value, trsm: FERMI.trsm.value },
        toGpu: link(FERMI.pcie, FERMI.latency),
        toRam: link(FERMI.pcie, FERMI.latency),
        pairBus: { bandwidth: TSL.pairBus.value, latency: 0 }, // latency: counted once, on the per-GPU link
        power: powerOf(TSL),
      }),
    );
  },
);

const MIRAGE_POWER: PowerSet = {
  coreComputing: fig('CPU core computing', '16W', 'Intel X5650 spec: 95 W TDP for 6 cores'),
  corePolling: fig('CPU core polling', '14.4W', SPIN_NOTE),
  coreBlocked: fig('CPU core blocked', '3W', BLOCKED_NOTE),
  gpuBusy: fig('GPU computing', '225W', 'NVIDIA Tesla M2070 spec: 225 W'),
  gpuIdle: fig('GPU idle', '45W', 'assumed: an idle Fermi board at its lowest performance state'),
  staticPower: fig('static power', '150W', 'assumed: a 2-socket server at rest'),
};

const MIRAGE = {
  gpus: fig('GPUs', 3, 'assumed: a mirage-like node with 3 Tesla M2070'),
  mem: fig('GPU memory', '6GiB', 'NVIDIA Tesla M2070 spec'),
  cores: fig('CPU cores', 12, 'assumed: two 6-core Westmere X5650 at 2.66 GHz'),
  defaultCpus: fig(
    'CPU workers by default',
    '12 - gpus',
    'assumed: one core drives each GPU, as StarPU does',
  ),
  ram: fig('RAM', '36GiB', "assumed: mirage nodes' memory"),
  cpuRate: fig(
    'CPU rate per core (double)',
    '10.6GFlop/s',
    'Intel X5650 spec: 2.66 GHz x 4 double-precision flop/cycle',
  ),
  peer: fig('GPU <-> GPU copies', 'none', 'assumed: staged through host memory'),
  hostBus: fig('shared host link', 'none', 'assumed: each GPU has its own PCIe 2.0 x16 slot'),
  ...FERMI,
};

/** A generic mirage-like node: 12 Westmere cores and 3 Tesla M2070. */
const cpuGpu = preset(
  'A generic mirage-like node: two 6-core Westmere X5650 and 3 Tesla M2070 (6 GB) on PCIe 2.0, no shared ' +
    'host link, no peer-to-peer copies; one core per GPU, so 9 CPU workers by default; double-precision rates. ' +
    gpuMemNote(parseSize(MIRAGE.mem.value)),
  [...Object.values(MIRAGE), ...Object.values(MIRAGE_POWER)],
  (opts) => {
    const [gpus, cores] = [+MIRAGE.gpus.value, +MIRAGE.cores.value];
    const o = checkOptions(
      'cpu+gpu',
      { gpus, defaultGpus: gpus, cores, defaultCpus: (g) => cores - g },
      opts,
    );
    return compilePreset(
      gpuMachine({
        name: 'cpu+gpu',
        power: powerOf(MIRAGE_POWER),
        ram: MIRAGE.ram.value,
        gpuMem: o.gpuMem ?? MIRAGE.mem.value,
        gpus: o.gpus,
        cpus: o.cpus,
        cpuRate: MIRAGE.cpuRate.value,
        gpuRate: FERMI.rate.value,
        gpuCodelets: { getrf: FERMI.panel.value, potrf: FERMI.panel.value, trsm: FERMI.trsm.value },
        toGpu: link(FERMI.pcie, FERMI.latency),
        toRam: link(FERMI.pcie, FERMI.latency),
      }),
    );
  },
);

// ---------------------------------------------------------------------------------------------
// local: the machine Locus runs on, for real runs; GPUs are emulated device memories.

const LOCAL = {
  cores: fig('CPU cores', availableParallelism(), "this machine's os.availableParallelism()"),
  ram: fig('RAM', `${Math.floor(totalmem() / 2 ** 20)}MiB`, "this machine's os.totalmem()"),
  gpus: fig(
    'emulated devices',
    '0 by default, up to 16',
    'real mode: each is a memory pool with its own worker thread running the CPU kernels',
  ),
  gpuMem: fig(
    'emulated device memory',
    '64MiB',
    'assumed: small enough that eviction happens on test problems',
  ),
  rate: fig(
    'CPU and device rate',
    '2GFlop/s',
    'assumed: a JavaScript tile kernel on one core, until `locus calibrate` measures it',
  ),
  link: fig('RAM <-> device copies', '8GB/s', 'assumed: one core copying between SharedArrayBuffers'),
  latency: fig('RAM <-> device latency', '5us', 'assumed: the cost of one command round trip'),
};

/** This machine: its cores, plus emulated devices (--gpus K) for real runs. */
const local = preset(
  'This machine: one CPU worker per core (os.availableParallelism()) on host RAM. With --gpus K, K emulated ' +
    'devices: memory pools of --gpu-mem bytes, each with a worker thread running CPU kernels on its own replicas, ' +
    'so coherence, eviction and transfers happen for real. Rates are assumptions until calibrated.',
  Object.values(LOCAL),
  (opts) => {
    const cores = +LOCAL.cores.value;
    const o = checkOptions(
      'local',
      { gpus: 16, defaultGpus: 0, cores: Math.max(cores, 256), defaultCpus: () => cores },
      opts,
    );
    return compilePreset(
      gpuMachine({
        name: 'local',
        ram: LOCAL.ram.value,
        gpuMem: o.gpuMem ?? LOCAL.gpuMem.value,
        gpus: o.gpus,
        cpus: o.cpus,
        cpuRate: LOCAL.rate.value,
        gpuRate: LOCAL.rate.value,
        toGpu: link(LOCAL.link, LOCAL.latency),
        toRam: link(LOCAL.link, LOCAL.latency),
      }),
    );
  },
);

/** The presets by name, in the order `locus platforms` lists them. */
export const PRESETS: Readonly<Record<string, Preset>> = {
  v100x2,
  hannibal,
  tsl,
  'ac-node': acNode,
  'ac-cluster': acClusterPreset(acNode),
  'cpu+gpu': cpuGpu,
  local,
  sbac18,
};
