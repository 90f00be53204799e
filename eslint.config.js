import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const READ_CONFIG_ONCE = {
  selector: "MemberExpression[object.name='process'][property.name='env']",
  message: 'Read configuration in src/config.ts and pass it in.',
};
const VISIBILITY_IN_ACCESS = {
  selector: "MemberExpression[property.name='findVisibleTest']",
  message: 'Ask ResourceAccess (runtime.access, src/access/resource-access.ts) for the resource: it alone decides who may see what.',
};

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'coverage/', 'test-artifacts/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', READ_CONFIG_ONCE, VISIBILITY_IN_ACCESS],
    },
  },
  // Who may see what is answered in src/access/ alone, over the store's one query for it.
  { files: ['src/access/**', 'src/store/**'], rules: { 'no-restricted-syntax': ['error', READ_CONFIG_ONCE] } },
  // Every function of src/ reads as a few small steps (issue 33). A test's describe block is a
  // list of cases, not a function to read in one go: tests and contract suites are exempt.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/**/*.test.ts', 'src/**/*.contract.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  // The dependency-cruiser config is CommonJS, as the tool loads it.
  { files: ['*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
  { files: ['src/config.ts', 'src/cli/**', 'test/**', 'bench/**', 'examples/**', '**/*.test.ts', 'vitest.config.ts'], rules: { 'no-restricted-syntax': 'off' } },
);
