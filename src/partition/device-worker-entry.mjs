// Starts a partition device thread from the TypeScript sources: Node 20 cannot start a worker
// from a .ts file, so this registers tsx's loader first, then loads device-worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./device-worker.ts');
