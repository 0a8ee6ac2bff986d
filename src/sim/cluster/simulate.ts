/**
 * The simulated cluster: distributed task insertion (seed 001 section IV, StarPU-MPI) over a
 * platform whose `cluster` field says how many nodes it has and how the network joins them.
 * Every node runs its own engine (src/core/engine.ts) with its own scheduler, eviction policy
 * and simulated backend (its GPUs, buses and PCIe links), all on one shared virtual clock; the
 * messages the insertion planner inserted (ClusterGraphBuilder) cross the simulated network
 * (MessageNetwork). A message starts once its SEND holds the datum valid in the sender's host
 * memory and its RECV holds it for writing in the receiver's (both posted, as a rendezvous
 * does), takes latency + its share of the NICs' bandwidth, then releases both; the tasks that
 * read the datum on the receiver then run. A received copy takes host memory on its receiver
 * from its message's posting until its last reader there has ended, and is then dropped
 * (copies.ts; with keepReceived, every copy stays for the whole run instead). Deterministic: at
 * one instant the network's events come first, then the nodes' in node order.
 */

import { type Distribution, parseDistribution, squarestGrid } from '../../cluster/distribution.ts';
import type { Engine } from '../../core/engine.ts';
import type { TaskGraph } from '../../core/graph.ts';
import { PlatformModel } from '../../core/model.ts';
import type { ClusterNetwork, Platform } from '../../core/platform.ts';
import { LocusError } from '../../core/types.ts';
import type { Driver } from '../../drive/driver.ts';
import { createEviction } from '../../evict/index.ts';
import { createScheduler } from '../../sched/index.ts';
import { ChromeTrace } from '../../trace/chrome.ts';
import { buildReport, type RunReport } from '../../trace/report.ts';
import type { RunStats } from '../../trace/stats.ts';
import { GraphSubmitter } from '../../workloads/graph-submitter.ts';
import type { Submitter } from '../../workloads/submitter.ts';
import type { RunSettings } from '../simulate.ts';
import { Simulator } from '../simulator.ts';
import { ClusterGraphBuilder, type Message } from './builder.ts';
import { CopyLifetimes } from './copies.ts';
import { MessageNetwork } from './messages.ts';
import { clusterTrace, type MessageSpan, type TraceJson } from './trace.ts';

/** Options of a simulated cluster run; the RunSettings apply to every node. */
export interface ClusterSimOptions extends RunSettings {
  /** A platform with a `cluster` field (a cluster file or preset). */
  platform: Platform;
  /** Submits the workload (called once, into the builder of every node's graph). */
  submit: (s: Submitter) => void;
  /** Nodes used: the first `nodes` of the cluster (default: all). */
  nodes?: number;
  /** '2d' (the squarest grid), '2d:PxQ', '1d', or a function; default '2d'. */
  distribution?: string | Distribution;
  /** How the report names a distribution given as a function (default 'function'). */
  distributionName?: string;
  /** Scheduler of every node (default 'eager'). */
  scheduler?: string;
  /** Eviction policy of every node (default 'lru'). */
  eviction?: string;
  /** Seed of the runs' draws (default 1). */
  seed?: number;
  /** Task priorities: 'none' (the workload's, default) or 'bottom-level' (of the whole graph). */
  priorities?: 'none' | 'bottom-level';
  /** Relative spread of task durations (default 0). */
  noise?: number;
  /** Workload label for the report. */
  workload?: string;
  /** Record a Chrome trace of every node and of the messages. */
  trace?: boolean;
  /**
   * Keep every received copy in the receiver's host memory for the whole run (registered
   * there from the start) instead of dropping it after its last reader (default false).
   */
  keepReceived?: boolean;
  /** Called with each node's rank and engine once the run has ended (tests, tools). */
  inspect?: (rank: number, engine: Engine) => void;
}

/** What one node did. */
export interface ClusterNodeReport {
  /** Node index (its rank) and name. */
  rank: number;
  name: string;
  /** Tasks it ran (SENDs and RECVs apart). */
  tasks: number;
  /** Messages it sent and received, and their bytes (as delivered by the network). */
  messagesSent: number;
  bytesSent: number;
  messagesReceived: number;
  bytesReceived: number;
  /** End of its last task (seconds). */
  makespanS: number;
  /** Flops of its tasks over the cluster's makespan, in GFlop/s. */
  gflops: number;
  /** Bytes its host memory sent to its GPUs and received from them. */
  bytesToDevices: number;
  bytesFromDevices: number;
  /** The most bytes its host memory held at once (the data it keeps and the live copies). */
  hostPeakBytes: number;
  /** Received copies it dropped after their last reader (0 with keepReceived). */
  copiesDropped: number;
}

/** The report of a simulated cluster run. */
export interface ClusterSimReport {
  mode: 'simulated';
  cluster: 'sim';
  platform: string;
  workload: string;
  scheduler: string;
  eviction: string;
  /** The distribution ('2d' written with its grid: '2d:2x2'). */
  distribution: string;
  seed: number;
  /** Nodes used. */
  nodes: number;
  /** The network's figures (switch bandwidth null: non-blocking). */
  network: { nicBandwidth: number; latency: number; switchBandwidth: number | null };
  /** Tasks run (SENDs and RECVs apart), flops, their end and the throughput. */
  tasks: number;
  totalFlops: number;
  makespanS: number;
  gflops: number;
  /** Messages delivered and their bytes. */
  messages: number;
  messageBytes: number;
  /** Messages the insertion planner inserted (equal to `messages` when the run completed). */
  plannedMessages: number;
  /** Whether received copies stayed for the whole run (keepReceived) or were dropped. */
  keepReceived: boolean;
  perNode: ClusterNodeReport[];
  /** Wall-clock seconds the simulation took. */
  wallS: number;
}

/** What simulateCluster returns: the report, each node's run report, and the trace if asked. */
export interface ClusterSimResult {
  report: ClusterSimReport;
  /** When each message's copy was dropped on its receiver (-1: never), by message id. */
  droppedAt: Float64Array;
  /** The messages of the run (builder order) and when each was posted and delivered. */
  messages: readonly Message[];
  postedAt: Float64Array;
  deliveredAt: Float64Array;
  /** Each node's ordinary run report (its workers, links and transfers). */
  nodeReports: RunReport[];
  trace?: TraceJson;
}

/** The cluster of `platform` cut to its first `nodes` nodes; a LocusError when it has none or fewer. */
export function clusterOf(platform: Platform, nodes?: number): ClusterNetwork {
  const c = platform.cluster;
  if (c === undefined) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `platform ${platform.name} is one machine, not a cluster: give a platform file with a "cluster" field or the ac-cluster preset`,
    );
  }
  if (nodes === undefined) return c;
  if (!(Number.isInteger(nodes) && nodes >= 1 && nodes <= c.nodes.length)) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--nodes must be an integer from 1 to ${c.nodes.length} (platform ${platform.name} has ${c.nodes.length} nodes; got ${nodes})`,
    );
  }
  return { ...c, nodes: c.nodes.slice(0, nodes) };
}

/** One node's simulation: its engine and backend, driver, statistics and trace. */
interface NodeSim {
  sim: Simulator;
  driver: Driver;
  stats: RunStats;
  trace: ChromeTrace | undefined;
  /** Message of each SEND / RECV task of this node. */
  messageOf: Map<number, number>;
}

/** Runs the workload distributed over the cluster and reports. */
export function simulateCluster(o: ClusterSimOptions): ClusterSimResult {
  const t0 = performance.now();
  const cluster = clusterOf(o.platform, o.nodes);
  const n = cluster.nodes.length;
  const spec = o.distribution ?? '2d';
  const distribution = parseDistribution(spec, n);
  const described =
    typeof spec === 'function'
      ? (o.distributionName ?? 'function')
      : spec === '2d'
        ? `2d:${squarestGrid(n).join('x')}`
        : spec;
  let priorities: Float64Array | undefined;
  if (o.priorities === 'bottom-level') {
    // The bottom levels of the workload's own graph (messages apart), as one machine gets them.
    const whole = new GraphSubmitter();
    o.submit(whole);
    whole.graph.setBottomLevelPriorities();
    priorities = whole.graph.taskPriority.data.slice(0, whole.graph.taskCount);
  }
  const builder = new ClusterGraphBuilder(n, distribution, priorities);
  o.submit(builder);
  const messages = builder.messages;
  const seed = o.seed ?? 1;
  const { cluster: _, ...machine } = o.platform;
  const keep = o.keepReceived === true;
  const plan = builder.copyPlan();
  const hostCapacity = machine.nodes[machine.homeNode]!.capacity;
  const copies = new CopyLifetimes(
    plan,
    Float64Array.from(messages, (m) => m.bytes),
    Int32Array.from(messages, (m) => m.to),
    cluster.nodes,
    cluster.nodes.map(() => hostCapacity),
    keep,
  );
  copies.checkStart();
  // Per message: when its SEND and RECV were acquired (-1: not yet), when it was posted and delivered.
  const sendReady = new Float64Array(messages.length).fill(-1);
  const recvReady = new Float64Array(messages.length).fill(-1);
  const posted = new Float64Array(messages.length).fill(-1);
  const delivered = new Float64Array(messages.length).fill(-1);
  const net = new MessageNetwork(cluster, n);
  const acquired = (r: number, task: number): void => {
    const i = nodes[r]!.messageOf.get(task)!;
    const m = messages[i]!;
    const now = nodes[r]!.sim.backend.now();
    if (r === m.from) sendReady[i] = now;
    else recvReady[i] = now;
    if (sendReady[i]! >= 0 && recvReady[i]! >= 0) {
      posted[i] = now;
      copies.posted(i, now);
      net.post(i, m.bytes, m.from, m.to, now);
    }
  };
  // Without keepReceived, the copies' host memory is this file's to account (copies.ts): each
  // node's engine gets room for all of them, so its own check at registration counts none.
  const nodes: NodeSim[] = builder.graphs.map((graph, r) =>
    node(
      o,
      keep ? machine : withHostRoom(machine, plan.receivedOnlyBytes[r]!),
      graph,
      seed,
      r,
      copies,
      (task) => acquired(r, task),
    ),
  );
  messages.forEach((m, i) => {
    nodes[m.from]!.messageOf.set(m.sendTask, i);
    nodes[m.to]!.messageOf.set(m.recvTask, i);
  });
  nodes.forEach((s, r) => {
    try {
      s.sim.engine.start(0);
    } catch (e) {
      if (!(e instanceof LocusError && e.code === 'LOCUS_HOST_MEMORY_TOO_SMALL')) throw e;
      throw new LocusError(
        e.code,
        `node ${cluster.nodes[r]} of ${n}: ${e.message.replace(/^the data/, 'the data it owns and the copies it receives')}, or more nodes`,
      );
    }
    s.driver.execute();
  });
  for (;;) {
    let best = net.nextTime();
    let who = -1;
    for (let r = 0; r < n; r++) {
      const t = nodes[r]!.sim.backend.nextTime();
      if (t < best) {
        best = t;
        who = r;
      }
    }
    if (best === Number.POSITIVE_INFINITY) break;
    if (who >= 0) {
      nodes[who]!.sim.backend.poll(nodes[who]!.driver, best);
      continue;
    }
    for (const i of net.step(best)) {
      delivered[i] = best;
      const m = messages[i]!;
      for (const [r, task] of [
        [m.from, m.sendTask],
        [m.to, m.recvTask],
      ] as const) {
        const s = nodes[r]!;
        s.sim.backend.advance(best);
        s.sim.engine.release(task, best);
        s.driver.execute();
      }
    }
  }
  const stuck = nodes.findIndex((s) => !s.sim.engine.isFinished);
  if (stuck >= 0) {
    const e = nodes[stuck]!.sim.engine;
    throw new LocusError(
      'LOCUS_SIMULATION_FAILED',
      `simulated cluster stalled: node ${cluster.nodes[stuck]} has ${e.submittedTasks - e.finishedTasks} of ${e.submittedTasks} tasks not ended and nothing is in flight`,
    );
  }
  if (o.inspect) for (let r = 0; r < n; r++) o.inspect(r, nodes[r]!.sim.engine);
  return finish(o, cluster, described, builder, nodes, copies, { delivered, posted }, seed, t0);
}

/** `machine` with `bytes` more host memory (room for the copies that copies.ts accounts). */
function withHostRoom(machine: Platform, bytes: number): Platform {
  return {
    ...machine,
    nodes: machine.nodes.map((m, i) => (i === machine.homeNode ? { ...m, capacity: m.capacity + bytes } : m)),
  };
}

/**
 * Builds node `r`'s simulator on the machine, with statistics, a trace if asked, and the driver
 * that tells `acquired` when a SEND or RECV of the node holds its datum and `copies` when its
 * tasks start and end (dropping the copies whose last reader ended).
 */
function node(
  o: ClusterSimOptions,
  machine: Platform,
  graph: TaskGraph,
  seed: number,
  r: number,
  copies: CopyLifetimes,
  acquired: (task: number) => void,
): NodeSim {
  const drop = (local: number): void => sim.engine.dropReplicas(local, sim.backend.now());
  const ended = (task: number): void => copies.ended(r, task, sim.backend.now(), drop);
  const sim: Simulator = new Simulator({
    graph,
    platform: machine,
    scheduler: createScheduler(o.scheduler ?? 'eager', o.schedulerOptions),
    eviction: createEviction(o.eviction ?? 'lru'),
    model: new PlatformModel(machine, graph),
    seed: seed + r,
    noise: o.noise,
    gpuPipeline: o.gpuPipeline,
    gpuLookahead: o.gpuLookahead,
    streams: o.streams,
    cleanFirst: o.cleanFirst,
    minClean: o.minClean,
    targetClean: o.targetClean,
    hooks: { acquired, ended },
  });
  const { driver, stats } = sim;
  const trace = o.trace ? new ChromeTrace(sim.engine) : undefined;
  if (trace) sim.engine.observe(trace);
  sim.engine.observe({ taskStarted: (task) => copies.started(r, task) });
  return { sim, driver, stats, trace, messageOf: new Map() };
}

/** The report (and trace) of a finished run. */
function finish(
  o: ClusterSimOptions,
  cluster: ClusterNetwork,
  distribution: string,
  builder: ClusterGraphBuilder,
  nodes: NodeSim[],
  copies: CopyLifetimes,
  times: { delivered: Float64Array; posted: Float64Array },
  seed: number,
  t0: number,
): ClusterSimResult {
  const messages = builder.messages;
  const makespanS = Math.max(...nodes.map((s) => s.driver.makespan));
  const perNode: ClusterNodeReport[] = nodes.map((s, r) => ({
    rank: r,
    name: cluster.nodes[r]!,
    tasks: builder.planner.counts[r]!.tasks,
    messagesSent: 0,
    bytesSent: 0,
    messagesReceived: 0,
    bytesReceived: 0,
    makespanS: s.driver.makespan,
    gflops: makespanS > 0 ? builder.flops[r]! / makespanS / 1e9 : 0,
    bytesToDevices: s.stats.bytesToDevices,
    bytesFromDevices: s.stats.bytesFromDevices,
    hostPeakBytes: copies.peak[r]!,
    copiesDropped: copies.dropped[r]!,
  }));
  let delivered = 0;
  let bytes = 0;
  messages.forEach((m: Message, i) => {
    if (times.delivered[i]! < 0) return;
    delivered++;
    bytes += m.bytes;
    const from = perNode[m.from]!;
    from.messagesSent++;
    from.bytesSent += m.bytes;
    const to = perNode[m.to]!;
    to.messagesReceived++;
    to.bytesReceived += m.bytes;
  });
  const wallS = (performance.now() - t0) / 1000;
  const nodeReports = nodes.map((s, r) =>
    buildReport(s.sim.engine, s.stats, {
      mode: 'simulated',
      workload: `${o.workload ?? 'workload'} (node ${cluster.nodes[r]})`,
      seed: seed + r,
      makespanS,
      endS: s.sim.backend.now(),
      wallS,
    }),
  );
  const totalFlops = builder.flops.reduce((a, b) => a + b, 0);
  const report: ClusterSimReport = {
    mode: 'simulated',
    cluster: 'sim',
    platform: o.platform.name,
    workload: o.workload ?? 'workload',
    scheduler: nodes[0]!.sim.engine.scheduler.name,
    eviction: nodes[0]!.sim.engine.eviction.name,
    distribution,
    seed,
    nodes: cluster.nodes.length,
    network: {
      nicBandwidth: cluster.nicBandwidth,
      latency: cluster.latency,
      switchBandwidth: Number.isFinite(cluster.switchBandwidth) ? cluster.switchBandwidth : null,
    },
    tasks: perNode.reduce((a, p) => a + p.tasks, 0),
    totalFlops,
    makespanS,
    gflops: makespanS > 0 ? totalFlops / makespanS / 1e9 : 0,
    messages: delivered,
    messageBytes: bytes,
    plannedMessages: builder.planner.counts.reduce((a, c) => a + c.messagesSent, 0),
    keepReceived: copies.keep,
    perNode,
    wallS,
  };
  let trace: TraceJson | undefined;
  if (o.trace) {
    const spans: MessageSpan[] = messages.map((m, i) => ({
      ...m,
      name: builder.handleName(m.handle),
      postedS: times.posted[i]!,
      deliveredS: times.delivered[i]!,
    }));
    trace = clusterTrace(
      nodes.map((s) => s.trace!),
      cluster.nodes,
      spans,
    );
  }
  return {
    report,
    droppedAt: copies.droppedAt,
    messages,
    postedAt: times.posted,
    deliveredAt: times.delivered,
    nodeReports,
    ...(trace ? { trace } : {}),
  };
}
