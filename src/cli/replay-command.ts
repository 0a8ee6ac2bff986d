/**
 * `locus replay FILE.rec [--platform P] [--sched S] [--durations platform|recorded]`: simulates
 * a StarPU task record under a Locus policy (src/replay/replay.ts) and prints the replay's
 * report beside the recorded run (makespan, tasks and busy time per worker), or one JSON object.
 */
import type { Command } from 'commander';
import { LocusError } from '../core/types.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { formatDuration } from '../platform/units.ts';
import { replay } from '../replay/replay.ts';
import { formatReport, table } from './format.ts';
import { codeletMapValue, naturalInt, seedValue, size } from './options.ts';

const seconds = (s: number) => (Number.isFinite(s) ? formatDuration(s) : 'not recorded');

/** Registers `replay`. */
export function registerReplayCommand(program: Command, name: string, summary: string): void {
  program
    .command(name)
    .description(summary)
    .argument('<file>', "a StarPU task record (starpu_fxt_tool's tasks.rec, or .rec.gz)")
    .option(
      '-p, --platform <name|file>',
      'a preset or platform file (e.g. one `locus platform import starpu` wrote)',
      'local',
    )
    .option('--cpus <n>', 'CPU workers of a preset', naturalInt)
    .option('--gpus <n>', 'GPUs of a preset', naturalInt)
    .option('--gpu-mem <size>', 'memory of every GPU', size)
    .option('-s, --sched <name>', 'the scheduler', 'dmdar')
    .option('-e, --eviction <name>', 'the eviction policy', 'lru')
    .option(
      '--durations <source>',
      "task durations: 'platform' (its figures and footprint rules) or 'recorded' (the record's)",
      'platform',
    )
    .option(
      '--codelet-map <pairs>',
      'StarPU model symbols to Locus codelets: SYMBOL=CODELET[,...]',
      codeletMapValue,
    )
    .option('--seed <n>', 'seed of the policies', seedValue)
    .option('--json', 'print one JSON object: the replay report, the recorded run, the notes')
    .action(
      (
        file: string,
        o: {
          platform: string;
          cpus?: number;
          gpus?: number;
          gpuMem?: number;
          sched: string;
          eviction: string;
          durations: string;
          codeletMap?: Record<string, string>;
          seed?: number;
          json?: boolean;
        },
      ) => {
        if (o.durations !== 'platform' && o.durations !== 'recorded')
          throw new LocusError(
            'LOCUS_OPTION_INVALID',
            `--durations must be 'platform' or 'recorded' (got '${o.durations}')`,
          );
        const platform = resolvePlatform(o.platform, { cpus: o.cpus, gpus: o.gpus, gpuMem: o.gpuMem });
        const r = replay({
          file,
          platform,
          scheduler: o.sched,
          eviction: o.eviction,
          durations: o.durations,
          ...(o.codeletMap ? { codeletMap: o.codeletMap } : {}),
          ...(o.seed !== undefined ? { seed: o.seed } : {}),
        });
        if (o.json) {
          process.stdout.write(
            `${JSON.stringify({ ...r.report, recorded: r.recorded, notes: r.graph.notes })}\n`,
          );
          return;
        }
        for (const n of r.graph.notes) process.stderr.write(`locus: ${n}\n`);
        process.stdout.write(`${formatReport(r.report)}\n\n`);
        const rec = r.recorded;
        process.stdout.write(
          `recorded run: makespan ${seconds(rec.makespanS)}; replay / recorded: ${
            Number.isFinite(rec.makespanS) && rec.makespanS > 0
              ? (r.report.makespanS / rec.makespanS).toFixed(3)
              : '-'
          }\n`,
        );
        if (rec.workers.length > 0)
          process.stdout.write(
            `${table([
              ['StarPU worker', 'tasks', 'busy'],
              ...rec.workers.map((w) => [String(w.worker), String(w.tasks), seconds(w.busyS)]),
            ])}\n`,
          );
      },
    );
}
