/**
 * `locus bench metg`: Task Bench's METG(50%) of this runtime on this machine's worker threads
 * (src/exec/metg.ts): the sweep's table (iterations, task granularity, efficiency), the METG,
 * and with `--out DIR` the curve as metg.csv and a plot (metg.svg, metg.png; efficiency against
 * task granularity, log scale), or one JSON object.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { LocusError } from '../core/types.ts';
import { measureEmptyGranularity, measureMetg } from '../exec/metg.ts';
import { writeCsv } from '../report/csv.ts';
import { metgSpec } from '../report/metg-plot.ts';
import { table } from './format.ts';
import { positiveInt } from './options.ts';
import { makeOutputFolder, writeOutputFile } from './output-files.ts';

/** Columns of metg.csv. */
const METG_COLUMNS = ['iterations', 'tasks', 'wallS', 'granularityUs', 'workRate', 'efficiency'] as const;

interface MetgCliOptions {
  pattern: string;
  kernel: string;
  cpus: number;
  width?: number;
  steps: number;
  maxIterations: number;
  rounds: number;
  out?: string;
  json?: boolean;
}

/** Registers `bench` and its `metg` subcommand. */
export function registerBenchCommand(program: Command, name: string, summary: string): void {
  const bench = program.command(name).description(summary);
  bench
    .command('metg')
    .description(
      "Task Bench's METG(50%) on this machine's worker threads: efficiency against task granularity",
    )
    .option('--pattern <name>', "Task Bench's dependence pattern", 'stencil_1d')
    .option(
      '--kernel <name>',
      "compute_bound or busy_wait (the METG sweep), or empty (the runtime's cost per task)",
      'compute_bound',
    )
    .option('--cpus <n>', 'worker threads (the cores counted)', positiveInt, 2)
    .option('--width <n>', 'points per timestep (default: --cpus)', positiveInt)
    .option('--steps <n>', 'timesteps', positiveInt, 1000)
    .option(
      '--max-iterations <n>',
      'kernel iterations of the longest tasks, halved down to 1',
      positiveInt,
      2 ** 15,
    )
    .option('--rounds <n>', 'runs per point, the shortest kept', positiveInt, 3)
    .option('--out <dir>', 'write metg.csv and the plot (metg.svg, metg.png) there')
    .option('--json', 'print one JSON object')
    .action(async (o: MetgCliOptions) => {
      if (o.kernel !== 'compute_bound' && o.kernel !== 'busy_wait' && o.kernel !== 'empty')
        throw new LocusError(
          'LOCUS_OPTION_INVALID',
          `--kernel must be compute_bound or busy_wait (a kernel whose work is counted), or empty (the runtime's cost per task; got '${o.kernel}')`,
        );
      if (o.out !== undefined) makeOutputFolder(o.out);
      const { Runtime } = await import('../exec/runtime.ts');
      // perfModels off: the sweep's thousands of tiny tasks would only fill the models.
      const rt = await Runtime.create({ cpus: o.cpus, perfModels: 'off' });
      /** Runs `measure` on the runtime, closed after it whatever happens. */
      const closing = async <T>(measure: () => Promise<T>): Promise<T> => {
        try {
          return await measure();
        } finally {
          await rt.close();
        }
      };
      const graph = {
        runtime: rt,
        workers: o.cpus,
        pattern: o.pattern,
        ...(o.width !== undefined ? { width: o.width } : {}),
        steps: o.steps,
        rounds: o.rounds,
      };
      if (o.kernel === 'empty') {
        const floor = await closing(() => measureEmptyGranularity(graph));
        if (o.json) process.stdout.write(`${JSON.stringify({ kernel: 'empty', ...floor })}\n`);
        else
          process.stdout.write(
            `Task Bench ${floor.pattern}, ${floor.width} x ${floor.steps} tasks, kernel empty, ${floor.workers} worker threads: ${floor.tasks} tasks in ${floor.wallS.toFixed(3)} s, task granularity ${floor.granularityUs.toFixed(1)} µs (the runtime's cost per task: no METG can be lower)\n`,
          );
        return;
      }
      const result = await closing(() =>
        measureMetg({
          ...graph,
          kernel: o.kernel as 'compute_bound' | 'busy_wait',
          maxIterations: o.maxIterations,
          onPoint: (p, i, n) => {
            if (!o.json && process.stderr.isTTY)
              process.stderr.write(
                `metg: ${i + 1}/${n} ${p.iterations} iterations, ${p.wallS.toFixed(3)} s\n`,
              );
          },
        }),
      );
      const written: string[] = [];
      if (o.out !== undefined) {
        writeCsv(join(o.out, 'metg.csv'), result.points, [...METG_COLUMNS]);
        written.push(join(o.out, 'metg.csv'));
        try {
          const { renderPlot } = await import('../report/plots.ts');
          const plot = await renderPlot(metgSpec(result));
          writeOutputFile(join(o.out, 'metg.svg'), plot.svg);
          writeOutputFile(join(o.out, 'metg.png'), plot.png);
          written.push(join(o.out, 'metg.svg'), join(o.out, 'metg.png'));
        } catch (e) {
          // The measurement is kept: only the plot is missing.
          process.stderr.write(
            `locus: warning: no plot (${e instanceof Error ? e.message.split('\n')[0] : String(e)})\n`,
          );
        }
      }
      if (o.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      const rows = result.points.map((p) => [
        String(p.iterations),
        p.granularityUs.toFixed(1),
        `${(p.efficiency * 100).toFixed(0)}%`,
        p.wallS.toFixed(3),
      ]);
      process.stdout.write(
        `Task Bench ${result.pattern}, ${result.width} x ${result.steps} tasks, kernel ${result.kernel}, ${result.workers} worker threads\n\n${table([['iterations', 'granularity (µs)', 'efficiency', 'wall (s)'], ...rows])}\n\nMETG(50%): ${result.metgUs === undefined ? 'not crossed (raise --max-iterations or lower it)' : `${result.metgUs.toFixed(1)} µs`}${
          written.length > 0 ? `\nwrote ${written.join(', ')}` : ''
        }\n`,
      );
    });
}
