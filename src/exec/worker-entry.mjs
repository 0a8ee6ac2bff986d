// Starts a real-driver worker thread from the TypeScript sources: Node 20 cannot start a
// worker from a .ts file, so this registers tsx's loader first, then loads worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
