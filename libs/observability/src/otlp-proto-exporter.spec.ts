import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

/*
 * The exporter runs in a Node process of its own: its HTTP transport loads `http` with a dynamic
 * import(), which Jest's module sandbox refuses. The process exports one span and prints its ids.
 */
const EXPORT_ONE_SPAN = `
  const { SimpleSpanProcessor, TracerProvider } = require('@opentelemetry/sdk-trace');
  const { OtlpProtoTraceExporter } = require(${JSON.stringify(require.resolve('./otlp-proto-exporter'))});
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new OtlpProtoTraceExporter() })] });
  const span = provider.getTracer('test').startSpan('orders/orders.place');
  span.end();
  provider.forceFlush().then(() => provider.shutdown()).then(() => console.log(span.spanContext().traceId));
`;

interface Received {
  url?: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe('OtlpProtoTraceExporter', () => {
  let server: Server;
  const received: Received[] = [];
  let endpoint = '';

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ url: request.url, headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('posts the spans as OTLP protobuf to the endpoint of OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--require', '@swc-node/register', '--eval', EXPORT_ONE_SPAN], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    const traceId = stdout.trim();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    expect(received).toHaveLength(1);
    const [{ url, headers, body }] = received;
    expect(url).toBe('/v1/traces');
    expect(headers['content-type']).toBe('application/x-protobuf');
    // Binary, not JSON: an ExportTraceServiceRequest opens with its field 1 (resource_spans, length-delimited),
    // and carries the ids as raw bytes, not hex.
    expect(body[0]).toBe(0x0a);
    expect(body.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    expect(body.includes(Buffer.from(traceId))).toBe(false);
    expect(body.includes(Buffer.from('orders/orders.place'))).toBe(true);
  });
});
