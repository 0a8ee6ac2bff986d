/**
 * Error lines of a process that an MPI launcher (mpirun) started: every rank parses the same
 * command line, so a bad input fails on every rank alike and would print the same line N
 * times. Rank 0 prints it; the other ranks wait a moment first, so that when rank 0 failed
 * the same way mpirun has ended them (it ends the job once a process exits non-zero) and they
 * print nothing, and when it did not (an error of that rank alone) their line still comes.
 * Imports nothing: the CLI loads it on its error path only.
 */

/**
 * Milliseconds a rank other than 0 waits before printing an error line every rank may share.
 * Long, so that the line stays single on a loaded machine where rank 0 reaches the same error
 * seconds after the others; it costs nothing when rank 0 fails too (mpirun ends the job then),
 * and only delays the line of an input that fails on some hosts and not on rank 0's.
 */
export const QUIET_RANK_WAIT_MS = 20_000;

/**
 * Error codes that follow from the command line or its files alone, hence fail on every rank
 * alike (the others may depend on the rank: a failed message, the data a rank holds).
 */
const SAME_ON_EVERY_RANK = new Set([
  'LOCUS_OPTION_INVALID',
  'LOCUS_OPTION_CONFLICT',
  'LOCUS_NAME_UNKNOWN',
  'LOCUS_PLATFORM_INVALID',
  'LOCUS_POLICY_INCOMPATIBLE',
  'LOCUS_FILE_INVALID',
  'LOCUS_MPI_UNAVAILABLE',
]);

/** The rank an MPI launcher gave this process (Open MPI, PMIx, MPICH's Hydra), or undefined. */
export function launcherRank(env: NodeJS.ProcessEnv = process.env): number | undefined {
  for (const key of ['OMPI_COMM_WORLD_RANK', 'PMIX_RANK', 'PMI_RANK']) {
    const v = env[key];
    if (v !== undefined && /^\d+$/.test(v)) return Number(v);
  }
  return undefined;
}

/**
 * Writes the error line `line` (ending in a newline) of a LocusError of code `code` (a
 * command-line error: LOCUS_OPTION_INVALID) on stderr: at once outside an MPI job and on rank
 * 0; on the other ranks, after `waitMs` when every rank fails alike on this input (mpirun
 * usually ends them before), at once with the rank named otherwise.
 */
export async function writeErrorLine(
  line: string,
  code: string,
  env: NodeJS.ProcessEnv = process.env,
  waitMs = QUIET_RANK_WAIT_MS,
): Promise<void> {
  const rank = launcherRank(env);
  if (rank === undefined || rank === 0) {
    process.stderr.write(line);
    return;
  }
  if (!SAME_ON_EVERY_RANK.has(code)) {
    process.stderr.write(line.replace(/^locus: /, `locus: rank ${rank}: `));
    return;
  }
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  process.stderr.write(line);
}
