import { startTracing } from '@petstore/observability';

// main.ts imports this module before any other: pg is patched as it loads, so it must load after.
startTracing('catalog');
