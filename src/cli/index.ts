/** Entry point of the `locus` command (bin/locus.mjs loads it). */
import { main } from './main.ts';

// A reader that stops early (`locus run ... | head`) closes the pipe: end quietly. Another
// failed write of the output: one line, exit code 2 (errors.ts loaded only then).
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  void import('./errors.ts').then(({ outputErrorLine }) => {
    const line = outputErrorLine(e);
    if (line === undefined) throw e;
    process.stderr.write(line);
    process.exit(2);
  });
});

process.exitCode = await main(process.argv);
