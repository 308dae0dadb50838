// The load came from the user's own tool (--load-command): which tool, its command line (secrets
// already redacted by the engine), where its raw output is, and which figures it did not print.
import type { ExternalLoadFigures } from '../../src/core/report/index.ts';
import { h } from './dom.ts';

/** The tool's output had no such figure ("latency p90", "errors", "non-2xx"): shown as "–". */
export function missingFigure(ext: ExternalLoadFigures | undefined, name: string): boolean {
  return ext !== undefined && ext.missing.includes(name);
}

export function externalNote(ext: ExternalLoadFigures): HTMLElement {
  const who = ext.tool ? `Load by ${ext.tool}` : 'Load by your command';
  const how = ext.parsed
    ? ext.missing.length > 0
      ? `; not in its output: ${ext.missing.join(', ')}`
      : ''
    : ext.tool
      ? `; its output lacked the figures ${ext.tool} prints`
      : '; its output format is unknown';
  const exits = [ext.exitCodes.measured, ext.exitCodes.profiled].filter((c) => c !== null && c !== 0);
  return h(
    'div',
    { class: 'external-load', data: { field: 'external-load' } },
    h('div', null, `${who}: `, h('code', { class: 'command' }, ext.command.join(' '))),
    h(
      'div',
      { class: 'muted' },
      'Its output is in ',
      h('span', { class: 'mono' }, ext.log),
      ' in the run folder',
      how,
      '.',
      exits.length > 0 ? ` It exited with code ${exits.join(' and ')}.` : '',
    ),
  );
}
