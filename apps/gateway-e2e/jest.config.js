const path = require('node:path');
const { loadConfig, register } = require('tsconfig-paths');

// The global setup and teardown run in Jest's own process, where Node (not Jest's resolver) finds
// what they require: let it resolve the workspace's path aliases (`@petstore/stack`) too.
const workspace = loadConfig(path.join(__dirname, '../../tsconfig.base.json'));
register({ baseUrl: workspace.absoluteBaseUrl, paths: workspace.paths });

module.exports = {
  displayName: 'gateway-e2e',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/src/support/global-setup.ts',
  globalTeardown: '<rootDir>/src/support/global-teardown.ts',
  testTimeout: 30_000,
};
