import './tracing';
import { plainOutputUnlessTerminal, readConfigOrExit } from '@petstore/config';
import { gatewayConfigShape } from './config';
import { createGateway } from './gateway';

async function main(): Promise<void> {
  plainOutputUnlessTerminal();
  const config = readConfigOrExit(gatewayConfigShape);
  const app = await createGateway(config);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close());
  await app.listen({ port: config.httpPort, host: config.host });
}

void main();
