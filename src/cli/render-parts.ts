// The pieces the terminal report and comparison are both made of: category names, paths shown
// relative to the current folder, bars, columns and the text of a source line.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CapacityBasis } from '../capacity.ts';

export const CATEGORY_LABELS: Record<string, string> = {
  user: 'your code',
  dependencies: 'dependencies',
  nodeInternals: 'node internals',
  native: 'native',
  gc: 'GC',
  program: 'program',
  idle: 'idle',
};

export interface RenderOptions {
  /** Paths are shown relative to this. */
  cwd: string;
  color: boolean;
  topLines?: number;
  /** A run's capacity (capacity.ts): the top line's cost is also said per request and per core. */
  capacity?: CapacityBasis;
}

/** A name in a column of `width`: cut with an ellipsis, always followed by a space. */
export function column(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

export function bar(p: number): string {
  const width = 20;
  const eighths = Math.round((Math.min(100, Math.max(0, p)) / 100) * width * 8);
  const full = Math.floor(eighths / 8);
  const part = eighths % 8;
  return ('█'.repeat(full) + (part ? '▏▎▍▌▋▊▉'[part - 1] : '')).padEnd(width, ' ');
}

export function rel(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const r = path.relative(cwd, file);
  return r.startsWith('..') ? file : r;
}

export function sourceLine(cache: Map<string, string[]>, file: string, line: number): string {
  if (!cache.has(file)) {
    try {
      cache.set(file, fs.readFileSync(file, 'utf8').split('\n'));
    } catch {
      cache.set(file, []);
    }
  }
  const text = (cache.get(file)![line - 1] ?? '').trim();
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

/**
 * " ±2.1" after a share: the half-width of its 95% interval (report ownPctPm / selfPctPm), so that
 * a reader does not act on a difference the run cannot tell. Blank (same width) for a row without
 * one when others have it; nothing when no row has one (a report of an older version).
 */
export const pmText = (pm: number | undefined, anyRow: boolean): string =>
  !anyRow ? '' : pm === undefined ? ' '.repeat(6) : ` ±${pm.toFixed(1)}`.padEnd(6);
