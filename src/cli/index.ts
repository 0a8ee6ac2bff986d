/** Entry point of the `locus` command (bin/locus.mjs loads it). */
import { main } from './main.ts';

// A reader that stops early (`locus run ... | head`) closes the pipe: end quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

process.exitCode = await main(process.argv);
