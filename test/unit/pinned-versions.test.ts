// Code that depends on another package's internals, not its API, is pinned to the exact version
// it was written against. When one of these fails, re-read that code against the new version,
// then update the pin here and in package.json together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
};
const installed = (name: string): string =>
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

const PINS = [
  // src/core/load/runner.ts replaces the private Client#_connect and clears pipelinedRequests on reconnect.
  { name: 'autocannon', version: '9.0.0' },
  // src/extension/flame/flame-merge.ts replays speedscope's Chrome importer (src/import/chrome.ts) step by step.
  { name: 'speedscope', version: '1.25.0' },
];

for (const pin of PINS) {
  test(`${pin.name} is pinned to ${pin.version}, the version whose internals the code mirrors`, () => {
    const spec = manifest.dependencies?.[pin.name] ?? manifest.devDependencies[pin.name];
    assert.equal(spec, pin.version, `package.json must pin ${pin.name} exactly`);
    assert.equal(installed(pin.name), pin.version, `node_modules has another ${pin.name}`);
  });
}
