/**
 * The playground's web worker: the simulator itself (the same sources as `locus run`,
 * bundled for the browser), one run per request, its progress and its result (the report and
 * the report page's columns, the typed arrays transferred, not copied).
 */
import { EVICTION_POLICIES } from '../../src/evict/index.ts';
import { PRESETS } from '../../src/platform/machines.ts';
import { simulateRun } from '../../src/playground/simulate-run.ts';
import { SCHEDULERS } from '../../src/sched/index.ts';
import { WORKLOADS } from '../../src/workloads/index.ts';
import type { RunRequest, WorkerMessage } from './protocol.ts';

// The simulator yields to the event loop with setImmediate (Node's); a worker has none.
const g = globalThis as unknown as { setImmediate?: (f: () => void) => void };
if (g.setImmediate === undefined) {
  const channel = new MessageChannel();
  const queue: (() => void)[] = [];
  channel.port1.onmessage = () => queue.shift()?.();
  g.setImmediate = (f) => {
    queue.push(f);
    channel.port2.postMessage(0);
  };
}

const post = (m: WorkerMessage, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(m, transfer);

post({
  type: 'hello',
  presets: Object.entries(PRESETS)
    .filter(([name]) => name !== 'local' && PRESETS[name]!.build().cluster === undefined)
    .map(([name, p]) => ({ name, description: p.description })),
  workloads: Object.entries(WORKLOADS).map(([name, w]) => ({ name, description: w.description })),
  schedulers: Object.keys(SCHEDULERS),
  evictions: Object.keys(EVICTION_POLICIES),
});

self.onmessage = async (e: MessageEvent<RunRequest>) => {
  try {
    let last = 0;
    const { report, page } = await simulateRun(e.data.run, (done, total) => {
      const now = performance.now();
      if (now - last < 100 && done < total) return;
      last = now;
      post({ type: 'progress', done, total });
    });
    const buffers = Object.values(page.columns)
      .filter((c): c is Exclude<typeof c, string[]> => !Array.isArray(c))
      .map((c) => c.buffer as ArrayBuffer);
    post(
      {
        type: 'result',
        report: report as unknown as Record<string, unknown>,
        facts: page.facts,
        columns: page.columns,
      },
      [...new Set(buffers)],
    );
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
