/**
 * The one word for where a run happens: 'simulated' (documented; 'sim' accepted everywhere as
 * its short form) or 'real'. The CLI's `--mode`, `locus partition --mode`, the API's
 * `RuntimeOptions.mode` and the partition experiments all read it here.
 */
import { LocusError } from './types.ts';

/** Where a run happens. */
export type RunMode = 'simulated' | 'real';

/** `value` as a RunMode ('sim' and 'simulated' are one word); `what` names it in the error. */
export function parseRunMode(value: unknown, what: string): RunMode {
  if (value === 'simulated' || value === 'sim') return 'simulated';
  if (value === 'real') return 'real';
  throw new LocusError(
    'LOCUS_OPTION_INVALID',
    `${what} must be simulated (or sim) or real (got '${String(value)}')`,
  );
}
