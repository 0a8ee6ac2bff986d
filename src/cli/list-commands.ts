/**
 * `locus platforms`, `locus workloads` and `locus policies`: what can be named on the command
 * line, as text or (--json) as one JSON value.
 */
import type { Command } from 'commander';
import { EVICTION_POLICIES } from '../evict/index.ts';
import { describePlatform } from '../platform/describe.ts';
import { describePresets, PRESETS, resolvePlatform } from '../platform/presets.ts';
import { platformToJson } from '../platform/to-json.ts';
import { SCHEDULERS } from '../sched/index.ts';
import { WORKLOADS } from '../workloads/index.ts';
import { naturalInt, size } from './options.ts';

/** Writes `value` as 2-space indented JSON and a newline. */
function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Name and description of each entry of a registry. */
function entries(registry: Record<string, { description: string }>): { name: string; description: string }[] {
  return Object.entries(registry).map(([name, e]) => ({ name, description: e.description }));
}

/** Adds the options and action of `locus platforms` to `cmd`. */
export function registerPlatformsCommand(cmd: Command): void {
  cmd
    .argument('[name]', 'a preset name or platform file to describe')
    .option('--gpus <n>', 'GPUs of the preset to use', naturalInt)
    .option('--cpus <n>', 'CPU cores that compute', naturalInt)
    .option('--gpu-mem <size>', 'cap every GPU memory', size)
    .option(
      '--json',
      'the presets as a JSON array (name, description, figures); with a name, its platform file',
    )
    .action(
      (name: string | undefined, opts: { gpus?: number; cpus?: number; gpuMem?: number; json?: boolean }) => {
        const { json, ...presetOptions } = opts;
        if (name === undefined) {
          if (json) {
            printJson(
              Object.entries(PRESETS).map(([n, p]) => ({
                name: n,
                description: p.description,
                figures: p.figures(),
              })),
            );
          } else process.stdout.write(`${describePresets()}\n`);
          return;
        }
        const platform = resolvePlatform(name, presetOptions);
        process.stdout.write(json ? platformToJson(platform) : `${describePlatform(platform)}\n`);
      },
    );
}

/** Adds the options and action of `locus workloads` to `cmd`. */
export function registerWorkloadsCommand(cmd: Command): void {
  cmd.option('--json', 'a JSON array of {name, description}').action((opts: { json?: boolean }) => {
    if (opts.json) return printJson(entries(WORKLOADS));
    for (const [name, w] of Object.entries(WORKLOADS))
      process.stdout.write(`${name.padEnd(10)} ${w.description}\n`);
  });
}

/** Adds the options and action of `locus policies` to `cmd`. */
export function registerPoliciesCommand(cmd: Command): void {
  cmd
    .option('--json', 'a JSON object {schedulers, evictions}, each an array of {name, description}')
    .action((opts: { json?: boolean }) => {
      if (opts.json) {
        printJson({ schedulers: entries(SCHEDULERS), evictions: entries(EVICTION_POLICIES) });
        return;
      }
      process.stdout.write('schedulers (--sched)\n');
      for (const [name, s] of Object.entries(SCHEDULERS))
        process.stdout.write(`  ${name.padEnd(10)} ${s.description}\n`);
      process.stdout.write('eviction policies (--eviction)\n');
      for (const [name, s] of Object.entries(EVICTION_POLICIES)) {
        process.stdout.write(`  ${name.padEnd(10)} ${s.description}\n`);
      }
    });
}
