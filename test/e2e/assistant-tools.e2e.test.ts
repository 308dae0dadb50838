// Hotline's language-model tools in a real VS Code: another extension (test/e2e/fixtures/
// lm-tools-caller) calls them through vscode.lm.invokeTool, as agent mode does. The tool that
// starts the app asks first (the editor's confirmation dialog, shot in Light and Dark Modern);
// declined, nothing starts; allowed, the run's top line is the login example's pbkdf2Sync line
// with its hint, the read tools answer as `hotline mcp` does, and errors come back as errors.
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/assistant-tools.e2e.test.ts
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ensureSetup, processesMentioning, REPO_ROOT, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { loginApiCopy, packExtension } from './hotline-setup.ts';
import { describeFailure } from './failure.ts';

const CALLER = path.join(REPO_ROOT, 'test/e2e/fixtures/lm-tools-caller');
const PROFILE = {
  tool: 'hotline_profile',
  input: {
    entry: 'server.js',
    url: '/login',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery staple' }),
    connections: 20,
    duration: 3,
    warmup: 1,
  },
};

interface Calls {
  tools: string[];
  calls: Array<{ tool: string; ok: boolean; text?: string; error?: string }>;
  done: boolean;
}

/** The caller as a .vsix: beside an installed .vsix, VS Code lists only installed extensions. */
function packCaller(tmp: string): string {
  const dir = path.join(tmp, 'lm-tools-caller');
  fs.cpSync(CALLER, dir, { recursive: true });
  const vsix = path.join(tmp, 'lm-tools-caller.vsix');
  execFileSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules/@vscode/vsce/vsce'),
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--skip-license',
      '-o',
      vsix,
    ],
    { cwd: dir, stdio: 'pipe', timeout: 120_000 },
  );
  return vsix;
}

/** Runs the caller's command on `plan`; returns once the confirmation dialog shows (or the calls end). */
async function invoke(vs: VSCode, workspace: string, plan: object[]): Promise<void> {
  fs.rmSync(path.join(workspace, '.lm-calls.json'), { force: true });
  fs.writeFileSync(path.join(workspace, '.lm-plan.json'), JSON.stringify(plan));
  await dom.runCommand(vs.page, 'LM Caller: Invoke Hotline Tools');
}

function dialog(vs: VSCode) {
  return vs.page.locator('.monaco-dialog-box');
}

async function calls(workspace: string, timeout: number): Promise<Calls> {
  const file = path.join(workspace, '.lm-calls.json');
  return dom.waitUntil(
    'the tools answered',
    async () => {
      if (!fs.existsSync(file)) return undefined;
      const c = JSON.parse(fs.readFileSync(file, 'utf8')) as Calls;
      return c.done ? c : undefined;
    },
    timeout,
  );
}

test(
  'language-model tools in a real VS Code: confirmation, a run, the same answers as hotline mcp',
  { timeout: 420_000 },
  async (t) => {
    ensureSetup();
    const tmp = fs.mkdtempSync('/tmp/hle2e-lm-');
    const vsix = packExtension(tmp);
    const workspace = loginApiCopy(tmp);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: Array<{ name: string }> };
    };
    const vs = await startVSCode({ workspace, extensionVsix: [vsix, packCaller(tmp)] });
    const { page } = vs;
    try {
      // 1. Declined: the dialog names what will run; Cancel starts nothing.
      // VS Code starts in Light Modern here (Chromium's light scheme); the picker lists the built-in
      // themes only once their extensions are read, so the first switch waits for the first dialog.
      assert.equal(await dom.themeKind(page), 'vs', 'Light Modern to begin with');
      await invoke(vs, workspace, [PROFILE]);
      await dialog(vs).waitFor({ state: 'visible', timeout: 60_000 });
      const asked = (await dialog(vs).innerText()).replace(/\s+/g, ' ');
      t.diagnostic(`dialog: ${asked}`);
      assert.match(asked, /Start the app and profile it under load\?/);
      assert.match(asked, /login-api.*server\.js.*\/login.*127\.0\.0\.1/);
      await vs.screenshot('assistant-1-confirm-light-modern');
      await dialog(vs)
        .getByRole('button', { name: /cancel/i })
        .click();
      const declined = await calls(workspace, 30_000);
      t.diagnostic(`declined: ${JSON.stringify(declined.calls)}`);
      assert.equal(declined.calls[0]?.ok, false, 'a declined run is no answer');
      assert.equal(fs.existsSync(path.join(workspace, '.hotline', 'runs')), false, 'and nothing ran');
      assert.deepEqual(
        [...declined.tools].sort(),
        manifest.contributes.languageModelTools.map((x) => x.name).sort(),
        'every tool package.json declares is registered',
      );

      // 2. Allowed: the run, then the read tools, then two mistakes a model makes.
      await dom.setColorTheme(page, 'Dark Modern', 'vs-dark');
      await invoke(vs, workspace, [
        PROFILE,
        { tool: 'hotline_hot_lines', input: { top: 3 } },
        { tool: 'hotline_set_baseline', input: {} },
        { tool: 'hotline_verify', input: {} },
        { tool: 'hotline_hot_lines', input: { top: 0 } },
      ]);
      await dialog(vs).waitFor({ state: 'visible', timeout: 60_000 });
      await vs.screenshot('assistant-2-confirm-dark-modern');
      await dialog(vs)
        .getByRole('button', { name: /^(yes|continue|allow|ok)$/i })
        .first()
        .click();
      const answered = await calls(workspace, 240_000);
      for (const c of answered.calls) t.diagnostic(`${c.tool}: ${(c.text ?? c.error ?? '').slice(0, 300)}`);
      const [profile, hot, baseline, verify, malformed] = answered.calls;
      assert.ok(profile?.ok, `profile answered: ${profile?.error}`);
      const run = JSON.parse(profile.text!) as {
        run: { id: string };
        hotLines: Array<{ at: string }>;
        hints: Array<{ at: string; api: string }>;
      };
      assert.equal(run.hotLines[0]?.at, 'server.js:35', 'the pbkdf2Sync line first');
      assert.ok(
        run.hints.some((h) => h.at === 'server.js:35' && h.api === 'crypto.pbkdf2Sync'),
        'with its hint',
      );
      assert.ok(hot?.ok && (JSON.parse(hot.text!) as { rows: Array<{ at: string }> }).rows[0]?.at === 'server.js:35');
      assert.ok(baseline?.ok, `set_baseline: ${baseline?.error}`);
      assert.equal(verify?.ok, false);
      assert.match(verify!.error!, /is the baseline itself/);
      assert.equal(malformed?.ok, false, 'top 0 is refused');
      assert.ok(fs.existsSync(path.join(workspace, '.hotline', 'runs', run.run.id, 'report.json')), 'run on disk');

      // 3. The assistant's run shows in the editor as the user's own: its CodeLens on the line.
      await dom.openFile(page, 'server.js');
      await dom.waitForCodeLens(page, /ms\/request/, 60_000);
      await vs.screenshot('assistant-3-lens-after-tool-run');
    } catch (err) {
      await describeFailure(vs, t, 'assistant-tools-failure');
      throw err;
    } finally {
      await vs.stop();
      assert.deepEqual(processesMentioning(path.join(workspace, 'server.js')), [], 'no app left');
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
);
