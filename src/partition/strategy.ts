/**
 * The contract between a partitioned kernel sequence's runner and the strategies that choose how
 * to split each kernel among the devices (seed 003, Huchant, Barthou and Counilh, SBAC-PAD 2018,
 * sections IV and V): after every iteration the runner hands a strategy what it measured, and the
 * strategy answers with the next iteration's partitioning ratios.
 *
 * Ratios are `ratios[k][d]`, the share of kernel `k`'s work-groups given to device `d` (the seed's
 * `x_d^k` / `y_d^k`); each row sums to 1, and sub-ranges are contiguous in device order.
 */

/** One kind of byte movement the runner saw before or after a sub-kernel, attributed to the pair of kernels that caused it. */
export interface TransferObservation {
  /** Kernel `h` whose writes were needed (the producer), or -1 for data no kernel of the sequence wrote (initial inputs). */
  readonly producer: number;
  /** Kernel `k` whose sub-kernel needed the data (the consumer). */
  readonly consumer: number;
  /** Device that received the bytes (`h2d`) or sent them back to the host (`d2h`). */
  readonly device: number;
  /** Direction over the device's bus: host to device, or device to host. */
  readonly direction: 'h2d' | 'd2h';
  /** Bytes moved, exactly as instantiated from the regions. */
  readonly bytes: number;
}

/** What one iteration measured (seed 003 section IV: `f_d^k` comes from `seconds / (ng_k * x_d^k)`). */
export interface IterationObservation {
  /** Index of the iteration just finished, from 0. */
  readonly iteration: number;
  /**
   * Ratios the iteration ran with, `ratios[k][d]`: each sub-kernel's work-groups over `ng_k`, so
   * the requested ratios once rounded to whole work-groups (libsplit's real granularities).
   */
  readonly ratios: readonly (readonly number[])[];
  /** `ng_k`: work-groups of each kernel in that iteration. */
  readonly workGroups: readonly number[];
  /** Measured execution time of kernel `k`'s sub-kernel on device `d`, in seconds (0 where its share was 0). */
  readonly seconds: readonly (readonly number[])[];
  /** Every transfer the iteration made, attributed to producer and consumer kernels. */
  readonly transfers: readonly TransferObservation[];
}

/** What a strategy knows about the sequence and the machine before the first iteration. */
export interface SequenceShape {
  /** `m`: kernels in the sequence. */
  readonly kernels: number;
  /** `n`: devices, in the order sub-ranges are laid out. */
  readonly devices: number;
  /** Kernel names, for reports and errors. */
  readonly kernelNames: readonly string[];
  /** Device names, for reports and errors. */
  readonly deviceNames: readonly string[];
  /** Pairs where kernel `consumer` reads a buffer kernel `producer` writes (loop-carried pairs included: producer >= consumer). */
  readonly dependencies: readonly { readonly producer: number; readonly consumer: number }[];
  /** `Omega_d` for host-to-device copies: seconds per byte to device `d` (bus calibration or platform). */
  readonly hostToDeviceSecondsPerByte: readonly number[];
  /** The same for device-to-host copies. */
  readonly deviceToHostSecondsPerByte: readonly number[];
}

/** A strategy's answer: the next iteration's ratios and how long choosing them took. */
export interface RatioDecision {
  /** `ratios[k][d]` for the next iteration; every row sums to 1. */
  readonly ratios: number[][];
  /** Wall-clock seconds the decision took (the LP's solve time, 0 for fixed strategies). */
  readonly solveSeconds: number;
}

/** A partitioning strategy of seed 003 section V (uniform, adaptive, adaptive-comm, oracle). */
export interface PartitionStrategy {
  /** The name users select it by. */
  readonly name: string;
  /** Ratios for the first iteration. */
  initial(shape: SequenceShape): number[][];
  /** Ratios for the iteration after `observation`. */
  next(shape: SequenceShape, observation: IterationObservation): RatioDecision;
}
