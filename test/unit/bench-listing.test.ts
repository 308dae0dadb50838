// bench/README.md lists every benchmark script with what it measures, and names only scripts that
// exist; every dated result file in bench/ is cited by name where its figures are discussed
// (bench/JOURNAL.md, bench/README.md, docs/, README). A new script or result left unlisted fails here.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const REPO = path.resolve(__dirname, '..', '..');
const BENCH = path.join(REPO, 'bench');
const LISTING = fs.readFileSync(path.join(BENCH, 'README.md'), 'utf8');

test('every bench script is listed in bench/README.md, and every script it lists exists', () => {
  const scripts = fs.readdirSync(BENCH).filter((f) => f.endsWith('.ts'));
  assert.ok(scripts.length > 10, 'the bench has its scripts');
  for (const s of scripts) assert.ok(LISTING.includes(`\`${s}\``), `bench/README.md lists ${s}`);
  for (const [, name] of LISTING.matchAll(/`([\w-]+\.ts)`/g))
    if (!name.includes('/') && !name.endsWith('.test.ts'))
      assert.ok(scripts.includes(name), `bench/README.md names ${name}, which bench/ does not have`);
});

test('every dated result file is cited by name', () => {
  const texts = [
    path.join(BENCH, 'JOURNAL.md'),
    path.join(BENCH, 'README.md'),
    path.join(REPO, 'README.md'),
    ...fs
      .readdirSync(path.join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(REPO, 'docs', f)),
  ]
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
  const results = fs.readdirSync(BENCH).filter((f) => /^results-.*\.json$/.test(f));
  for (const r of results) assert.ok(texts.includes(r), `${r} is cited in the journal, bench/README.md or the docs`);
});
