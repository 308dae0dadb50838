// The docs' tables are the code's (scripts/docs-tables.ts): docs/cli.md's options and defaults,
// docs/vscode.md's settings and commands, and the flag ↔ setting mapping. A default changed in the
// code only, an option added without its doc, a setting whose default differs from its flag's:
// each fails here, with the command that brings the docs up to date.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandsList, generatedDocs, readManifest, withBlocks } from '../../../scripts/docs-tables.ts';
import { COMMAND_OPTIONS } from '../../../src/cli/options.ts';

for (const { file, now, generated } of generatedDocs()) {
  test(`${file} says what the code says (its generated tables are current)`, () => {
    assert.ok(
      generated === now,
      `${file} disagrees with the code: run \`npx tsx scripts/docs-tables.ts\` and commit the result`,
    );
  });
}

test('a flag and its VS Code setting have the same default', () => {
  const props = readManifest().contributes.configuration.properties;
  const both = Object.values(COMMAND_OPTIONS)
    .flat()
    .filter((o) => o.setting !== undefined && o.default !== undefined);
  assert.ok(both.length >= 8, 'the mapping covers the load and profiler defaults');
  for (const o of both) assert.equal(props[o.setting!].default, o.default, `--${o.name} and ${o.setting}`);
});

test('every command is listed with what it does and where it is, the hidden ones said to be', () => {
  const manifest = readManifest();
  const list = commandsList(manifest);
  for (const c of manifest.contributes.commands) assert.ok(list.includes(`\`${c.command}\`): `), c.command);
  assert.match(list, /`hotline\.openReportAt`\): .* \(not in the palette\)\.$/m);
  assert.match(list, /`hotline\.deleteRun`\): .* \(not in the palette; a run's menu in the Runs view\)\.$/m);
  assert.match(list, /`hotline\.clearBaseline`\): .* \(the palette once a baseline is set; /);
  const missing = structuredClone(manifest);
  missing.contributes.commands.push({ command: 'hotline.new', title: 'New' });
  assert.throws(() => commandsList(missing), /hotline\.new has no sentence in COMMAND_PURPOSES/);
});

test('a generated block replaces what was between its markers, and a missing marker is an error', () => {
  const doc = (body: string): string =>
    `intro\n<!-- generated: x (scripts/docs-tables.ts; do not edit) -->\n${body}<!-- end of generated: x -->\nafter\n`;
  assert.equal(withBlocks(doc('stale\n'), 'a.md', { x: 'fresh' }), doc('\nfresh\n\n'));
  assert.throws(() => withBlocks('no markers', 'a.md', { x: 'fresh' }), /a\.md has no .* markers/);
});
