// A check that a change to the reader or the analysis left its results alone: for each
// .cpuprofile given, the SHA-256 of the analysis (report.json's input) and of timeline.json as
// analyzeFile makes them, with the file's own folder (or ROOT) as the app's root; a fixture's
// meta.json root (test/fixtures/README.md) is mapped onto its folder. Run before and after a
// change and compare the lines.
//
//   node --import tsx bench/analysis-hashes.ts [--root ROOT] FILE ...
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeFile } from '../src/core/analyze-run/analyze-run.ts';
import { parsePathMapping, timelineJson } from '../src/core/analysis/index.ts';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? path.resolve(args.splice(rootAt, 2)[1]) : undefined;
const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);
for (const file of args) {
  const dir = path.dirname(path.resolve(file));
  const meta = path.join(dir, 'meta.json');
  const captured = fs.existsSync(meta)
    ? (JSON.parse(fs.readFileSync(meta, 'utf8')) as { root?: string }).root
    : undefined;
  const pathMap = captured ? [parsePathMapping(`${captured}=${dir}`)] : [];
  const { analysis, timeline } = analyzeFile(path.resolve(file), root ?? dir, { pathMap });
  const tl = timeline ? sha(timelineJson(timeline)) : 'none';
  process.stdout.write(`${sha(JSON.stringify(analysis))} ${tl} ${analysis.lines.length} lines ${file}\n`);
}
