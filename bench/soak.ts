// A long run in a real VS Code: 10 minutes of load (5 min measured + 5 min profiled at the
// default sampling interval) on the login example, while the extension host's and the language
// server's memory are read from /proc every 2 s. Prints the peaks and writes bench/out/soak.json.
//
//   node --import tsx bench/soak.ts [--window-s 300]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { REPO_ROOT, startVSCode } from '../test/e2e/harness.ts';
import * as dom from '../test/e2e/vscode-dom.ts';
import { LOGIN_SETTINGS } from '../test/e2e/hotline-setup.ts';

const { values } = parseArgs({ options: { 'window-s': { type: 'string', default: '300' } } });
const windowS = Number(values['window-s']);

interface Proc {
  pid: number;
  cmd: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      out.push({ pid: Number(name), cmd: fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // gone
    }
  }
  return out;
}

/** Resident memory in MiB (VmRSS) of a pid, or 0 if it is gone. */
function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync('/tmp/hlsoak-');
  const vsix = path.join(tmp, 'hotline.vsix');
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/package-vsix.mjs'), vsix], {
    cwd: REPO_ROOT,
    stdio: 'pipe',
  });
  const workspace = path.join(tmp, 'login-api');
  fs.cpSync(path.join(REPO_ROOT, 'examples/login-api'), workspace, {
    recursive: true,
    filter: (s) => !s.includes('.hotline'),
  });
  const vs = await startVSCode({
    workspace,
    extensionVsix: vsix,
    userSettings: {
      ...LOGIN_SETTINGS,
      'hotline.duration': windowS,
      'hotline.warmup': 2,
    },
  });
  const peaks = { extensionHost: 0, languageServer: 0 };
  const samples: Array<{ t: number; extensionHost: number; languageServer: number }> = [];
  const t0 = Date.now();
  const timer = setInterval(() => {
    const all = processes();
    const host = all.find((p) => p.cmd.includes('extensionHostProcess') || p.cmd.includes('--type=extensionHost'));
    const server = all.find((p) => p.cmd.includes(`${path.sep}dist${path.sep}server.js`) && p.cmd.includes('hotline'));
    const sample = {
      t: (Date.now() - t0) / 1000,
      extensionHost: host ? rssMiB(host.pid) : 0,
      languageServer: server ? rssMiB(server.pid) : 0,
    };
    samples.push(sample);
    peaks.extensionHost = Math.max(peaks.extensionHost, sample.extensionHost);
    peaks.languageServer = Math.max(peaks.languageServer, sample.languageServer);
  }, 2000);
  try {
    await dom.runCommand(vs.page, 'Hotline: Profile Under Load');
    const report = await dom.webviewFrame(vs.page, { title: 'Hotline Report', timeout: (2 * windowS + 120) * 1000 });
    await report.getByText('server.js:35').first().waitFor({ state: 'attached', timeout: 120_000 });
    const runs = fs.readdirSync(path.join(workspace, '.hotline', 'runs'));
    const runDir = path.join(workspace, '.hotline', 'runs', runs[0]);
    const profileMiB = fs.statSync(path.join(runDir, 'profile.cpuprofile')).size / 1048576;
    const r = JSON.parse(fs.readFileSync(path.join(runDir, 'report.json'), 'utf8'));
    const result = {
      windowS,
      profileMiB: Math.round(profileMiB * 10) / 10,
      samples: r.profile.samples,
      topLine: `${path.basename(r.lines[0].file)}:${r.lines[0].line} ${r.lines[0].ownPct}%`,
      peakRssMiB: { extensionHost: Math.round(peaks.extensionHost), languageServer: Math.round(peaks.languageServer) },
      firstRssMiB: samples.find((s) => s.extensionHost > 0),
      lastRssMiB: samples[samples.length - 1],
    };
    fs.mkdirSync(path.join(REPO_ROOT, 'bench', 'out'), { recursive: true });
    fs.writeFileSync(
      path.join(REPO_ROOT, 'bench', 'out', 'soak.json'),
      `${JSON.stringify({ result, samples }, null, 1)}\n`,
    );
    process.stdout.write(
      `soak: ${windowS} s + ${windowS} s under load; profile ${result.profileMiB} MiB, ${result.samples} samples; top line ${result.topLine}\n`,
    );
    process.stdout.write(
      `soak: peak RSS extension host ${result.peakRssMiB.extensionHost} MiB, language server ${result.peakRssMiB.languageServer} MiB\n`,
    );
  } finally {
    clearInterval(timer);
    await vs.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`soak failed: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
