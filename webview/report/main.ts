// The report page: says `ready`, then draws whatever valid report the extension posts, and posts
// back only the FromReportView messages (protocol.ts). Report data never arrives in the HTML.
import type { FromReportView, ToReportView } from '../../src/protocol.ts';
import { allocations } from './allocations.ts';
import { compareReports } from './compare.ts';
import type { ViewContext } from './context.ts';
import { clear, h } from './dom.ts';
import { canOpen, where } from './format.ts';
import { header, overview } from './overview.ts';
import { MAX_ROWS, comparison, functions, hints, hotLines } from './tables.ts';
import { panels, registerToolkit, selectTab, type Tab } from './toolkit.ts';
import { stallsTab } from './stalls.ts';
import { timelineTab } from './timeline-tab.ts';
import { waitsTab } from './waits.ts';
import { routesTab } from './routes.ts';
import { parseToReportView } from './validate.ts';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type TabId = 'overview' | 'lines' | 'timeline' | 'functions' | 'allocations' | 'hints' | 'compare';
const TAB_IDS: readonly TabId[] = ['overview', 'lines', 'timeline', 'functions', 'allocations', 'hints', 'compare'];
type Focus = { file: string; line: number; functionName?: string };

registerToolkit();
const vscode = acquireVsCodeApi();
const app = document.getElementById('app') ?? document.body.appendChild(h('main', { attrs: { id: 'app' } }));
let tabs: HTMLElement | undefined;
let cwd = '';
/** A focus that came before any report: applied to the next one. */
let pendingFocus: Focus | undefined;
let activeTab: TabId = savedTab();
let dropped = 0;

function post(msg: FromReportView): void {
  vscode.postMessage(msg);
}

function savedTab(): TabId {
  const s = vscode.getState() as { tab?: unknown } | undefined;
  return TAB_IDS.includes(s?.tab as TabId) ? (s!.tab as TabId) : 'overview';
}

/** The run whose tab was saved: another run (a new one, one picked in the Runs view) opens on its Overview. */
function savedReportId(): unknown {
  return (vscode.getState() as { reportId?: unknown } | undefined)?.reportId;
}

function saveTab(tab: TabId, reportId: string): void {
  vscode.setState({ tab, reportId });
}

function show(msg: Extract<ToReportView, { type: 'report' }>): void {
  const { report, baseline, changedSources: texts } = msg;
  // A file the same in both runs stands as one empty text on each side: equal, so never diffed.
  const same = (texts?.same ?? []).map((f): [string, string] => [f, '']);
  const sources = texts
    ? {
        base: new Map([...Object.entries(texts.base), ...same]),
        current: new Map([...Object.entries(texts.current), ...same]),
      }
    : undefined;
  const compared = baseline ? compareReports(baseline, report, undefined, sources) : undefined;
  // Runs that loaded something different get no deltas (verdicts/comparable.ts): the page says why.
  const ctx: ViewContext = {
    report,
    baseline,
    cmp: compared?.refused ? undefined : compared,
    ...(compared?.refused ? { notCompared: { baseId: compared.baseId, differences: compared.refused } } : {}),
    post,
    openSource: (file, line) => {
      if (canOpen(file, line)) post({ type: 'openSource', file, line });
    },
  };
  const list: Tab[] = [
    { id: 'overview', label: 'Overview', content: overview(ctx) },
    { id: 'lines', label: 'Hot lines', count: hotLineCount(report.lines), content: hotLines(ctx) },
    ...(msg.timeline ? [{ id: 'timeline', label: 'Timeline', content: timelineTab(ctx, msg.timeline) }] : []),
    ...(report.stalls
      ? [{ id: 'stalls', label: 'Stalls', count: report.stalls.length, content: stallsTab(ctx, report.stalls) }]
      : []),
    ...(report.waits
      ? [{ id: 'waits', label: 'Waits', count: report.waits.length, content: waitsTab(ctx, report.waits) }]
      : []),
    ...((report.routes?.filter((r) => r.requests > 0).length ?? 0) > 1
      ? [
          {
            id: 'routes',
            label: 'Routes',
            count: report.routes!.filter((r) => r.requests > 0).length,
            content: routesTab(ctx, report.routes!),
          },
        ]
      : []),
    { id: 'functions', label: 'Functions', content: functions(ctx) },
    ...(report.heap ? [{ id: 'allocations', label: 'Allocations', content: allocations(ctx, report.heap) }] : []),
    {
      id: 'hints',
      label: 'Hints',
      count: report.hints.length + (report.workers?.hints.length ?? 0),
      content: hints(ctx),
    },
  ];
  if (ctx.cmp) list.push({ id: 'compare', label: 'Cheaper / costlier', content: comparison(ctx) });
  if (!list.some((t) => t.id === activeTab) || savedReportId() !== report.id) activeTab = 'overview';
  saveTab(activeTab, report.id);
  tabs = panels(list, activeTab, (id) => {
    activeTab = id as TabId;
    saveTab(activeTab, report.id);
  });
  clear(app);
  app.append(header(ctx), h('div', { class: 'focus-status', attrs: { id: 'focus-status', role: 'status' } }), tabs);
  cwd = report.app.cwd;
  document.body.dataset.reportId = report.id;
  const f = msg.focus ?? pendingFocus;
  pendingFocus = undefined;
  if (f) focus(f);
}

/** Rows the Hot lines tab shows: each thread group is capped at MAX_ROWS. */
function hotLineCount(lines: Extract<ToReportView, { type: 'report' }>['report']['lines']): number {
  const sampled = lines.filter((l) => l.ownMs > 0 || l.totalMs > 0);
  const worker = sampled.filter((l) => l.thread === 'worker').length;
  const child = sampled.filter((l) => l.thread === 'process').length;
  return Math.min(sampled.length - worker - child, MAX_ROWS) + Math.min(worker, MAX_ROWS) + Math.min(child, MAX_ROWS);
}

/** Scrolls to the row of a line (or else a function) and highlights it: where a CodeLens click lands. */
function focus(f: Focus): void {
  if (!tabs) {
    pendingFocus = f;
    return;
  }
  const rows = [...app.querySelectorAll<HTMLElement>('vscode-data-grid-row[data-kind]')];
  const row =
    rows.find((r) => r.dataset.kind === 'line' && r.dataset.file === f.file && r.dataset.line === String(f.line)) ??
    (f.functionName !== undefined
      ? rows.find((r) => r.dataset.kind === 'function' && r.dataset.file === f.file && r.dataset.fn === f.functionName)
      : undefined) ??
    rows.find((r) => r.dataset.kind === 'function' && r.dataset.file === f.file && r.dataset.line === String(f.line));
  for (const r of app.querySelectorAll('.focused')) r.classList.remove('focused');
  const status = document.getElementById('focus-status');
  if (status) clear(status);
  if (!row) {
    const name = f.functionName ? ` (${f.functionName})` : '';
    status?.append(
      h('div', { class: 'callout info' }, `${where(f.file, f.line, cwd)}${name} has no samples in this run.`),
    );
    return;
  }
  const tab: TabId = row.dataset.kind === 'line' ? 'lines' : 'functions';
  activeTab = tab;
  selectTab(tabs, tab);
  saveTab(tab, document.body.dataset.reportId ?? '');
  row.classList.add('focused');
  document.body.dataset.focused = `${row.dataset.kind}:${row.dataset.line}`;
  requestAnimationFrame(() => row.scrollIntoView({ block: 'center' }));
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const msg = parseToReportView(event.data);
  if (!msg) {
    dropped += 1;
    document.body.dataset.dropped = String(dropped);
    console.warn('hotline report: dropped a message that is not a ToReportView');
    return;
  }
  switch (msg.type) {
    case 'report':
      show(msg);
      return;
    case 'focus':
      focus({ file: msg.file, line: msg.line, functionName: msg.functionName });
      return;
    default: {
      const never: never = msg;
      return never;
    }
  }
});

post({ type: 'ready' });
