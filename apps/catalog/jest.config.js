module.exports = {
  displayName: 'catalog',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/apps/catalog',
  // The RPC suites share the petstore_catalog_test database and recreate its schema: one at a time.
  maxWorkers: 1,
  // Suites boot the service against the real PostgreSQL and Kafka and wait for events on topics.
  testTimeout: 30_000,
};
