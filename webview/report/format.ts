// Numbers, paths and dates as the report page shows them: the same rounding and wording as the
// terminal report and the lenses (numbers: src/format.ts), without Node's `path` (this runs in the browser).
import { fmt, formatBytes, formatMs, formatPct, num } from '../../src/format.ts';
import { withSign } from '../../src/core/report/index.ts';

export { fmt, num };
export const ms = formatMs;
export const pct = formatPct;
export const bytes = formatBytes;
export { minus, withSign } from '../../src/core/report/index.ts';

export const pctOf = (part: number, whole: number): number => (whole > 0 ? (part / whole) * 100 : 0);

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
export const canOpen = (file: string, line: number): boolean =>
  isAbsolutePath(file) && Number.isInteger(line) && line >= 1;

/** "2026-11-21 13:10:43" in local time, or the string as it came when it is not a date. */
export function dateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** "2 s", "1.5 s". */
export const seconds = (s: number): string => `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
