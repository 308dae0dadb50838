// `npm test`: every tier, in order, each even when an earlier one failed, then one summary line per
// tier and a non-zero exit if any failed. So one CI run reports every failure, not only the first.
//
//   node scripts/test-all.mjs                  the project's tiers (TIERS below)
//   node scripts/test-all.mjs --only unit,lint a subset, in the same order
//   node scripts/test-all.mjs --tiers F.json   tiers from a file (its own test: test/unit/test-all-script.test.ts)
//
// The first tier (setup:test: the browser, load tools and Node 24 the tests need) is a
// precondition: when it fails nothing else runs. A tier that `needs` another that failed is
// skipped and named (the browser tiers cannot run on a failed build). Each tier's time limit is its
// own (scripts/run-tests.mjs inside the npm script), so a hung tier ends and the next one runs.
//
// A `background` tier starts in its turn and the next tiers go on beside it; its output is kept
// and printed when a tier that `needs` it or runs `after` it waits for it (or at the end). That is
// setup:vscode, code-server's native build: about one core for three minutes, which the page tests
// (about 0.6 of a core) leave free; the timed tiers wait for it to end.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

/** @typedef {{ name: string, command: string[], needs?: string[], after?: string[], gate?: boolean, background?: boolean }} Tier */

// Plain `npm run`, as before: e2e-setup.sh's inner npm depends on what the outer one passes down.
const npm = (script) => ['npm', 'run', script];

/** @type {Tier[]} */
const TIERS = [
  { name: 'setup:test', command: npm('setup:test'), gate: true },
  { name: 'typecheck', command: npm('typecheck') },
  { name: 'check:cycles', command: npm('check:cycles') },
  { name: 'lint', command: npm('lint') },
  { name: 'build', command: npm('build') },
  { name: 'setup:examples', command: npm('setup:examples') },
  { name: 'unit', command: npm('test:unit') },
  { name: 'fuzz', command: npm('test:fuzz') },
  { name: 'server', command: npm('test:server'), needs: ['build', 'setup:examples'] },
  // Beside the page tests only: they leave most of a core free, the tiers before them do not (a CI
  // rehearsal with the build beside unit and fuzz took them from 94 and 57 s to 199 and 129 s).
  { name: 'setup:vscode', command: npm('setup:vscode'), background: true },
  { name: 'webview', command: npm('test:webview'), needs: ['build'] },
  // Timed figures (shares, waits, gates): never beside a build.
  {
    name: 'integration',
    command: npm('test:integration'),
    needs: ['build', 'setup:examples'],
    after: ['setup:vscode'],
  },
  { name: 'e2e', command: npm('test:e2e'), needs: ['build', 'setup:examples', 'setup:vscode'] },
];

function parseArgs(argv) {
  let tiers = TIERS;
  let only;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tiers') tiers = JSON.parse(fs.readFileSync(argv[++i], 'utf8'));
    else if (argv[i] === '--only') only = argv[++i].split(',');
    else throw new Error(`unknown argument ${argv[i]} (usage: node scripts/test-all.mjs [--only a,b] [--tiers FILE])`);
  }
  if (only) {
    const unknown = only.filter((n) => !tiers.some((t) => t.name === n));
    if (unknown.length) throw new Error(`no tier named ${unknown.join(', ')}`);
    // A subset keeps its tiers' needs only where the needed tier runs too.
    tiers = tiers
      .filter((t) => only.includes(t.name))
      .map((t) => ({
        ...t,
        needs: (t.needs ?? []).filter((n) => only.includes(n)),
        after: (t.after ?? []).filter((n) => only.includes(n)),
      }));
  }
  return tiers;
}

/** The tiers' processes now running (a foreground one and any in the background). */
const live = new Set();
let interrupted = false;
// Ctrl-C reaches the whole foreground group (the tiers too); the runner only stops starting tiers.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    interrupted = true;
    for (const child of live) child.kill(signal);
  });

/**
 * Runs one tier's command, with the terminal's streams or (`keep`) into a string; resolves with
 * its exit code and what it printed when kept.
 */
function run(command, keep = false) {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command[0], command.slice(1), { stdio: keep ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    live.add(child);
    if (keep) for (const stream of [child.stdout, child.stderr]) stream.on('data', (d) => (output += d));
    child.once('error', (e) => {
      live.delete(child);
      resolve({ code: 127, output: `${output}cannot start ${command.join(' ')}: ${e.message}\n` });
    });
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

async function main() {
  let tiers;
  try {
    tiers = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  /** @type {Map<string, { status: 'passed' | 'failed' | 'skipped', line: string }>} */
  const results = new Map();
  /** Background tiers under way, by name: their end, with what they printed. */
  const running = new Map();
  const record = (name, code, took) =>
    results.set(
      name,
      code === 0 ? { status: 'passed', line: took } : { status: 'failed', line: `exit ${code}, ${took}` },
    );
  /** Waits for a background tier and prints its output, once. */
  const join = async (name) => {
    const pending = running.get(name);
    if (!pending) return;
    running.delete(name);
    const { code, output, took } = await pending;
    console.log(`\n▶ ${name} (ran in the background, ${took}):`);
    process.stdout.write(output);
    record(name, code, took);
  };
  for (const tier of tiers) {
    if (interrupted) break;
    for (const name of [...(tier.needs ?? []), ...(tier.after ?? [])]) await join(name);
    if (interrupted) break;
    const failedNeeds = (tier.needs ?? []).filter((n) => results.get(n)?.status !== 'passed');
    if (failedNeeds.length) {
      results.set(tier.name, { status: 'skipped', line: `skipped: ${failedNeeds.join(', ')} did not pass` });
      continue;
    }
    const started = Date.now();
    if (tier.background) {
      console.log(`\n▶ ${tier.name}: ${tier.command.join(' ')} (in the background; its output when it is needed)`);
      running.set(
        tier.name,
        run(tier.command, true).then((r) => ({ ...r, took: seconds(Date.now() - started) })),
      );
      continue;
    }
    console.log(`\n▶ ${tier.name}: ${tier.command.join(' ')}`);
    const { code } = await run(tier.command);
    record(tier.name, code, seconds(Date.now() - started));
    if (code !== 0 && tier.gate) {
      console.error(`\n✖ ${tier.name} failed (exit ${code}): no tier ran.`);
      for (const child of live) child.kill('SIGTERM');
      return code;
    }
  }
  for (const name of [...running.keys()]) await join(name);

  const width = Math.max(...tiers.map((t) => t.name.length));
  console.log('\ntest tiers:');
  for (const tier of tiers) {
    const r = results.get(tier.name) ?? { status: 'skipped', line: 'not run: interrupted' };
    const mark = r.status === 'passed' ? '✔' : r.status === 'failed' ? '✖' : '-';
    console.log(`${mark} ${tier.name.padEnd(width)}  ${r.status} (${r.line})`);
  }
  const bad = tiers.filter((t) => results.get(t.name)?.status !== 'passed').map((t) => t.name);
  if (interrupted) return 130;
  if (bad.length) {
    console.log(`${bad.length} of ${tiers.length} tiers did not pass: ${bad.join(', ')}`);
    return 1;
  }
  console.log(`all ${tiers.length} tiers passed`);
  return 0;
}

process.exitCode = await main();
