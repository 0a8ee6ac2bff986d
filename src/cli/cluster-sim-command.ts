/**
 * `locus run --cluster sim`: a workload distributed over a simulated cluster (a platform with
 * a `cluster` field, such as the ac-cluster preset), every node an engine of its own, messages
 * over the simulated network (src/sim/cluster/). Prints the per-node tasks, messages and bytes,
 * the totals, the GFlop/s and the makespan (or the JSON report with --json).
 */
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { formatBandwidth, formatBytes, formatDuration } from '../platform/units.ts';
import { parsePolicySpec } from '../report/policy-spec.ts';
import { workloadDistribution } from '../sim/cluster/distribution.ts';
import { type ClusterSimReport, clusterOf, simulateCluster } from '../sim/cluster/simulate.ts';
import { WORKLOADS } from '../workloads/index.ts';
import { table } from './format.ts';
import { checkWorkloadOptions, type RunOptions } from './run-command.ts';
import { checkTraceFile, workloadParams, writeTraceFile } from './run-inputs.ts';
import { schedulerOptionsFrom } from './sim-options.ts';

/** Runs `locus run --cluster sim` and writes its output; throws LocusError on bad input. */
export function clusterSimCommand(o: RunOptions): void {
  // (The options a simulated cluster does not read were refused by runCommand: OPTION_TABLE.)
  if (o.priorities !== 'none' && o.priorities !== 'bottom-level') {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--priorities must be none or bottom-level (got '${o.priorities}')`,
    );
  }
  checkWorkloadOptions(o);
  const generator = Object.hasOwn(WORKLOADS, o.workload) ? WORKLOADS[o.workload] : undefined;
  if (generator === undefined) {
    throw new LocusError(
      'LOCUS_NAME_UNKNOWN',
      `unknown workload '${o.workload}': use one of ${Object.keys(WORKLOADS).join(', ')}`,
    );
  }
  const policy = parsePolicySpec(o.sched);
  if (policy.eviction !== undefined && o.eviction !== undefined && o.eviction !== policy.eviction) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--sched ${o.sched} names eviction ${policy.eviction} but --eviction says ${o.eviction}: give one`,
    );
  }
  if (o.platform === undefined) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      '--cluster sim needs --platform: the ac-cluster preset or a platform file with a "cluster" field',
    );
  }
  const resolved = resolvePlatform(o.platform, { gpus: o.gpus, cpus: o.cpus, gpuMem: o.gpuMem });
  const network = clusterOf(resolved);
  const platform: Platform = {
    ...resolved,
    cluster: {
      ...network,
      nicBandwidth: o.nicBandwidth ?? network.nicBandwidth,
      latency: o.networkLatency ?? network.latency,
    },
  };
  const nodes = clusterOf(platform, o.nodes).nodes.length;
  const instance = generator.instance(workloadParams(o));
  const dist = workloadDistribution(o.workload, instance, o.distribution, nodes);
  checkTraceFile(o.trace);
  const { report, trace } = simulateCluster({
    platform,
    nodes,
    submit: (s) => generator.submit(s, instance),
    distribution: dist.distribution,
    distributionName: dist.name,
    scheduler: policy.scheduler,
    schedulerOptions: schedulerOptionsFrom(o),
    eviction: policy.eviction ?? o.eviction ?? 'lru',
    seed: o.seed,
    noise: o.noise,
    priorities: o.priorities,
    gpuPipeline: o.pipeline,
    gpuLookahead: o.lookahead,
    streams: o.streams,
    cleanFirst: o.cleanFirst,
    minClean: o.minClean,
    targetClean: o.targetClean,
    workload: `${o.workload} ${instance.description}`,
    trace: o.trace !== undefined,
    keepReceived: o.keepReceived === true,
  });
  if (o.trace !== undefined) writeTraceFile(o.trace, trace);
  if (o.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${formatClusterReport(report)}\n`);
  if (o.trace) process.stdout.write(`trace written to ${o.trace} (open it in https://ui.perfetto.dev)\n`);
}

/** The text report of a simulated cluster run. */
export function formatClusterReport(r: ClusterSimReport): string {
  const n = r.network;
  const head = [
    `${r.workload} on ${r.nodes} nodes of ${r.platform} (simulated cluster), scheduler ${r.scheduler}, eviction ${r.eviction}, distribution ${r.distribution}`,
    `network: NIC ${formatBandwidth(n.nicBandwidth)} each way, latency ${formatDuration(n.latency)}, switch ${n.switchBandwidth === null ? 'non-blocking' : formatBandwidth(n.switchBandwidth)}`,
    `makespan ${formatDuration(r.makespanS)}, ${r.gflops.toFixed(1)} GFlop/s, ${r.tasks} tasks, ${r.messages} messages (${formatBytes(r.messageBytes)})`,
    r.keepReceived
      ? 'received copies kept in host memory for the whole run (--keep-received)'
      : 'received copies dropped after their last reader on the node (--keep-received keeps them)',
  ];
  const rows = [
    [
      'node',
      'tasks',
      'sent',
      'bytes sent',
      'received',
      'bytes received',
      'dropped',
      'host peak',
      'GFlop/s',
      'last task end',
    ],
    ...r.perNode.map((p) => [
      p.name,
      String(p.tasks),
      String(p.messagesSent),
      formatBytes(p.bytesSent),
      String(p.messagesReceived),
      formatBytes(p.bytesReceived),
      String(p.copiesDropped),
      formatBytes(p.hostPeakBytes),
      p.gflops.toFixed(1),
      formatDuration(p.makespanS),
    ]),
  ];
  return `${head.join('\n')}\n\n${table(rows)}`;
}
