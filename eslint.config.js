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
    // Type-aware linting of every TypeScript file, through the project's tsconfig.json (one program, the
    // project service): a promise nobody awaits or catches, a promise passed where a plain value is
    // expected, an await of something that is not a promise, are errors.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    // The product (not its tests) also passes typescript-eslint's type-checked recommended set, less the
    // rules that do not fit how ferry is written:
    files: ['src/**/*.ts', 'connectors/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // `async` without `await` is how a function that must return a promise turns its throws into rejections.
      '@typescript-eslint/require-await': 'off',
      // A caught value is `unknown` and is rethrown (or rejected with) as it came.
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // Source values are `unknown`; String(value) is the intended text of whatever a source gave.
      '@typescript-eslint/no-base-to-string': 'off',
      // Methods handed on as callbacks are arrow properties or bound where it matters; the rule cannot tell.
      '@typescript-eslint/unbound-method': 'off',
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
