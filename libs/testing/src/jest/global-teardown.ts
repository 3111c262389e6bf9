import { deleteTestRunTopics } from '../test-run';

/** The run's topics go when it ends (a project with a stack of its own sets its own teardown). */
export default async function endTestRun(): Promise<void> {
  await deleteTestRunTopics();
}
