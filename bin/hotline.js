#!/usr/bin/env node
'use strict';
// The `hotline` command, in a checkout and in the installed package: the CLI itself is bundled into
// dist/cli.js by esbuild.mjs (the package ships it built; a checkout builds it on `npm install`).
const path = require('node:path');
const fs = require('node:fs');
const bundle = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundle)) {
  process.stderr.write(
    'hotline: dist/cli.js is missing; run `npm install` (or `npm run build`) in the Hotline checkout first.\n',
  );
  process.exit(2);
}
require(bundle)
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`hotline: ${err && err.message ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
