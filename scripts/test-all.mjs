// `npm test`: every tier, in order, each even when an earlier one failed, then one summary line per
// tier and a non-zero exit if any failed. So one CI run reports every failure, not only the first.
//
//   node scripts/test-all.mjs                  the project's tiers (TIERS below)
//   node scripts/test-all.mjs --only unit,lint a subset, in the same order
//   node scripts/test-all.mjs --tiers F.json   tiers from a file (its own test: test/unit/test-all-script.test.ts)
//
// The first tier (setup:test: the browser, load tools and code-server the tests need) is a
// precondition: when it fails nothing else runs. A tier that `needs` another that failed is
// skipped and named (the browser tiers cannot run on a failed build). Each tier's time limit is its
// own (scripts/run-tests.mjs inside the npm script), so a hung tier ends and the next one runs.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

/** @typedef {{ name: string, command: string[], needs?: string[], gate?: boolean }} Tier */

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
  { name: 'webview', command: npm('test:webview'), needs: ['build'] },
  { name: 'integration', command: npm('test:integration'), needs: ['build', 'setup:examples'] },
  { name: 'e2e', command: npm('test:e2e'), needs: ['build', 'setup:examples'] },
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
      .map((t) => ({ ...t, needs: (t.needs ?? []).filter((n) => only.includes(n)) }));
  }
  return tiers;
}

let current;
let interrupted = false;
// Ctrl-C reaches the whole foreground group (the tier too); the runner only stops starting tiers.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    interrupted = true;
    current?.kill(signal);
  });

/** Runs one tier's command with the terminal's streams; resolves with its exit code. */
function run(command) {
  return new Promise((resolve) => {
    current = spawn(command[0], command.slice(1), { stdio: 'inherit' });
    current.once('error', (e) => {
      console.error(`cannot start ${command.join(' ')}: ${e.message}`);
      resolve(127);
    });
    current.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
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
  for (const tier of tiers) {
    if (interrupted) break;
    const failedNeeds = (tier.needs ?? []).filter((n) => results.get(n)?.status !== 'passed');
    if (failedNeeds.length) {
      results.set(tier.name, { status: 'skipped', line: `skipped: ${failedNeeds.join(', ')} did not pass` });
      continue;
    }
    console.log(`\n▶ ${tier.name}: ${tier.command.join(' ')}`);
    const started = Date.now();
    const code = await run(tier.command);
    const took = seconds(Date.now() - started);
    if (code === 0) {
      results.set(tier.name, { status: 'passed', line: took });
      continue;
    }
    results.set(tier.name, { status: 'failed', line: `exit ${code}, ${took}` });
    if (tier.gate) {
      console.error(`\n✖ ${tier.name} failed (exit ${code}): no tier ran.`);
      return code;
    }
  }

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
