import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { CatalogPatterns, isRpcErrorBody, type ById, type Pet } from '@petstore/contracts';
import { createRpcClient, type RpcClient } from '@petstore/rpc';
import { DomainError } from '@petstore/service-kit';
import type { CatalogClientConfig } from './catalog-client.config';

export const CATALOG_CLIENT_CONFIG = Symbol('CATALOG_CLIENT_CONFIG');

/**
 * Asks the catalog about a pet that no event has told this service of yet: a pet created
 * a moment ago can be used at once (read your writes), before PetCreated arrives.
 */
@Injectable()
export class CatalogClient implements OnModuleDestroy {
  private readonly logger = new Logger(CatalogClient.name);
  private readonly client: RpcClient;

  constructor(@Inject(CATALOG_CLIENT_CONFIG) private readonly config: CatalogClientConfig) {
    this.client = createRpcClient(config, 'catalog', config.catalogRpc, 'catalog-client');
  }

  /** The pet as the catalog has it now; undefined when it does not exist. Throws 503 when the catalog does not answer. */
  async findPet(petId: number, requestId: string): Promise<Pet | undefined> {
    try {
      const request: ById = { requestId, id: String(petId) };
      return await this.client.request<Pet>(CatalogPatterns.getPet, request, this.config.catalogLookupTimeoutMs);
    } catch (error) {
      if (isRpcErrorBody(error) && error.status === 404) return undefined;
      this.logger.warn(`Catalog lookup of pet ${petId} failed: ${describe(error)}`);
      throw new DomainError(503, 'SERVICE_UNAVAILABLE', 'The catalog cannot confirm the pet right now; try again');
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.client.close();
  }
}

function describe(error: unknown): string {
  if (isRpcErrorBody(error)) return `${error.status} ${error.code}`;
  return error instanceof Error ? error.message : String(error);
}
