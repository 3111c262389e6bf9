import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { asyncApiDocument, DEFAULT_TOPIC_PARTITIONS } from '@petstore/contracts';
import { asyncApiController } from './asyncapi.controller';
import { HealthModule } from './health.module';

async function get(module: DynamicModule | Type<unknown>, url: string) {
  @Module({ imports: [module] })
  class Root {}
  const app = await NestFactory.create<NestFastifyApplication>(Root, new FastifyAdapter(), { logger: false });
  await app.init();
  try {
    const response = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url });
    return { status: response.statusCode, type: response.headers['content-type'], body: response.json() as unknown };
  } finally {
    await app.close();
  }
}

describe('GET /asyncapi.json', () => {
  it("answers the service's part of the events document beside its health endpoints", async () => {
    const response = await get(HealthModule.forRoot('orders', []), '/asyncapi.json');

    expect(response.status).toBe(200);
    expect(response.type).toMatch(/^application\/json/);
    expect(response.body).toEqual(
      JSON.parse(JSON.stringify(asyncApiDocument({ partitions: DEFAULT_TOPIC_PARTITIONS, service: 'orders' }))),
    );
    expect(Object.keys((response.body as { operations: object }).operations)).toEqual([
      'ordersConsumesCatalogPet',
      'ordersPublishesOrdersOrder',
      'ordersConsumesInventoryStock',
      'ordersSendsDeadLetters',
    ]);
  });

  it('states the partition count the service provisions topics with', async () => {
    @Module({ controllers: [asyncApiController('inventory', { KAFKA_TOPIC_PARTITIONS: '24' })] })
    class Part {}
    const { body } = await get(Part, '/asyncapi.json');

    expect((body as { channels: Record<string, { bindings: unknown }> }).channels['inventoryStock'].bindings).toMatchObject({
      kafka: { topic: 'inventory.stock.v1', partitions: 24, bindingVersion: '0.5.0' },
    });
  });

  it('refuses a partition count that is not a positive integer, naming the variable', () => {
    expect(() => asyncApiController('inventory', { KAFKA_TOPIC_PARTITIONS: '0' })).toThrow(/KAFKA_TOPIC_PARTITIONS/);
  });

  it('answers the whole document for a process that is none of the event services', async () => {
    const { body } = await get(HealthModule.forRoot('things', []), '/asyncapi.json');
    expect(body).toEqual(JSON.parse(JSON.stringify(asyncApiDocument({ partitions: DEFAULT_TOPIC_PARTITIONS }))));
  });
});
