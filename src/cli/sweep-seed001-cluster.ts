/**
 * `locus sweep --figure seed001-cluster`: seed 001's Figures 3(c) and 4(c)
 * (src/report/seed001-cluster.ts) on the simulated `ac-cluster` preset (or `--platform`, a
 * cluster of at least 4 nodes), written under `--out` (default results/seed001-cluster).
 */

import { join } from 'node:path';
import { LocusError } from '../core/types.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { writeCsv } from '../report/csv.ts';
import {
  CLUSTER_NODES,
  LU_COLUMNS,
  plotSeed001Cluster,
  runSeed001Cluster,
  SEED001_CLUSTER_FIGURE,
  STENCIL_COLUMNS,
} from '../report/seed001-cluster.ts';
import { clusterOf } from '../sim/cluster/simulate.ts';
import { table } from './format.ts';
import { makeOutputFolder, writeOutputFile } from './output-files.ts';
import { checkEarlierSweep } from './sweep-folder.ts';
import { sweepIndexHtml } from './sweep-index.ts';

/** The sweep options this figure uses. */
export interface Seed001ClusterCliOptions {
  readonly out?: string;
  /** Overwrite an earlier run of the figure in `out` (without it, one is refused). */
  readonly force?: boolean;
  /** Not supported by this figure (it reruns whole): refused in one line. */
  readonly resume?: boolean;
  readonly platform?: string;
  readonly gpus?: number;
  readonly cpus?: number;
  readonly gpuMem?: number;
  readonly seed?: number;
  readonly json?: boolean;
  readonly plots: boolean;
  readonly workload?: string;
  readonly sizes?: number[];
  readonly sched?: string;
}

/** Runs the figure's points, then the CSVs, the plots and the summary. */
export async function seed001ClusterCommand(o: Seed001ClusterCliOptions): Promise<void> {
  for (const [given, flag] of [
    [o.workload, '--workload'],
    [o.sizes, '--sizes'],
    [o.sched, '--sched'],
  ] as const) {
    if (given !== undefined)
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        `--figure ${SEED001_CLUSTER_FIGURE} runs the stencil and LU at fixed sizes under heft-tmdp-pr; drop ${flag}`,
      );
  }
  const platform = resolvePlatform(o.platform ?? 'ac-cluster', {
    ...(o.gpus !== undefined ? { gpus: o.gpus } : {}),
    ...(o.cpus !== undefined ? { cpus: o.cpus } : {}),
    ...(o.gpuMem !== undefined ? { gpuMem: o.gpuMem } : {}),
  });
  const most = Math.max(...CLUSTER_NODES);
  if (clusterOf(platform).nodes.length < most) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--figure ${SEED001_CLUSTER_FIGURE} needs a cluster of at least ${most} nodes; platform ${platform.name} has ${platform.cluster!.nodes.length}`,
    );
  }
  const out = o.out ?? join('results', SEED001_CLUSTER_FIGURE);
  if (o.resume)
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--figure ${SEED001_CLUSTER_FIGURE} reruns whole: drop --resume (give --force to overwrite the earlier run in ${out})`,
    );
  checkEarlierSweep(out, false, o.force === true, ['stencil.csv', 'lu.csv'], false);
  makeOutputFolder(out);
  const r = runSeed001Cluster({
    platform,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    onRun: (what, done, total) => {
      if (!o.json && process.stderr.isTTY)
        process.stderr.write(`${SEED001_CLUSTER_FIGURE}: ${done + 1}/${total} ${what}\n`);
    },
  });
  writeCsv(join(out, 'stencil.csv'), r.stencil, [...STENCIL_COLUMNS]);
  writeCsv(join(out, 'lu.csv'), r.lu, [...LU_COLUMNS]);
  const written = ['stencil.csv', 'lu.csv'];
  const shown: { name: string; caption: string }[] = [];
  if (o.plots) {
    const plots = await plotSeed001Cluster(r, platform.name);
    for (const [name, p] of Object.entries(plots)) {
      writeOutputFile(join(out, `${name}.svg`), p.svg);
      writeOutputFile(join(out, `${name}.png`), p.png);
      written.push(`${name}.svg`, `${name}.png`);
      shown.push({ name, caption: p.caption });
    }
  }
  const stencil = [
    ['nodes', 'GFlop/s', 'GFlop/s per node', 'messages', 'MB'],
    ...r.stencil.map((s) => [
      String(s.nodes),
      s.gflops.toFixed(1),
      s.gflopsPerNode.toFixed(1),
      String(s.messages),
      (s.messageBytes / 1e6).toFixed(0),
    ]),
  ];
  const sizes = [...new Set(r.lu.map((l) => l.matrixSize))];
  const cell = new Map(r.lu.map((l) => [`${l.nodes}/${l.matrixSize}`, l]));
  const lu = [
    ['N', ...CLUSTER_NODES.map((n) => `${n} node${n > 1 ? 's' : ''}`)],
    ...sizes.map((size) => [
      String(size),
      ...CLUSTER_NODES.map((n) => {
        const l = cell.get(`${n}/${size}`)!;
        return l.ran ? l.gflops!.toFixed(0) : 'does not fit';
      }),
    ]),
  ];
  const stencilTitle = `Seed 001 Fig. 3(c) on ${platform.name} (simulated): stencil, weak scaling`;
  const luTitle = 'Seed 001 Fig. 4(c): LU GFlop/s';
  writeOutputFile(
    join(out, 'index.html'),
    sweepIndexHtml({
      title: `Seed 001 section V.C on ${platform.name} (simulated)`,
      description: '',
      grids: [
        { title: stencilTitle, rows: stencil },
        { title: luTitle, rows: lu },
      ],
      plots: shown,
      files: written,
    }),
  );
  written.push('index.html');
  if (o.json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `${stencilTitle}\n\n${table(stencil)}\n\n` +
      `${luTitle}\n\n${table(lu)}\n\nwrote ${written.map((f) => join(out, f)).join(', ')}\n`,
  );
}
