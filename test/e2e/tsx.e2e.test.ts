// A TypeScript app started through tsx, in a real VS Code (issue 23): package.json's start script
// is `node --import tsx src/server.ts`, and Hotline: Profile Under Load takes it as it stands (no
// entry set, no launch.json). The known answer of test/apps/start-commands (two pbkdf2Sync calls
// of 2:1 work in src/check.ts) must come out on the .ts lines: the report's hot line and the
// CodeLens on the heavier call's line, never on line 1 or a comment; Node's loader-hooks thread
// (module.register) is nowhere. Screenshots in Light and Dark Modern (test/e2e/artifacts/tsx-*).
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/tsx.e2e.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, ensureSetup, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { packExtension } from './hotline-setup.ts';
import { describeFailure } from './failure.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'start-commands');

/** No hotline.entry: the app is package.json's start script. */
const SETTINGS = { 'hotline.url': '/', 'hotline.connections': 4, 'hotline.duration': 4, 'hotline.warmup': 1 };

/** A workspace of its own: the TypeScript sources, a start script through tsx, the app's node_modules. */
function tsxWorkspace(dir: string): string {
  assert.ok(
    fs.existsSync(path.join(APP, 'node_modules', 'tsx')),
    `${APP} has no node_modules/tsx: npm run setup:examples installs it`,
  );
  const ws = path.join(dir, 'tsx-app');
  fs.mkdirSync(ws);
  fs.cpSync(path.join(APP, 'src'), path.join(ws, 'src'), { recursive: true });
  fs.copyFileSync(path.join(APP, 'tsconfig.json'), path.join(ws, 'tsconfig.json'));
  fs.symlinkSync(path.join(APP, 'node_modules'), path.join(ws, 'node_modules'), 'dir');
  fs.writeFileSync(
    path.join(ws, 'package.json'),
    JSON.stringify(
      { name: 'tsx-app', version: '1.0.0', private: true, scripts: { start: 'node --import tsx src/server.ts' } },
      null,
      2,
    ),
  );
  return ws;
}

test(
  'a tsx app in a real VS Code: the report and the CodeLens on the right .ts line',
  { timeout: 360_000 },
  async (t) => {
    ensureSetup();
    const tmp = fs.mkdtempSync('/tmp/hle2e-tsx-');
    t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const vsix = packExtension(tmp);
    const workspace = tsxWorkspace(tmp);
    const checkTs = path.join(workspace, 'src', 'check.ts');
    const source = fs.readFileSync(checkTs, 'utf8').split('\n');
    const hotLine = source.findIndex((l) => l.includes('// truth own 2')) + 1;
    const lighterLine = source.findIndex((l) => l.includes('// truth own 1')) + 1;
    assert.ok(hotLine > 1 && lighterLine > 1, 'src/check.ts marks its two calls');
    const vs: VSCode = await startVSCode({ workspace, extensionVsix: vsix, userSettings: SETTINGS });
    const { page } = vs;
    try {
      // 1. The run, started from the palette with nothing asked: the start script says it all.
      await dom.runCommand(page, 'Hotline: Profile Under Load');
      const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 180_000 });
      await report.getByText(`check.ts:${hotLine}`).first().waitFor({ state: 'visible', timeout: 120_000 });
      await vs.screenshot('tsx-1-report');

      // What the page shows, from the run's report.json: the .ts lines, no thread of Node's own.
      const runsDir = path.join(workspace, '.hotline', 'runs');
      const [runId] = fs.readdirSync(runsDir);
      const r = JSON.parse(fs.readFileSync(path.join(runsDir, runId, 'report.json'), 'utf8')) as ReportV1;
      assert.deepEqual(r.app.command.slice(-3), ['--import', 'tsx', path.join(workspace, 'src', 'server.ts')]);
      const first = r.lines.find((l) => l.thread === undefined);
      assert.equal(first?.file, checkTs, JSON.stringify(r.lines.slice(0, 3)));
      assert.equal(first?.line, hotLine);
      assert.ok(
        r.lines.some((l) => l.file === checkTs && l.line === lighterLine),
        'the lighter call has its line too',
      );
      assert.ok(!(r.threads ?? []).some((th) => th.script?.startsWith('node:')), JSON.stringify(r.threads));
      assert.ok(!r.notes.some((n) => /started during the profiled window/.test(n)), r.notes.join('\n'));
      // A thread tsx's compiler may start (esbuild's service thread, when its cache is cold) is the boot's.
      const workers = (r.threads ?? []).filter((th) => th.id !== 0);
      t.diagnostic(`worker threads: ${JSON.stringify(workers.map((w) => [w.title, w.script, w.startedAtBoot]))}`);
      for (const w of workers) assert.ok(w.startedAtBoot && !w.joinedLate, JSON.stringify(w));
      if (workers.length > 0) {
        const threads = report.locator('[data-field="threads"]');
        await threads.getByText("started at the app's boot").first().waitFor({ state: 'visible', timeout: 30_000 });
        assert.equal(await threads.getByText('started in the window').count(), 0);
        await threads.scrollIntoViewIfNeeded();
        await vs.screenshot('tsx-1-report-threads');
      }
      // The Hot lines tab: no "Worker threads" heading unless a worker ran a line of the app's code.
      await report.locator('vscode-panel-tab#tab-lines').click();
      await report.getByText(`check.ts:${hotLine}`).filter({ visible: true }).first().waitFor({ state: 'visible' });
      const workerRows = r.lines.filter((l) => l.thread === 'worker').length;
      assert.equal(
        await report.locator('vscode-panel-view#view-lines section[data-thread="worker"]').count(),
        workerRows > 0 ? 1 : 0,
        `worker group on the Hot lines tab (${workerRows} worker rows)`,
      );
      await dom.dismissNotifications(page);

      // 2. The code: the lens stands on the heavier call's line, and no lens on line 1 or a comment.
      await dom.openFile(page, 'src/check.ts');
      await dom.waitForCodeLens(page, /ms\/request · \d+% of a core · blocks the event loop/, 60_000);
      const placed = await dom.waitUntil(
        'the lenses of src/check.ts placed on their lines',
        async () => {
          const all = await dom.codeLensLines(page);
          // Both calls of the pair have their lens (2:1 of the time, each well above a lens's threshold).
          return all.filter((x) => /of a core/.test(x.lens)).length === 2 && all.every((x) => x.line > 0)
            ? all
            : undefined;
        },
        30_000,
      );
      t.diagnostic(`lenses: ${JSON.stringify(placed)}`);
      // The two costs, the larger first: the 20000-round call's line, then the 10000-round one's.
      const share = (lens: string): number => Number(/ · (\d+)% of a core/.exec(lens)?.[1] ?? 0);
      const hot = placed
        .filter((x) => /of a core · blocks the event loop/.test(x.lens))
        .sort((a, b) => share(b.lens) - share(a.lens));
      assert.deepEqual(
        hot.map((x) => x.line),
        [hotLine, lighterLine],
        JSON.stringify(placed),
      );
      assert.match(hot[0].text, /pbkdf2Sync\(password, 'salt', 20000/);
      for (const x of placed) {
        assert.ok(x.line > 1, `a lens on line 1: ${JSON.stringify(x)}`);
        assert.doesNotMatch(source[x.line - 1], /^\s*(\/\/|\/\*|\*)/, `a lens on a comment: ${JSON.stringify(x)}`);
      }

      // 3. The same in the two default themes.
      for (const theme of [
        { name: 'Light Modern', kind: 'vs', file: 'light-modern' },
        { name: 'Dark Modern', kind: 'vs-dark', file: 'dark-modern' },
      ] as const) {
        await dom.setColorTheme(page, theme.name, theme.kind);
        await dom.activateTab(page, 'check.ts');
        await dom.waitForCodeLens(page, /of a core · blocks the event loop/, 30_000);
        await vs.screenshot(`tsx-2-codelens-${theme.file}`);
      }
    } catch (err) {
      await describeFailure(vs, t, 'tsx-failure');
      throw err;
    } finally {
      await vs.stop();
    }
  },
);
