// A tiny OTLP/HTTP receiver for traces, in protobuf (what the services export) or JSON: it
// keeps the spans in memory so the end-to-end tests and the benchmarks can point the stack's
// OTEL_EXPORTER_OTLP_ENDPOINT at it and read back what each process exported.
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

/*
 * OTLP protobuf, decoded into the shape of OTLP JSON (ids in hex, times as decimal strings) so
 * that `spansOf` reads both. Only the fields `spansOf` uses are kept; the rest are skipped.
 * Field numbers from opentelemetry-proto: collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
 * common/v1/common.proto. No protobuf library is installed, and a reader of this much is short.
 */
class ProtobufReader {
  constructor(buffer, start = 0, end = buffer.length) {
    this.buffer = buffer;
    this.pos = start;
    this.end = end;
  }
  more() {
    return this.pos < this.end;
  }
  varint() {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.buffer[this.pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  /** Each field of the message as [number, wire type, reader of its value]; unknown ones are skipped by not reading them. */
  *fields() {
    while (this.more()) {
      const tag = Number(this.varint());
      const wireType = tag & 7;
      const start = this.pos;
      if (wireType === 0) this.varint();
      else if (wireType === 1) this.pos += 8;
      else if (wireType === 5) this.pos += 4;
      else if (wireType === 2) {
        const length = Number(this.varint());
        if (this.pos + length > this.end) throw new Error('truncated field');
        yield [tag >>> 3, wireType, new ProtobufReader(this.buffer, this.pos, this.pos + length)];
        this.pos += length;
        continue;
      } else throw new Error(`unsupported wire type ${wireType}`);
      if (this.pos > this.end) throw new Error('truncated field');
      yield [tag >>> 3, wireType, new ProtobufReader(this.buffer, start, this.pos)];
    }
  }
  string() {
    return this.buffer.toString('utf8', this.pos, this.end);
  }
  hex() {
    return this.buffer.toString('hex', this.pos, this.end);
  }
  fixed64() {
    return this.buffer.readBigUInt64LE(this.pos);
  }
  double() {
    return this.buffer.readDoubleLE(this.pos);
  }
}

function decodeAnyValue(reader) {
  for (const [field, , value] of reader.fields()) {
    if (field === 1) return { stringValue: value.string() };
    if (field === 2) return { boolValue: value.varint() !== 0n };
    if (field === 3) return { intValue: String(BigInt.asIntN(64, value.varint())) };
    if (field === 4) return { doubleValue: value.double() };
    if (field === 5) return { arrayValue: { values: [...value.fields()].filter(([f]) => f === 1).map(([, , item]) => decodeAnyValue(item)) } };
  }
  return {};
}

function decodeKeyValue(reader) {
  const keyValue = { key: '', value: {} };
  for (const [field, , value] of reader.fields()) {
    if (field === 1) keyValue.key = value.string();
    else if (field === 2) keyValue.value = decodeAnyValue(value);
  }
  return keyValue;
}

function decodeSpan(reader) {
  const span = { attributes: [], links: [] };
  for (const [field, , value] of reader.fields()) {
    if (field === 1) span.traceId = value.hex();
    else if (field === 2) span.spanId = value.hex();
    else if (field === 4) span.parentSpanId = value.hex();
    else if (field === 5) span.name = value.string();
    else if (field === 6) span.kind = Number(value.varint());
    else if (field === 7) span.startTimeUnixNano = String(value.fixed64());
    else if (field === 8) span.endTimeUnixNano = String(value.fixed64());
    else if (field === 9) span.attributes.push(decodeKeyValue(value));
    else if (field === 13) {
      const link = {};
      for (const [f, , v] of value.fields()) {
        if (f === 1) link.traceId = v.hex();
        else if (f === 2) link.spanId = v.hex();
      }
      span.links.push(link);
    } else if (field === 15) {
      span.status = { code: 0 };
      for (const [f, , v] of value.fields()) if (f === 3) span.status.code = Number(v.varint());
    }
  }
  return span;
}

/** An ExportTraceServiceRequest in protobuf, as the same request in OTLP JSON would parse. */
function decodeTraceRequest(buffer) {
  const resourceSpans = [];
  for (const [field, , rs] of new ProtobufReader(buffer).fields()) {
    if (field !== 1) continue;
    const entry = { resource: { attributes: [] }, scopeSpans: [] };
    for (const [f, , value] of rs.fields()) {
      if (f === 1) {
        for (const [rf, , attribute] of value.fields()) if (rf === 1) entry.resource.attributes.push(decodeKeyValue(attribute));
      } else if (f === 2) {
        const scopeSpans = { scope: {}, spans: [] };
        for (const [sf, , v] of value.fields()) {
          if (sf === 1) {
            for (const [nf, , name] of v.fields()) if (nf === 1) scopeSpans.scope.name = name.string();
          } else if (sf === 2) scopeSpans.spans.push(decodeSpan(v));
        }
        entry.scopeSpans.push(scopeSpans);
      }
    }
    resourceSpans.push(entry);
  }
  return { resourceSpans };
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const stream = request.headers['content-encoding'] === 'gzip' ? request.pipe(zlib.createGunzip()) : request;
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/**
 * Listens on `port` (0: any). POST /v1/traces takes OTLP protobuf or JSON; GET /spans?traceId=… answers
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
        const type = String(request.headers['content-type']);
        const parse = type.startsWith('application/x-protobuf')
          ? decodeTraceRequest
          : type.startsWith('application/json')
            ? (body) => JSON.parse(body.toString('utf8'))
            : undefined;
        if (!parse) return answer(415, { message: 'This receiver takes OTLP protobuf or JSON' });
        const batch = spansOf(parse(await readBody(request)));
        received += batch.length;
        if (keepSpans) spans.push(...batch);
        if (parse !== decodeTraceRequest) return answer(200, {});
        // An empty ExportTraceServiceResponse: all spans accepted.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' });
        return response.end();
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

module.exports = { startOtlpReceiver, spansOf, decodeTraceRequest };
