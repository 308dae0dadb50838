// docs/ci/github-gate.yml as GitHub runs it: its `run:` steps, as written, against a git repository
// made here (a base branch and a pull request of a tiny HTTP app that `npm run build` copies to
// dist/). Only what GitHub provides is stood in for: the checkout and setup-node actions (a clone
// with full history; the node running this test), the `${{ … }}` expressions, GITHUB_STEP_SUMMARY
// and RUNNER_TEMP. The Hotline package the workflow installs is a folder whose bin runs this
// checkout's built CLI. The gate itself is real, with short rounds (GATE_DURATION, GATE_OPTIONS).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { assertBuilt, CLI, removeTempDirs, tempDir } from '../helpers/integration.ts';

const WORKFLOW = path.join(__dirname, '..', '..', 'docs', 'ci', 'github-gate.yml');
// js-yaml comes with the dev tools (eslint, vsce); it has no types of its own.
const yaml = createRequire(__filename)('js-yaml') as { load(text: string): unknown };

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
}
interface Job {
  env: Record<string, string>;
  steps: Step[];
  defaults?: { run?: { shell?: string } };
}

function workflow(): Job {
  const doc = yaml.load(fs.readFileSync(WORKFLOW, 'utf8')) as { jobs: { gate: Job } };
  return doc.jobs.gate;
}

/** Every step's time limit, and the whole job's: a gate that hangs fails the test, never blocks it. */
const STEP_TIMEOUT_MS = 75_000;

/** A server whose every request is one hot loop of `iterations`; the build copies it to dist/. */
const server = (iterations: number): string => `'use strict';
const http = require('node:http');
function work(seed) {
  let h = seed | 0;
  for (let i = 0; i < ${iterations}; i++) h = (Math.imul(h, 31) + i) | 0;
  return h;
}
http
  .createServer((req, res) => res.end(String(work(req.url.length))))
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
`;

const git = (cwd: string, ...args: string[]): string => {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'ci',
      GIT_AUTHOR_EMAIL: 'ci@example.com',
      GIT_COMMITTER_NAME: 'ci',
      GIT_COMMITTER_EMAIL: 'ci@example.com',
    },
  });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

/**
 * The "origin" repository: main with the app doing `base` iterations a request, and the branch
 * `pr` on top of it doing `current`.
 */
function origin(base: number, current: number): string {
  const dir = tempDir('hotline-ci-origin-');
  git(dir, 'init', '-q', '-b', 'main');
  const manifest = { name: 'tiny-api', version: '1.0.0', private: true, scripts: { build: 'node build.js' } };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const lock = {
    name: 'tiny-api',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: 'tiny-api', version: '1.0.0' } },
  };
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  fs.writeFileSync(
    path.join(dir, 'build.js'),
    "const fs = require('node:fs');\nfs.mkdirSync('dist', { recursive: true });\nfs.copyFileSync('src/server.js', 'dist/server.js');\n",
  );
  fs.writeFileSync(path.join(dir, '.gitignore'), 'dist/\nnode_modules/\n.hotline/\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'server.js'), server(base));
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'the app');
  git(dir, 'checkout', '-q', '-b', 'pr');
  fs.writeFileSync(path.join(dir, 'src', 'server.js'), server(current));
  git(dir, 'commit', '-q', '-am', 'the change under review');
  git(dir, 'checkout', '-q', 'main');
  return dir;
}

/** A package whose `hotline` bin is this checkout's built CLI: what HOTLINE_PACKAGE points at. */
function hotlinePackage(): string {
  const dir = tempDir('hotline-ci-package-');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'hotline', version: '0.0.0-test', bin: { hotline: 'bin/hotline.js' } }),
  );
  fs.writeFileSync(path.join(dir, 'bin', 'hotline.js'), `#!/usr/bin/env node\nrequire(${JSON.stringify(CLI)});\n`);
  return dir;
}

interface JobResult {
  /** success or failure, as GitHub would show the job. */
  conclusion: 'success' | 'failure';
  /** name (or uses) → exit code of each step that ran; skipped steps are absent. */
  steps: Map<string, number>;
  summary: string;
  log: string;
}

/** Runs bash as GitHub's `shell: bash` does, in its own process group, killed at the time limit. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const file = path.join(tempDir('hotline-ci-step-'), 'step.sh');
  fs.writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    const timer = setTimeout(() => {
      output += `\n[test] step killed after ${STEP_TIMEOUT_MS} ms\n`;
      process.kill(-child.pid!, 'SIGKILL');
    }, STEP_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/**
 * The job: each step in order, a failed step skipping the rest but `if: always()` ones. `uses:`
 * steps are GitHub's; the test does the checkout (a clone of `pr` with all history) and needs
 * nothing for setup-node (this node is on PATH) nor for upload-artifact.
 */
async function runJob(opts: {
  originDir: string;
  env: Record<string, string>;
  /** Steps to run (by name), when not all. */
  only?: string[];
  workspace?: string;
  pathPrefix?: string;
}): Promise<JobResult> {
  const job = workflow();
  assert.equal(job.defaults?.run?.shell, 'bash');
  const root = tempDir('hotline-ci-runner-');
  const runnerTemp = path.join(root, 'temp');
  fs.mkdirSync(runnerTemp);
  const workspace = opts.workspace ?? path.join(root, 'work');
  const summaryFile = path.join(root, 'step_summary.md');
  fs.writeFileSync(summaryFile, '');
  const prefix = path.join(root, 'npm-prefix');
  const github: Record<string, string> = {
    'github.base_ref': 'main',
    'github.head_ref': 'pr',
    'runner.temp': runnerTemp,
    'vars.HOTLINE_PACKAGE': hotlinePackage(),
  };
  const expand = (value: string): string =>
    value.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, key: string) => {
      const v = github[key];
      assert.ok(v !== undefined, `the workflow uses \${{ ${key} }}, which the test does not stand in for`);
      return v;
    });
  const jobEnv = Object.fromEntries(Object.entries(job.env).map(([k, v]) => [k, expand(String(v))]));
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...jobEnv,
    ...opts.env,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_BASE_REF: 'main',
    GITHUB_HEAD_REF: 'pr',
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: runnerTemp,
    NO_COLOR: '1',
    // The package install stays on this machine and out of the user's global prefix.
    npm_config_prefix: prefix,
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    PATH: [opts.pathPrefix, path.join(prefix, 'bin'), process.env.PATH].filter(Boolean).join(path.delimiter),
  };
  const steps = new Map<string, number>();
  let log = '';
  let failed = false;
  for (const step of job.steps) {
    const id = step.name ?? step.uses ?? '?';
    if (opts.only && !opts.only.includes(id)) continue;
    if (failed && step.if !== 'always()') continue;
    if (step.uses !== undefined) {
      if (step.uses.startsWith('actions/checkout@')) {
        git(root, 'clone', '-q', '--no-single-branch', opts.originDir, workspace);
        git(workspace, 'checkout', '-q', 'pr');
        steps.set(id, 0);
      } else if (step.uses.startsWith('actions/setup-node@') || step.uses.startsWith('actions/upload-artifact@')) {
        steps.set(id, 0);
      } else assert.fail(`the test does not know the action ${step.uses}`);
      continue;
    }
    assert.ok(step.run, `step ${id} has neither uses nor run`);
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v))]));
    const r = await bash(expand(step.run), workspace, { ...baseEnv, ...stepEnv });
    log += `--- ${id}: exit ${r.code}\n${r.output}\n`;
    steps.set(id, r.code);
    if (r.code !== 0) failed = true;
  }
  return { conclusion: failed ? 'failure' : 'success', steps, summary: fs.readFileSync(summaryFile, 'utf8'), log };
}

/**
 * Short but real: each version started once for all rounds (--one-start), 1 s a version a round,
 * 3 rounds, up to 10 when undecided; 0.5 s of warm-up. The apps' loops (millions of iterations a
 * request) keep the event loop busy under the default 10 connections, so CPU per request is gated;
 * a 4× change needs no more (a fresh start each round has its own test: side-by-side.test.ts).
 * Up to 10: once in CI the 4× version read +125% after six rounds whose ratios spread ±114%, and
 * the gate, whose estimate is the rounds' mean (issue 40), stayed undecided at 6.
 */
const SHORT_GATE = { GATE_DURATION: '3', GATE_OPTIONS: '--rounds 3 --max-rounds 10 --warmup 0.5 --one-start' };

before(assertBuilt);
after(removeTempDirs);

test('the workflow file has the steps docs/ci.md describes', () => {
  const job = workflow();
  const names = job.steps.map((s) => s.name ?? s.uses);
  assert.deepEqual(names.slice(0, 2), ['actions/checkout@v4', 'actions/setup-node@v4']);
  const checkout = job.steps[0] as Step & { with?: { 'fetch-depth'?: number } };
  assert.equal(checkout.with?.['fetch-depth'], 0, 'the base branch needs the history: fetch-depth 0');
  for (const name of ['Install Hotline', 'Check out the base revision beside this one', 'Build both revisions', 'Gate'])
    assert.ok(names.includes(name), `no step "${name}"`);
  assert.match(job.steps.find((s) => s.name === 'Gate')!.run!, /GITHUB_STEP_SUMMARY/);
});

test(
  'a pull request that makes the app cheaper: every step green, the summary has the verdict',
  { timeout: 150_000 },
  async (t) => {
    const job = await runJob({ originDir: origin(2_000_000, 500_000), env: SHORT_GATE });
    t.diagnostic(`the job summary:\n${job.summary}`);
    assert.equal(job.steps.get('Build both revisions'), 0, job.log);
    // Never slower; on a busy machine a short gate may still not rule out 5% (exit 4): neutral.
    assert.equal(job.conclusion, 'success', job.log);
    assert.match(job.log, /--- Gate: exit 0\n/, job.log);
    assert.match(job.summary, /^gate: cpu\/request /m, job.summary);
    if (/^gate: pass — /m.test(job.summary)) assert.match(job.summary, /^### Hotline gate — pass/m, job.summary);
    else {
      assert.match(job.summary, /^### Hotline gate — inconclusive/m, job.summary);
      assert.match(job.summary, /^gate: INCONCLUSIVE — /m, job.summary);
      assert.match(job.log, /::warning title=Hotline gate::gate: INCONCLUSIVE/, job.log);
    }
    assert.doesNotMatch(job.summary, /FAIL/, job.summary);
  },
);

/** A `hotline` on PATH ahead of the installed one that prints a gate's last line and exits so. */
function fakeHotline(code: number, line: string): string {
  const dir = tempDir('hotline-ci-fake-');
  fs.writeFileSync(path.join(dir, 'hotline'), `#!/bin/sh\necho 'hotline: ${line}' >&2\nexit ${code}\n`, {
    mode: 0o755,
  });
  return dir;
}

test('the Gate step maps exit codes: 3 fails the job, 4 passes it with a warning (or fails it), 1 fails it', async () => {
  const workspace = tempDir('hotline-ci-workspace-');
  const cases: Array<{ code: number; line: string; env: Record<string, string>; ok: boolean; title: string }> = [
    { code: 3, line: 'gate: FAIL — slower than the baseline b by more than 5%', env: {}, ok: false, title: 'FAIL' },
    { code: 4, line: 'gate: INCONCLUSIVE — could be up to +8.0% slower', env: {}, ok: true, title: 'inconclusive' },
    {
      code: 4,
      line: 'gate: INCONCLUSIVE — could be up to +8.0% slower',
      env: { GATE_INCONCLUSIVE: 'fail' },
      ok: false,
      title: 'inconclusive',
    },
    { code: 1, line: 'the app exited before it listened', env: {}, ok: false, title: 'error' },
  ];
  for (const c of cases) {
    const job = await runJob({
      originDir: '',
      workspace,
      only: ['Gate'],
      env: c.env,
      pathPrefix: fakeHotline(c.code, c.line),
    });
    assert.equal(job.conclusion, c.ok ? 'success' : 'failure', `exit ${c.code}: ${job.log}`);
    assert.match(job.summary, new RegExp(`^### Hotline gate — ${c.title}`, 'm'), job.summary);
    if (c.line.startsWith('gate:')) assert.ok(job.summary.includes(c.line), job.summary);
    if (c.code === 4) assert.match(job.log, /::warning title=Hotline gate::gate: INCONCLUSIVE/, job.log);
    if (c.code === 3) assert.match(job.log, /::error title=Hotline gate::gate: FAIL/, job.log);
  }
});

test(
  'a pull request that makes every request four times dearer: the Gate step fails, the summary says FAIL',
  { timeout: 150_000 },
  async (t) => {
    const job = await runJob({ originDir: origin(500_000, 2_000_000), env: SHORT_GATE });
    t.diagnostic(`the job summary:\n${job.summary}`);
    assert.equal(job.conclusion, 'failure', job.log);
    assert.equal(job.steps.get('Build both revisions'), 0, job.log);
    assert.equal(job.steps.get('Gate'), 1, job.log);
    assert.match(job.summary, /^### Hotline gate — FAIL/m, job.log);
    assert.match(job.summary, /^gate: FAIL — slower than the baseline/m, job.summary);
    // upload-artifact runs after a failure (if: always()); the gate's figures are there to keep.
    assert.equal(job.steps.get("Keep the gate's figures"), 0);
  },
);
