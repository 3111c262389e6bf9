import { DEFAULT_TOPIC_SETTINGS, topicSettingsFromEnv } from './provision-topics';

describe('topicSettingsFromEnv', () => {
  it('creates 12 partitions, one copy, by default', () => {
    expect(topicSettingsFromEnv({})).toEqual({ partitions: 12, replicationFactor: 1, minInsyncReplicas: 1 });
    expect(topicSettingsFromEnv({})).toEqual(DEFAULT_TOPIC_SETTINGS);
  });

  it('reads the cluster settings', () => {
    const env = { KAFKA_TOPIC_PARTITIONS: '24', KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' };
    expect(topicSettingsFromEnv(env)).toEqual({ partitions: 24, replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it('treats an empty variable as unset', () => {
    expect(topicSettingsFromEnv({ KAFKA_TOPIC_PARTITIONS: ' ' }).partitions).toBe(12);
  });

  it.each(['0', '-3', '2.5', 'twelve'])('refuses KAFKA_TOPIC_PARTITIONS=%s, naming the variable', (value) => {
    expect(() => topicSettingsFromEnv({ KAFKA_TOPIC_PARTITIONS: value })).toThrow(/KAFKA_TOPIC_PARTITIONS must be a positive whole number/);
  });

  it('refuses more in-sync replicas than copies: no write could be acknowledged', () => {
    expect(() => topicSettingsFromEnv({ KAFKA_REPLICATION_FACTOR: '1', KAFKA_MIN_INSYNC_REPLICAS: '2' })).toThrow(
      /KAFKA_MIN_INSYNC_REPLICAS \(2\) must not exceed KAFKA_REPLICATION_FACTOR \(1\)/,
    );
  });
});
