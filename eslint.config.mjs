import nx from '@nx/eslint-plugin';

// Services never import each other; they meet only through libs/contracts messages.
const moduleBoundaries = {
  enforceBuildableLibDependency: true,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
    { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
    // Published to npm on its own (@petstore/client): it may import no other project of the workspace.
    { sourceTag: 'distribution:npm', onlyDependOnLibsWithTags: ['distribution:npm'] },
    // The end-to-end suites and the checks run the stack and its tools (tools/stack), which no app may.
    { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:tool'] },
    { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:tool'] },
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
    { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
    { sourceTag: 'scope:catalog', onlyDependOnLibsWithTags: ['scope:catalog', 'scope:shared'] },
    { sourceTag: 'scope:orders', onlyDependOnLibsWithTags: ['scope:orders', 'scope:shared'] },
    { sourceTag: 'scope:inventory', onlyDependOnLibsWithTags: ['scope:inventory', 'scope:shared'] },
  ],
};

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/coverage', '**/.nx', '**/tmp'] },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', moduleBoundaries],
    },
  },
  {
    // tools/stack is imported (the end-to-end suites and the other tools use it) and also bundled:
    // webpack builds it whole, its libraries inside, so it needs none of them built on their own.
    files: ['tools/stack/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': ['error', { ...moduleBoundaries, enforceBuildableLibDependency: false }] },
  },
  {
    // Build configuration, not app code: every app's and tool's webpack.config.js takes the one shared
    // recipe from tools/webpack, which is no project and never ends up in a bundle.
    files: ['apps/*/webpack.config.js', 'tools/*/webpack.config.js'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // libs/database's rule: SQL that is not ORM work goes through executePrepared, which runs in the
    // caller's transaction (knex's or a statement transaction's). `em.execute` and
    // `getConnection().execute` run outside a statement transaction, on another pooled connection.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['libs/database/src/**', 'libs/testing/src/**', '**/*.spec.ts', '**/*.int-spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='execute']",
          message: 'Run SQL with executePrepared(em, sql, params) from @petstore/database (libs/database/README.md).',
        },
        {
          selector: "CallExpression[callee.property.name='raw']",
          message: 'Run SQL with executePrepared(em, sql, params) from @petstore/database (libs/database/README.md).',
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    // Types for the rules that need them: each file is read with the tsconfig of its project.
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A promise nobody awaits lets the next step start before it ends (a stack whose services start
      // while its migrations still run) and turns its failure into an unhandled rejection. `void` says
      // "on purpose".
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
];
