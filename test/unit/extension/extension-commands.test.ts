// The commands the extension registers (src/extension/commands/table.ts and views/hint-explanation.ts)
// are exactly those package.json contributes, read from the sources: the modules need VS Code.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ExplainHintCommand } from '../../../src/protocol.ts';

const ROOT = path.resolve(__dirname, '../../..');
const COMMANDS_DIR = path.join(ROOT, 'src/extension/commands');

test('every contributed command is registered, and only those', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    contributes: { commands: Array<{ command: string }> };
  };
  const registered = fs
    .readdirSync(COMMANDS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [...fs.readFileSync(path.join(COMMANDS_DIR, f), 'utf8').matchAll(/^ {2}'(hotline\.\w+)': /gm)])
    .map((m) => m[1]);
  assert.equal(new Set(registered).size, registered.length, 'each command once');
  assert.deepEqual(
    [...registered, ExplainHintCommand].sort(),
    manifest.contributes.commands.map((c) => c.command).sort(),
  );
});
