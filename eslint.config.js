import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['scratch/**', 'dist/**', 'node_modules/**', 'state/**', 'coverage/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    // The CLI prints to the terminal; the bench prints its ratios.
    files: ['src/cli/**', 'bin/**', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // The console's pages run in the browser (shipped as they are, no build step).
    files: ['src/console/assets/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['window', 'document', 'history', 'location', 'fetch', 'Node', 'URLSearchParams', 'FormData', 'EventSource', 'URL', 'setTimeout', 'console'].map((name) => [name, 'readonly']),
      ),
    },
  },
);
