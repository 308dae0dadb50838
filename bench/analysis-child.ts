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
import { writeMergedCopy } from '../src/extension/flame/flame-merge-file.ts';
import { analyzeProfile } from '../src/server/runs.ts';

const [mode, file, root] = process.argv.slice(2);

async function main(): Promise<void> {
  const t0 = performance.now();
  /** Removed once the time is taken: deleting what was written is not part of the measured work. */
  let written: string | undefined;
  if (mode === 'parse') {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: unknown[] };
    if (!Array.isArray(value.nodes)) throw new Error('no nodes');
  } else if (mode === 'analyze') {
    const { analysis } = analyzeFile(file, root);
    if (!analysis) throw new Error('no analysis');
  } else if (mode === 'lens') {
    written = path.join(root, 'out');
    const { report } = await analyzeProfile(file, root, written);
    if (!report) throw new Error('no report');
  } else if (mode === 'merge') {
    written = path.join(root, 'merged.json');
    writeMergedCopy(file, written, 'merged');
    if (!fs.existsSync(written)) throw new Error('no merged copy');
  } else {
    throw new Error(`mode must be parse, analyze, lens or merge, got ${mode}`);
  }
  const ms = performance.now() - t0;
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  if (written) fs.rmSync(written, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ ms, maxRssBytes })}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
