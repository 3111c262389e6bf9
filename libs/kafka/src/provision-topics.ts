import type { Admin } from 'kafkajs';

/**
 * Creates the topics that do not exist yet and waits until each partition has a leader, so
 * producing right after this resolves works. Safe to call from every replica at start-up:
 * a topic another process created in the meantime is not an error.
 */
export async function provisionTopics(admin: Admin, names: string[], partitions = 3): Promise<void> {
  const wanted = [...new Set(names)];
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((name) => !existing.has(name));
  if (missing.length === 0) return;
  try {
    await admin.createTopics({
      waitForLeaders: true,
      timeout: 10_000,
      topics: missing.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: -1 })),
    });
  } catch (error) {
    if (!onlyAlreadyExists(error)) throw error;
  }
  await waitForLeaders(admin, missing);
}

/** kafkajs reports a partly failed createTopics as one error listing each topic's failure. */
function onlyAlreadyExists(error: unknown): boolean {
  const failures = (error as { errors?: { type?: string }[] }).errors;
  if (Array.isArray(failures) && failures.length > 0) {
    return failures.every((failure) => failure.type === 'TOPIC_ALREADY_EXISTS');
  }
  return (error as { type?: string }).type === 'TOPIC_ALREADY_EXISTS';
}

/** Topics created by a concurrent caller may still be electing leaders. */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
    const ready = metadata.every(
      (topic) => topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0),
    );
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`Topics have no leader yet: ${topics.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
