// ESLint (flat config, typescript-eslint); formatting is Prettier's (eslint-config-prettier turns
// the style rules off). `npm run lint` must pass with 0 warnings.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_'));

// A folder of src/core is entered through its index.ts only. Exceptions: analysis/model.ts (the
// data model, no dependencies), read by the report schema and the browser-side code (which may
// also read analysis/time/: browserSafeAnalysis below).
const throughIndex = {
  group: ['../*/*', '!../*/index.ts', '!../analysis/model.ts', '!../../*.ts'],
  message: 'Import another src/core folder through its index.ts.',
};
// The folders of src/core, each with the folders it may import: the flow goes one way, from the
// profile model up to the run that ties everything together (docs/architecture.md). A folder not
// named here imports nothing of src/core, and no folder imports one above it or a peer.
const CORE_IMPORTS = {
  common: [],
  'in-app': [],
  profile: ['common'],
  analysis: ['common', 'profile'],
  report: ['analysis', 'common', 'profile'],
  verdicts: ['analysis', 'common', 'profile', 'report'],
  inspector: ['common', 'in-app', 'profile'],
  app: ['common', 'in-app', 'inspector'],
  load: ['common', 'report'],
  store: ['analysis', 'app', 'common', 'profile', 'report', 'verdicts'],
  capture: ['app', 'common', 'in-app', 'inspector', 'load', 'profile', 'report', 'store', 'verdicts'],
  'analyze-run': ['analysis', 'capture', 'common', 'load', 'profile', 'report', 'store', 'verdicts'],
  'profile-files': ['profile'],
};
const CORE_FOLDERS = Object.keys(CORE_IMPORTS);
/** The pattern that keeps src/core/`folder`'s files, `depth` folders below src/core, to their imports. */
function coreFlow(folder, depth) {
  const allowed = CORE_IMPORTS[folder];
  const up = '../'.repeat(depth);
  return {
    group: CORE_FOLDERS.filter((f) => f !== folder && !allowed.includes(f)).map((f) => `${up}${f}/**`),
    message: `src/core/${folder}/ imports ${allowed.length > 0 ? allowed.map((f) => `${f}/`).join(', ') : 'no other folder of src/core'}: the flow goes one way (eslint.config.mjs).`,
  };
}
// A new folder until it is named in CORE_IMPORTS: it imports nothing of src/core.
const unnamedFolder = {
  files: ['src/core/*/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          throughIndex,
          {
            group: CORE_FOLDERS.map((f) => `../${f}/**`),
            message: 'A src/core folder imports only what CORE_IMPORTS in eslint.config.mjs names for it.',
          },
        ],
      },
    ],
  },
};
const coreFolders = CORE_FOLDERS.map((folder) => ({
  files: [`src/core/${folder}/*.ts`],
  rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex, coreFlow(folder, 1)] }] },
}));
// Inside a folder of src/core with parts, imports go downwards only. analysis/'s parts, lowest
// first: attribution/ (which line a piece of time belongs to) → time/, heap/ and hints/ → the top
// (analyze.ts the entry, path-map.ts, index.ts); model.ts (the data model) is importable by all.
// capture/'s: stacks/ (the stack captures: sampler, sender thread, protocol) → extras/ (what the
// profiled window captures besides the main profile) → the top (the run in order). A part
// imports the parts named here and none other: not those above it, not its peers.
// analysis/time/ is read by the webviews too (the heat map), so it stays clear of attribution/ and
// Node code: model.ts and the profile's model files only (profile/cpuprofile.ts,
// profile/profile-tree.ts, no Node code).
const PART_IMPORTS = {
  analysis: {
    attribution: [],
    time: [],
    heap: ['attribution'],
    hints: ['attribution'],
  },
  capture: { stacks: [], extras: ['stacks'] },
};
const SHARED_IN_FOLDER = { analysis: ['!../model.ts'], capture: [] };
const PROFILE_MODEL = ['!../../profile/cpuprofile.ts', '!../../profile/profile-tree.ts'];
const timeReadsNoNode = {
  group: ['../../profile/*', ...PROFILE_MODEL],
  message:
    'analysis/time/ is read by the webviews: of profile/ it imports cpuprofile.ts and profile-tree.ts (no Node code).',
};
const partLayers = Object.entries(PART_IMPORTS).flatMap(([folder, parts]) =>
  Object.entries(parts).map(([part, below]) => {
    const notBelow = Object.keys(parts).filter((f) => f !== part && !below.includes(f));
    const time = folder === 'analysis' && part === 'time';
    return {
      files: [`src/core/${folder}/${part}/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: [...notBelow.map((f) => `../${f}/*`), '../*.ts', ...SHARED_IN_FOLDER[folder]],
                message: `${folder}/${part}/ imports ${[...below.map((f) => `${f}/`), ...SHARED_IN_FOLDER[folder].map((f) => f.slice(4))].join(', ') || 'nothing else of ' + folder + '/'}: imports inside ${folder}/ go downwards (eslint.config.mjs).`,
              },
              {
                group: ['../../*/*', '!../../*/index.ts', '!../../../*.ts', ...(time ? PROFILE_MODEL : [])],
                message: 'Import another src/core folder through its index.ts.',
              },
              coreFlow(folder, 2),
              ...(time ? [timeReadsNoNode] : []),
            ],
          },
        ],
      },
    };
  }),
);
// The pages run in a browser: of the analysis they import the data model and time/ (the timeline,
// no Node code), never the rest (src/protocol.ts, which they import, likewise).
const browserSafeAnalysis = {
  group: ['**/core/analysis/*', '!**/core/analysis/model.ts', '!**/core/analysis/time'],
  message: 'The webviews import of the analysis only model.ts and time/ (no Node code).',
};
const throughCoreIndex = {
  group: ['**/core/*/**', '**/core/!(index.ts)'],
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
  unnamedFolder,
  ...coreFolders,
  ...partLayers,
  // The code that runs inside the user's app (src/core/in-app/scripts/): it is compiled alone into
  // the text the inspector evaluates, so it imports only its own folder, and Node's modules only as
  // types (it takes them at call time: scripts/shared/builtins.ts).
  {
    files: ['src/core/in-app/scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(node:.*|(${NODE_BUILTINS.join('|')})(/.*)?)$`,
              allowTypeImports: true,
              message: 'In-app scripts take Node modules at call time (shared/builtins.ts); import their types only.',
            },
            {
              regex: '^\\.\\./\\.\\.(/|$)',
              message: 'In-app scripts import only src/core/in-app/scripts/ (they are compiled alone).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['webview/**/*.ts', 'src/protocol.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [browserSafeAnalysis] }] },
  },
  {
    files: ['src/cli/**/*.ts', 'src/server/**/*.ts', 'src/extension/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughCoreIndex] }] },
  },
  prettier,
);
