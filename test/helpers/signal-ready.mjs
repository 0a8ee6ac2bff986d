// Test hook (node --import): when the process starts listening for SIGTERM (the CLI's Interrupt,
// src/cli/interrupt.ts, listens for SIGINT then SIGTERM), writes the file named by
// LOCUS_TEST_SIGNAL_READY, so that a test sends a signal once the run handles it
// (test/trace-interrupt.test.ts), not after a fixed delay.
import { writeFileSync } from 'node:fs';

const file = process.env.LOCUS_TEST_SIGNAL_READY;
if (file) {
  for (const method of ['on', 'once', 'addListener']) {
    const original = process[method].bind(process);
    process[method] = (event, listener) => {
      const r = original(event, listener);
      if (event === 'SIGTERM') writeFileSync(file, '');
      return r;
    };
  }
}
