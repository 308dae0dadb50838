// Numbers, paths and dates as the report page shows them: the same rounding and wording as the
// terminal report (src/cli/render.ts), without Node's `path` (this runs in the browser).
import { minus, withSign } from '../../src/core/signs.ts';

/** 3 significant-ish digits: 1234 → "1234", 12.34 → "12.3", 0.1234 → "0.123" (render.ts `num`). */
export const num = (v: number): string => minus(Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(3));

/** ≥ 100 without decimals, else one decimal (render.ts `fmt`). */
export const fmt = (v: number): string => minus(Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));

export const ms = (v: number): string => `${fmt(v)} ms`;

export const pctOf = (part: number, whole: number): number => (whole > 0 ? (part / whole) * 100 : 0);

/** A percentage with one decimal below 10 %, none above: "94%", "2.3%", "<0.1%". */
export function pct(p: number): string {
  if (p > 0 && p < 0.05) return '<0.1%';
  return p >= 10 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}

/** "+12.3" / "−4.0": a signed number with a real minus sign. */
export function signed(v: number, digits?: number): string {
  return withSign(v, digits === undefined ? num(Math.abs(v)) : Math.abs(v).toFixed(digits));
}

export function isAbsolutePath(file: string): boolean {
  return file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file) || file.startsWith('\\\\');
}

/** `file` relative to `cwd` when it lies below it (either separator), else as it is. */
export function relPath(file: string, cwd: string): string {
  if (!isAbsolutePath(file) || cwd === '') return file;
  const windows = /^[A-Za-z]:/.test(file);
  const norm = (p: string): string => (windows ? p.replace(/\\/g, '/').toLowerCase() : p);
  const base = norm(cwd).replace(/\/+$/, '') + '/';
  return norm(file).startsWith(base) ? file.slice(base.length) : file;
}

/** Where a frame is, for people: "server.js:35", "node:internal/crypto/pbkdf2:62", "(native)". */
export function where(file: string, line: number, cwd: string): string {
  if (file === '') return '(native)';
  return line > 0 ? `${relPath(file, cwd)}:${line}` : relPath(file, cwd);
}

/** Only files on disk can be opened in the editor (not `node:…`, not native code). */
export const canOpen = (file: string, line: number): boolean => isAbsolutePath(file) && Number.isInteger(line) && line >= 1;

/** "2026-11-21 13:10:43" in local time, or the string as it came when it is not a date. */
export function dateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** "2 s", "1.5 s". */
export const seconds = (s: number): string => `${Number.isInteger(s) ? s : s.toFixed(1)} s`;

/** "14.3 MB", "6.3 KB", "512 B" (1024-based, as render.ts `bytes`). */
export function bytes(b: number): string {
  if (b >= 1 << 30) return `${(b / (1 << 30)).toFixed(1)} GB`;
  if (b >= 1 << 20) return `${(b / (1 << 20)).toFixed(1)} MB`;
  if (b >= 1024) return `${(b / 1024).toFixed(1)} KB`;
  return `${Math.round(b)} B`;
}
