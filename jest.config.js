// @ts-check
const { compilerOptions } = require('./tsconfig.json');

/** Path aliases from tsconfig, so tests import exactly as the code does. */
const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace('*', '(.*)')}$`,
    `<rootDir>/${target.replace('*', '$1')}`,
  ]),
);

const transform = {
  '^.+\\.(ts|mjs|js)$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        // swc rewrites the aliases itself, so code outside jest's module system (global setup) resolves them too.
        baseUrl: __dirname,
        paths: compilerOptions.paths,
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ],
};

// The review console's components are TSX, shared by the browser bundle and the reports rendered on the server.
transform['^.+\\.tsx$'] = [
  '@swc/jest',
  {
    jsc: {
      ...transform['^.+\\.(ts|mjs|js)$'][1].jsc,
      parser: { syntax: 'typescript', tsx: true, decorators: true },
      transform: { ...transform['^.+\\.(ts|mjs|js)$'][1].jsc.transform, react: { runtime: 'automatic' } },
    },
    module: { type: 'commonjs' },
  },
];

const project = (displayName, testMatch) => ({
  displayName,
  testMatch,
  transform,
  moduleNameMapper,
  testEnvironment: 'node',
  rootDir: __dirname,
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  // MSW 2, the CEL evaluator and secretlint are ES-module-only packages; jest on Node 20 cannot require them
  // untransformed.
  transformIgnorePatterns: [
    '/node_modules/(?!(until-async|rettime|@open-draft|@mswjs|msw|outvariant|strict-event-emitter|@marcbachmann|@secretlint)/)',
  ],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    project('unit', ['<rootDir>/{apps,libs,twins}/**/*.spec.ts', '<rootDir>/test/architecture/**/*.spec.ts']),
    project('integration', ['<rootDir>/{apps,libs,twins,test}/**/*.int-spec.ts']),
    project('e2e', ['<rootDir>/test/e2e/**/*.e2e-spec.ts']),
  ],
  testSequencer: '<rootDir>/test/support/slowest-first-sequencer.js',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Generous: a loaded machine makes the suite slower, never red (episodes wait on Temporal and the twins).
  testTimeout: 900_000,
};
