/** The messages between the playground page and its web worker. */
import type { RunColumns, RunFacts } from '../../src/html-report/payload.ts';
import type { PlaygroundRun } from '../../src/playground/simulate-run.ts';

/** Page to worker: run one simulation. */
export interface RunRequest {
  type: 'run';
  run: PlaygroundRun;
}

/** Worker to page. */
export type WorkerMessage =
  | {
      type: 'hello';
      presets: { name: string; description: string }[];
      workloads: { name: string; description: string }[];
      schedulers: string[];
      evictions: string[];
    }
  | { type: 'progress'; done: number; total: number }
  | { type: 'result'; report: Record<string, unknown>; facts: RunFacts; columns: RunColumns }
  | { type: 'error'; message: string };
