/**
 * Sections of the docs that a script owns: each is a markdown text with regenerable markers
 * (markers.ts), registered in SECTIONS with the page and the heading it goes before. Before
 * the pages are rendered, a registered section missing from its page is inserted there (at
 * the end of the page when the anchor heading is gone); one already on the page is left as it
 * is, so the page stays the text that is read and reviewed, and the renderer fills both alike.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DARTS_WINDOW_SECTION } from './darts-window.ts';
import { MEMORY_PRESSURE_SECTION } from './memory-pressure.ts';
import { SEED001_CLUSTER_SECTION } from './seed001-cluster.ts';
import { SEED003_SECTION } from './seed003.ts';
import { SIROCCO_CHOLESKY_SECTION } from './sirocco-cholesky.ts';

/** A section a script contributes to a page. */
export interface GeneratedSection {
  /** The page, relative to the repository root (docs/results.md). */
  page: string;
  /** Its heading line, as it appears on the page (`## ...`): how it is found. */
  heading: string;
  /** The heading line it is inserted before. */
  before: string;
  /** The section's lines after the heading (markers with empty blocks: the renderer fills them). */
  body: string;
}

/** The registered sections. */
export const SECTIONS: readonly GeneratedSection[] = [
  DARTS_WINDOW_SECTION,
  MEMORY_PRESSURE_SECTION,
  SIROCCO_CHOLESKY_SECTION,
  SEED003_SECTION,
  SEED001_CLUSTER_SECTION,
];

/** `text` with `s` inserted before its anchor heading (or at the end) when it is missing. */
export function withSection(text: string, s: GeneratedSection): string {
  const lines = text.split('\n');
  if (lines.includes(s.heading)) return text;
  const block = [s.heading, '', ...s.body.trim().split('\n'), ''];
  const at = lines.indexOf(s.before);
  if (at < 0) {
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return [...lines, '', ...block].join('\n');
  }
  lines.splice(at, 0, ...block);
  return lines.join('\n');
}

/** Inserts the registered sections missing from the pages of `files` (absolute paths). */
export function ensureSections(root: string, files: readonly string[]): void {
  for (const s of SECTIONS) {
    const path = join(root, s.page);
    if (!files.includes(path)) continue;
    const text = readFileSync(path, 'utf8');
    const next = withSection(text, s);
    if (next !== text) writeFileSync(path, next);
  }
}
