import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // clients/*/src/schema.d.ts is generated (npm run client:generate); clients/*/dist is its build.
  // .stryker/ holds the mutation runs' sandboxes and reports (npm run mutate).
  // test/custody-emulator/vendor/ is the custody vendor's sample code, kept as published (test data).
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.stryker/',
      'bench/results/',
      'faults/results/',
      'clients/*/dist/',
      'clients/*/src/schema.d.ts',
      'test/custody-emulator/vendor/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  // The import boundaries' configuration is CommonJS, as dependency-cruiser reads it.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  {
    files: ['test/**', 'bench/**', 'faults/**', 'scripts/**', 'clients/*/scripts/**', '**/*.test.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
