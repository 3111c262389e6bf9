export { createPetstoreClient, PetstoreClient } from './client.js';
export type {
  Attempt,
  CallOptions,
  Category,
  GetOrderOptions,
  InventoryItem,
  InventoryUpdate,
  ListCategoriesQuery,
  ListInventoryQuery,
  ListOrdersQuery,
  ListPetsQuery,
  NewCategory,
  NewOrder,
  NewPet,
  Order,
  OrderFulfilment,
  Pet,
  PetDetails,
  PetPatch,
  PetstoreClientOptions,
  PlaceOrderOptions,
} from './client.js';
export { PetstoreApiError, PetstoreConnectionError, type ApiErrorBody, type ApiErrorCode } from './errors.js';
export { DEFAULT_RETRY_POLICY, nextLink, retryAfterMs, retryDelay, type RetryPolicy } from './retry-policy.js';
export type { components, operations, paths } from './generated/api.js';
