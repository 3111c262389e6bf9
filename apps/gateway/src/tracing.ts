import { startTracing } from '@petstore/observability';

// main.ts imports this module before any other, as every app's does: the SDK is registered before the first request.
// The store's public edge: a client's traceparent names the trace, the store's own ratio decides whether it is kept.
startTracing('gateway', { publicEdge: true });
