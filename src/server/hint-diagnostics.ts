// A costly file's hints as LSP diagnostics, and the data a code action reads back from one.
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver/node';
import { DiagnosticSource, type ExplainHintArgs } from '../protocol.ts';
import { hintsOf, type FileCosts } from './file-view.ts';
import { callRange, lineRange } from './hint-range.ts';
import { type LineMapping } from './staleness.ts';

export function diagnosticsOf(fc: FileCosts, mapping: LineMapping | undefined, lines: string[]): Diagnostic[] {
  if (!mapping) return [];
  return hintsOf(fc, mapping).map(({ line0, hint }) => {
    const text = lines[line0] ?? '';
    const cols = callRange(text, hint.api) ?? lineRange(text);
    const data: ExplainHintArgs = { rule: hint.rule, api: hint.api, fix: hint.fix };
    return {
      range: { start: { line: line0, character: cols.start }, end: { line: line0, character: cols.end } },
      severity: DiagnosticSeverity.Warning,
      source: DiagnosticSource,
      code: hint.rule,
      // The Problems panel and the hover show plain text: markdown backticks would show as such.
      message: plainText(hint.message),
      data,
    };
  });
}

export const plainText = (markdown: string): string => markdown.replace(/`([^`]+)`/g, '$1');

export const isExplainArgs = (v: unknown): v is ExplainHintArgs =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as ExplainHintArgs).rule === 'string' &&
  typeof (v as ExplainHintArgs).api === 'string' &&
  typeof (v as ExplainHintArgs).fix === 'string';
