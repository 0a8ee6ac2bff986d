/** Parsers for command-line option values; each throws a one-line error naming the option. */
import { InvalidArgumentError } from 'commander';
import { parseBandwidth, parseDuration, parseSize } from '../platform/units.ts';

/** A percentage in [0, 100] (--min-clean, --target-clean). */
export function percentValue(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 100)) {
    throw new InvalidArgumentError(`'${value}' is not a percentage; use a number in [0, 100], e.g. 5`);
  }
  return n;
}

/** A fraction in [0, 1] (--critical-slack). */
export function fractionValue(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) {
    throw new InvalidArgumentError(`'${value}' is not a fraction; use a number in [0, 1], e.g. 0.06`);
  }
  return n;
}

/** A positive integer. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidArgumentError(`'${value}' is not a positive integer`);
  }
  return n;
}

/** A non-negative integer. */
export function naturalInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(`'${value}' is not a non-negative integer`);
  }
  return n;
}

/** A seed: an integer in [0, 2^31 - 1]. */
export function seedValue(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !(n <= 2 ** 31 - 1)) {
    throw new InvalidArgumentError(`'${value}' is not a seed; use an integer from 0 to 2147483647`);
  }
  return n;
}

/** A size in bytes with units (500MiB, 2GB, 1073741824). */
export function size(value: string): number {
  try {
    return parseSize(value);
  } catch {
    throw new InvalidArgumentError(`'${value}' is not a size; use e.g. 500MiB, 2GB or 1073741824`);
  }
}

/** A bandwidth with units (3.2GB/s, 800MiB/s, bytes per second), positive. */
export function bandwidthValue(value: string): number {
  let b: number;
  try {
    b = parseBandwidth(value);
  } catch {
    b = 0;
  }
  if (!(b > 0))
    throw new InvalidArgumentError(`'${value}' is not a bandwidth; use e.g. 3.2GB/s, 800MiB/s or 3200000000`);
  return b;
}

/** Parses a duration option ("50us", "1ms", seconds). */
export function durationValue(value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new InvalidArgumentError(`'${value}' is not a duration; use e.g. 50us, 1.5ms or 0.002`);
  }
}

/** Parses --noise: a number in [0, 1). */
export function noiseValue(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n < 1)) {
    throw new InvalidArgumentError(`'${value}' is not a noise level; use a number in [0, 1), e.g. 0.05`);
  }
  return n;
}

/** `SYMBOL=CODELET[,...]` (repeatable) as a map: StarPU model symbols to Locus codelet names. */
export function codeletMapValue(
  value: string,
  previous: Record<string, string> = {},
): Record<string, string> {
  const out = { ...previous };
  for (const pair of value.split(',')) {
    const m = /^([A-Za-z0-9_.-]+)=([A-Za-z0-9_.-]+)$/.exec(pair.trim());
    if (!m) throw new InvalidArgumentError(`'${pair}' is not SYMBOL=CODELET (e.g. chol_model_gemm=gemm)`);
    out[m[1]!] = m[2]!;
  }
  return out;
}
