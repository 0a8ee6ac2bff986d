import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Platform } from '../src/core/platform.ts';
import { type PresetOptions, watchPresets } from '../src/platform/machine.ts';
import { PRESETS } from '../src/platform/machines.ts';
import { compilePlatform } from '../src/platform/schema.ts';

/** A platform as JSON text, infinities spelled out (JSON writes them as null). */
function text(p: Platform): string {
  return JSON.stringify(p, (_, v) => (v === Number.POSITIVE_INFINITY ? 'Infinity' : v));
}

// Issue 25: presets are compiled without zod (preset-file.ts); the schema gives the same platform.
test('every preset compiles to the same platform without the schema as through it', () => {
  let compared = 0;
  watchPresets((file, platform) => {
    const viaSchema = compilePlatform(file, `preset ${file.name}`, file.name);
    assert.deepStrictEqual(platform, viaSchema, `preset ${file.name}`);
    assert.equal(text(platform), text(viaSchema), `preset ${file.name}`);
    compared++;
  });
  try {
    const variants: PresetOptions[] = [
      {},
      { gpus: 1 },
      { cpus: 2 },
      { gpuMem: 100 * 2 ** 20 },
      { gpus: 1, cpus: 1 },
    ];
    for (const [name, preset] of Object.entries(PRESETS)) {
      for (const opts of variants) {
        try {
          preset.build(opts);
        } catch (e) {
          // Options a preset refuses (more GPUs or CPUs than it has) are not this test's concern.
          assert.match((e as Error).message, /./, name);
        }
      }
    }
  } finally {
    watchPresets(undefined);
  }
  assert.ok(compared >= Object.keys(PRESETS).length, `only ${compared} presets compared`);
});
