#!/usr/bin/env node
'use strict';
// Thin launcher so `npx hotline` works in a checkout: the CLI itself is bundled by esbuild.mjs.
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
