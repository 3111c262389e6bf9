// A tiny OTLP/HTTP receiver for traces, in protobuf (what the services export) or JSON: the
// end-to-end tests point the stack's OTEL_EXPORTER_OTLP_ENDPOINT at it and read back what each
// process exported; the benchmarks point it there and count the spans.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { countTraceRequestSpans, decodeTraceRequest, type AnyValue, type ExportTraceServiceRequest, type KeyValue } from './otlp-protobuf';

export { decodeTraceRequest };

const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** A plain attribute value: what an OTLP AnyValue holds. */
export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

/** A span as the receiver keeps it: flattened, with its service and attributes as an object. */
export interface ReceivedSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind: string;
  service?: AttributeValue;
  scope?: string;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes: Record<string, AttributeValue>;
  links: Array<{ traceId?: string; spanId?: string }>;
  status: number;
}

/** An OTLP AnyValue as a plain value. */
function plainValue(value: AnyValue = {}): AttributeValue {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) return (value.arrayValue?.values ?? []).map(plainValue);
  return undefined;
}

function plainAttributes(attributes: KeyValue[] = []): Record<string, AttributeValue> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));
}

/** The spans of one ExportTraceServiceRequest, flattened: each with its service and attributes as an object. */
export function spansOf(request: ExportTraceServiceRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = plainAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: SPAN_KINDS[span.kind as number] ?? String(span.kind),
          service: resource['service.name'],
          scope: scopeSpans.scope?.name,
          startTimeUnixNano: span.startTimeUnixNano,
          endTimeUnixNano: span.endTimeUnixNano,
          attributes: plainAttributes(span.attributes),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
          status: span.status?.code ?? 0,
        });
      }
    }
  }
  return spans;
}

function readBody(request: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const stream = request.headers['content-encoding'] === 'gzip' ? request.pipe(zlib.createGunzip()) : request;
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export interface OtlpReceiverOptions {
  /** 0: any. */
  port?: number;
  host?: string;
  /** `false` only counts the spans (a benchmark's hundreds of thousands need no keeping), and reads of protobuf only its framing. */
  keepSpans?: boolean;
}

export interface OtlpReceiver {
  url: string;
  /** The spans received, of one trace or all. */
  spans(traceId?: string): ReceivedSpan[];
  count(): number;
  clear(): void;
  close(): Promise<void>;
}

/**
 * Listens on `port`. POST /v1/traces takes OTLP protobuf or JSON; GET /spans?traceId=… answers
 * the spans received (of one trace, or all), GET /spans/count how many; DELETE /spans forgets them.
 */
export function startOtlpReceiver({ port = 0, host = '127.0.0.1', keepSpans = true }: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  let spans: ReceivedSpan[] = [];
  let received = 0;
  const ofTrace = (traceId?: string | null) => (traceId ? spans.filter((span) => span.traceId === traceId) : spans);
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://receiver');
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    try {
      if (request.method === 'POST' && url.pathname === '/v1/traces') {
        const type = String(request.headers['content-type']);
        const protobuf = type.startsWith('application/x-protobuf');
        if (!protobuf && !type.startsWith('application/json')) return answer(415, { message: 'This receiver takes OTLP protobuf or JSON' });
        const body = await readBody(request);
        if (protobuf && !keepSpans) {
          received += countTraceRequestSpans(body);
        } else {
          const batch = spansOf(protobuf ? decodeTraceRequest(body) : (JSON.parse(body.toString('utf8')) as ExportTraceServiceRequest));
          received += batch.length;
          if (keepSpans) spans.push(...batch);
        }
        if (!protobuf) return answer(200, {});
        // An empty ExportTraceServiceResponse: all spans accepted.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' });
        return response.end();
      }
      if (request.method === 'GET' && url.pathname === '/spans') return answer(200, ofTrace(url.searchParams.get('traceId')));
      if (request.method === 'GET' && url.pathname === '/spans/count') return answer(200, { count: received });
      if (request.method === 'DELETE' && url.pathname === '/spans') {
        spans = [];
        received = 0;
        return answer(200, {});
      }
      answer(404, { message: `No ${request.method} ${url.pathname}` });
    } catch (error) {
      answer(400, { message: String(error) });
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${address.port}`,
        spans: ofTrace,
        count: () => received,
        clear: () => {
          spans = [];
          received = 0;
        },
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
