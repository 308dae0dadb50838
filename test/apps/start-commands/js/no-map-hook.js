// A register hook that compiles .ts in memory and keeps no source map (as a hand-made or
// misconfigured loader does): V8's positions are in code nobody can map back to the .ts file.
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const source = require('node:fs').readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, sourceMap: false, removeComments: true },
  });
  module._compile(outputText, filename);
};
