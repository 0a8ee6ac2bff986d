/**
 * Options shared by `locus run` and `locus sweep` that tune the simulated runtime (task
 * buffer, copy streams, clean-first eviction and StarPU's clean-buffer knobs) and the
 * schedulers (prefetch, DARTS variants).
 */
import type { Command } from 'commander';
import type { SchedulerOptions } from '../sched/options.ts';
import { fractionValue, naturalInt, percentValue, positiveInt } from './options.ts';

/** The shared options as commander parses them. */
export interface SimulationFlags {
  lookahead?: number;
  streams?: number;
  prefetch?: boolean;
  dartsThreshold?: number;
  darts3inputs?: boolean;
  dartsOpti?: boolean;
  dartsPushFree?: boolean;
  /** --darts-one-from-free: StarPU master's fallback when no datum frees a task. */
  dartsOneFromFree?: boolean;
  /** --darts-one-away: the same fallback with random ties. */
  dartsOneAway?: boolean;
  /** --darts-starpu-ties: StarPU master's D_opt tie order. */
  dartsStarpuTies?: boolean;
  /** --darts-host-level / --no-darts-host-level: out of core, DARTS plans host memory for the CPUs. */
  dartsHostLevel?: boolean;
  /** --darts-host-ahead: the host level decides its next datum before its plan runs out. */
  dartsHostAhead?: boolean;
  /** --hfp-host-staging: hfp out of core reads ahead the next n planned tasks' inputs of each GPU into host memory. */
  hfpHostStaging?: number;
  /** --critical-slack: hfp's critical-path front width, a fraction of the top priority. */
  criticalSlack?: number;
  /** --critical-local: hfp picks critical tasks by missing bytes first. */
  criticalLocal?: boolean;
  /** --critical-fixed: hfp's slack against the graph's highest priority. */
  criticalFixed?: boolean;
  /** --critical-tail: the front's fraction of the top priority where hfp's tail rules start. */
  criticalTail?: number;
  /** false with --no-clean-first. */
  cleanFirst?: boolean;
  /** --min-clean: percent of each GPU's replicas kept clean by early write-backs. */
  minClean?: number;
  /** --target-clean: percent clean once those write-backs stop. */
  targetClean?: number;
}

/** Registers the shared options on a command. */
export function addSimulationOptions(cmd: Command): Command {
  return cmd
    .option(
      '--lookahead <n>',
      'tasks a GPU worker pops ahead of its pipeline, inputs prefetched (default 4; dmdar, dmdas: 1)',
      naturalInt,
    )
    .option(
      '--streams <n>',
      'copies in flight at once between two nodes (default 1, one CUDA stream)',
      positiveInt,
    )
    .option('--prefetch', 'dm/dmda: prefetch inputs when a task is assigned (the -pr variants)')
    .option('--no-prefetch', 'dmdar/dmdas: do not prefetch at assignment')
    .option('--darts-threshold <n>', 'darts: examine at most n candidate data per decision', positiveInt)
    .option('--darts-3inputs', 'darts: break ties by the tasks one datum away from free')
    .option('--darts-opti', 'darts: pick the datum with the least transfer time per compute time freed')
    .option(
      '--darts-push-free',
      "darts: plan a task pushed with all its inputs on a GPU there at once (StarPU master's darts)",
    )
    .option(
      '--darts-one-from-free',
      "darts: when no datum frees a task, take the highest-priority task one datum away from free, not a random one (StarPU master's darts)",
    )
    .option(
      '--darts-one-away',
      'darts: when no datum frees a task, take one a datum away from free, highest priority first, random among equals',
    )
    .option(
      '--darts-starpu-ties',
      "darts: break D_opt's ties by the freed tasks' highest priority, then the tasks one datum away, then the remaining work (StarPU master's darts)",
    )
    .option(
      '--darts-host-level',
      'darts, hfp: out of core, plan host memory for the CPU workers as one more level (Algorithm 2 there, data prefetched from the disk)',
    )
    .option(
      '--no-darts-host-level',
      'darts, hfp: out of core, CPU workers load their inputs from the disk on demand',
    )
    .option(
      '--darts-host-ahead',
      "darts, hfp with the host level: decide the host's next datum (and read it from the disk) before its planned tasks run out",
    )
    .option(
      '--hfp-host-staging <n>',
      "hfp, out of core: read from the disk into host memory the inputs of each GPU's next n planned tasks (default 8; 0: off)",
      naturalInt,
    )
    .option(
      '--critical-slack <x>',
      'hfp: ready tasks within this fraction of the highest priority not handed out go first (default 0.03)',
      fractionValue,
    )
    .option(
      '--critical-local',
      'hfp: among those critical tasks, a GPU takes the one with the fewest input bytes missing from its memory',
    )
    .option(
      '--critical-fixed',
      "hfp: the critical slack is a fraction of the graph's highest priority, a width that stays fixed as the front moves down",
    )
    .option(
      '--critical-tail <x>',
      "hfp (with --ready-first): once the critical front is down to this fraction of the graph's highest priority, a GPU takes the buffered task with the longest expected path to the end first",
      fractionValue,
    )
    .option('--no-clean-first', "evict in the policy's order alone, not clean (unmodified) replicas first")
    .option(
      '--min-clean <pct>',
      "write modified data back early while fewer than pct% of a GPU's replicas are clean (StarPU's STARPU_MINIMUM_CLEAN_BUFFERS; default 0: off)",
      percentValue,
    )
    .option(
      '--target-clean <pct>',
      "with --min-clean: write back until pct% are clean (StarPU's STARPU_TARGET_CLEAN_BUFFERS; default the minimum)",
      percentValue,
    );
}

/** The scheduler options the flags ask for (only those given). */
export function schedulerOptionsFrom(f: SimulationFlags): SchedulerOptions {
  const o: SchedulerOptions = {};
  if (f.prefetch !== undefined) o.prefetch = f.prefetch;
  if (f.dartsThreshold !== undefined) o.dartsThreshold = f.dartsThreshold;
  if (f.darts3inputs) o.darts3inputs = true;
  if (f.dartsOpti) o.dartsOpti = true;
  if (f.dartsPushFree) o.dartsPushFree = true;
  if (f.dartsOneFromFree) o.dartsOneFromFree = true;
  if (f.dartsOneAway) o.dartsOneAway = true;
  if (f.dartsStarpuTies) o.dartsStarpuTies = true;
  if (f.dartsHostLevel !== undefined) o.dartsHostLevel = f.dartsHostLevel;
  if (f.dartsHostAhead) o.dartsHostAhead = true;
  if (f.hfpHostStaging !== undefined) o.hfpHostStaging = f.hfpHostStaging;
  if (f.criticalSlack !== undefined) o.criticalSlack = f.criticalSlack;
  if (f.criticalLocal) o.criticalLocal = true;
  if (f.criticalFixed) o.criticalFixed = true;
  if (f.criticalTail !== undefined) o.criticalTail = f.criticalTail;
  return o;
}
