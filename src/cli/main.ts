/**
 * The `locus` command: argument parsing (commander) and the error policy: a user error is
 * one line on stderr and exit code 2; anything else is a bug and keeps its stack trace.
 *
 * Start-up stays fast by loading only what the invoked command needs: every command is
 * listed with its summary (enough for `locus --help` and for suggestions), and only the one
 * named on the command line imports its module to get its options and action.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { LocusError } from '../core/types.ts';

/** A top-level command: its summary, and how to register it in full on the program. */
interface CommandEntry {
  /** The one-line description `locus --help` lists. */
  readonly summary: string;
  /**
   * Adds the command with its options and action to `program` (imported on demand). Several
   * commands may share one registration (`calibrate` and `platform`): it runs once.
   */
  readonly register: (program: Command, name: string, summary: string) => Promise<void>;
}

/** Registers `calibrate` and `platform` together (one module declares both). */
const calibrateCommands = async (program: Command) =>
  (await import('./calibrate-command.ts')).registerCalibrateCommands(program);

/** Every top-level command, in the order `locus --help` lists them. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  run: {
    summary: 'run a workload on a platform under a scheduler and report what happened',
    register: async (program, name, summary) =>
      (await import('./run-options.ts')).registerRunCommand(program.command(name).description(summary)),
  },
  sweep: {
    summary:
      "run a workload over sizes x policies x repetitions; write CSVs and plots (seed 000's Figures 2 and 3: --figure fig2|fig3)",
    register: async (program) => (await import('./sweep-command.ts')).registerSweepCommand(program),
  },
  report: {
    summary:
      'one self-contained HTML page from run traces: Gantt per worker, copies per link, memory, ready tasks; several side by side',
    register: async (program, name, summary) =>
      (await import('./report-command.ts')).registerReportCommand(program, name, summary),
  },
  playground: {
    summary: 'the simulator in a web page: serve it on 127.0.0.1, or write it to a folder (--out)',
    register: async (program, name, summary) =>
      (await import('./playground-command.ts')).registerPlaygroundCommand(program, name, summary),
  },
  partition: {
    summary: "split an iterated kernel sequence over the devices (seed 003's benchmarks and strategies)",
    register: async (program, name, summary) =>
      (await import('./partition-command.ts')).registerPartitionCommand(program, name, summary),
  },
  calibrate: {
    summary: "measure this machine's bus and tune the kernels' performance models (real runs)",
    register: calibrateCommands,
  },
  platform: {
    summary: "platform files: export this machine's calibrated models, import StarPU's sampled machines",
    register: calibrateCommands,
  },
  replay: {
    summary:
      "simulate a StarPU task record (starpu_fxt_tool's tasks.rec) under a Locus policy, beside the recorded run",
    register: async (program, name, summary) =>
      (await import('./replay-command.ts')).registerReplayCommand(program, name, summary),
  },
  bench: {
    summary: "measure this runtime on this machine: Task Bench's METG (bench metg)",
    register: async (program, name, summary) =>
      (await import('./bench-command.ts')).registerBenchCommand(program, name, summary),
  },
  platforms: {
    summary: 'list the preset platforms with their figures and sources, or describe one',
    register: async (program, name, summary) =>
      (await import('./list-commands.ts')).registerPlatformsCommand(
        program.command(name).description(summary),
      ),
  },
  workloads: {
    summary: 'list the workload generators',
    register: async (program, name, summary) =>
      (await import('./list-commands.ts')).registerWorkloadsCommand(
        program.command(name).description(summary),
      ),
  },
  policies: {
    summary: 'list the schedulers and eviction policies',
    register: async (program, name, summary) =>
      (await import('./list-commands.ts')).registerPoliciesCommand(
        program.command(name).description(summary),
      ),
  },
  demo: {
    summary: "a short tour: seed 000's matrix product on two 500 MiB V100s, below and above the memory limit",
    register: async (program, name, summary) => {
      program
        .command(name)
        .description(summary)
        .action(async () => (await import('./demo-command.ts')).demoCommand());
    },
  },
};

/** The package's version, read from its package.json (two levels up from src/cli and dist/cli). */
function packageVersion(): string {
  const json = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(json) as { version: string }).version;
}

/** The top-level command `args` (process.argv without node and the script) invokes, if any. */
export function invokedCommand(args: readonly string[]): string | undefined {
  if (args[0] === 'help') return args[1];
  return args.find((a) => !a.startsWith('-'));
}

/**
 * Builds the command-line program: every command by its summary, and in full the ones named
 * in `full` ('all' for every command: tests and documentation tools).
 */
export async function buildProgram(full: readonly string[] | 'all' = 'all'): Promise<Command> {
  const program = new Command('locus')
    .description('A data-locality-aware task runtime for CPUs and memory-limited GPUs (simulated by default)')
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true);
  const entries = Object.entries(COMMANDS);
  const inFull = new Set(
    entries.filter(([name]) => full === 'all' || full.includes(name)).map(([, e]) => e.register),
  );
  const registered = new Set<CommandEntry['register']>();
  for (const [name, entry] of entries) {
    if (!inFull.has(entry.register)) program.command(name).description(entry.summary);
    else if (!registered.has(entry.register)) {
      registered.add(entry.register);
      await entry.register(program, name, entry.summary);
    }
  }
  return program;
}

/** Runs the CLI with `argv` (process.argv form); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args = argv.slice(2);
  // `locus help NAME` is `locus NAME --help`; an unknown NAME is then an unknown command.
  if (args[0] === 'help' && args.length > 1) {
    args = Object.hasOwn(COMMANDS, args[1]!) ? [...args.slice(1), '--help'] : args.slice(1, 2);
  }
  const name = invokedCommand(args);
  try {
    const program = await buildProgram(name !== undefined && Object.hasOwn(COMMANDS, name) ? [name] : []);
    if (args.length === 0) {
      program.outputHelp({ error: true }); // `locus` alone: the overview, on stderr, as a usage error
      return 2;
    }
    if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
      // The version, and which tile kernels real runs use (the addon's BLAS, or JavaScript).
      const { kernelsName, kernelsReason } = await import('../kernels/native/addon.ts');
      const why = kernelsReason();
      process.stdout.write(`${packageVersion()}\nkernels: ${kernelsName()}${why ? ` (${why})` : ''}\n`);
      return 0;
    }
    await program.parseAsync([...argv.slice(0, 2), ...args]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0; // --help, --version
      // A command that needs a subcommand got none: commander printed its help on stderr.
      if (e.code === 'commander.help') return 2;
      const { writeErrorLine } = await import('../cluster/launcher.ts');
      await writeErrorLine(
        `locus: ${e.message.replace(/^error: /, '').replace(/\n/g, ' ')}\n`,
        'LOCUS_OPTION_INVALID',
      );
      return 2;
    }
    if (e instanceof LocusError) {
      // Imported here: --version and --help load no more than they need.
      const { cliMessage } = await import('./errors.ts');
      // Under mpirun, an input error every rank shares is printed by rank 0 only.
      const { writeErrorLine } = await import('../cluster/launcher.ts');
      await writeErrorLine(`locus: ${cliMessage(e)}\n`, e.code);
      return 2;
    }
    const { outputErrorLine } = await import('./errors.ts');
    const line = outputErrorLine(e);
    if (line === undefined) throw e;
    process.stderr.write(line);
    return 2;
  }
}
