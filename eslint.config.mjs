// ESLint (flat config, typescript-eslint); formatting is Prettier's (eslint-config-prettier turns
// the style rules off). `npm run lint` must pass with 0 warnings.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A folder of src/core is entered through its index.ts only. Exceptions: analysis/model.ts (the
// data model, no dependencies), read by the report schema and the browser-side code.
const throughIndex = {
  group: ['../*/*', '!../*/index.ts', '!../analysis/model.ts', '!../../*.ts'],
  message: 'Import another src/core folder through its index.ts.',
};
const throughCoreIndex = {
  group: ['../core/*/**', '../core/!(index.ts)'],
  message: 'Import the engine through src/core/index.ts.',
};

export default tseslint.config(
  {
    ignores: ['dist/', 'node_modules/', 'examples/', 'test/fixtures/', 'test/apps/', '**/.hotline/', 'coverage/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A `let` read by callbacks before its one assignment (a server's handler, set up first).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-redeclare': ['error', { builtinGlobals: false }] },
  },
  { files: ['webview/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['src/core/*/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex] }] } },
  {
    files: ['src/cli/**/*.ts', 'src/server/**/*.ts', 'src/extension/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughCoreIndex] }] },
  },
  prettier,
);
