import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver';

// The receiver is the benchmark's and the end-to-end suite's collector: what the services export must read back as sent.

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

function span(name: string, spanId: string, more: Partial<ReadableSpan> = {}): ReadableSpan {
  return {
    name,
    kind: SpanKind.PRODUCER,
    spanContext: () => ({ traceId: TRACE_ID, spanId, traceFlags: TraceFlags.SAMPLED }),
    parentSpanContext: { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED },
    startTime: [1_764_000_000, 5],
    endTime: [1_764_000_001, 0],
    status: { code: SpanStatusCode.UNSET },
    attributes: {},
    links: [],
    events: [],
    duration: [1, 0],
    ended: true,
    resource: resourceFromAttributes({ 'service.name': 'orders' }),
    instrumentationScope: { name: '@petstore/messaging' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...more,
  };
}

const SPANS = [
  span('orders.order.v1 send', '00f067aa0ba902b7', {
    attributes: { 'messaging.system': 'kafka', 'messaging.batch.message_count': 3, 'petstore.retry': false, ratio: 0.25, 'petstore.negative': -7, tags: ['a', 'b'] },
    links: [{ context: { traceId: 'f'.repeat(32), spanId: '1'.repeat(16), traceFlags: TraceFlags.SAMPLED }, attributes: {} }],
    status: { code: SpanStatusCode.ERROR, message: 'broker down' },
  }),
  span('SELECT', '00f067aa0ba902b8', { kind: SpanKind.CLIENT, instrumentationScope: { name: '@opentelemetry/instrumentation-pg' } }),
];

const EXPECTED = [
  {
    traceId: TRACE_ID,
    spanId: '00f067aa0ba902b7',
    parentSpanId: 'b7ad6b7169203331',
    name: 'orders.order.v1 send',
    kind: 'producer',
    service: 'orders',
    scope: '@petstore/messaging',
    startTimeUnixNano: '1764000000000000005',
    endTimeUnixNano: '1764000001000000000',
    attributes: { 'messaging.system': 'kafka', 'messaging.batch.message_count': 3, 'petstore.retry': false, ratio: 0.25, 'petstore.negative': -7, tags: ['a', 'b'] },
    links: [{ traceId: 'f'.repeat(32), spanId: '1'.repeat(16) }],
    status: SpanStatusCode.ERROR,
  },
  expect.objectContaining({ spanId: '00f067aa0ba902b8', name: 'SELECT', kind: 'client', scope: '@opentelemetry/instrumentation-pg', attributes: {}, links: [], status: 0 }),
];

describe('the OTLP receiver', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => receiver.close());

  const post = (contentType: string, body: Uint8Array | undefined) =>
    fetch(`${receiver.url}/v1/traces`, { method: 'POST', headers: { 'content-type': contentType }, body: body && Buffer.from(body) });

  it('reads OTLP protobuf as the exporters write it, and answers with an empty protobuf response', async () => {
    const response = await post('application/x-protobuf', ProtobufTraceSerializer.serializeRequest(SPANS));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await response.arrayBuffer()).byteLength).toBe(0);
    expect(receiver.spans()).toEqual(EXPECTED);
    expect(receiver.count()).toBe(2);
  });

  it('reads the same spans from OTLP JSON', async () => {
    expect((await post('application/json', JsonTraceSerializer.serializeRequest(SPANS))).status).toBe(200);
    expect(receiver.spans()).toEqual(EXPECTED);
  });

  it('counts the spans of every resource and scope without keeping them, as the benchmark runs it', async () => {
    const counting = await startOtlpReceiver({ keepSpans: false });
    try {
      const inventorySpan = span('inventory.stock.v1 send', '00f067aa0ba902b9', { resource: resourceFromAttributes({ 'service.name': 'inventory' }) });
      const body = Buffer.from(ProtobufTraceSerializer.serializeRequest([...SPANS, inventorySpan]) as Uint8Array);
      const sent = await fetch(`${counting.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body });
      expect(sent.status).toBe(200);
      expect(counting.count()).toBe(3);
      expect(counting.spans()).toEqual([]);
      const cut = await fetch(`${counting.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: body.subarray(0, body.length - 9) });
      expect(cut.status).toBe(400);
      expect(counting.count()).toBe(3);
    } finally {
      await counting.close();
    }
  });

  it('refuses other bodies, and a protobuf cut short', async () => {
    expect((await post('text/plain', new TextEncoder().encode('spans'))).status).toBe(415);
    const whole = ProtobufTraceSerializer.serializeRequest(SPANS) as Uint8Array;
    expect((await post('application/x-protobuf', whole.subarray(0, whole.length - 9))).status).toBe(400);
    expect(receiver.count()).toBe(0);
  });
});
