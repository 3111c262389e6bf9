import './tracing';
import { readConfigOrExit } from '@petstore/config';
import { serveMetrics, useProcessLogger } from '@petstore/observability';
import { gatewayConfigShape } from './config';
import { createGateway } from './gateway';
import { shutdownConfigShape, stopGracefully } from './shutdown';

async function main(): Promise<void> {
  const config = readConfigOrExit(gatewayConfigShape);
  const timings = readConfigOrExit(shutdownConfigShape);
  useProcessLogger({ service: 'gateway', level: config.logLevel });
  const app = await createGateway(config);
  const metrics = await serveMetrics(config.metricsPort, config.host);
  // One stop, whichever signal comes first; a second one changes nothing.
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopGracefully(app, timings).finally(() => metrics.close()));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop());
  await app.listen({ port: config.httpPort, host: config.host });
}

void main();
