import { hostPort, int, type ConfigShape } from '@petstore/config';

export interface CatalogClientConfig {
  /** Where to ask about a pet too new for the catalog's events to have arrived. */
  catalogRpc: { host: string; port: number };
  catalogLookupTimeoutMs: number;
}

/** CATALOG_RPC and CATALOG_LOOKUP_TIMEOUT_MS: spread into the shape of each service that asks the catalog. */
export const catalogClientConfigShape: ConfigShape<CatalogClientConfig> = {
  catalogRpc: hostPort('CATALOG_RPC', '127.0.0.1:4001'),
  catalogLookupTimeoutMs: int('CATALOG_LOOKUP_TIMEOUT_MS', 1000, { min: 1, max: 60_000 }),
};
