/**
 * Every registered policy has its conformance file: test/policies/sched-NAME.test.ts for each
 * scheduler of SCHEDULERS and evict-NAME.test.ts for each eviction policy of
 * EVICTION_POLICIES, so that a new policy cannot be added without running the suites.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { EVICTION_POLICIES } from '../../src/evict/index.ts';
import { SCHEDULERS } from '../../src/sched/index.ts';

const here = new URL('.', import.meta.url);

test('every registered scheduler and eviction policy has a conformance test file', () => {
  const missing = [
    ...Object.keys(SCHEDULERS).map((n) => `sched-${n}.test.ts`),
    ...Object.keys(EVICTION_POLICIES).map((n) => `evict-${n}.test.ts`),
  ].filter((f) => !existsSync(new URL(f, here)));
  assert.deepEqual(missing, [], 'add these files to test/policies/, each calling its conformance suite');
});
