/**
 * Two "hosts" on one machine for the MPI tests: network namespaces of the test's own, joined by a
 * veth pair, with addresses in a private /24 that exists only inside them (`ip netns`, iproute2;
 * needs root, or CAP_SYS_ADMIN and CAP_NET_ADMIN). Names carry the owning process id
 * (`locus-nt-<pid>-a`), so leftovers of a run that was killed are found and removed by a later one.
 */
import { spawnSync } from 'node:child_process';

/** Prefix of every namespace these helpers create. */
export const NETNS_PREFIX = 'locus-nt-';

/** Two namespaces joined by a veth pair: `names[i]` holds the address `addrs[i]`. */
export interface NetnsPair {
  names: [string, string];
  addrs: [string, string];
  /** The /24 of the two addresses, e.g. `10.213.7.0/24`. */
  subnet: string;
}

/** Runs `ip args...`; returns its status and output (`ok` false where ip is missing too). */
function ip(...args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('ip', args, { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
  const err = r.error ? r.error.message : (r.stderr ?? '').trim();
  return { ok: r.status === 0, out: r.stdout ?? '', err };
}

/** Runs `ip args...` and throws with the command and ip's message when it fails. */
function ipOrThrow(...args: string[]): string {
  const r = ip(...args);
  if (!r.ok) throw new Error(`'ip ${args.join(' ')}' failed: ${r.err}`);
  return r.out;
}

/** The network namespaces that exist now (`ip netns list`), by name. */
export function listNetns(): string[] {
  const r = ip('netns', 'list');
  if (!r.ok) return [];
  return r.out
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((n) => n !== '');
}

/**
 * Why namespaces cannot be used here (missing `ip`, not permitted), or false where a probe
 * namespace could be created, entered and removed.
 */
export function netnsUnavailable(): string | false {
  const version = ip('-V');
  if (!version.ok)
    return `'ip' (iproute2) is not usable: ${version.err || 'not found'} (apt-get install iproute2)`;
  const probe = `${NETNS_PREFIX}${process.pid}-probe`;
  const add = ip('netns', 'add', probe);
  if (!add.ok) return `creating a network namespace is not permitted here ('ip netns add': ${add.err})`;
  try {
    const exec = ip('netns', 'exec', probe, 'ip', 'link', 'set', 'lo', 'up');
    if (!exec.ok) return `entering a network namespace is not permitted here ('ip netns exec': ${exec.err})`;
    return false;
  } finally {
    ip('netns', 'del', probe);
  }
}

/** Kills what still runs inside namespace `name` (processes a test started there), then deletes it. */
export function removeNetns(name: string): void {
  const pids = ip('netns', 'pids', name);
  if (pids.ok) {
    for (const p of pids.out.split(/\s+/).filter((s) => /^\d+$/.test(s))) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  const del = ip('netns', 'del', name);
  if (!del.ok && listNetns().includes(name)) throw new Error(`'ip netns del ${name}' failed: ${del.err}`);
}

/** Whether process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the namespaces of earlier runs whose process is gone (killed runs); returns their names. */
export function removeStaleNetns(): string[] {
  const stale = listNetns().filter((n) => {
    const m = new RegExp(`^${NETNS_PREFIX}(\\d+)-`).exec(n);
    return m !== null && Number(m[1]) !== process.pid && !alive(Number(m[1]));
  });
  for (const n of stale) removeNetns(n);
  return stale;
}

/**
 * Creates two namespaces `locus-nt-<pid>-a` and `-b`, a veth pair between them (created inside
 * them: nothing appears in the caller's namespace), `10.213.<octet>.1/24` and `.2/24` on its ends,
 * and loopback up in each. On failure, what was created is removed before the error is thrown.
 */
export function createNetnsPair(octet: number): NetnsPair {
  const base = `${NETNS_PREFIX}${process.pid}`;
  const names: [string, string] = [`${base}-a`, `${base}-b`];
  const net = `10.213.${octet}`;
  const addrs: [string, string] = [`${net}.1`, `${net}.2`];
  try {
    for (const n of names) ipOrThrow('netns', 'add', n);
    ipOrThrow(
      '-n',
      names[0],
      'link',
      'add',
      'locus0',
      'type',
      'veth',
      'peer',
      'name',
      'locus1',
      'netns',
      names[1],
    );
    for (const i of [0, 1] as const) {
      const dev = `locus${i}`;
      ipOrThrow('-n', names[i], 'addr', 'add', `${addrs[i]}/24`, 'dev', dev);
      ipOrThrow('-n', names[i], 'link', 'set', 'lo', 'up');
      ipOrThrow('-n', names[i], 'link', 'set', dev, 'up');
    }
  } catch (e) {
    for (const n of names) if (listNetns().includes(n)) removeNetns(n);
    throw e;
  }
  return { names, addrs, subnet: `${net}.0/24` };
}

/** The IPv4 addresses (`a.b.c.d/len`) of namespace `name`, or of the caller's where `name` is null. */
export function ipv4Addresses(name: string | null): string[] {
  const out = ipOrThrow(...(name === null ? [] : ['-n', name]), '-o', '-4', 'addr', 'show');
  return out
    .split('\n')
    .map((l) => /\binet (\S+)/.exec(l)?.[1])
    .filter((a): a is string => a !== undefined);
}
