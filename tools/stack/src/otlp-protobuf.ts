/*
 * OTLP protobuf, decoded into the shape of OTLP JSON (ids in hex, times as decimal strings) so
 * that the receiver reads both alike. Only the fields `spansOf` uses are kept; the rest are skipped.
 * Field numbers from opentelemetry-proto: collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
 * common/v1/common.proto. No protobuf library is installed, and a reader of this much is short.
 */

/** An OTLP AnyValue, as OTLP JSON writes it. */
export interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}

export interface KeyValue {
  key: string;
  value?: AnyValue;
}

export interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: KeyValue[];
  links?: Array<{ traceId?: string; spanId?: string }>;
  status?: { code?: number };
}

/** An ExportTraceServiceRequest, as OTLP JSON writes it (the fields the receiver reads). */
export interface ExportTraceServiceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
  }>;
}

class ProtobufReader {
  constructor(
    private readonly buffer: Buffer,
    private pos = 0,
    private readonly end = buffer.length,
  ) {}
  more(): boolean {
    return this.pos < this.end;
  }
  varint(): bigint {
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
  /** A tag, a length, or a varint only skipped: a double holds it closely enough, without BigInt's cost per byte. */
  private size(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.buffer[this.pos++];
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result;
      scale *= 128;
    }
  }
  /** Each field of the message as [number, wire type, reader of its value]; unknown ones are skipped by not reading them. */
  *fields(): Generator<[number, number, ProtobufReader]> {
    while (this.more()) {
      const tag = this.size();
      const wireType = tag & 7;
      const start = this.pos;
      if (wireType === 0) this.size();
      else if (wireType === 1) this.pos += 8;
      else if (wireType === 5) this.pos += 4;
      else if (wireType === 2) {
        const length = this.size();
        if (this.pos + length > this.end) throw new Error('truncated field');
        yield [tag >>> 3, wireType, new ProtobufReader(this.buffer, this.pos, this.pos + length)];
        this.pos += length;
        continue;
      } else throw new Error(`unsupported wire type ${wireType}`);
      if (this.pos > this.end) throw new Error('truncated field');
      yield [tag >>> 3, wireType, new ProtobufReader(this.buffer, start, this.pos)];
    }
  }
  string(): string {
    return this.buffer.toString('utf8', this.pos, this.end);
  }
  hex(): string {
    return this.buffer.toString('hex', this.pos, this.end);
  }
  fixed64(): bigint {
    return this.buffer.readBigUInt64LE(this.pos);
  }
  double(): number {
    return this.buffer.readDoubleLE(this.pos);
  }
}

function decodeAnyValue(reader: ProtobufReader): AnyValue {
  for (const [field, , value] of reader.fields()) {
    if (field === 1) return { stringValue: value.string() };
    if (field === 2) return { boolValue: value.varint() !== 0n };
    if (field === 3) return { intValue: String(BigInt.asIntN(64, value.varint())) };
    if (field === 4) return { doubleValue: value.double() };
    if (field === 5) return { arrayValue: { values: [...value.fields()].filter(([f]) => f === 1).map(([, , item]) => decodeAnyValue(item)) } };
  }
  return {};
}

function decodeKeyValue(reader: ProtobufReader): KeyValue {
  const keyValue: KeyValue = { key: '', value: {} };
  for (const [field, , value] of reader.fields()) {
    if (field === 1) keyValue.key = value.string();
    else if (field === 2) keyValue.value = decodeAnyValue(value);
  }
  return keyValue;
}

function decodeSpan(reader: ProtobufReader): OtlpSpan {
  const span: OtlpSpan & { attributes: KeyValue[]; links: NonNullable<OtlpSpan['links']> } = { attributes: [], links: [] };
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
      const link: { traceId?: string; spanId?: string } = {};
      for (const [f, , v] of value.fields()) {
        if (f === 1) link.traceId = v.hex();
        else if (f === 2) link.spanId = v.hex();
      }
      span.links.push(link);
    } else if (field === 15) {
      const status = { code: 0 };
      for (const [f, , v] of value.fields()) if (f === 3) status.code = Number(v.varint());
      span.status = status;
    }
  }
  return span;
}

/** An ExportTraceServiceRequest in protobuf, as the same request in OTLP JSON would parse. */
export function decodeTraceRequest(buffer: Buffer): ExportTraceServiceRequest {
  const resourceSpans: NonNullable<ExportTraceServiceRequest['resourceSpans']> = [];
  for (const [field, , rs] of new ProtobufReader(buffer).fields()) {
    if (field !== 1) continue;
    const attributes: KeyValue[] = [];
    const entry = { resource: { attributes }, scopeSpans: [] as Array<{ scope: { name?: string }; spans: OtlpSpan[] }> };
    for (const [f, , value] of rs.fields()) {
      if (f === 1) {
        for (const [rf, , attribute] of value.fields()) if (rf === 1) attributes.push(decodeKeyValue(attribute));
      } else if (f === 2) {
        const scopeSpans = { scope: {} as { name?: string }, spans: [] as OtlpSpan[] };
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

/**
 * How many spans an ExportTraceServiceRequest in protobuf holds, read from its framing alone:
 * a receiver that only counts (the benchmark's) shares the machine with the processes it
 * measures, and decoding every attribute of every span took a good share of their cores.
 */
export function countTraceRequestSpans(buffer: Buffer): number {
  let count = 0;
  for (const [field, , resourceSpans] of new ProtobufReader(buffer).fields()) {
    if (field !== 1) continue;
    for (const [f, , scopeSpans] of resourceSpans.fields()) {
      if (f !== 2) continue;
      for (const [sf] of scopeSpans.fields()) if (sf === 2) count += 1;
    }
  }
  return count;
}
