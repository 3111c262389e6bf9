// A tiny OTLP/HTTP receiver for traces in JSON (what @opentelemetry/exporter-trace-otlp-http
// sends): it keeps the spans in memory so the end-to-end tests and the benchmarks can point
// the stack's OTEL_EXPORTER_OTLP_ENDPOINT at it and read back what each process exported.
'use strict';
const http = require('node:http');
const zlib = require('node:zlib');

const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** An OTLP AnyValue as a plain value. */
function plainValue(value = {}) {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

function plainAttributes(attributes = []) {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));
}

/** The spans of one ExportTraceServiceRequest, flattened: each with its service and attributes as an object. */
function spansOf(request) {
  const spans = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = plainAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: SPAN_KINDS[span.kind] ?? String(span.kind),
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

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const stream = request.headers['content-encoding'] === 'gzip' ? request.pipe(zlib.createGunzip()) : request;
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

/**
 * Listens on `port` (0: any). POST /v1/traces takes OTLP JSON; GET /spans?traceId=… answers
 * the spans received (of one trace, or all), GET /spans/count how many; DELETE /spans forgets them.
 * `keepSpans: false` only counts them (a benchmark's hundreds of thousands need no keeping).
 * Resolves to { url, spans(traceId?), count(), clear(), close() }.
 */
function startOtlpReceiver({ port = 0, host = '127.0.0.1', keepSpans = true } = {}) {
  let spans = [];
  let received = 0;
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url, 'http://receiver');
    const answer = (status, body) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    try {
      if (request.method === 'POST' && url.pathname === '/v1/traces') {
        if (!String(request.headers['content-type']).startsWith('application/json')) {
          return answer(415, { message: 'This receiver takes OTLP JSON only' });
        }
        const batch = spansOf(JSON.parse(await readBody(request)));
        received += batch.length;
        if (keepSpans) spans.push(...batch);
        return answer(200, {});
      }
      if (request.method === 'GET' && url.pathname === '/spans') {
        const traceId = url.searchParams.get('traceId');
        return answer(200, traceId ? spans.filter((span) => span.traceId === traceId) : spans);
      }
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
      const address = server.address();
      resolve({
        url: `http://${host}:${address.port}`,
        spans: (traceId) => (traceId ? spans.filter((span) => span.traceId === traceId) : spans),
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

module.exports = { startOtlpReceiver, spansOf };
