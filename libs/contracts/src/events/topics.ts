/**
 * Event topics, un-namespaced. At run time every topic and consumer group name is prefixed
 * with KAFKA_NAMESPACE (empty in production, unique per test suite).
 *
 * A topic name ends in its major version: an incompatible change of an event goes to a new
 * topic (`catalog.pet.v2`) so that consumers of the old one never see it.
 */
export const Topics = {
  catalogPet: 'catalog.pet.v1',
  ordersOrder: 'orders.order.v1',
  inventoryStock: 'inventory.stock.v1',
  /** Apart from the stock events, so that catalog, which reads only these, is not woken by every order. */
  inventoryPetStatus: 'inventory.pet-status.v1',
} as const;

export type Topic = (typeof Topics)[keyof typeof Topics];

/**
 * Partitions of each topic when KAFKA_TOPIC_PARTITIONS does not say otherwise. One pet's events
 * stay on one partition, in order; at most this many replicas of a service share a topic's events.
 */
export const DEFAULT_TOPIC_PARTITIONS = 12;

/** The services that consume events, each with its own dead-letter topic. */
export const CONSUMING_SERVICES = ['catalog', 'orders', 'inventory'] as const;

/** Where a service's consumer puts a message it could not handle: one topic per consuming service. */
export function deadLetterTopic(service: string): string {
  return `${service}.dead-letter.v1`;
}

export function eventTopics(): Topic[] {
  return Object.values(Topics);
}

/** Every topic the system uses, for provisioning: the event topics and the dead-letter topics. */
export function allTopics(): string[] {
  return [...eventTopics(), ...CONSUMING_SERVICES.map(deadLetterTopic)];
}
