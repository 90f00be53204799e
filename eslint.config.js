import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'coverage/', 'test-artifacts/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration in src/config.ts and pass it in.' },
      ],
    },
  },
  // Route files, commands and console pages read as a few small steps (issue 33).
  { files: ['src/admin/**', 'src/cli/**', 'src/operations/**'], rules: { 'max-lines-per-function': ['error', { max: 80 }] } },
  { files: ['src/config.ts', 'src/cli/**', 'test/**', 'bench/**', 'examples/**', '**/*.test.ts', 'vitest.config.ts'], rules: { 'no-restricted-syntax': 'off' } },
);
