/**
 * Runs the commands the docs show, from the repository root, and masks what varies from one
 * run to the next (wall-clock figures) so that a page regenerated twice on the same commit
 * reads the same.
 */
import { spawn } from 'node:child_process';

/** What a command printed. */
export interface CommandOutput {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `locus ...` as the shell runs it (`node bin/locus.mjs ...`); other commands unchanged. */
export function shellCommand(command: string): string {
  return command.replace(/^locus(?=\s|$)/, 'node bin/locus.mjs');
}

/** Runs one command with bash in `cwd`; never rejects (the exit code tells). */
export function runCommand(command: string, cwd: string, timeoutMs = 60 * 60_000): Promise<CommandOutput> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', shellCommand(command)], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ command, code, stdout, stderr }));
    child.on('error', (e) => resolve({ command, code: null, stdout, stderr: `${stderr}${e.message}\n` }));
  });
}

/** Placeholder for a measured figure in regenerated text. */
export const MEASURED = '…';

/**
 * Masks the wall-clock figures of Locus's outputs: the text report's last line, `wallS` and
 * `schedulingS` in JSON. Everything else a simulation prints is deterministic.
 */
export function maskWallClock(text: string): string {
  return text
    .replace(
      /^simulated in .* of wall time \(.* tasks\/s\)$/gm,
      `simulated in ${MEASURED} of wall time (${MEASURED} tasks/s; measured, varies)`,
    )
    .replace(/("(?:wallS|schedulingS)": )[0-9.e+-]+/g, `$1"${MEASURED}"`)
    .replace(/^(scheduling\s+)\S.*$/gm, `$1${MEASURED} (measured, varies)`);
}

/** A cache of command outputs: each distinct command runs once per regeneration. */
export class CommandCache {
  private readonly runs = new Map<string, Promise<CommandOutput>>();

  constructor(private readonly cwd: string) {}

  /** Runs `commands` ahead, `concurrency` at a time (their outputs are then cached). */
  async warm(commands: readonly string[], concurrency: number): Promise<void> {
    const queue = [...new Set(commands)];
    const worker = async () => {
      for (let c = queue.shift(); c !== undefined; c = queue.shift()) await this.get(c);
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  }

  /** The output of `command`, run now or earlier in this regeneration (`fresh`: run it again). */
  get(command: string, fresh = false): Promise<CommandOutput> {
    if (fresh) return runCommand(command, this.cwd);
    let p = this.runs.get(command);
    if (!p) {
      p = runCommand(command, this.cwd);
      this.runs.set(command, p);
    }
    return p;
  }
}
