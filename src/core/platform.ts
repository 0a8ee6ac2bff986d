/**
 * The engine's view of a machine: memory nodes, workers and the links between nodes.
 * src/platform builds one from a validated JSON file or a preset; the engine and the
 * drivers only read it. Units are SI: bytes, seconds, bytes per second, flop per second.
 */
import type { FootprintRule } from './footprint.ts';
import type { WorkerKind } from './types.ts';

/** A memory node: host RAM, one GPU's memory, or a disk below host memory (out of core). */
export interface MemoryNode {
  /** Name used in reports ("ram", "gpu0", "nvme"). */
  readonly name: string;
  /**
   * 'host' for main memory, 'gpu' for a device memory, 'disk' for a disk that holds the data
   * out of core (src/platform/disk.ts): with one, every handle's home is the disk and host
   * memory caches it as a GPU memory does.
   */
  readonly kind: 'host' | 'gpu' | 'disk';
  /** Capacity in bytes (Infinity for unlimited). */
  readonly capacity: number;
}

/** A processing unit attached to one memory node. */
export interface Worker {
  /** Name used in reports ("cpu0", "gpu1"). */
  readonly name: string;
  /** The kind of implementation this worker runs. */
  readonly kind: WorkerKind;
  /** Index of the memory node whose replicas its tasks read and write. */
  readonly node: number;
  /** Default compute rate in flop/s, used for codelets without their own rate. */
  readonly flops: number;
  /** Per-codelet compute rates in flop/s (keyed by codelet name); overrides `flops`. */
  readonly codeletFlops: Readonly<Record<string, number>>;
  /**
   * Per-codelet footprint rules (src/core/footprint.ts), tried before the rates: a duration or
   * rate per data-size footprint. Absent or empty: the rates apply to every task.
   */
  readonly codeletModels?: Readonly<Record<string, readonly FootprintRule[]>>;
  /** Power drawn in each state (seed 002's energy model), when the platform gives it. */
  readonly power?: WorkerPower;
}

/**
 * Watts a worker draws in each state (seed 002). For a GPU worker these cover the GPU and the
 * CPU core its control thread runs on.
 */
export interface WorkerPower {
  /** Running a task (a GPU's control thread busy-waiting on it). */
  readonly computing: number;
  /** No task, the thread spinning (polling) for work. */
  readonly polling: number;
  /** No task, the thread blocked (on a semaphore). */
  readonly blocked: number;
  /**
   * GPU workers: what the control thread's core adds to `computing` while it busy-waits on
   * its GPU; saved when it blocks instead (idle policy ea2). 0 for CPU workers.
   */
  readonly controlThread: number;
}

/** A link between memory nodes; its bandwidth is shared by the transfers that cross it. */
export interface Link {
  /** Name used in reports ("ram->gpu0", "host-bus"). */
  readonly name: string;
  /** Bandwidth in bytes per second. */
  readonly bandwidth: number;
  /** Latency in seconds paid once by every transfer that crosses the link. */
  readonly latency: number;
}

/** A compiled platform: what the engine and the drivers need to know about a machine. */
export interface Platform {
  /** Preset or file name. */
  readonly name: string;
  /** Memory nodes; index 0 is conventionally host RAM. */
  readonly nodes: readonly MemoryNode[];
  /** The node that holds every handle's home copy (host RAM). */
  readonly homeNode: number;
  /** Workers, each bound to one node. */
  readonly workers: readonly Worker[];
  /** Links; routes refer to them by index. */
  readonly links: readonly Link[];
  /**
   * routes[src * nodes.length + dst]: the links a direct copy from src to dst crosses, in
   * order, or null when there is no direct copy (GPU to GPU without peer-to-peer: the engine
   * then stages the data through the home node, as StarPU's chained requests do).
   */
  readonly routes: readonly (readonly number[] | null)[];
  /**
   * Disks a platform file describes (memory nodes of kind 'disk') that are not attached: a
   * run attaches one as a memory node (attachDisk, src/platform/disk.ts) only when the data do
   * not fit in host memory. Absent when the file has none.
   */
  readonly disks?: readonly DiskSpec[];
  /** Watts the machine draws whatever its workers do (memory, disks, fans, ...), if known. */
  readonly staticPower?: number;
  /**
   * Present when the platform is a cluster: several nodes, each this machine, joined by a
   * network (the simulated cluster, src/sim/cluster/). Absent for a single machine.
   */
  readonly cluster?: ClusterNetwork;
}

/** A disk that can hold the data below host memory (SI units). */
export interface DiskSpec {
  /** Node name ("nvme"). */
  readonly name: string;
  /** Capacity in bytes. */
  readonly capacity: number;
  /** Bandwidth of reads (disk to host memory), bytes per second. */
  readonly readBandwidth: number;
  /** Bandwidth of writes (host memory to disk), bytes per second. */
  readonly writeBandwidth: number;
  /** Latency paid once by every read or write, seconds. */
  readonly latency: number;
  /** Real runs: the directory holding the disk's file (`locus run --mode real --disk NAME`). */
  readonly path?: string;
}

/** The nodes of a cluster and the network joining them (SI units). */
export interface ClusterNetwork {
  /** Node names, one per node (each node is the platform's machine). */
  readonly nodes: readonly string[];
  /** Bandwidth of each node's network interface, each direction, in bytes per second. */
  readonly nicBandwidth: number;
  /** Latency a message pays once (NIC to NIC through the switch), in seconds. */
  readonly latency: number;
  /** Bandwidth of the switch's backbone, shared by every message; Infinity: non-blocking. */
  readonly switchBandwidth: number;
}

/** The links of the direct route from src to dst, or null if none. */
export function routeOf(p: Platform, src: number, dst: number): readonly number[] | null {
  return p.routes[src * p.nodes.length + dst] ?? null;
}

/**
 * Time to copy `bytes` from src to dst over the direct route when it is alone on its links:
 * the latencies of every hop plus the bytes over the slowest link. Infinity without a route.
 */
export function soloTransferTime(p: Platform, src: number, dst: number, bytes: number): number {
  const route = routeOf(p, src, dst);
  if (!route) return Number.POSITIVE_INFINITY;
  let latency = 0;
  let bandwidth = Number.POSITIVE_INFINITY;
  for (const l of route) {
    const link = p.links[l]!;
    latency += link.latency;
    if (link.bandwidth < bandwidth) bandwidth = link.bandwidth;
  }
  return latency + bytes / bandwidth;
}

/** The compute rate (flop/s) of a worker for a codelet name. */
export function workerRate(w: Worker, codelet: string): number {
  return w.codeletFlops[codelet] ?? w.flops;
}
