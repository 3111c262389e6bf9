import { Controller, Get, Header, type Type } from '@nestjs/common';
import {
  CONSUMING_SERVICES,
  asyncApiDocument,
  type AsyncApiDocument,
  type EventService,
} from '@petstore/contracts';
import { topicSettingsFromEnv } from '@petstore/kafka';

/**
 * `GET /asyncapi.json` on the service's HTTP port, beside `/health` and `/metrics`: the part of
 * the events' AsyncAPI document that concerns this service (what it publishes and consumes),
 * with the partition count it provisions topics with. The whole document is docs/asyncapi/.
 */
export function asyncApiController(service: string, env: NodeJS.ProcessEnv = process.env): Type<unknown> {
  const document = asyncApiDocument({
    partitions: topicSettingsFromEnv(env).partitions,
    service: (CONSUMING_SERVICES as readonly string[]).includes(service) ? (service as EventService) : undefined,
  });

  @Controller()
  class AsyncApiController {
    @Get('asyncapi.json')
    @Header('cache-control', 'no-cache')
    asyncApi(): AsyncApiDocument {
      return document;
    }
  }
  return AsyncApiController;
}
