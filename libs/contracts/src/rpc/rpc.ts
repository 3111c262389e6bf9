/** Every RPC payload carries the gateway's request id, which becomes the events' correlation id. */
export interface RpcRequest {
  requestId: string;
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

export const HealthPatterns = {
  check: { cmd: 'health.check' },
} as const;
