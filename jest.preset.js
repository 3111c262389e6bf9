const path = require('node:path');
const { loadConfig, register } = require('tsconfig-paths');
const nxPreset = require('@nx/jest/preset').default;

// The global setup and teardown run in Jest's own process, where Node (not Jest's resolver) finds
// what they require: let it resolve the workspace's path aliases (`@petstore/kafka`) too.
const workspace = loadConfig(path.join(__dirname, 'tsconfig.base.json'));
register({ baseUrl: workspace.absoluteBaseUrl, paths: workspace.paths });

// One transform for every project: SWC keeps decorator metadata (Nest's DI and
// MikroORM's entity discovery read it) and is several times faster than ts-jest.
module.exports = {
  ...nxPreset,
  testEnvironment: 'node',
  reporters: ['default', require.resolve('./tools/jest/summary-reporter.js')],
  // Each run is named, and its Kafka topics deleted when it ends (a project with a stack of its own sets its own).
  globalSetup: require.resolve('./libs/testing/src/jest/global-setup.ts'),
  globalTeardown: require.resolve('./libs/testing/src/jest/global-teardown.ts'),
  moduleFileExtensions: ['ts', 'js'],
  // `*.spec.ts` is pure logic; `*.int-spec.ts` talks to the real PostgreSQL and Kafka
  // (`npx nx test <project> --testPathIgnorePatterns=int-spec` runs only the fast ones).
  testMatch: ['**/?(*.)+(spec|int-spec).ts'],
  transform: {
    '^.+\\.[tj]s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
};
