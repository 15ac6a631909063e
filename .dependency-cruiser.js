/**
 * The import graph's rules (`npm run lint` runs them; libs/README.md explains the layers). dependency-cruiser, not
 * eslint-plugin-import-x's no-cycle: no-cycle does not follow `export *` through a library's index, so it missed the
 * 38-file cycle between ingestion, scenarios, graders and openapi-schemas that ran through those indexes.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment:
        'Import cycles: a library that needs another that needs it back is one library, or a type is in the wrong place.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-app-to-app',
      severity: 'error',
      comment: 'Apps are separate processes; what two apps share belongs in a library.',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-lib-to-app',
      severity: 'error',
      comment:
        'A library never imports an app. Its integration tests may wire the whole system (the worker included), as test/ does.',
      from: { path: '^(libs|twins)/', pathNot: '[.](int-|e2e-)?spec[.]ts$' },
      to: { path: '^apps/' },
    },
    {
      name: 'leaf-libraries',
      severity: 'error',
      comment:
        'The stack model, bundle-document reading and redaction sit at the bottom: every library may read them, they read none.',
      from: { path: '^libs/(stack-model|bundle-documents|redaction)/' },
      to: { path: '^(libs|twins|apps)/', pathNot: '^libs/$1/' },
    },
    {
      name: 'no-production-to-test',
      severity: 'error',
      comment: 'Test support is for tests.',
      from: { path: '^(apps|libs|twins)/', pathNot: '[.](int-|e2e-)?spec[.]ts$' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|coverage|fixtures)/|^twins/[^/]+/client/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a cycle of types is still two modules that cannot be understood apart.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
    cache: false,
  },
};
