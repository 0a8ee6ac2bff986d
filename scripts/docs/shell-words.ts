/** Shell words: how the docs' command lines and table values are split. */

/** Splits a shell command line into words (single and double quotes, backslash escapes). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let w = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) w += line[++i];
      else w += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      w += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(w);
      w = '';
      inWord = false;
    } else {
      w += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} in: ${line}`);
  if (inWord) words.push(w);
  return words;
}
