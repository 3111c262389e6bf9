import { hostPort, int, type ConfigShape } from '@petstore/config';
import { rpcTransportConfigShape, type RpcTransportConfig } from '@petstore/rpc';

export interface CatalogClientConfig extends RpcTransportConfig {
  /** With RPC_TRANSPORT=tcp, where to ask about a pet too new for the catalog's events to have arrived. */
  catalogRpc: { host: string; port: number };
  catalogLookupTimeoutMs: number;
}

/** The RPC transport's variables, CATALOG_RPC and CATALOG_LOOKUP_TIMEOUT_MS: spread into the shape of each service that asks the catalog. */
export const catalogClientConfigShape: ConfigShape<CatalogClientConfig> = {
  ...rpcTransportConfigShape,
  catalogRpc: hostPort('CATALOG_RPC', '127.0.0.1:4001'),
  catalogLookupTimeoutMs: int('CATALOG_LOOKUP_TIMEOUT_MS', 1000, { min: 1, max: 60_000 }),
};
