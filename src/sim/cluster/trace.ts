/**
 * The Chrome trace of a simulated cluster: each node's own trace (workers, transfers, memory)
 * under its node's name, and a "network" process with one slice per message, from the moment
 * it was posted (both its SEND and RECV held the datum) to its delivery, on its sender's track.
 */
import type { ChromeTrace } from '../../trace/chrome.ts';

/** A trace event, as ChromeTrace writes them. */
type TraceEvent = ReturnType<ChromeTrace['toJSON']>['traceEvents'][number];

/** A Chrome trace as JSON. */
export interface TraceJson {
  traceEvents: TraceEvent[];
  displayTimeUnit: string;
}

/** A message as the trace shows it. */
export interface MessageSpan {
  /** Datum name, bytes, sender, receiver, tag. */
  name: string;
  bytes: number;
  from: number;
  to: number;
  tag: number;
  /** When it was posted and delivered (seconds; -1: never). */
  postedS: number;
  deliveredS: number;
}

/** Process ids: the network is 1; node r's processes are 100 (r + 1) + their own pid. */
const NETWORK_PID = 1;
const nodePid = (r: number, pid: number) => 100 * (r + 1) + pid;

/** Merges the nodes' traces and the messages into one trace. */
export function clusterTrace(
  traces: readonly ChromeTrace[],
  names: readonly string[],
  messages: readonly MessageSpan[],
): TraceJson {
  const events: TraceEvent[] = [
    {
      name: 'process_name',
      ph: 'M',
      ts: 0,
      pid: NETWORK_PID,
      tid: 0,
      args: { name: 'network (messages by sender)' },
    },
    ...names.map((name, r) => ({
      name: 'thread_name',
      ph: 'M',
      ts: 0,
      pid: NETWORK_PID,
      tid: r,
      args: { name: `from ${name}` },
    })),
  ];
  traces.forEach((t, r) => {
    for (const e of t.toJSON().traceEvents) {
      const renamed =
        e.name === 'process_name' && e.args
          ? { ...e.args, name: `${names[r]}: ${String(e.args.name)}` }
          : e.args;
      events.push({ ...e, pid: nodePid(r, e.pid), ...(renamed ? { args: renamed } : {}) });
    }
  });
  for (const m of messages) {
    if (m.deliveredS < 0) continue;
    events.push({
      name: `${m.name} to ${names[m.to]}`,
      cat: 'message',
      ph: 'X',
      ts: m.postedS * 1e6,
      dur: (m.deliveredS - m.postedS) * 1e6,
      pid: NETWORK_PID,
      tid: m.from,
      args: { bytes: m.bytes, from: names[m.from], to: names[m.to], tag: m.tag },
    });
  }
  return { traceEvents: events, displayTimeUnit: 'ms' };
}
