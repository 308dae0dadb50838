// The one module that knows @vscode/webview-ui-toolkit (archived upstream): it registers the
// components the report uses and builds them. Swapping the toolkit out touches this file only.
//
// The toolkit styles its components with constructable stylesheets (adoptedStyleSheets) and
// sets its design tokens through the CSSOM; neither is subject to the page's CSP `style-src`,
// so the page needs no 'unsafe-inline'. Its design tokens read the --vscode-* theme variables
// from <body> on `load` and again whenever VS Code changes the body's theme class.
//
// Not <vscode-badge>: its template carries a `style="${…}"` attribute binding, so creating one
// is a CSP violation (style-src-attr) unless the page allowed inline style attributes, which it
// does not. The badge below is a span with VS Code's badge colours instead.
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeDataGrid,
  vsCodeDataGridCell,
  vsCodeDataGridRow,
  vsCodeDivider,
  vsCodeLink,
  vsCodePanels,
  vsCodePanelTab,
  vsCodePanelView,
} from '@vscode/webview-ui-toolkit';
import { append, decorate, h, type Child, type Props } from './dom.ts';

let registered = false;

export function registerToolkit(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(
    vsCodeButton(),
    vsCodeDataGrid(),
    vsCodeDataGridCell(),
    vsCodeDataGridRow(),
    vsCodeDivider(),
    vsCodeLink(),
    vsCodePanels(),
    vsCodePanelTab(),
    vsCodePanelView(),
  );
}

export function badge(text: string | number, props?: Props): HTMLElement {
  const b = h('span', props ?? null, String(text));
  b.classList.add('badge');
  return b;
}

export function divider(): HTMLElement {
  return h('vscode-divider', { attrs: { role: 'separator' } });
}

export function button(label: string, onClick: () => void, props?: Props & { secondary?: boolean }): HTMLElement {
  const b = h('vscode-button', props ?? null, label);
  if (props?.secondary) b.setAttribute('appearance', 'secondary');
  b.addEventListener('click', onClick);
  return b;
}

/**
 * A link that runs `onClick`. The href="#" only makes it a focusable, Enter-able link (a
 * vscode-link without href cannot take focus). VS Code's webview host listens for clicks on the
 * frame's window (bubble phase) and scrolls to the top for href="#" without looking at
 * defaultPrevented, so the click stops here.
 */
export function link(children: Child[], onClick: () => void, props?: Props): HTMLElement {
  const a = h('vscode-link', props ?? null, ...children);
  a.setAttribute('href', '#');
  a.addEventListener('click', (e) => {
    e.preventDefault();
    e.stopPropagation();
    onClick();
  });
  return a;
}

export interface Tab {
  id: string;
  label: string;
  count?: number;
  content: Node;
}

/** Tabs: `tab-<id>` selects `view-<id>`. */
export function panels(tabs: Tab[], active: string, onChange: (id: string) => void): HTMLElement {
  const p = h('vscode-panels', { class: 'tabs' });
  p.setAttribute('activeid', `tab-${active}`);
  for (const t of tabs) {
    const tab = h('vscode-panel-tab', { attrs: { id: `tab-${t.id}` }, data: { tab: t.id } }, t.label);
    if (t.count !== undefined) tab.appendChild(badge(t.count));
    p.appendChild(tab);
  }
  for (const t of tabs)
    p.appendChild(h('vscode-panel-view', { attrs: { id: `view-${t.id}` }, class: 'view' }, t.content));
  p.addEventListener('change', (e) => {
    const tab = (e as CustomEvent<unknown>).detail;
    if (tab instanceof HTMLElement && e.target === p && tab.dataset.tab) onChange(tab.dataset.tab);
  });
  return p;
}

export function selectTab(p: HTMLElement, id: string): void {
  p.setAttribute('activeid', `tab-${id}`);
}

export interface Column {
  title: string;
  /** A CSS grid track: "64px", "minmax(120px, 2fr)". */
  width: string;
  /** Right-aligned figures. */
  numeric?: boolean;
  /** Explains the column (shown on hover). */
  help?: string;
}

export interface GridRow {
  cells: Child[][];
  props?: Props;
  /** Click or Enter on the row. */
  onOpen?: () => void;
}

/** The narrowest a track can be, px: "88px" → 88, "minmax(140px, 1fr)" → 140, else 0. */
export function trackMinPx(width: string): number {
  const m = /^(?:minmax\()?\s*(\d+(?:\.\d+)?)px/.exec(width);
  return m ? Number(m[1]) : 0;
}

/**
 * A vscode-data-grid built from DOM nodes (cells hold text nodes and elements, never markup),
 * in a frame that says so when the grid is wider than the page: beside the code a grid scrolls
 * sideways, and an overlay scrollbar alone does not tell that columns are out of sight.
 */
export function dataGrid(columns: Column[], rows: GridRow[], props?: Props): HTMLElement {
  const grid = buildGrid(columns, rows, props);
  const hint = h('div', { class: 'scroll-hint muted', attrs: { 'aria-hidden': 'true' } });
  const frame = h('div', { class: 'grid-frame' }, hint, h('div', { class: 'grid-clip' }, grid));
  const update = (): void => {
    const hidden = grid.scrollWidth > grid.clientWidth + 1;
    const atEnd = grid.scrollLeft + grid.clientWidth >= grid.scrollWidth - 1;
    frame.classList.toggle('overflows', hidden);
    frame.classList.toggle('at-end', atEnd);
    hint.textContent = hidden ? `${atEnd ? '\u2190' : '\u2192'} ${scrollNote(columns, grid, atEnd)}` : '';
  };
  grid.addEventListener('scroll', update, { passive: true });
  new ResizeObserver(update).observe(grid);
  return frame;
}

/** "Scroll sideways for Own ms, Self ms, Total ms": the columns whose headers are out of sight. */
function scrollNote(columns: Column[], grid: HTMLElement, atEnd: boolean): string {
  if (atEnd) return 'Scroll back for the first columns';
  const right = grid.getBoundingClientRect().right;
  const cut = [...grid.querySelectorAll('vscode-data-grid-cell[cell-type="columnheader"]')]
    .filter((c) => c.getBoundingClientRect().right > right + 1)
    .map((c) => columns[Number(c.getAttribute('grid-column')) - 1]?.title)
    .filter((t): t is string => Boolean(t));
  return cut.length > 0 ? `Scroll sideways for ${cut.join(', ')}` : 'Scroll sideways for more';
}

function buildGrid(columns: Column[], rows: GridRow[], props?: Props): HTMLElement {
  const grid = h('vscode-data-grid', props ?? null);
  grid.setAttribute('generate-header', 'none');
  grid.setAttribute('grid-template-columns', columns.map((c) => c.width).join(' '));
  // Rows no narrower than their tracks' minimums: the grid scrolls rather than squeezing cells.
  grid.style.setProperty('--grid-min', `${columns.reduce((s, c) => s + trackMinPx(c.width), 0)}px`);
  grid.setAttribute('aria-label', props?.title ?? '');
  const header = h('vscode-data-grid-row', { attrs: { 'row-type': 'sticky-header' } });
  columns.forEach((c, i) => {
    const cell = h(
      'vscode-data-grid-cell',
      { class: c.numeric ? 'num' : '', attrs: { 'cell-type': 'columnheader', 'grid-column': String(i + 1) } },
      c.title,
    );
    if (c.help) cell.title = c.help;
    header.appendChild(cell);
  });
  grid.appendChild(header);
  for (const r of rows) {
    const row = h('vscode-data-grid-row');
    if (r.props) decorate(row, r.props);
    r.cells.forEach((content, i) => {
      const cell = h('vscode-data-grid-cell', {
        class: columns[i]?.numeric ? 'num' : '',
        attrs: { 'grid-column': String(i + 1) },
      });
      append(cell, ...content);
      row.appendChild(cell);
    });
    if (r.onOpen) {
      const open = r.onOpen;
      row.classList.add('openable');
      row.addEventListener('click', (e) => {
        if (!(e.target instanceof Element && e.target.closest('vscode-link'))) open();
      });
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') open();
      });
    }
    grid.appendChild(row);
  }
  return grid;
}
