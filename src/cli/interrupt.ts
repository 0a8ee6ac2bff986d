/**
 * Ctrl-C (SIGINT) and SIGTERM during a long command: the first one aborts the run through an
 * AbortSignal, so that the command can stop cleanly, say so in one line and exit with the
 * shell's code for that signal (130 or 143); a second one ends the process at once.
 */

/** The signals a run stops on, and the exit code of each (128 + its number). */
const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** One of the signals a run stops on. */
export type StopSignal = keyof typeof EXIT_CODES;

/** Listens for SIGINT and SIGTERM from creation until dispose(). */
export class Interrupt {
  private readonly controller = new AbortController();
  private received: StopSignal | undefined;
  private readonly handlers = new Map<StopSignal, () => void>();

  constructor() {
    for (const name of Object.keys(EXIT_CODES) as StopSignal[]) {
      const handler = () => {
        this.received ??= name;
        this.controller.abort();
      };
      this.handlers.set(name, handler);
      process.once(name, handler);
    }
  }

  /** Aborted when a signal arrives. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The exit code for the signal received: 130 (SIGINT) or 143 (SIGTERM). */
  get exitCode(): number {
    return EXIT_CODES[this.received ?? 'SIGINT'];
  }

  /** How the one line starts: "interrupted" (Ctrl-C) or "terminated (SIGTERM)". */
  get verb(): string {
    return this.received === 'SIGTERM' ? 'terminated (SIGTERM)' : 'interrupted';
  }

  /** Stops listening: the signals have their default effect again. */
  dispose(): void {
    for (const [name, handler] of this.handlers) process.off(name, handler);
  }
}
