import { Inject } from '@nestjs/common';

/** The gateway's configuration as a Nest provider (`GatewayModule.forRoot`): read once at start, from the environment or a test. */
export const GATEWAY_CONFIG = Symbol('GatewayConfig');

export const InjectConfig = (): ParameterDecorator => Inject(GATEWAY_CONFIG);
