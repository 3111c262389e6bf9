import { DeadLetterHeaders, EventHeaders, ReplayHeaders, type HeaderContract } from '@petstore/contracts';
import type { IHeaders } from 'kafkajs';

/*
 * The wire names of the contract's headers, which libs/contracts (events/headers.ts) defines and
 * describes for the events document; here they are keyed the way the producer and consumer code
 * reads them.
 */

/** The names of a table of the contract's headers, under the same keys. */
function namesOf<T extends Record<string, HeaderContract>>(table: T): { readonly [K in keyof T]: T[K]['name'] } {
  return Object.fromEntries(Object.entries(table).map(([key, header]) => [key, header.name])) as {
    readonly [K in keyof T]: T[K]['name'];
  };
}

/** Set by the producer of every event: what it is, without parsing the value. */
export const EVENT_HEADERS = { type: EventHeaders.type.name, id: EventHeaders.id.name } as const;

/**
 * Headers by which a producer numbers its events for deduplication (the outbox relay: its source
 * and publication number; consumers drop a number at or below the highest they applied). A
 * replay drops them: the consumer has moved past that number, so a numbered replay would be
 * discarded as a copy; without them it is deduplicated by event id, so it takes effect once
 * however often it is replayed.
 */
export const PUBLICATION_NUMBER_HEADERS = {
  source: EventHeaders.publicationSource.name,
  seq: EventHeaders.publicationSeq.name,
} as const;

/** The W3C trace context of the publish, which the consumer's span continues. */
export const TRACE_HEADERS = { traceparent: EventHeaders.traceparent.name, tracestate: EventHeaders.tracestate.name } as const;

/** Headers added to a dead-lettered message, next to its original headers. */
export const DEAD_LETTER_HEADERS = namesOf(DeadLetterHeaders);

/**
 * Set on a message replayed from a dead-letter topic: the consumer group it is for. Other groups
 * of the topic handled the original already, so they skip it.
 */
export const REPLAYED_FOR_GROUP_HEADER = ReplayHeaders.replayedForGroup.name;

/** Header values decoded as UTF-8 (the first one when a header repeats). */
export function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) decoded[name] = first.toString();
  }
  return decoded;
}
