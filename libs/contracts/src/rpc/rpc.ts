import { defineRpc, patternsOf } from './define-rpc';

/**
 * Every RPC payload carries the gateway's request id, which becomes the events' correlation id,
 * and the W3C trace context of the call when tracing is on (the gateway's upstream client sets it).
 */
export interface RpcRequest {
  requestId: string;
  traceparent?: string;
  tracestate?: string;
}

/** Keyset paging: `after` is the last id the client has seen (0 = from the start). */
export interface PageQuery {
  limit: number;
  after: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** Path ids are decimal strings: they may be valid int64 values beyond what a JS number holds. */
export interface ById extends RpcRequest {
  id: string;
}

export interface HealthReply {
  service: string;
  ready: boolean;
}

export const HealthRpc = {
  /** Answered by every service: ready means its database and broker are reachable. */
  check: defineRpc<RpcRequest, HealthReply>()(undefined, 'health.check'),
};

export const HealthPatterns = patternsOf(HealthRpc);
