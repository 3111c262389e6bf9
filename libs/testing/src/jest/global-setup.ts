import { randomBytes } from 'node:crypto';
import { TEST_RUN_VARIABLE } from '../test-environment';

/** Names the Jest run before its workers start, so they inherit the name (see `uniqueNamespace`). */
export default async function nameTestRun(): Promise<void> {
  process.env[TEST_RUN_VARIABLE] ||= randomBytes(4).toString('hex');
}
