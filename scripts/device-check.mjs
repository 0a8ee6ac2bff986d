#!/usr/bin/env node
/**
 * The device check (issue 23, docs/device-check.md): what a lent GPU measures, in one run of
 * at most about 8 minutes, into one JSON file. Runs the built package (dist/, bin/locus.mjs),
 * no package registry needed:
 *
 * 1. the adapter WebGPU finds, and the GPU's name, clock and FP32 peak where nvidia-smi (and
 *    PyTorch, for the multiprocessor count) can say;
 * 2. SGEMM of the WGSL GEMM at 1024, 2048 and 4096 against that peak, and the WGSL TRSM (the
 *    blocked kernel the backend uses beside the earlier one-invocation-per-row one) at 960;
 * 3. examples/hybrid.mjs on 2 logical GPUs and the CPUs, where the example exists;
 * 4. seed 000's Figure 2 for real: matmul2d, 960 x 3840 single-precision blocks, 2 logical
 *    devices capped at 500 MiB, eager, dmdar and darts+luf at N = 10, 40, 70;
 * 5. `locus calibrate --backend webgpu` of those devices, `locus platform export`, and the
 *    same nine runs simulated on the exported platform, beside the real ones.
 *
 * Every step has its own time limit; a step that fails or runs out is recorded with its error
 * and the check goes on. The JSON is rewritten after each step, so a check cut short still
 * leaves what it measured. `--quick` runs the same steps at sizes lavapipe finishes in a
 * minute or two (the test's run).
 *
 * Usage: node scripts/device-check.mjs [--quick] [--out FILE] (default $OUT/device-check.json,
 * else ./device-check.json)
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
/** The options, or one line and exit code 2 for an unknown or malformed one. */
function options() {
  try {
    return parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        out: { type: 'string' },
        budget: { type: 'string' },
      },
    }).values;
  } catch (e) {
    console.error(
      `device-check: ${e.message} (usage: scripts/device-check.sh [--quick] [--out FILE] [--budget SECONDS])`,
    );
    process.exit(2);
  }
}
const opts = options();
const outFile = resolve(
  opts.out ?? (process.env.OUT ? join(process.env.OUT, 'device-check.json') : 'device-check.json'),
);
const quick = opts.quick;

/** Step sizes: Figure 2's on a GPU, a scaled-down copy on lavapipe (same ratio of memory to block). */
const cfg = quick
  ? {
      sgemm: [256],
      trsm: 48,
      tile: 64,
      inner: 256,
      sizes: [2, 4, 6],
      gpuMem: '256KiB',
      calMem: '16MiB',
      samples: 2,
      runLimitS: 60,
    }
  : {
      sgemm: [1024, 2048, 4096],
      trsm: 960,
      tile: 960,
      inner: 3840,
      sizes: [10, 40, 70],
      gpuMem: '500MiB',
      calMem: '500MiB',
      samples: 3,
      runLimitS: 120,
    };
const POLICIES = ['eager', 'dmdar', 'darts+luf'];
/** Seconds the whole check may take; later steps get what earlier ones left. */
const budgetS = Number(opts.budget ?? (quick ? 300 : 450));
if (!(budgetS > 0)) {
  console.error(`device-check: --budget ${opts.budget} is not a positive number of seconds`);
  process.exit(2);
}
/** Seconds left before the budget ends, less `reserveS` kept for later steps (at least 5). */
const left = (reserveS = 0) => Math.max(5, Math.floor(budgetS - (Date.now() - started) / 1000 - reserveS));

const report = {
  format: 'locus-device-check',
  version: 1,
  quick,
  startedAt: new Date(started).toISOString(),
  host: {},
  adapter: null,
  gpu: null,
  sgemm: [],
  trsm: [],
  hybrid: null,
  fig2: { tileSize: cfg.tile, inner: cfg.inner, gpuMem: cfg.gpuMem, gpus: 2, cpus: 0, real: [], sim: [] },
  calibration: null,
  errors: [],
  elapsedS: 0,
};
const save = () => {
  report.elapsedS = (Date.now() - started) / 1000;
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
};
const log = (line) => console.log(`[device-check ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`);

/** Runs a command with a time limit: { ok, stdout, stderr, seconds, error }. */
function sh(file, args, limitS, env = {}) {
  const t0 = Date.now();
  return new Promise((res) => {
    execFile(
      file,
      args,
      {
        cwd: root,
        timeout: limitS * 1000,
        maxBuffer: 64 << 20,
        env: { ...process.env, ...env },
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        const seconds = (Date.now() - t0) / 1000;
        const error = err
          ? err.killed
            ? `timed out after ${limitS} s`
            : `${(stderr || err.message).trim().split('\n').slice(-3).join(' | ')}`
          : undefined;
        res({ ok: !err, stdout, stderr, seconds, error });
      },
    );
  });
}

/**
 * The check's real runs record their task times in a model folder of their own, never in the
 * user's ~/.locus (the calibration step has another).
 */
const runModels = mkdtempSync(join(tmpdir(), 'locus-device-check-runs-'));
const locus = (args, limitS, env = { LOCUS_PERFMODEL_DIR: runModels }) =>
  sh(process.execPath, [join(root, 'bin/locus.mjs'), ...args], limitS, env);

/** The GPU as nvidia-smi and PyTorch describe it, with its FP32 peak (null fields where unknown). */
async function describeGpu() {
  const smi = await sh(
    'nvidia-smi',
    ['--query-gpu=name,clocks.max.sm,memory.total,driver_version', '--format=csv,noheader,nounits'],
    30,
  );
  if (!smi.ok) return { error: `nvidia-smi: ${smi.error}` };
  const [name, maxMHz, memMiB, driver] = smi.stdout
    .trim()
    .split('\n')[0]
    .split(',')
    .map((s) => s.trim());
  const gpu = {
    name,
    maxSmClockMHz: Number(maxMHz),
    memoryMiB: Number(memMiB),
    driver,
    sms: null,
    computeCapability: null,
    fp32PeakGflops: null,
  };
  const py = await sh(
    'python3',
    [
      '-c',
      'import torch;p=torch.cuda.get_device_properties(0);print(p.multi_processor_count,p.major,p.minor)',
    ],
    90,
  );
  if (py.ok) {
    const [sms, major, minor] = py.stdout.trim().split(/\s+/).map(Number);
    gpu.sms = sms;
    gpu.computeCapability = `${major}.${minor}`;
    // FP32 lanes per multiprocessor (CUDA programming guide, arithmetic instructions table).
    const lanes = { '7.0': 64, 7.5: 64, '8.0': 64, 8.6: 128, 8.9: 128, '9.0': 128, '10.0': 128, '12.0': 128 }[
      gpu.computeCapability
    ];
    if (lanes !== undefined) gpu.fp32PeakGflops = (2 * lanes * sms * gpu.maxSmClockMHz) / 1000;
  } else gpu.smsError = py.error;
  return gpu;
}

async function main() {
  report.host = {
    node: process.version,
    cpus: (await import('node:os')).cpus().length,
    load: (await import('node:os')).loadavg(),
  };
  log(`writing ${outFile}`);
  save();

  // 1. The adapter and the GPU.
  const { findAdapter } = await import('../dist/webgpu/load.js');
  const found = await findAdapter();
  if ('reason' in found) {
    report.errors.push(`adapter: ${found.reason}`);
    log(`no adapter: ${found.reason}`);
    save();
    return 1;
  }
  report.adapter = found.info;
  log(`adapter: ${JSON.stringify(found.info)}`);
  if (!quick) report.gpu = await describeGpu();
  log(`gpu: ${JSON.stringify(report.gpu)}`);
  save();

  // 2. SGEMM.
  const { measureSgemm } = await import('../dist/webgpu/sgemm-measure.js');
  for (const n of cfg.sgemm) {
    try {
      const r = await measureSgemm(n, quick ? 0.2 : 0.5);
      if (report.gpu?.fp32PeakGflops) r.ofPeak = r.gflops / report.gpu.fp32PeakGflops;
      report.sgemm.push(r);
      log(`sgemm n=${n}: ${r.gflops.toFixed(1)} GFlop/s`);
    } catch (e) {
      report.errors.push(`sgemm ${n}: ${e.message}`);
    }
    save();
  }

  // 2b. TRSM: the blocked kernel against the earlier one, each checked against the CPU reference.
  try {
    const { measureTrsm } = await import('../dist/webgpu/trsm-measure.js');
    const { trsmWgsl, trsmRowWgsl } = await import('../dist/webgpu/trsm.js');
    report.trsm = await measureTrsm(
      { blocked: trsmWgsl, row: trsmRowWgsl },
      [cfg.trsm],
      [0, 1, 2],
      quick ? 0.02 : 0.2,
    );
    for (const r of report.trsm) log(`trsm n=${r.n} variant ${r.variant} ${r.kernel}: ${r.ms.toFixed(2)} ms`);
  } catch (e) {
    report.errors.push(`trsm: ${e.message}`);
  }
  save();

  // 3. The hybrid example (issue 23), where it exists.
  const hybrid = join(root, 'examples/hybrid.mjs');
  if (existsSync(hybrid)) {
    const size = quick ? [] : ['--tiles', '8', '--tile-size', '256', '--gpu-mem', '64MiB'];
    const r = await sh(
      process.execPath,
      [hybrid, '--backend', 'webgpu', '--gpus', '2', '--cpus', '2', ...size, '--json'],
      Math.min(cfg.runLimitS, left(200)),
    );
    if (r.ok) {
      const j = JSON.parse(r.stdout);
      report.hybrid = { ...pick(j), residual: j.residual };
      log(
        `hybrid: ${j.tasks} tasks, residual ${j.residual}, ${report.hybrid.workers.map((w) => `${w.name} ${w.tasks}`).join(', ')}`,
      );
    } else {
      report.hybrid = { error: r.error };
      report.errors.push(`hybrid: ${r.error}`);
    }
  } else report.hybrid = { skipped: 'examples/hybrid.mjs does not exist in this tree' };
  save();

  // 4. Figure 2 for real.
  const common = [
    '-w',
    'matmul2d',
    '--tile-size',
    String(cfg.tile),
    '--inner',
    String(cfg.inner),
    '--precision',
    'single',
    '--gpus',
    '2',
    '--cpus',
    '0',
    '--gpu-mem',
    cfg.gpuMem,
    '--json',
  ];
  for (const n of cfg.sizes)
    for (const sched of POLICIES) {
      const limit = Math.min(cfg.runLimitS, left(100));
      const r = await locus(
        ['run', '--mode', 'real', '--backend', 'webgpu', '--tiles', String(n), '--sched', sched, ...common],
        limit,
      );
      const row = { tiles: n, sched, wallS: r.seconds };
      if (r.ok) Object.assign(row, pick(JSON.parse(r.stdout)));
      else {
        row.error = r.error;
        report.errors.push(`real N=${n} ${sched}: ${r.error}`);
      }
      report.fig2.real.push(row);
      log(
        `real N=${n} ${sched}: ${row.error ?? `${row.gflops?.toFixed(0)} GFlop/s, ${(row.bytesToDevices / 2 ** 30).toFixed(2)} GiB to GPUs`}`,
      );
      save();
    }

  // 5. Calibrate, export, simulate.
  const store = mkdtempSync(join(tmpdir(), 'locus-device-check-'));
  const env = { LOCUS_PERFMODEL_DIR: store };
  const plat = ['--gpus', '2', '--cpus', '0', '--gpu-mem', cfg.gpuMem];
  // The bus is timed with copies of up to 8 MiB: lavapipe's scaled-down cap is too small for them.
  const calPlat = ['--gpus', '2', '--cpus', '0', '--gpu-mem', cfg.calMem];
  const cal = await locus(
    [
      'calibrate',
      '--backend',
      'webgpu',
      ...calPlat,
      '--tile-size',
      String(cfg.tile),
      '--inner',
      String(cfg.inner),
      '--samples',
      String(cfg.samples),
    ],
    Math.min(150, left(30)),
    env,
  );
  const platformFile = join(store, 'platform.json');
  report.calibration = {
    seconds: cal.seconds,
    error: cal.error,
    output: cal.stdout.trim().split('\n').slice(-20),
  };
  if (!cal.ok) report.errors.push(`calibrate: ${cal.error}`);
  log(`calibrate: ${cal.error ?? `${cal.seconds.toFixed(0)} s`}`);
  save();
  if (cal.ok) {
    const exp = await locus(
      ['platform', 'export', '--backend', 'webgpu', ...plat, '-o', platformFile],
      60,
      env,
    );
    if (!exp.ok) report.errors.push(`platform export: ${exp.error}`);
    else {
      report.calibration.platform = JSON.parse((await import('node:fs')).readFileSync(platformFile, 'utf8'));
      for (const n of cfg.sizes)
        for (const sched of POLICIES) {
          const r = await locus(
            [
              'run',
              '--mode',
              'sim',
              '-p',
              platformFile,
              '--tiles',
              String(n),
              '--sched',
              sched,
              ...common.filter(
                (a, i) =>
                  !['--gpus', '--cpus', '--gpu-mem'].includes(a) &&
                  !['--gpus', '--cpus', '--gpu-mem'].includes(common[i - 1]),
              ),
            ],
            60,
            env,
          );
          const row = { tiles: n, sched };
          if (r.ok) Object.assign(row, pick(JSON.parse(r.stdout)));
          else {
            row.error = r.error;
            report.errors.push(`sim N=${n} ${sched}: ${r.error}`);
          }
          report.fig2.sim.push(row);
          log(`sim N=${n} ${sched}: ${row.error ?? `${row.gflops?.toFixed(0)} GFlop/s`}`);
        }
    }
  }
  save();
  log('done');
  return report.errors.length === 0 ? 0 : 1;
}

/** The fields of a run's report the check keeps. */
function pick(r) {
  const keep = [
    'makespanS',
    'endS',
    'gflops',
    'tasks',
    'bytesToDevices',
    'bytesFromDevices',
    'bytesDeviceToDevice',
    'transfersToDevices',
    'evictions',
    'writebacks',
    'wallS',
    'adapter',
  ];
  const o = Object.fromEntries(keep.filter((k) => k in r).map((k) => [k, r[k]]));
  o.workers = r.workers?.map((w) => ({ name: w.name, kind: w.kind, tasks: w.tasks, busyS: w.busyS }));
  o.peakBytes = r.nodes?.map((n) => ({
    name: n.name,
    peakBytes: n.peakBytes,
    capacityBytes: n.capacityBytes,
  }));
  return o;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    report.errors.push(`device check: ${e.message}`);
    save();
    console.error(`device-check: ${e.message}`);
    process.exit(1);
  },
);
