import { startTracing } from '@petstore/observability';

// main.ts imports this module before any other: pg and http are patched as they load, so they must load after.
// The store's public edge: a client's traceparent names the trace, the store's own ratio decides whether it is kept.
startTracing('gateway', { publicEdge: true });
