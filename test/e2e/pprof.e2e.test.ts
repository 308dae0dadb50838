// A pprof file in a real VS Code (code-server in headless Chromium): wall.pb.gz, written by
// @datadog/pprof for the known-answer app of test/fixtures/pprof-app with its paths under
// /tmp/fleet/app/, opens from the explorer as a flame graph, and with hotline.pathMap set the
// lenses of server.js show the two loops that cost 2:1.
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/pprof.e2e.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ensureSetup, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { describeFailure } from './failure.ts';
import { packExtension } from './hotline-setup.ts';

const APP = path.resolve(__dirname, '../fixtures/pprof-app');
let tmp = '';
let vs: VSCode | undefined;

before(async () => {
  ensureSetup();
  tmp = fs.mkdtempSync('/tmp/hle2e-');
  const vsix = packExtension(tmp);
  const workspace = path.join(tmp, 'pprof-app');
  fs.cpSync(APP, workspace, { recursive: true });
  vs = await startVSCode({
    workspace,
    extensionVsix: vsix,
    userSettings: { 'hotline.pathMap': { '/tmp/fleet/app/': './' } },
  });
  // A file opened before the installed extensions are registered gets the text editor ("binary"),
  // not Hotline's custom editor: in a fresh browser profile VS Code's editor resolver does not wait
  // for them. The Hotline view container shows once they are.
  await dom.activityBarItem(vs.page, 'Hotline').waitFor({ state: 'visible', timeout: 60_000 });
});

after(async () => {
  await vs?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test(
  'wall.pb.gz opens as a flame graph and puts the 2:1 loops on the lenses of server.js',
  { timeout: 300_000 },
  async (t) => {
    assert.ok(vs, 'VS Code started');
    const { page } = vs;
    try {
      const flame = await dom.openCustomEditor(page, 'wall.pb.gz');
      await flame
        .getByText(/wall\.cpuprofile/)
        .first()
        .waitFor({ state: 'visible', timeout: 60_000 });
      await vs.screenshot('pprof-1-flamegraph');
      await dom.openFile(page, 'server.js');
      await dom.waitForCodeLens(page, /% of a core/, 60_000);
      const shares = (await dom.codeLensTexts(page))
        .map((text) => /^own [\d.]+ m?s · (\d+(?:\.\d+)?)% of a core/.exec(text))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => Number(m[1]))
        .sort((a, b) => b - a);
      assert.ok(shares.length >= 2, `two own-time lenses: ${JSON.stringify(await dom.codeLensTexts(page))}`);
      const ratio = shares[0] / (shares[0] + shares[1]);
      assert.ok(ratio > 0.6 && ratio < 0.73, `the loops' lenses ${shares[0]}% and ${shares[1]}%`);
      await vs.screenshot('pprof-2-lenses');
    } catch (err) {
      await describeFailure(vs, t, 'pprof-failure');
      throw err;
    }
  },
);
