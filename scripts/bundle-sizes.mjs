// Prints each node bundle's size and what the analysis (src/core/analysis, acorn) adds to it, from
// esbuild's metafile, with the options of esbuild.mjs. `node scripts/bundle-sizes.mjs [--minify]`.
import * as esbuild from 'esbuild';
import { entries } from '../esbuild.mjs';

const minify = process.argv.includes('--minify');
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
for (const entry of entries.filter((e) => e.platform === 'node')) {
  const result = await esbuild.build({
    ...entry,
    minify,
    write: false,
    metafile: true,
    sourcemap: false,
    logLevel: 'error',
  });
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint);
  const bytesOf = (test) =>
    Object.entries(output.inputs)
      .filter(([file]) => test.test(file))
      .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
  console.log(
    `${entry.outfile.padEnd(26)} ${kb(output.bytes).padStart(8)}   analysis ${kb(bytesOf(/src\/core\/analysis\//))}` +
      `   acorn ${kb(bytesOf(/node_modules\/acorn/))}`,
  );
}
