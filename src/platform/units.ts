/**
 * Quantities with units, as written in platform files and on the command line: sizes, bandwidths,
 * durations and compute rates. Parsers take a number (already SI) or a string with a unit and
 * return SI numbers (bytes, bytes/s, seconds, flop/s); formatters print them for humans.
 */
import { LocusError } from '../core/types.ts';
import { PLATFORM_LIMITS } from './limits.ts';

/** Multipliers of the size units, keyed by lower-case unit (decimal B..TB, binary KiB..TiB). */
const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** Multipliers of the rate prefixes, keyed by lower-case prefix. */
const RATE_PREFIXES: Readonly<Record<string, number>> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12, p: 1e15 };

/** Divisors of the duration units (seconds = value / divisor), keyed by lower-case unit. */
const DURATION_DIVISORS: Readonly<Record<string, number>> = {
  '': 1,
  s: 1,
  ms: 1e3,
  us: 1e6,
  µs: 1e6, // U+00B5 MICRO SIGN
  μs: 1e6, // U+03BC GREEK SMALL LETTER MU
  ns: 1e9,
};

/** A number, then optional spaces, then an optional unit. */
const QUANTITY = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(\S*?)\s*$/i;

/** Splits "12.5 GiB" into [12.5, 'gib']; null when the text is not a number and a unit. */
function splitQuantity(text: string): [number, string] | null {
  const m = QUANTITY.exec(text);
  if (!m) return null;
  return [Number(m[1]), m[2]!.toLowerCase()];
}

/** The error for a value that did not parse, optionally prefixed by the option or field name. */
function notA(what: string, value: unknown, examples: string, label?: string): LocusError {
  const shown = typeof value === 'string' ? `'${value}'` : String(value);
  return new LocusError(
    'LOCUS_OPTION_INVALID',
    `${label ? `${label}: ` : ''}${shown} is not ${what}; use e.g. ${examples}`,
  );
}

/** Shared parser: a finite number, or a string whose unit `scale` turns into an SI number. */
function parseQuantity(
  value: unknown,
  what: string,
  examples: string,
  label: string | undefined,
  allowZero: boolean,
  scale: (n: number, unit: string) => number | undefined,
): number {
  let result: number | undefined;
  if (typeof value === 'number') result = value;
  else if (typeof value === 'string') {
    const parts = splitQuantity(value);
    if (parts) result = scale(parts[0], parts[1]);
  }
  if (result === undefined || !Number.isFinite(result) || result < 0 || (!allowZero && result === 0)) {
    throw notA(what, value, examples, label);
  }
  return result;
}

/** Example values printed by the size parser's errors. */
export const SIZE_EXAMPLES = '500MiB, 2GB or 1073741824';
/** Example values printed by the bandwidth parser's errors. */
export const BANDWIDTH_EXAMPLES = '10.9GB/s, 800MiB/s or 12000000000';
/** Example values printed by the duration parser's errors. */
export const DURATION_EXAMPLES = '10us, 1.5ms or 0.002';
/** Example values printed by the rate parser's errors. */
export const RATE_EXAMPLES = '12.6TFlop/s, 50GFlops or 1e9';

/**
 * Parses a size into bytes (rounded to an integer): a number of bytes or a string such as
 * "500MiB", "4 GB", "14.06MiB" or "1024". Units are case-insensitive: B, KB, MB, GB, TB are
 * decimal (MB = 1e6 bytes), KiB, MiB, GiB, TiB binary. `label` (an option or field name)
 * prefixes the error message.
 */
export function parseSize(value: unknown, label?: string): number {
  return Math.round(
    parseQuantity(value, 'a size', SIZE_EXAMPLES, label, true, (n, unit) => {
      const f = SIZE_UNITS[unit];
      return f === undefined ? undefined : n * f;
    }),
  );
}

/**
 * Parses a bandwidth into bytes per second: a number of bytes/s or a size unit followed by
 * "/s" ("10.9GB/s", "12.38 GB/s", "800MiB/s"). Must be positive.
 */
export function parseBandwidth(value: unknown, label?: string): number {
  const b = parseQuantity(value, 'a bandwidth', BANDWIDTH_EXAMPLES, label, false, (n, unit) => {
    if (unit === '') return n;
    if (!unit.endsWith('/s')) return undefined;
    const f = SIZE_UNITS[unit.slice(0, -2)];
    return f === undefined || unit === '/s' ? undefined : n * f;
  });
  const { minBandwidth, maxBandwidth } = PLATFORM_LIMITS;
  if (b < minBandwidth || b > maxBandwidth) {
    const shown = typeof value === 'string' ? `'${value}'` : String(value);
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `${label ? `${label}: ` : ''}${shown} is ${b < minBandwidth ? `below ${minBandwidth} B/s` : `above ${maxBandwidth} B/s`}, outside the bandwidths Locus simulates; use e.g. ${BANDWIDTH_EXAMPLES}`,
    );
  }
  return b;
}

/**
 * Parses a duration into seconds: a number of seconds or a string with unit s, ms, us (or µs),
 * ns ("10us", "1.5ms", "2s", "30ns").
 */
export function parseDuration(value: unknown, label?: string): number {
  return parseQuantity(value, 'a duration', DURATION_EXAMPLES, label, true, (n, unit) => {
    const d = DURATION_DIVISORS[unit];
    return d === undefined ? undefined : n / d;
  });
}

/**
 * Parses a compute rate into flop/s: a number of flop/s or a string such as "12.6TFlop/s",
 * "14.1GFlop/s", "50 GFLOPS" (prefixes k, M, G, T, P; "flop/s", "flops", case-insensitive).
 * Must be positive.
 */
export function parseRate(value: unknown, label?: string): number {
  return parseQuantity(value, 'a rate', RATE_EXAMPLES, label, false, (n, unit) => {
    const m = /^([kmgtp]?)flop(?:\/s|s)$/.exec(unit);
    if (unit === '') return n;
    return m ? n * RATE_PREFIXES[m[1]!]! : undefined;
  });
}

/** Formats with at most 4 significant digits, without trailing zeros ("14.06", "500", "20.9"). */
function sig(n: number): string {
  return String(Number(n.toPrecision(4)));
}

/** Picks the largest unit not above n (after rounding) and prints "value unit". */
function scaled(n: number, units: readonly [number, string][]): string {
  for (const [f, name] of units) {
    const v = Number((n / f).toPrecision(4));
    if (Math.abs(v) >= 1 || f === units[units.length - 1]![0]) return `${sig(v)} ${name}`;
  }
  return String(n);
}

/** Formats bytes with binary units: "512 B", "14.06 MiB", "1.25 GiB"; Infinity as "unlimited". */
export function formatBytes(n: number): string {
  if (n === Number.POSITIVE_INFINITY) return 'unlimited';
  return scaled(n, [
    [2 ** 40, 'TiB'],
    [2 ** 30, 'GiB'],
    [2 ** 20, 'MiB'],
    [2 ** 10, 'KiB'],
    [1, 'B'],
  ]);
}

/** Formats bytes/s with decimal units: "10.9 GB/s", "800 MB/s". */
export function formatBandwidth(n: number): string {
  if (n === Number.POSITIVE_INFINITY) return 'unlimited';
  return scaled(n, [
    [1e12, 'TB/s'],
    [1e9, 'GB/s'],
    [1e6, 'MB/s'],
    [1e3, 'KB/s'],
    [1, 'B/s'],
  ]);
}

/** Formats seconds: "2 s", "20.9 ms", "560 us", "30 ns", "0 s". */
export function formatDuration(n: number): string {
  if (n === 0) return '0 s';
  return scaled(n, [
    [1, 's'],
    [1e-3, 'ms'],
    [1e-6, 'us'],
    [1e-9, 'ns'],
  ]);
}

/** Formats flop/s: "12.6 TFlop/s", "14.1 GFlop/s". */
export function formatRate(n: number): string {
  return scaled(n, [
    [1e15, 'PFlop/s'],
    [1e12, 'TFlop/s'],
    [1e9, 'GFlop/s'],
    [1e6, 'MFlop/s'],
    [1e3, 'KFlop/s'],
    [1, 'Flop/s'],
  ]);
}

/**
 * Writes `n` as the shortest "value+unit" string among `units` (suffix and factor) whose value
 * is at least 1 and that `parse` reads back to exactly `n` (ties: the first unit); the plain
 * number when none does. Lossless, for the files that platformToJson writes.
 */
function exact(n: number, units: readonly [string, number][], parse: (v: string) => number): string | number {
  let best: string | undefined;
  for (const [suffix, factor] of units) {
    // Multiply by the integer inverse of sub-unit factors: 1e-5 * 1e6 is 10, 1e-5 / 1e-6 is not.
    const v = Number((factor < 1 ? n * Math.round(1 / factor) : n / factor).toPrecision(12));
    const text = String(v);
    if (v < 1 || text.includes('e')) continue;
    const candidate = text + suffix;
    if (parse(candidate) === n && (best === undefined || candidate.length < best.length)) best = candidate;
  }
  return best ?? n;
}

/** Size units for exact(): binary first (memory sizes usually are), then decimal. */
const EXACT_SIZES: readonly [string, number][] = [
  ['TiB', 2 ** 40],
  ['GiB', 2 ** 30],
  ['MiB', 2 ** 20],
  ['KiB', 2 ** 10],
  ['TB', 1e12],
  ['GB', 1e9],
  ['MB', 1e6],
  ['KB', 1e3],
];

/** A size as a lossless string for platform files ("500MiB", "192GiB"), or the plain number. */
export function exactSize(n: number): string | number {
  return exact(n, EXACT_SIZES, (v) => parseSize(v));
}

/** A bandwidth as a lossless string for platform files ("10.9GB/s"), or the plain number. */
export function exactBandwidth(n: number): string | number {
  const units: [string, number][] = [
    ['TB/s', 1e12],
    ['GB/s', 1e9],
    ['MB/s', 1e6],
    ['KB/s', 1e3],
    ['GiB/s', 2 ** 30],
    ['MiB/s', 2 ** 20],
  ];
  return exact(n, units, (v) => parseBandwidth(v));
}

/** A duration as a lossless string for platform files ("10us", "0s"), or the plain number. */
export function exactDuration(n: number): string | number {
  if (n === 0) return '0s';
  const units: [string, number][] = [
    ['s', 1],
    ['ms', 1e-3],
    ['us', 1e-6],
    ['ns', 1e-9],
  ];
  return exact(n, units, (v) => parseDuration(v));
}

/** A rate as a lossless string for platform files ("12.64TFlop/s"), or the plain number. */
export function exactRate(n: number): string | number {
  const units: [string, number][] = [
    ['PFlop/s', 1e15],
    ['TFlop/s', 1e12],
    ['GFlop/s', 1e9],
    ['MFlop/s', 1e6],
    ['KFlop/s', 1e3],
  ];
  return exact(n, units, (v) => parseRate(v));
}

/** Example values printed by the power parser's errors. */
export const POWER_EXAMPLES = '225W, 1.2kW or 40';

/** Parses a power into watts: a number of watts or a string with unit W, kW or mW ("225W"). */
export function parsePower(value: unknown, label?: string): number {
  return parseQuantity(value, 'a power', POWER_EXAMPLES, label, true, (n, unit) => {
    const f: Record<string, number> = { '': 1, w: 1, kw: 1e3, mw: 1e-3 };
    return f[unit] === undefined ? undefined : n * f[unit]!;
  });
}

/** A power as a lossless string for platform files ("225W"), or the plain number. */
export function exactPower(n: number): string | number {
  if (n === 0) return '0W';
  return exact(
    n,
    [
      ['kW', 1e3],
      ['W', 1],
    ],
    (v) => parsePower(v),
  );
}
