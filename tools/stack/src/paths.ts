import * as os from 'node:os';
import * as path from 'node:path';
import { workspaceRoot } from '@petstore/launcher';

/** The workspace's root, found at run time: the same code runs from its sources (Jest) and from dist/tools/<tool> bundles. */
export const ROOT = workspaceRoot;

/** Where the stack keeps what it makes once and reuses: brokers' data, servers' secrets, tools installed on first use. */
export const CACHE = process.env.PETSTORE_CACHE ?? path.join(os.homedir(), '.cache/petstore');
