/**
 * `locus playground`: the simulator in a web page. Serves the page on 127.0.0.1 (printing
 * its address; Ctrl-C stops the server), or with `--out DIR` writes it as DIR/index.html for
 * any static host (it needs no server: it also opens from disk).
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Command } from 'commander';
import { LocusError } from '../core/types.ts';
import { playgroundHtml } from '../playground/page.ts';
import { naturalInt } from './options.ts';
import { makeOutputFolder, writeOutputFile } from './output-files.ts';

/** Options of `locus playground`. */
export interface PlaygroundOptions {
  port?: number;
  out?: string;
}

/** Adds `locus playground` to the program. */
export function registerPlaygroundCommand(program: Command, name: string, summary: string): void {
  program
    .command(name)
    .description(summary)
    .option('--port <n>', 'port on 127.0.0.1 (default 0: any free one)', naturalInt)
    .option('--out <dir>', 'write the page as <dir>/index.html instead of serving it')
    .addHelpText(
      'after',
      `
Examples:
  locus playground                  # prints http://127.0.0.1:PORT/; open it in a browser
  locus playground --port 8080
  locus playground --out site       # site/index.html, for any static host`,
    )
    .action(async (o: PlaygroundOptions) => playgroundCommand(o));
}

/** Runs the command: writes the page, or serves it until Ctrl-C or SIGTERM. */
export async function playgroundCommand(o: PlaygroundOptions): Promise<void> {
  if (o.out !== undefined && o.port !== undefined) {
    throw new LocusError('LOCUS_OPTION_CONFLICT', '--port serves the page and --out writes it: give one');
  }
  const page = playgroundHtml();
  if (o.out !== undefined) {
    makeOutputFolder(o.out);
    const file = join(o.out, 'index.html');
    writeOutputFile(file, page);
    process.stdout.write(`playground written to ${file} (open it in a browser, or host the folder)\n`);
    return;
  }
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/' || path === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
      res.end(req.method === 'HEAD' ? undefined : page);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the playground is at /\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new LocusError(
          'LOCUS_OPTION_INVALID',
          `--port ${o.port ?? 0}: cannot listen on 127.0.0.1 (${e.code ?? e.message})`,
        ),
      ),
    );
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : o.port;
  process.stdout.write(`playground at http://127.0.0.1:${port}/ (Ctrl-C stops it)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
