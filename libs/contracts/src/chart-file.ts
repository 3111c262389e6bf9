import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A file of the Helm chart made from a table of this library (Helm cannot run the code that makes the table). */
export interface ChartFile {
  /** Whether the committed file differs from what the table makes now (or is missing). */
  isStale(root: string): boolean;
  write(root: string): void;
}

/** The chart file at `path` (from the workspace root), holding `table()` as formatted JSON. */
export function chartFile(path: string, table: () => unknown): ChartFile {
  const content = (): string => `${JSON.stringify(table(), null, 2)}\n`;
  return {
    isStale: (root) => {
      try {
        return readFileSync(join(root, path), 'utf8') !== content();
      } catch {
        return true;
      }
    },
    write: (root) => writeFileSync(join(root, path), content()),
  };
}
