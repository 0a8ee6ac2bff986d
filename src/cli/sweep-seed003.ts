/**
 * `locus sweep --figure seed003`: seed 003's Figures 2 and 3 (src/report/seed003.ts) on the
 * simulated `sbac18` preset (or `--platform`), written under `--out` (default results/seed003).
 */

import { join } from 'node:path';
import { LocusError } from '../core/types.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { writeCsv } from '../report/csv.ts';
import {
  DEVICE_COLUMNS,
  plotSeed003,
  runSeed003,
  SEED003_FIGURE,
  SEED003_ITERATIONS,
  SPEEDUP_COLUMNS,
} from '../report/seed003.ts';
import { table } from './format.ts';
import { makeOutputFolder, writeOutputFile } from './output-files.ts';
import { checkEarlierSweep } from './sweep-folder.ts';
import { sweepIndexHtml } from './sweep-index.ts';

/** The sweep options seed003 uses. */
export interface Seed003CliOptions {
  readonly out?: string;
  /** Overwrite an earlier run of the figure in `out` (without it, one is refused). */
  readonly force?: boolean;
  /** Not supported by this figure (it reruns whole): refused in one line. */
  readonly resume?: boolean;
  readonly platform?: string;
  readonly gpus?: number;
  readonly cpus?: number;
  readonly seed?: number;
  readonly json?: boolean;
  readonly plots: boolean;
  readonly workload?: string;
}

/** Runs the seed003 figure: every benchmark under every strategy, then the CSVs and plots. */
export async function seed003Command(o: Seed003CliOptions): Promise<void> {
  if (o.workload !== undefined)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--figure ${SEED003_FIGURE} runs seed 003's four benchmarks; drop --workload ${o.workload}`,
    );
  const platform = resolvePlatform(o.platform ?? 'sbac18', {
    ...(o.gpus !== undefined ? { gpus: o.gpus } : {}),
    ...(o.cpus !== undefined ? { cpus: o.cpus } : {}),
  });
  const out = o.out ?? join('results', SEED003_FIGURE);
  if (o.resume)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--figure ${SEED003_FIGURE} reruns whole: drop --resume (give --force to overwrite the earlier run in ${out})`,
    );
  checkEarlierSweep(out, false, o.force === true, ['speedup.csv', 'nbody-devices.csv'], false);
  makeOutputFolder(out);
  const r = runSeed003({
    platform,
    iterations: SEED003_ITERATIONS,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    onRun: (bench, strategy, done, total) => {
      if (!o.json && process.stderr.isTTY)
        process.stderr.write(`seed003: ${done + 1}/${total} ${bench} ${strategy}\n`);
    },
  });
  writeCsv(join(out, 'speedup.csv'), r.speedup, [...SPEEDUP_COLUMNS]);
  writeCsv(join(out, 'nbody-devices.csv'), r.nbodyDevices, [...DEVICE_COLUMNS]);
  const written = ['speedup.csv', 'nbody-devices.csv'];
  const shown: { name: string; caption: string }[] = [];
  if (o.plots) {
    const plots = await plotSeed003(r, platform.name);
    for (const [name, p] of Object.entries(plots)) {
      writeOutputFile(join(out, `${name}.svg`), p.svg);
      writeOutputFile(join(out, `${name}.png`), p.png);
      written.push(`${name}.svg`, `${name}.png`);
      shown.push({ name, caption: p.caption });
    }
  }
  const strategies = [...new Set(r.speedup.map((s) => s.strategy))];
  const benches = [...new Set(r.speedup.map((s) => s.bench))];
  const cell = new Map(r.speedup.map((s) => [`${s.bench}/${s.strategy}`, s]));
  const title = `Seed 003 Figs. 2 and 3 on ${platform.name}, simulated, ${SEED003_ITERATIONS} iterations: speed-up against the best single device`;
  const rows = [
    ['benchmark', ...strategies],
    ...benches.map((b) => [b, ...strategies.map((s) => cell.get(`${b}/${s}`)!.speedup.toFixed(2))]),
  ];
  writeOutputFile(
    join(out, 'index.html'),
    sweepIndexHtml({
      title,
      description: '',
      grids: [{ title: 'speed-up', rows }],
      plots: shown,
      files: written,
    }),
  );
  written.push('index.html');
  if (o.json) {
    process.stdout.write(
      `${JSON.stringify({ speedup: r.speedup, nbodyDevices: r.nbodyDevices }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(
    `${title}\n\n${table(rows)}\n\nwrote ${written.map((f) => join(out, f)).join(', ')}\n`,
  );
}
