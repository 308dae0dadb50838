// One measurement of figure 4, in a fresh process (bundled to plain JS by analysis-speed.ts, so
// no loader sits in its memory): `parse` = read the file + JSON.parse; `analyze` = what the
// language server runs for a .cpuprofile (analyzeFile: read, strict parse, analysis); `merge` =
// what the flame graph runs for a big one (its merged copy, written to ROOT/merged.json); `lens` =
// what the language server does before it publishes lenses for an opened .cpuprofile (its
// analyzeProfile: the analysis, then the report, timeline.json, the sources and a copy of the
// profile written into ROOT/out). Prints {ms, maxRssBytes} on stdout.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeFile } from '../src/core/analyze-run/analyze-run.ts';
import { writeMergedCopy } from '../src/extension/flame-merge-file.ts';
import { analyzeProfile } from '../src/server/runs.ts';

const [mode, file, root] = process.argv.slice(2);
const t0 = performance.now();
if (mode === 'parse') {
  const value = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: unknown[] };
  if (!Array.isArray(value.nodes)) throw new Error('no nodes');
} else if (mode === 'analyze') {
  const { analysis } = analyzeFile(file, root);
  if (!analysis) throw new Error('no analysis');
} else if (mode === 'lens') {
  const out = path.join(root, 'out');
  const { report } = analyzeProfile(file, root, out);
  fs.rmSync(out, { recursive: true, force: true });
  if (!report) throw new Error('no report');
} else if (mode === 'merge') {
  const out = path.join(root, 'merged.json');
  writeMergedCopy(file, out, 'merged');
  if (!fs.existsSync(out)) throw new Error('no merged copy');
  fs.rmSync(out);
} else {
  throw new Error(`mode must be parse, analyze, lens or merge, got ${mode}`);
}
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ms, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`);
