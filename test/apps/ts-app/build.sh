#!/bin/sh
# Regenerates dist/ from src/: one .js and one .js.map per .ts file, no bundling.
# Uses the esbuild installed at the repository root (this app has no dependencies).
set -e
cd "$(dirname "$0")"
ESBUILD="${ESBUILD:-../../../node_modules/.bin/esbuild}"
rm -rf dist
"$ESBUILD" src/server.ts src/hot.ts \
  --format=cjs --platform=node --target=node20 \
  --sourcemap=linked --outdir=dist --log-level=warning
