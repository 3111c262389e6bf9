import { asyncApiDocument, DEFAULT_TOPIC_PARTITIONS, type AsyncApiDocument, type EventService } from '@petstore/contracts';
import type { ServiceConfig } from '@petstore/service-kit';
import type { RunningService } from './service-under-test';

/**
 * What a running service serves at GET /asyncapi.json, and the contract's part for that service
 * as it comes out of JSON (the same default partition count), for the two to be compared.
 */
export async function servedEventsDocument(
  service: RunningService<ServiceConfig>,
  name: EventService,
): Promise<{ status: number; served: AsyncApiDocument; contract: AsyncApiDocument }> {
  const response = await fetch(`http://${service.config.host}:${service.config.httpPort}/asyncapi.json`);
  const served = (await response.json()) as AsyncApiDocument;
  const contract = JSON.parse(JSON.stringify(asyncApiDocument({ partitions: DEFAULT_TOPIC_PARTITIONS, service: name }))) as AsyncApiDocument;
  return { status: response.status, served, contract };
}
