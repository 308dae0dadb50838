// Writes README's sample outputs from real runs: `npm run demo`'s run of examples/login-api (the
// profile sample), the same with HASH_MODE=async, and `hotline compare` of the two (the verify
// sample), each abridged to the sections README walks through. Run it from the checkout after
// `npm run build` and `npm run setup:examples` (about a minute and a half):
//
//   node scripts/readme-samples.mjs
//
// The blocks are found by their first line (`Hotline run `, `Hotline compare `), as
// test/unit/readme-samples.test.ts finds them to check their arithmetic; the gate sample comes
// from the CI recipe's test (docs/ci.md) and is left as it is. The prose around the samples quotes
// a few of their figures: read it again after a run.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const README = path.join(REPO, 'README.md');
const APP = 'examples/login-api';
// package.json's demo, word for word (its hotline command, split as the shell splits it).
const demoScript = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts.demo;
const DEMO = [...demoScript.slice(demoScript.indexOf('node bin/hotline.js ') + 20).matchAll(/'([^']*)'|(\S+)/g)].map(
  (m) => m[1] ?? m[2],
);

function hotline(args) {
  return execFileSync(process.execPath, [path.join(REPO, 'bin', 'hotline.js'), ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 180_000,
  });
}

/** The output's sections: a line at the margin with the indented (and blank) lines under it. */
function sections(text) {
  const out = [];
  for (const line of text.replace(/\n+$/, '').split('\n')) {
    if (line !== '' && (!/^\s/.test(line) || out.length === 0)) out.push([line]);
    else out[out.length - 1].push(line);
  }
  return out;
}

/** A section's blank last line, kept after what is left of it. */
const trailingBlank = (s) => (s[s.length - 1] === '' ? [''] : []);

const starts = (s, prefixes) => prefixes.some((p) => s[0].startsWith(p));

/** The run as README shows it: load, loop, profile, CPU split, the top three lines, the first hint. */
function abridgeRun(text) {
  const kept = sections(text).filter((s) =>
    starts(s, [
      'Hotline run',
      'Load (profiler off',
      'Event loop',
      'Profile',
      'Where the CPU went',
      'Hot lines of your code',
      'Hints',
    ]),
  );
  return kept
    .map((s) => {
      if (s[0].startsWith('Hot lines of your code')) {
        const rows = s.slice(1).filter((l) => /^\s+[\d.]+%/.test(l));
        const footer = s.slice(1).filter((l) => /^\s+\(% of/.test(l));
        return [s[0], ...rows.slice(0, 3), ...footer, ...trailingBlank(s)];
      }
      if (s[0].startsWith('Hints')) return s.slice(0, 3);
      // The profiled window's paired estimate and the request split are explained elsewhere
      // (docs/measurement.md, docs/waits.md): the walk-through leaves them out.
      if (s[0].startsWith('Load (profiler off')) return s.filter((l) => !/^\s+(profiled window:|one request)/.test(l));
      return s;
    })
    .flat()
    .join('\n')
    .replace(/\n+$/, '');
}

/** The comparison as README shows it: the figures, and the top line of your code. */
function abridgeCompare(text) {
  const all = sections(text);
  const head = all[0];
  const lines = all.find((s) => s[0].startsWith('Lines of your code'));
  return [...head, ...(head.at(-1) === '' ? [] : ['']), ...(lines ? lines.slice(0, 2) : [])].join('\n');
}

const runIdOf = (text) => /^Hotline run (\S+)/m.exec(text)?.[1];

function replaceBlock(md, firstLine, body) {
  const re = new RegExp('^```\\n' + firstLine + '[\\s\\S]*?^```$', 'm');
  if (!re.test(md)) throw new Error(`README has no block starting with "${firstLine}"`);
  return md.replace(re, () => '```\n' + body + '\n```');
}

const sync = hotline(DEMO);
const asyncRun = hotline([...DEMO.slice(0, 2), '--env', 'HASH_MODE=async', ...DEMO.slice(2)]);
const [a, b] = [runIdOf(sync), runIdOf(asyncRun)];
if (!a || !b) throw new Error('a run printed no run id');
const runs = path.join(APP, '.hotline', 'runs');
const compare = hotline(['compare', path.join(runs, a), path.join(runs, b)]);

let md = fs.readFileSync(README, 'utf8');
md = replaceBlock(md, 'Hotline run ', abridgeRun(sync));
md = replaceBlock(md, 'Hotline compare ', abridgeCompare(compare));
fs.writeFileSync(README, md);
process.stderr.write(`README.md: the run ${a}, and its comparison with ${b}. Check the prose's figures.\n`);
