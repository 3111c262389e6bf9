import { createPetstoreClient, type PetstoreClient, type PetstoreClientOptions } from '@petstore/client';
import { fetchOnce, judged, stackState } from './stack';

// Apart from fixtures.ts: global setup reads fixtures in Node's own loader, which does not map the
// client's `./x.js` imports onto its TypeScript sources as Jest does.

/**
 * @petstore/client as a shop uses it, with the development key, through the Prism proxy: every
 * response it reads is judged against the OpenAPI document, as `api`'s are.
 */
export function petstore(options: Partial<PetstoreClientOptions> = {}): PetstoreClient {
  const state = stackState();
  return createPetstoreClient({
    baseUrl: state.prismUrl,
    apiKey: state.apiKey,
    fetch: async (request) => judged(await fetchOnce(request), `${request.method} ${request.url}`),
    ...options,
  });
}
