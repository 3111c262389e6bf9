import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder holding nx.json, searched upward from this file: the same answer whether this code
 * runs from its source (Jest) or from a bundle under dist/ (the tools), where a path relative to
 * `__dirname` would point elsewhere.
 */
function findWorkspaceRoot(from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'nx.json'))) return folder;
    if (dirname(folder) === folder) throw new Error(`No nx.json above ${from}: run from inside the workspace`);
  }
}

export const workspaceRoot = findWorkspaceRoot(__dirname);

/** Where `nx build <app>` writes an app's bundle. */
export function builtAppMain(app: string): string {
  return join(workspaceRoot, 'dist/apps', app, 'main.js');
}
