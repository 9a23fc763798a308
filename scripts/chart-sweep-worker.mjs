// A worker thread of scripts/chart-sweep.ts: Node 20 does not pass the main thread's tsx loader on to
// workers, so the worker loads the TypeScript through tsx's API.
import { tsImport } from 'tsx/esm/api';

await tsImport('./chart-sweep.ts', import.meta.url);
