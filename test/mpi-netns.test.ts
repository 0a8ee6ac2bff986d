/**
 * Two hosts on one machine (issue 15): the MPI ring of seed 001's Figure 2 runs over two network
 * namespaces of the test's own, joined by a veth pair with addresses in 10.213.<pid % 256>.0/24
 * that exist only inside them. mpirun starts in the first namespace with a hostfile naming both
 * addresses and launches the remote daemon through test/helpers/netns-agent.sh (`--mca
 * plm_rsh_agent`), which enters the other namespace instead of logging in with ssh; the ranks
 * talk TCP restricted to that subnet (`--mca btl tcp,self`, `btl_tcp_if_include`,
 * `oob_tcp_if_include`). The namespaces are removed at the end even when a step fails, and those
 * of earlier runs that were killed are removed first. Skips with the reason where `ip`, mpirun
 * or the addon is missing, or where namespaces are not permitted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mpiSkip } from './helpers/mpi.ts';
import {
  createNetnsPair,
  ipv4Addresses,
  listNetns,
  NETNS_PREFIX,
  type NetnsPair,
  netnsUnavailable,
  removeNetns,
  removeStaleNetns,
} from './helpers/netns.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const agent = fileURLToPath(new URL('./helpers/netns-agent.sh', import.meta.url));
const skip = mpiSkip || netnsUnavailable();
const MPIRUN_TIMEOUT_MS = 240_000;
const RANKS = 4;
const LOOPS = 5;

/** Namespaces and files of this run, removed by `cleanup` (idempotent, also on process exit). */
const owned: { pair?: NetnsPair; dir?: string } = {};
function cleanup(): void {
  for (const n of owned.pair?.names ?? []) if (listNetns().includes(n)) removeNetns(n);
  if (owned.dir) rmSync(owned.dir, { recursive: true, force: true });
}

/**
 * Runs `mpirun -np 4 <command>` inside the first namespace over the two hosts, 2 ranks each
 * (`--map-by node`: ranks 0 and 2 on the first, 1 and 3 on the second); never hangs.
 */
function mpirunOnPair(pair: NetnsPair, dir: string, command: string[]) {
  const hostfile = join(dir, 'hosts');
  writeFileSync(hostfile, `${pair.addrs[0]} slots=2\n${pair.addrs[1]} slots=2\n`);
  const env = {
    ...process.env,
    LOCUS_PERFMODEL_DIR: join(dir, 'models'),
    LOCUS_NETNS_HOSTS: pair.addrs.map((a, i) => `${a}=${pair.names[i]}`).join(' '),
    LOCUS_NETNS_AGENT_LOG: join(dir, 'agent.log'),
  };
  const args = [
    'netns',
    'exec',
    pair.names[0],
    'mpirun',
    '--allow-run-as-root',
    '--oversubscribe',
    '--bind-to',
    'none',
    '--hostfile',
    hostfile,
    '--map-by',
    'node',
    '-np',
    String(RANKS),
    '--mca',
    'plm_rsh_agent',
    agent,
    '--mca',
    'btl',
    'tcp,self',
    '--mca',
    'btl_tcp_if_include',
    pair.subnet,
    '--mca',
    'oob_tcp_if_include',
    pair.subnet,
    ...command,
  ];
  const r = spawnSync('ip', args, {
    cwd: root,
    encoding: 'utf8',
    env,
    timeout: MPIRUN_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  assert.equal(r.signal, null, `mpirun did not end within ${MPIRUN_TIMEOUT_MS} ms\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The agent's launches so far ("host namespace" lines). */
function agentLaunches(dir: string): string[] {
  const log = join(dir, 'agent.log');
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];
}

test('MPI ring on two hosts made of network namespaces', { skip, timeout: 900_000 }, async (t) => {
  process.on('exit', cleanup);
  t.after(cleanup);
  try {
    removeStaleNetns();
    const dir = mkdtempSync(join(tmpdir(), 'locus-netns-'));
    owned.dir = dir;
    const pair = createNetnsPair(process.pid % 256);
    owned.pair = pair;
    const [a, b] = pair.names;
    const remote = `${pair.addrs[1]} ${b}`;

    await t.test('the subnet exists only inside the namespaces: loopback and one veth end each', () => {
      assert.deepEqual(ipv4Addresses(a), ['127.0.0.1/8', `${pair.addrs[0]}/24`]);
      assert.deepEqual(ipv4Addresses(b), ['127.0.0.1/8', `${pair.addrs[1]}/24`]);
      const here = ipv4Addresses(null);
      assert.deepEqual(
        here.filter((x) => pair.addrs.some((p) => x.startsWith(`${p}/`))),
        [],
        here.join(' '),
      );
    });

    await t.test('mpirun places ranks 0 and 2 in the first namespace, 1 and 3 in the second', () => {
      const r = mpirunOnPair(pair, dir, ['--tag-output', 'ip', 'netns', 'identify']);
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      const byRank = new Map<number, string>();
      for (const m of r.stdout.matchAll(/^\[\d+,(\d+)\]<stdout>:\s*(\S+)\s*$/gm))
        byRank.set(Number(m[1]), m[2]!);
      assert.deepEqual(
        [...byRank.entries()].sort((x, y) => x[0] - y[0]),
        [
          [0, a],
          [1, b],
          [2, a],
          [3, b],
        ],
        r.stdout,
      );
      // The second host's daemon came through the agent (once); the first is mpirun's own.
      assert.deepEqual(agentLaunches(dir), [remote]);
    });

    await t.test(`the MPI ring over the veth, ${RANKS} ranks on 2 hosts: the token is loops x ranks`, () => {
      const r = mpirunOnPair(pair, dir, [
        process.execPath,
        '--import',
        'tsx',
        'examples/mpi-ring.ts',
        '--loops',
        String(LOOPS),
      ]);
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      const lines = r.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as unknown);
      assert.deepEqual(lines, [
        { token: LOOPS * RANKS, expected: LOOPS * RANKS, ranks: RANKS, loops: LOOPS, thread: 'multiple' },
      ]);
      assert.deepEqual(agentLaunches(dir), [remote, remote]);
    });
  } finally {
    cleanup();
  }
  const left = listNetns().filter((n) => n.startsWith(`${NETNS_PREFIX}${process.pid}-`));
  assert.deepEqual(left, [], 'the test namespaces are removed at the end');
});
