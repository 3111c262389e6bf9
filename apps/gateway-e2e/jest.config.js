// The preset lets its global setup and teardown resolve the workspace's path aliases (`@petstore/stack`).
module.exports = {
  displayName: 'gateway-e2e',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/src/support/global-setup.ts',
  globalTeardown: '<rootDir>/src/support/global-teardown.ts',
  testTimeout: 30_000,
  // @petstore/client's sources import each other as `./x.js`, as its built ES modules must.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
