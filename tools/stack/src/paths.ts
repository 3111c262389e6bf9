import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The workspace's root: the nearest folder above this code that holds nx.json. Searched at run
 * time because the same code runs from its sources (Jest) and from dist/tools/<tool> bundles.
 */
function findWorkspaceRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No nx.json above ${start}: the stack tools run inside the workspace`);
  }
}

export const ROOT = findWorkspaceRoot(__dirname);

/** Where the stack keeps what it makes once and reuses: brokers' data, servers' secrets, tools installed on first use. */
export const CACHE = process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore');
