/** Formats a byte count for messages: binary units, two decimals ("13.50 MiB"), "unlimited" for infinity. */
export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return 'unlimited';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i === 0 ? 0 : 2)} ${units[i]}`;
}
