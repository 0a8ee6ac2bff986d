/** Entry point of the `locus` command (bin/locus.mjs loads it). */
import { main } from './main.ts';

process.exitCode = main(process.argv);
