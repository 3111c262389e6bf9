import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_TOPIC_PARTITIONS } from '../events/topics';
import { asyncApiDocument } from './asyncapi-document';
import { asyncApiMarkdown } from './asyncapi-markdown';

/** Where the repository keeps the whole document and its page, relative to the repository root. */
export const ASYNCAPI_DOCS_DIR = 'docs/asyncapi';

/** The files of docs/asyncapi/ as the contract makes them (with the default partition count). */
export function asyncApiFiles(): Record<string, string> {
  const document = asyncApiDocument({ partitions: DEFAULT_TOPIC_PARTITIONS });
  return {
    'asyncapi.json': `${JSON.stringify(document, null, 2)}\n`,
    'README.md': asyncApiMarkdown(document),
  };
}

/** The committed files that differ from what the contract makes now. */
export function staleAsyncApiFiles(root: string): string[] {
  return Object.entries(asyncApiFiles())
    .filter(([name, content]) => {
      try {
        return readFileSync(join(root, ASYNCAPI_DOCS_DIR, name), 'utf8') !== content;
      } catch {
        return true;
      }
    })
    .map(([name]) => `${ASYNCAPI_DOCS_DIR}/${name}`);
}

/** `npx nx run contracts:asyncapi`: writes docs/asyncapi/ from the contract. */
export function writeAsyncApiFiles(root: string): void {
  for (const [name, content] of Object.entries(asyncApiFiles())) {
    const path = join(root, ASYNCAPI_DOCS_DIR, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}
