/** How the viewer writes times, sizes and counts. */

/** A duration or instant in seconds, in the unit that suits it (s, ms, us). */
export function formatTime(s: number): string {
  if (!Number.isFinite(s)) return '-';
  const a = Math.abs(s);
  if (a >= 1) return `${trim(s)} s`;
  if (a >= 1e-3) return `${trim(s * 1e3)} ms`;
  if (a === 0) return '0 s';
  return `${trim(s * 1e6)} µs`;
}

function trim(v: number): string {
  return Number(v.toPrecision(4)).toString();
}

/** Bytes in binary units. */
export function formatBytes(b: number): string {
  if (!Number.isFinite(b)) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${trim(v)} ${units[u]}`;
}

/** A count with thousands separators. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Escapes text for HTML. */
export function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
