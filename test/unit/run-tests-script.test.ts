// scripts/run-tests.mjs, the outer limit every test tier runs under: a tier whose test leaves a
// handle (and a process) behind is stopped at the limit with a line saying so, and fails; a
// failing tier keeps its exit code; a passing one ends at once with 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

const SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'run-tests.mjs');
// A `node --test` started inside a test file reports to it rather than by its exit code unless
// it is told it is a runner of its own.
const env = { ...process.env, NODE_TEST_CONTEXT: undefined };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-run-tests-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function testFile(name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    `import { test } from 'node:test';\nimport { spawn } from 'node:child_process';\nimport * as fs from 'node:fs';\n${body}\n`,
  );
  return file;
}

/** Runs the script on one test file; resolves with its exit code and what it wrote to stderr. */
function runTier(minutes: number, file: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, String(minutes), '--test', '--test-reporter=dot', file], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

/** Running, not merely unreaped (a zombie whose parent died first waits for init). */
const running = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

test('a test that leaves a handle and a process behind: stopped at the limit, said, and failed', async () => {
  const pidFile = path.join(dir, 'sleeper.pid');
  const file = testFile(
    'hangs.test.mjs',
    `test('passes, then keeps its process alive', () => {
      setInterval(() => {}, 1000);
      const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
      fs.writeFileSync(${JSON.stringify(pidFile)}, String(sleeper.pid));
    });`,
  );
  const { code, stderr } = await runTier(0.05, file);
  assert.equal(code, 1, stderr);
  assert.match(stderr, /did not end within 0\.05 min/);
  const sleeper = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.ok(sleeper > 0 && !running(sleeper), `the process the test started (${sleeper}) is gone`);
});

test('a failing test: its exit code, no word of a limit', async () => {
  const { code, stderr } = await runTier(
    5,
    testFile('fails.test.mjs', `test('fails', () => { throw new Error('boom'); });`),
  );
  assert.equal(code, 1);
  assert.doesNotMatch(stderr, /did not end/);
});

test('a passing test: 0, and no word of leftovers', async () => {
  const { code, stderr } = await runTier(5, testFile('passes.test.mjs', `test('passes', () => {});`));
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /did not end|still running/);
});

test('bad usage: 2 and the usage line', async () => {
  const child = spawn(process.execPath, [SCRIPT, 'soon'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 2);
  assert.match(stderr, /usage: node scripts\/run-tests\.mjs MINUTES/);
});
