import { createPet, decided, placeOrder, setStock } from '../support/fixtures';
import { newTraceparent, traceWith, type ReceivedSpan } from '../support/traces';

/** The one span of `spans` that `accept` picks: failing when there is none or more than one. */
function theSpan(spans: ReceivedSpan[], what: string, accept: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(accept);
  if (found.length !== 1) {
    const seen = spans.map((span) => `${span.service} ${span.kind} ${span.name} ${String(span.attributes['petstore.event.type'] ?? '')}`);
    throw new Error(`expected one ${what} in the trace, found ${found.length}; the trace has:\n${seen.join('\n')}`);
  }
  return found[0];
}

const messaging = (service: string, kind: 'producer' | 'consumer', eventType: string) => (span: ReceivedSpan) =>
  span.service === service && span.kind === kind && span.attributes['petstore.event.type'] === eventType;

describe('the trace of an order', () => {
  it('follows one order from the request through both Kafka hops to its decision, in one trace', async () => {
    const pet = await createPet();
    await setStock(pet.id, 1);
    const { traceparent, traceId, parentSpanId } = newTraceparent();

    const placed = await placeOrder(pet.id, 1, { traceparent });
    expect(placed.status).toBe(201);
    expect(await decided(placed.body.id)).toMatchObject({ status: 'approved' });

    // Each process exports on its own schedule: wait until a span of every hop is in.
    const gatewayRequest = (span: ReceivedSpan) => span.service === 'gateway' && span.kind === 'server';
    const hops = [
      gatewayRequest,
      messaging('orders', 'producer', 'OrderPlaced'),
      messaging('inventory', 'consumer', 'OrderPlaced'),
      messaging('inventory', 'producer', 'StockReserved'),
      messaging('orders', 'consumer', 'StockReserved'),
    ];
    const spans = await traceWith(traceId, (_span, all) => hops.every((hop) => all.some(hop)));

    // The gateway: the HTTP request, child of the client's span; its RPC call has no span of its own (libs/observability, rpc-trace.ts).
    const request = theSpan(spans, 'gateway HTTP server span', gatewayRequest);
    expect(request.parentSpanId).toBe(parentSpanId);
    expect(request).toMatchObject({ name: 'POST /v1/store/orders', attributes: { 'http.route': '/v1/store/orders' } });
    expect(spans.filter((span) => span.service === 'gateway').map((span) => span.kind)).toEqual(['server']);

    // Orders handles the call and writes OrderPlaced in it.
    const handling = theSpan(spans, 'orders RPC server span', (span) => span.service === 'orders' && span.kind === 'server' && span.name === 'orders/orders.place');
    expect(handling.parentSpanId).toBe(request.spanId);
    expect(handling.attributes).toMatchObject({ 'rpc.system': 'nestjs', 'rpc.method': 'orders.place' });
    const orderPlacedSent = theSpan(spans, 'OrderPlaced publish', messaging('orders', 'producer', 'OrderPlaced'));
    expect(orderPlacedSent.parentSpanId).toBe(handling.spanId);
    expect(orderPlacedSent.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.destination.name': expect.stringMatching(/orders\.order\.v1$/),
      'messaging.kafka.message.key': String(pet.id),
    });

    // First Kafka hop: inventory consumes OrderPlaced and answers StockReserved in its span.
    const orderPlacedProcessed = theSpan(spans, 'OrderPlaced process', messaging('inventory', 'consumer', 'OrderPlaced'));
    expect(orderPlacedProcessed.parentSpanId).toBe(orderPlacedSent.spanId);
    expect(orderPlacedProcessed.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.message.id': orderPlacedSent.attributes['messaging.message.id'],
      'messaging.consumer.group.name': expect.stringMatching(/inventory$/),
    });
    const stockReservedSent = theSpan(spans, 'StockReserved publish', messaging('inventory', 'producer', 'StockReserved'));
    expect(stockReservedSent.parentSpanId).toBe(orderPlacedProcessed.spanId);

    // Second Kafka hop: orders consumes StockReserved and decides the order.
    const decision = theSpan(spans, 'StockReserved process', messaging('orders', 'consumer', 'StockReserved'));
    expect(decision.parentSpanId).toBe(stockReservedSent.spanId);
    expect(decision.attributes).toMatchObject({ 'messaging.message.id': stockReservedSent.attributes['messaging.message.id'], 'messaging.consumer.group.name': expect.stringMatching(/orders$/) });

    // Every span is in this one trace, and the database work of the request is in it too.
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
    expect(spans.some((span) => span.service === 'orders' && (span.attributes['db.system.name'] ?? span.attributes['db.system']) === 'postgresql')).toBe(true);
  });
});
