import { plainOutputUnlessTerminal, readConfigOrExit } from '@petstore/config';
import { gatewayConfigShape } from './config';
import { createGateway } from './gateway';

async function main(): Promise<void> {
  plainOutputUnlessTerminal();
  const config = readConfigOrExit(gatewayConfigShape);
  const app = await createGateway(config);
  await app.listen(config.httpPort, config.host);
}

void main();
