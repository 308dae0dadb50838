// The sub-second heat map on a canvas (FlameScope's view): a column per second of the profile, a
// row per sub-second bucket (0 ms at the top), the colour's strength the cell's non-idle samples.
// A selection runs from one cell to another in time order (down a column, then on to the next),
// made by dragging, or with the keyboard: arrows move, Shift+arrows extend, Enter opens it.
// Colours are VS Code's theme variables, read when drawing, so theme changes redraw right.
import type { HeatMap } from '../../src/core/analysis/time/timeline.ts';
import { stallColors } from './contrast.ts';
import { h } from './dom.ts';
import { pct } from './format.ts';

/** Cells in time order: column × rows + row. */
export interface Selection {
  from: number;
  to: number;
}

export interface HeatMapView {
  element: HTMLElement;
  canvas: HTMLCanvasElement;
  /** Cell geometry, for tests and the page: the canvas's CSS pixel of a cell's top left corner. */
  cellAt(column: number, row: number): { x: number; y: number; width: number; height: number };
  redraw(): void;
  /** Selects the cells from `from` to `to` (time order) as a drag would. */
  selectCells(from: number, to: number): void;
}

const LEFT = 48;
/** Width of a stall's bar at the left of its cells, px (with a 1 px backing each side). */
const STALL_BAR_PX = 3;
const TOP = 6;
const BOTTOM = 22;
const RIGHT = 6;
const CELL_H = 6;

/** `onSelect` runs while dragging (`done` false) and when a selection is made; `onOpen` on Enter. */
export function heatMapView(
  map: HeatMap,
  opts: {
    onSelect(sel: Selection, done: boolean): void;
    onOpen(): void;
    /** Time ranges (ms) marked by a bar at the left of their cells: the report's stalls. */
    marks?: ReadonlyArray<{ startMs: number; endMs: number }>;
  },
): HeatMapView {
  const cellW = Math.max(4, Math.min(24, Math.floor(640 / map.columns)));
  const width = LEFT + map.columns * cellW + RIGHT;
  const height = TOP + map.rows * CELL_H + BOTTOM;
  const canvas = h('canvas', {
    class: 'heatmap-canvas',
    attrs: {
      tabindex: '0',
      role: 'application',
      'aria-roledescription': 'heat map',
      'aria-label': `Non-idle CPU samples over time: ${map.columns} seconds across, ${map.rowMs} ms rows down. Arrows move, Shift+arrows select a range, Enter opens it in the flame graph.`,
    },
    data: {
      columns: String(map.columns),
      rows: String(map.rows),
      cellWidth: String(cellW),
      cellHeight: String(CELL_H),
    },
  });
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  let selection: Selection | undefined;
  let anchor = -1;
  let cursor = -1;
  let dragging = false;

  const cellAt = (column: number, row: number) => ({
    x: LEFT + column * cellW,
    y: TOP + row * CELL_H,
    width: cellW,
    height: CELL_H,
  });
  const cellOfPoint = (e: MouseEvent): number | undefined => {
    const box = canvas.getBoundingClientRect();
    const col = Math.floor((e.clientX - box.left - LEFT) / cellW);
    const row = Math.floor((e.clientY - box.top - TOP) / CELL_H);
    if (col < 0 || col >= map.columns || row < 0 || row >= map.rows) return undefined;
    return col * map.rows + row;
  };
  const describe = (cell: number): string => {
    const col = Math.floor(cell / map.rows);
    const row = cell % map.rows;
    const n = map.samples[cell];
    const busy = map.nonIdle[cell];
    const at = `second ${col}, ${Math.round(row * map.rowMs)}\u2013${Math.round((row + 1) * map.rowMs)} ms`;
    return n === 0 ? `${at}: no samples` : `${at}: ${busy} of ${n} samples non-idle (${pct((busy / n) * 100)})`;
  };
  const select = (from: number, to: number, done: boolean): void => {
    selection = { from: Math.min(from, to), to: Math.max(from, to) };
    draw();
    opts.onSelect(selection, done);
  };

  function draw(): void {
    const dpr = window.devicePixelRatio || 1;
    // Resizing the canvas reallocates it: only when the pixel ratio changed (a zoom).
    if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
    if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
    const g = canvas.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const css = getComputedStyle(document.body);
    const v = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback;
    const hot = v('--hl-hot', '#d18616');
    const empty = v('--vscode-editorWidget-background', '#202020');
    const text = v('--vscode-descriptionForeground', '#9d9d9d');
    const mark = v('--vscode-focusBorder', '#0078d4');
    g.clearRect(0, 0, width, height);
    g.fillStyle = empty;
    g.fillRect(LEFT, TOP, map.columns * cellW, map.rows * CELL_H);
    const gap = cellW >= 8 ? 1 : 0;
    const selected = (cell: number): boolean =>
      selection !== undefined && cell >= selection.from && cell <= selection.to;
    g.fillStyle = hot;
    for (let c = 0; c < map.columns; c++) {
      for (let r = 0; r < map.rows; r++) {
        const cell = c * map.rows + r;
        const busy = map.nonIdle[cell];
        if (busy === 0) continue;
        // A floor so that one sample still shows; the top of the scale is the busiest cell.
        // With a selection, the cells outside it fade.
        const alpha = 0.12 + 0.88 * (busy / Math.max(1, map.maxNonIdle));
        g.globalAlpha = selection && !selected(cell) ? alpha * 0.3 : alpha;
        g.fillRect(LEFT + c * cellW, TOP + r * CELL_H, cellW - gap, CELL_H);
      }
    }
    g.globalAlpha = 1;
    // Each mark down the left edge of its cells, column by column where it spans a second's end.
    const { stall, backing } = stallColors(v, hot);
    for (const m of opts.marks ?? []) {
      for (let c = Math.floor(m.startMs / 1000); c <= Math.floor((m.endMs - 1e-6) / 1000) && c < map.columns; c++) {
        const from = Math.max(m.startMs, c * 1000) - c * 1000;
        const to = Math.min(m.endMs, (c + 1) * 1000) - c * 1000;
        const y = TOP + (from / map.rowMs) * CELL_H;
        const h = Math.max(3, ((to - from) / map.rowMs) * CELL_H);
        g.fillStyle = backing;
        g.fillRect(LEFT + c * cellW, y, STALL_BAR_PX + 2, h);
        g.fillStyle = stall;
        g.fillRect(LEFT + c * cellW + 1, y, STALL_BAR_PX, h);
      }
    }
    if (selection) {
      // The selection's outline: the edges of its cells that border a cell outside it.
      g.strokeStyle = mark;
      g.lineWidth = 1.5;
      g.beginPath();
      for (let cell = selection.from; cell <= selection.to; cell++) {
        const c = Math.floor(cell / map.rows);
        const r = cell % map.rows;
        const { x, y } = cellAt(c, r);
        const x2 = x + cellW;
        const y2 = y + CELL_H;
        if (r === 0 || !selected(cell - 1)) edge(g, x, y, x2, y);
        if (r === map.rows - 1 || !selected(cell + 1)) edge(g, x, y2, x2, y2);
        if (!selected(cell - map.rows)) edge(g, x, y, x, y2);
        if (!selected(cell + map.rows)) edge(g, x2, y, x2, y2);
      }
      g.stroke();
    }
    if (cursor >= 0 && document.activeElement === canvas) {
      const { x, y } = cellAt(Math.floor(cursor / map.rows), cursor % map.rows);
      g.strokeStyle = mark;
      g.lineWidth = 2;
      g.strokeRect(x + 1, y - 1, cellW - 2, CELL_H + 2);
    }
    // Axes: sub-second offsets on the left, seconds below.
    g.fillStyle = text;
    g.font = `11px ${v('--vscode-font-family', 'sans-serif')}`;
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    const rowStep = Math.max(1, Math.round(200 / map.rowMs));
    for (let r = 0; r <= map.rows; r += rowStep) {
      const label = r === map.rows ? '1 s' : `${Math.round(r * map.rowMs)} ms`;
      g.fillText(label, LEFT - 6, TOP + Math.min(Math.max(r * CELL_H, 4), map.rows * CELL_H - 4));
    }
    g.textAlign = 'center';
    g.textBaseline = 'top';
    const colStep = Math.max(1, Math.ceil(24 / cellW));
    for (let c = 0; c < map.columns; c += colStep)
      g.fillText(`${c}s`, LEFT + c * cellW + cellW / 2, TOP + map.rows * CELL_H + 5);
  }

  canvas.addEventListener('mousedown', (e) => {
    const cell = cellOfPoint(e);
    if (cell === undefined || e.button !== 0) return;
    e.preventDefault();
    canvas.focus();
    dragging = true;
    anchor = cursor = cell;
    select(anchor, cell, false);
  });
  canvas.addEventListener('mousemove', (e) => {
    const cell = cellOfPoint(e);
    canvas.title = cell === undefined ? '' : describe(cell);
    if (dragging && cell !== undefined && cell !== cursor) {
      cursor = cell;
      select(anchor, cell, false);
    }
  });
  window.addEventListener('mouseup', () => {
    if (!dragging) return;
    dragging = false;
    if (selection) opts.onSelect(selection, true);
  });
  canvas.addEventListener('keydown', (e) => {
    const total = map.columns * map.rows;
    const moves: Record<string, number> = { ArrowUp: -1, ArrowDown: 1, ArrowLeft: -map.rows, ArrowRight: map.rows };
    if (e.key === 'Enter') {
      if (selection) opts.onOpen();
      e.preventDefault();
      return;
    }
    if (!(e.key in moves)) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(total - 1, cursor < 0 ? 0 : cursor + moves[e.key]));
    cursor = next;
    if (!e.shiftKey || anchor < 0) anchor = next;
    canvas.title = describe(next);
    select(anchor, next, true);
  });
  canvas.addEventListener('focus', () => draw());
  canvas.addEventListener('blur', () => draw());
  const scroller = h('div', { class: 'heatmap-scroll' }, canvas);
  draw();
  return {
    element: scroller,
    canvas,
    cellAt,
    redraw: draw,
    selectCells: (from, to) => select(from, to, true),
  };
}

function edge(g: CanvasRenderingContext2D, x1: number, y1: number, x2: number, y2: number): void {
  g.moveTo(x1, y1);
  g.lineTo(x2, y2);
}
