import { startTracing } from '@petstore/observability';

// main.ts imports this module before any other: pg and http are patched as they load, so they must load after.
startTracing('inventory');
