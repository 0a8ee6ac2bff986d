#!/usr/bin/env node
// Starts the `locus` command from its TypeScript sources: registers tsx's loader, then
// loads the CLI. Node 20 cannot load .ts files by itself.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
