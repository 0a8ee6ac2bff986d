#!/usr/bin/env node
// `node scripts/wall.mjs ROUNDS COMMAND [ARGS...]`: runs a command ROUNDS times (after one
// unrecorded run) and prints {"medianS", "minS", "maxS", "rounds"} of its whole-process wall time
// as JSON; used by the machine-dependent tables of docs/results.md (npm run docs:results --bench).
import { spawnSync } from 'node:child_process';

const [rounds, cmd, ...args] = process.argv.slice(2);
const n = Number(rounds);
if (!Number.isInteger(n) || n < 1 || cmd === undefined) {
  process.stderr.write('usage: node scripts/wall.mjs ROUNDS COMMAND [ARGS...]\n');
  process.exit(2);
}
const run = () => {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  if (r.status !== 0) {
    process.stderr.write(`${cmd} ${args.join(' ')} exited with ${r.status}\n`);
    process.exit(1);
  }
  return Number(process.hrtime.bigint() - t) / 1e9;
};
run();
const times = Array.from({ length: n }, run).sort((a, b) => a - b);
const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
console.log(JSON.stringify({ medianS: median, minS: times[0], maxS: times[n - 1], rounds: times }));
