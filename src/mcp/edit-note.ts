// Did the edit touch the line that was measured? The two runs' sources.json tell which lines were
// rewritten (verdicts/line-correspondence.ts, as compare.ts pairs a rewritten line with its new
// code); the comparison tells whether that line's cost moved. Said the way the editor's toast
// says it (extension/runs/baseline-summary.ts): a fix applied whose cost did not move is news.
import { type Comparison, correspondence, type ReportV1, type RunSources } from '../core/index.ts';
import type { Workspace } from './workspace.ts';

export interface EditNote {
  /** The baseline's hottest line of your code: what the edit was meant to fix. */
  measuredLine: string | null;
  /** Files whose text differs between the two runs, as the model names them. */
  changedFiles: string[];
  /** The edit rewrote the measured line. */
  measuredLineChanged: boolean;
  note: string;
}

export function editNote(ws: Workspace, c: Comparison, base: ReportV1, sources: RunSources): EditNote {
  const files = new Set([...sources.base.keys(), ...sources.current.keys()]);
  const changedFiles = [...files].filter((f) => sources.base.get(f) !== sources.current.get(f)).map((f) => ws.shown(f));
  const hot = base.lines[0];
  if (!hot)
    return {
      measuredLine: null,
      changedFiles,
      measuredLineChanged: false,
      note: 'The baseline has no line of your code.',
    };
  const at = ws.at(hot.file, hot.line);
  const code = hot.code ? ` (\`${hot.code}\`)` : '';
  const result = (measuredLineChanged: boolean, note: string): EditNote => ({
    measuredLine: at,
    changedFiles,
    measuredLineChanged,
    note,
  });
  const before = sources.base.get(hot.file);
  const after = sources.current.get(hot.file);
  if (changedFiles.length === 0)
    return result(false, `The code is the same in both runs: no edit was measured (the measured line is ${at}).`);
  if (
    before === undefined ||
    after === undefined ||
    before === after ||
    correspondence(before, after).oldToNew[hot.line - 1] >= 0
  )
    return result(
      false,
      `The edit did not change the measured line ${at}${code}: it changed ${changedFiles.join(', ')}. Whatever moved, it was not that line's code.`,
    );
  const row = c.lines.find((l) => l.file === hot.file && l.codeChanged?.baseLine === hot.line);
  const kept = (c.keptHints ?? []).map((h) => h.message).join(' ');
  if (!row)
    return result(true, `The edit rewrote the measured line ${at}${code}; the new code took no measurable time.`);
  const cost = `${row.base} → ${row.current} ${c.unit}`;
  const now = row.codeChanged?.after ? ` (now \`${row.codeChanged.after}\` at ${ws.at(row.file, row.line)})` : '';
  const moved = row.moved?.to;
  if (row.moved && moved) {
    // The line's work went to another function (a helper, a callback): the same work, judged there.
    const work = `${row.moved.base} → ${row.moved.current} ${c.unit}`;
    const word =
      row.moved.verdict === 'better'
        ? 'cheaper beyond noise'
        : row.moved.verdict === 'worse'
          ? 'costlier beyond noise'
          : `${row.moved.verdict ?? 'not judged'}`;
    return result(
      true,
      `The edit rewrote the measured line ${at}${now}; its work moved to ${moved.name} at ${ws.at(moved.file, moved.line)} and is not a saving: the same work went ${work} there (${word}).${kept ? ` ${kept}` : ''}`,
    );
  }
  if (row.verdict === 'better')
    return result(true, `The edit rewrote the measured line ${at}${now}; its cost went ${cost}, beyond noise.`);
  return result(
    true,
    `The edit rewrote the measured line ${at}${now}, but its cost did not move beyond noise (${cost}, ${row.verdict ?? 'no verdict'}).${kept ? ` ${kept}` : ''}`,
  );
}
