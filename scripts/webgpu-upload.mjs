#!/usr/bin/env node
// Measures the three ways a host buffer can reach a WebGPU buffer (docs/webgpu.md, "Copies"):
// `writeBuffer` from a plain ArrayBuffer (what the first WebGPU runner did), `writeBuffer` after
// copying shared memory into a plain buffer (what the Runtime's backend did: Dawn takes no
// SharedArrayBuffer), and LogicalDevice.upload (one copy into a staging buffer mapped for
// writing, then a GPU copy: what the backend does now). For each: the main thread's time per
// upload and the time until the last upload is on the device. Prints one JSON object.
// Usage: node scripts/webgpu-upload.mjs [--bytes N] [--count N] [--rounds N] (after npm run build)
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    bytes: { type: 'string', default: String(960 * 3840 * 4) },
    count: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
  },
});
const bytes = Number(values.bytes);
const count = Number(values.count);
const rounds = Number(values.rounds);
for (const [k, v] of [
  ['bytes', bytes],
  ['count', count],
  ['rounds', rounds],
])
  if (!(Number.isInteger(v) && v > 0 && (k !== 'bytes' || v % 4 === 0))) {
    process.stderr.write(
      `webgpu-upload: --${k} must be a positive integer${k === 'bytes' ? ', a multiple of 4' : ''}\n`,
    );
    process.exit(2);
  }

const { createLogicalDevice } = await import(new URL('../dist/webgpu/device.js', import.meta.url).href);
let dev;
try {
  dev = await createLogicalDevice('gpu0', 2 ** 40);
} catch (e) {
  process.stderr.write(`webgpu-upload: ${e.message}\n`);
  process.exit(2);
}
const d = dev.device;
const shared = new Uint8Array(new SharedArrayBuffer(bytes));
for (let i = 0; i < bytes; i += 4096) shared[i] = i & 255;
const plain = Uint8Array.from(shared);
const scratch = new Uint8Array(bytes);
const targets = [0, 1, 2, 3].map(() => dev.buffer(bytes));

/** Runs `issue(i)` `count` times; main-thread ms per upload and ms until all are done. */
async function measure(issue) {
  const t0 = performance.now();
  let main = 0;
  const pending = [];
  for (let i = 0; i < count; i++) {
    const c = performance.now();
    pending.push(issue(i));
    main += performance.now() - c;
    // Keep a few in flight, as the engine's prefetch does.
    if (pending.length > 4) await pending.shift();
  }
  await Promise.all(pending);
  await d.queue.onSubmittedWorkDone();
  return { mainMsPerUpload: main / count, totalMs: performance.now() - t0 };
}

const ways = {
  writeBufferPlain: (i) => {
    d.queue.writeBuffer(targets[i % 4], 0, plain.buffer, 0, bytes);
    return d.queue.onSubmittedWorkDone();
  },
  writeBufferFromShared: (i) => {
    scratch.set(shared);
    d.queue.writeBuffer(targets[i % 4], 0, scratch.buffer, 0, bytes);
    return d.queue.onSubmittedWorkDone();
  },
  mappedStaging: (i) => dev.upload(targets[i % 4], shared),
};
const results = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let r = 0; r < rounds; r++)
  for (const [name, issue] of Object.entries(ways)) results[name].push(await measure(issue));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = Object.fromEntries(
  Object.entries(results).map(([k, rs]) => [
    k,
    {
      mainMsPerUpload: median(rs.map((x) => x.mainMsPerUpload)),
      totalMs: median(rs.map((x) => x.totalMs)),
      gbPerS: (bytes * count) / 1e9 / (median(rs.map((x) => x.totalMs)) / 1e3),
    },
  ]),
);
process.stdout.write(`${JSON.stringify({ adapter: dev.adapter, bytes, count, rounds, ways: summary })}\n`);
dev.dispose();
process.exit(0);
