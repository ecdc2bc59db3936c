/**
 * The import boundaries of the project, checked by `npm run lint:deps` (part of `npm test`).
 * The layout they hold is drawn in docs/architecture.md.
 */
const PRODUCTION_SRC = '^src/(?!dev/)';
const ADAPTOR_PRODUCTION = '^adaptors/[^/]+/(?!local-node/|test-kit\\.ts$)(?!.*\\.test\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other in a circle; type-only circles count too.',
      from: { path: '^(src|adaptors)/' },
      to: { circular: true },
    },
    {
      name: 'adaptors-only-from-the-composition-root',
      severity: 'error',
      comment: 'Only src/app/ (the composition root) knows which ledger families exist.',
      from: { path: '^src/', pathNot: '^src/app/' },
      to: { path: '^adaptors/' },
    },
    {
      name: 'adaptors-see-the-contract-and-the-platform',
      severity: 'error',
      comment: 'An adaptor imports only the ledger contract (src/ledger/) and platform pieces (src/platform/).',
      from: { path: ADAPTOR_PRODUCTION },
      to: { path: '^src/', pathNot: '^src/(ledger|platform)/' },
    },
    {
      name: 'local-nodes-see-the-contract-the-platform-and-dev-tools',
      severity: 'error',
      comment: "A family's development node may also use the development tools (free ports).",
      from: { path: '^adaptors/[^/]+/local-node/' },
      to: { path: '^src/', pathNot: '^src/(ledger|platform|dev)/' },
    },
    {
      name: 'production-never-imports-development-code',
      severity: 'error',
      comment: "src/dev/ (sandbox, custody emulator, local Redis) and the families' local nodes are for development and tests.",
      from: { path: [PRODUCTION_SRC, ADAPTOR_PRODUCTION], pathNot: '^src/app/' },
      to: { path: '^src/dev/' },
    },
    {
      name: 'a-family-loads-its-local-node-on-demand',
      severity: 'error',
      comment: "A family's localNode hook loads its development node through a dynamic import, only when the sandbox or a test asks for it.",
      from: { path: [PRODUCTION_SRC, ADAPTOR_PRODUCTION], pathNot: '^src/app/' },
      to: { path: '^adaptors/[^/]+/local-node/', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'the-composition-root-loads-the-sandbox-on-demand',
      severity: 'error',
      comment:
        'The composition root starts the sandbox only in the sandbox profile, through a dynamic import (a production image has no dev dependencies); a type may be named.',
      from: { path: '^src/app/' },
      to: { path: ['^src/dev/', '^adaptors/[^/]+/local-node/'], dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'platform-is-the-ground',
      severity: 'error',
      comment: 'src/platform/ (errors, logger, metrics, Redis, key names and scripts) imports nothing else of the project.',
      from: { path: '^src/platform/' },
      to: { path: '^(src|adaptors)/', pathNot: '^src/platform/' },
    },
    {
      name: 'the-ledger-contract-stands-on-the-platform',
      severity: 'error',
      comment: 'src/ledger/ (the adaptor contract and what every family shares) imports only the platform.',
      from: { path: '^src/ledger/' },
      to: { path: '^(src|adaptors)/', pathNot: '^src/(ledger|platform)/' },
    },
    {
      name: 'nothing-imports-the-composition-root',
      severity: 'error',
      comment: 'src/app/ builds the processes; below it the rooms only import downwards.',
      from: { path: '^(src|adaptors)/', pathNot: '^src/(app/|main\\.ts$|worker-main\\.ts$)' },
      to: { path: '^src/app/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
