/**
 * The engine's protocol (DESIGN.md, "events in, commands out"). Events are the engine's
 * methods (Engine.open, submitted, close, taskFinished, taskFailed, transferFinished,
 * release); each one gets an id, and every command it causes carries that id, so a decision
 * can be traced back to the event behind it. Commands are appended to flat integer lists
 * (opcode, two arguments, cause) that a driver drains after each event; `decode` turns them
 * into readable objects for tests, traces and debugging.
 */

/** Command opcodes the engine emits. */
export const Cmd = {
  /** Run task `a` on worker `b`. */
  RUN: 1,
  /** Start transfer `a` (see the engine's transfer tables). */
  TRANSFER: 2,
  /** The replica of handle `a` on node `b` was freed (a real driver releases its buffer). */
  FREE: 3,
  /** The application closed the run, every task finished and every modified replica is home. */
  FINISHED: 4,
  /** Transfer `a`, a prefetch so far, is now needed by a task: give it a fetch's priority. */
  URGENT: 5,
  /** Task `a` will not run: a task it depends on failed or was cancelled. */
  CANCELLED: 6,
  /** Application task `a` (an acquire) holds its data, valid on their home nodes. */
  ACQUIRED: 7,
  /** Every task submitted so far has ended (finished, failed or cancelled); `a` = tasks known. */
  IDLE: 8,
} as const;

/** One of the command opcodes. */
export type CmdOp = (typeof Cmd)[keyof typeof Cmd];

/** Names of the opcodes, indexed by opcode. */
export const CMD_NAMES: readonly string[] = [
  '',
  'run',
  'transfer',
  'free',
  'finished',
  'urgent',
  'cancelled',
  'acquired',
  'idle',
];

/** Why a transfer was issued. */
export const TransferKind = {
  /** Input of a task in a worker's pipeline (or of an acquire, at home). */
  FETCH: 0,
  /** Requested ahead of use by the scheduler or a worker's lookahead buffer. */
  PREFETCH: 1,
  /** First hop of a GPU-to-GPU copy staged through the handle's home node. */
  STAGE: 2,
  /** Write-back of the only valid copy before it is evicted. */
  WRITEBACK: 3,
  /** Write-back of modified data when the run closes. */
  FLUSH: 4,
  /** Copy home of a block a task just wrote (write-through coherence, seed 004). */
  WRITETHROUGH: 5,
  /** Write-back ahead of need of data the application will not use for a while (wontUse). */
  EARLY_WRITEBACK: 6,
} as const;

/** Names of the transfer kinds, indexed by kind. */
export const TRANSFER_KIND_NAMES = [
  'fetch',
  'prefetch',
  'stage',
  'writeback',
  'flush',
  'write-through',
  'early-writeback',
] as const;

/** A decoded command (for tests, traces and debugging; drivers read the flat lists). */
export type Command =
  | { op: 'run'; task: number; worker: number; cause: number }
  | {
      op: 'transfer';
      id: number;
      handle: number;
      src: number;
      dst: number;
      kind: (typeof TRANSFER_KIND_NAMES)[number];
      cause: number;
    }
  | { op: 'free'; handle: number; node: number; cause: number }
  | { op: 'finished'; cause: number }
  | { op: 'urgent'; id: number; cause: number }
  | { op: 'cancelled'; task: number; cause: number }
  | { op: 'acquired'; task: number; cause: number }
  | { op: 'idle'; tasks: number; cause: number };

/** What decode() reads: the command lists and the transfer tables of an engine. */
export interface CommandSource {
  /** Number of pending commands. */
  readonly commandCount: number;
  readonly cmdOp: { readonly data: Int32Array };
  readonly cmdA: { readonly data: Int32Array };
  readonly cmdB: { readonly data: Int32Array };
  readonly cmdCause: { readonly data: Int32Array };
  readonly trHandle: { readonly data: Int32Array };
  readonly trSrc: { readonly data: Int32Array };
  readonly trDst: { readonly data: Int32Array };
  readonly trKind: { readonly data: Int32Array };
}

/** The pending commands of `e` as objects, in emission order (allocates: not for hot paths). */
export function decode(e: CommandSource): Command[] {
  const out: Command[] = [];
  for (let i = 0; i < e.commandCount; i++) {
    const op = e.cmdOp.data[i]!;
    const a = e.cmdA.data[i]!;
    const b = e.cmdB.data[i]!;
    const cause = e.cmdCause.data[i]!;
    switch (op) {
      case Cmd.RUN:
        out.push({ op: 'run', task: a, worker: b, cause });
        break;
      case Cmd.TRANSFER:
        out.push({
          op: 'transfer',
          id: a,
          handle: e.trHandle.data[a]!,
          src: e.trSrc.data[a]!,
          dst: e.trDst.data[a]!,
          kind: TRANSFER_KIND_NAMES[e.trKind.data[a]!]!,
          cause,
        });
        break;
      case Cmd.FREE:
        out.push({ op: 'free', handle: a, node: b, cause });
        break;
      case Cmd.FINISHED:
        out.push({ op: 'finished', cause });
        break;
      case Cmd.URGENT:
        out.push({ op: 'urgent', id: a, cause });
        break;
      case Cmd.CANCELLED:
        out.push({ op: 'cancelled', task: a, cause });
        break;
      case Cmd.ACQUIRED:
        out.push({ op: 'acquired', task: a, cause });
        break;
      case Cmd.IDLE:
        out.push({ op: 'idle', tasks: a, cause });
        break;
      default:
        throw new Error(`unknown command opcode ${op}`);
    }
  }
  return out;
}

/** A one-line text form of a decoded command ("run 3 on 1", "transfer #2 h5 0->1 fetch"). */
export function formatCommand(c: Command): string {
  switch (c.op) {
    case 'run':
      return `run ${c.task} on ${c.worker}`;
    case 'transfer':
      return `transfer #${c.id} h${c.handle} ${c.src}->${c.dst} ${c.kind}`;
    case 'free':
      return `free h${c.handle} on ${c.node}`;
    case 'finished':
      return 'finished';
    case 'urgent':
      return `urgent #${c.id}`;
    case 'cancelled':
      return `cancelled ${c.task}`;
    case 'acquired':
      return `acquired ${c.task}`;
    case 'idle':
      return `idle ${c.tasks}`;
  }
}
