// The bench's own Kafka client and the topics of its runs.
import { kafkajs } from '@petstore/kafka';
import { kafkaClientAuth, type StackLayout } from '@petstore/stack';

export type Layout = StackLayout;

/** The Kafka secrets of a secured layout: every layout the bench's own client talks to is one. */
export function kafkaSecretsOf(layout: Pick<Layout, 'kafkaSecrets'>): string {
  if (!layout.kafkaSecrets) throw new Error('the bench administers Kafka only on a layout with Kafka secrets');
  return layout.kafkaSecrets;
}

/**
 * The bench's own client, as the administrator: it creates and deletes the topics of its
 * namespaces and reads the stack's. The stack's processes are each their own principal.
 */
export function benchKafka(layout: Pick<Layout, 'envs' | 'kafkaSecrets'>, clientId: string): kafkajs.Kafka {
  return new kafkajs.Kafka({
    clientId,
    brokers: layout.envs.orders.KAFKA_BROKERS.split(','),
    logLevel: kafkajs.logLevel.ERROR,
    ...kafkaClientAuth(kafkaSecretsOf(layout), 'admin'),
  });
}

/** A bench run's topics: `bench-<8 hex>.` namespaces. */
export const isBenchTopic = (topic: string): boolean => /^bench-[0-9a-f]{8}\./.test(topic);

/**
 * Deletes the topics of bench runs from the everyday broker, this run's at its end and any a
 * failed run left. Left there, every run would add ~90 partitions, and a broker's fetches walk all
 * the partitions it holds, so each run would measure a slower broker than the one before.
 */
export async function deleteBenchTopics(layout: Layout): Promise<void> {
  const admin = benchKafka(layout, 'bench-cleanup').admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter(isBenchTopic);
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
  } finally {
    await admin.disconnect();
  }
}
