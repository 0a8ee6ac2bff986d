/**
 * The model store's machine name of a platform's real runs (and of the Runtime's models): the
 * platform's name, plus the family of the BLAS the tile kernels run when the kernel addon is
 * loaded ("local+openblas"), so that task times measured with the JavaScript kernels and with
 * native ones, an order of magnitude apart, never mix in one history (src/kernels/native).
 */
import { kernelsName } from '../kernels/native/addon.ts';

/** The store's machine name of real runs on the platform named `platformName`. */
export function realMachineName(platformName: string): string {
  const k = kernelsName();
  return k === 'javascript' ? platformName : `${platformName}+${k.split(' ')[0]}`;
}
