// Hot lines in another editor: a real Neovim (Debian's, headless, its own LSP client; no VS Code)
// opened on the login app's server.js, attached to `hotline lsp` over stdio by the set-up printed
// in docs/editors.md (its init.lua is that Lua, as a user copies it). The server finds the run under the workspace folder by itself: the hot line's lens
// (ms/request and share of a core, checked against the report), the hover window, the diagnostic
// and its code actions, the lens's command run by the server. Then a second run lands in
// .hotline/runs and the lenses follow it without a restart.
// Runs are the captured login fixtures analyzed as a finished run is (test/helpers/fixture-runs.ts).
// neovim-client.lua drives Neovim and writes what it saw to files; every wait is bounded on a
// state (a file appearing, Neovim exiting), and a failure in Neovim or the server ends the test.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { landRun, stageLoginApp } from '../helpers/fixture-runs.ts';
import { makeTempDir, removeTempDirs } from '../helpers/tempdir.ts';
import { HOTLINE_JS, REPO_ROOT, assertServerBuilt } from './lsp-client.ts';

const LUA = path.join(__dirname, 'neovim-client.lua');
/** Each wait inside Neovim; the test's own waits are bounded a little above. */
const WAIT_MS = 30_000;

interface Lens {
  line: number;
  title: string;
}
interface Seen {
  lenses: Lens[];
  virtualText: Array<{ line: number; text: string }>;
  diagnostics: Array<{ line: number; col: number; message: string; source: string }>;
  messages: string[];
  hover?: string[];
  codeActions?: Array<{ title: string; kind: string; hasEdit: boolean; command?: { command: string } }>;
  commands?: { commands: string[] };
  reason?: string;
}

let nvim: ReturnType<typeof spawn> | undefined;

before(() => {
  assertServerBuilt();
  const version = spawnSync('nvim', ['--version'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(
    version.status,
    0,
    `nvim does not run (${version.error?.message ?? version.stderr}): npm test's set-up (scripts/e2e-setup.sh) installs Debian's neovim`,
  );
});

after(() => {
  // Neovim and the server it started are one process group: nothing outlives a failed test.
  if (nvim?.pid !== undefined && nvim.exitCode === null && nvim.signalCode === null) process.kill(-nvim.pid, 'SIGKILL');
  removeTempDirs();
});

/**
 * The JSON Neovim writes as `name` (it renames it into place whole), or a failure as soon as
 * Neovim reports one (failed.json), exits, or `ms` pass.
 */
function seen(out: string, name: string, exited: Promise<string>, ms: number): Promise<Seen> {
  return new Promise<Seen>((resolve, reject) => {
    let done = false;
    const finish = (err: Error | undefined, value?: Seen): void => {
      if (done) return;
      done = true;
      watcher.close();
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    const look = (): void => {
      const failed = path.join(out, 'failed.json');
      if (fs.existsSync(failed)) finish(new Error(`Neovim: ${fs.readFileSync(failed, 'utf8')}`));
      else if (fs.existsSync(path.join(out, name)))
        finish(undefined, JSON.parse(fs.readFileSync(path.join(out, name), 'utf8')) as Seen);
    };
    const watcher = fs.watch(out, look);
    const timer = setTimeout(() => finish(new Error(`no ${name} from Neovim within ${ms} ms`)), ms);
    void exited.then((how) => {
      look();
      finish(new Error(`Neovim exited (${how}) before writing ${name}`));
    });
    look();
  });
}

/** The Lua of docs/editors.md's "Neovim 0.7" section, as a user copies it. */
function documentedSetup(): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'editors.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Neovim 0.7'));
  const m = /```lua\n([\s\S]*?)```/.exec(section);
  assert.ok(m && doc.includes('### Neovim 0.7'), 'docs/editors.md has a Lua set-up under "### Neovim 0.7"');
  return m[1];
}

const readReport = (file: string): ReportV1 => JSON.parse(fs.readFileSync(file, 'utf8')) as ReportV1;

/** The lens figures a report gives a line: ms per request of the profiled window, and % of one core. */
function expected(report: ReportV1, line: number): { perRequest: number; corePct: number } {
  const l = report.lines.find((x) => x.line === line && x.file.endsWith('server.js') && x.thread === undefined);
  assert.ok(l, `the report has line ${line}`);
  return {
    perRequest: l.ownMs / report.load!.profiled!.requests.total!,
    corePct: (l.ownMs / report.profile.durationMs) * 100,
  };
}

/** `40 ms/request · 95% of a core …` → its two figures. */
function figures(title: string): { perRequest: number; corePct: number } {
  const m = /^(?:own )?(\d+(?:\.\d+)?) ms\/request · (\d+(?:\.\d+)?)% of a core/.exec(title);
  assert.ok(m, `a lens with ms/request and a share of a core: ${title}`);
  return { perRequest: Number(m[1]), corePct: Number(m[2]) };
}

function assertFigures(title: string, want: { perRequest: number; corePct: number }): void {
  const got = figures(title);
  // The lens rounds to 2 significant figures (capacity.ts formatCostMs, formatCorePct).
  assert.ok(
    Math.abs(got.perRequest - want.perRequest) <= want.perRequest * 0.05 + 0.005,
    `${title} vs ${want.perRequest}`,
  );
  assert.ok(Math.abs(got.corePct - want.corePct) <= 0.6, `${title} vs ${want.corePct}%`);
}

test('Neovim on `hotline lsp`: the newest run at start, then the run that lands', { timeout: 180_000 }, async () => {
  const tmp = makeTempDir('hotline-nvim-');
  const appDir = stageLoginApp(tmp);
  const out = path.join(tmp, 'out');
  fs.mkdirSync(out);
  // An older run first: the server must show the newest.
  landRun(appDir, 'login-api-async', '20261126-110000-0000');
  const firstReport = readReport(landRun(appDir, 'login-api', '20261126-120000-aaaa'));
  const hot = firstReport.hints.find((h) => h.rule === 'crypto-sync');
  assert.ok(hot, 'the sync login run has its crypto-sync hint');

  // Neovim as a user has it: the set-up printed in docs/editors.md as its init.lua, `hotline` on
  // PATH, its own folders for config, data, state and cache.
  const home = path.join(tmp, 'nvim-home');
  const init = path.join(home, 'init.lua');
  fs.mkdirSync(path.join(home, 'bin'), { recursive: true });
  fs.writeFileSync(init, documentedSetup());
  const shim = path.join(home, 'bin', 'hotline');
  fs.writeFileSync(shim, `#!/bin/sh\nexec '${process.execPath}' '${HOTLINE_JS}' "$@"\n`);
  fs.chmodSync(shim, 0o755);
  fs.writeFileSync(path.join(appDir, 'package.json'), '{ "name": "login-api", "main": "server.js" }\n');
  const xdg = Object.fromEntries(
    ['CONFIG', 'DATA', 'STATE', 'CACHE'].map((k) => [`XDG_${k}_HOME`, path.join(home, k.toLowerCase())]),
  );
  const args = ['--headless', '-u', init, '-i', 'NONE', '-n', path.join(appDir, 'server.js'), '-c', `luafile ${LUA}`];
  nvim = spawn('nvim', args, {
    cwd: tmp,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...xdg,
      PATH: `${path.dirname(shim)}${path.delimiter}${process.env.PATH ?? ''}`,
      HOTLINE_OUT: out,
      HOTLINE_WAIT_MS: String(WAIT_MS),
      HOTLINE_HOVER_LINE: String(hot.line),
    },
  });
  let output = '';
  nvim.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  nvim.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<string>((resolve) =>
    nvim!.once('exit', (code, signal) => resolve(`code ${code}, signal ${signal}; output: ${output.slice(-2000)}`)),
  );

  // ---- the newest run at start
  const first = await seen(out, 'phase1.json', exited, WAIT_MS * 4);
  const all = first.lenses.map((l) => `${l.line}: ${l.title}`).join('\n');
  const lens = first.lenses.find((l) => l.line === hot.line);
  assert.ok(lens, `a lens on line ${hot.line}:\n${all}`);
  assert.match(lens.title, /blocks the event loop$/);
  assertFigures(lens.title, expected(firstReport, hot.line));
  // Neovim shows it there, as virtual text.
  assert.ok(
    first.virtualText.some((v) => v.line === hot.line && v.text.includes(lens.title)),
    JSON.stringify(first.virtualText),
  );
  // Standalone lenses run the server's own command; its answer is a message Neovim shows.
  assert.deepEqual(first.commands?.commands.slice().sort(), [
    'hotline.clearRun',
    'hotline.explainHint',
    'hotline.lineDetails',
    'hotline.showRun',
  ]);
  assert.ok(
    first.messages.some((m) => m.includes(`server.js:${hot.line} in checkPassword: ${lens.title}`)),
    first.messages.join('\n'),
  );

  const hover = (first.hover ?? []).join('\n');
  assert.match(hover, new RegExp(`line ${hot.line} in \`checkPassword\``));
  assert.match(hover, /pbkdf2Sync/);
  // The line's lens, in its words ("40 ms/request · 95% of a core · blocks the event loop").
  assert.match(hover, /Of the app's capacity: \S+ ms\/request · \d+% of a core · blocks the event loop\./);

  assert.deepEqual(
    first.diagnostics.map((d) => [d.line, d.source]),
    [[hot.line, 'hotline']],
  );
  assert.match(first.diagnostics[0].message, /crypto\.pbkdf2Sync in checkPassword blocks the event loop/);
  // The hint's code actions are standard quick fixes whose command the server runs (login-api's
  // checkPassword is not an async function: no edit is offered, test/server/async-fix.test.ts has those).
  const actions = first.codeActions ?? [];
  const explain = actions.find((a) => a.title.startsWith('Explain: why crypto.pbkdf2Sync'));
  assert.ok(explain, JSON.stringify(actions));
  assert.equal(explain.kind, 'quickfix');
  assert.equal(explain.command?.command, 'hotline.explainHint');
  assert.ok(
    first.messages.some((m) => /crypto\.pbkdf2Sync runs on the event loop.*use crypto\.pbkdf2/.test(m)),
    first.messages.join('\n'),
  );

  // ---- a second run lands: the hash made async, the hot line is gone
  const secondReport = readReport(landRun(appDir, 'login-api-async', '20261126-120100-bbbb'));
  const second = await seen(out, 'phase2.json', exited, WAIT_MS * 2);
  const now = second.lenses.map((l) => `${l.line}: ${l.title}`).join('\n');
  assert.ok(!second.lenses.some((l) => l.line === hot.line), `no lens on line ${hot.line} any more:\n${now}`);
  assert.deepEqual(second.diagnostics, []);
  const lensLines = secondReport.lines.filter(
    (l) => l.file.endsWith('server.js') && l.thread === undefined && !l.oneOf && l.ownPct >= 1,
  );
  assert.ok(lensLines.length > 0, 'the async run has hot lines of its own');
  for (const l of lensLines) {
    const shown = second.lenses.find((x) => x.line === l.line && /ms\/request · [\d.]+% of a core$/.test(x.title));
    assert.ok(shown, `the second run's lens on line ${l.line}:\n${now}`);
    assertFigures(shown.title, expected(secondReport, l.line));
    assert.ok(second.virtualText.some((v) => v.line === l.line && v.text.includes(shown.title)));
  }

  // Neovim quits by itself once it has written phase 2, and stops the server with it.
  const how = await Promise.race([
    exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), WAIT_MS).unref()),
  ]);
  assert.match(how, /^code 0,/);
});
