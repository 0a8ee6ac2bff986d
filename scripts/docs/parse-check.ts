/**
 * Checks that a documented `locus` command still parses (its subcommand and every flag exist
 * and their values are accepted) without running it: commander parses it with every action
 * replaced by a no-op. For commands too slow to run in CI.
 */
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.ts';
import { shellWords } from './shell-words.ts';

export { shellWords };

/** Shell operators that end a simple command. */
const OPERATORS = new Set(['&&', '||', '|', ';', '>', '>>', '2>', '<', '&']);

/** The argument lists of every `locus` (or `node bin/locus.mjs`) invocation in a command line. */
export function locusInvocations(line: string): string[][] {
  const words = shellWords(line);
  const out: string[][] = [];
  let i = 0;
  while (i < words.length) {
    let start = -1;
    if (words[i] === 'locus') start = i + 1;
    else if (words[i] === 'node' && words[i + 1] === 'bin/locus.mjs') start = i + 2;
    if (start < 0) {
      i++;
      continue;
    }
    let end = start;
    while (end < words.length && !OPERATORS.has(words[end]!)) end++;
    out.push(words.slice(start, end));
    i = end;
  }
  return out;
}

function silence(cmd: Command): void {
  cmd.action(() => {});
  for (const sub of cmd.commands) silence(sub);
}

/**
 * Parses `args` (what follows `locus`) as the CLI would, running nothing. Resolves when they
 * parse; rejects with commander's error (unknown command or option, invalid value) otherwise.
 */
export async function checkParses(args: readonly string[]): Promise<void> {
  const program = await buildProgram();
  for (const sub of program.commands) silence(sub);
  program.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  await program.parseAsync(['node', 'locus', ...args]);
}
