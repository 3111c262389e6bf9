import {
  asyncApiDocument,
  CONSUMING_SERVICES,
  DEFAULT_TOPIC_PARTITIONS,
  EVENT_SERVICES,
  type AsyncApiDocument,
} from '@petstore/contracts';
import { stackState } from '../support/stack';

describe('the events document served by the stack', () => {
  it.each(CONSUMING_SERVICES)('%s serves its part at GET /asyncapi.json on its HTTP port', async (service) => {
    const response = await fetch(`${stackState().urls[service]}/asyncapi.json`);
    const served = (await response.json()) as AsyncApiDocument;

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const partitions = Number(stackState().envs[service]['KAFKA_TOPIC_PARTITIONS'] ?? DEFAULT_TOPIC_PARTITIONS);
    expect(served).toEqual(JSON.parse(JSON.stringify(asyncApiDocument({ partitions, service }))));

    const published = Object.values(served.operations)
      .filter((operation) => operation.action === 'send' && !operation.channel.$ref.endsWith('DeadLetter'))
      .flatMap((operation) => operation.messages.map((message) => message.$ref.split('/').pop()));
    expect(published.sort()).toEqual(EVENT_SERVICES[service].publishes.map((definition) => definition.type).sort());
  });
});
