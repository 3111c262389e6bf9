import { resolve } from 'node:path';
import { staleAsyncApiFiles } from './asyncapi-files';

describe('docs/asyncapi/', () => {
  it('holds the document and its page as the contract makes them (npx nx run contracts:asyncapi)', () => {
    expect(staleAsyncApiFiles(resolve(__dirname, '../../../..'))).toEqual([]);
  });
});
