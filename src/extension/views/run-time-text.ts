// How the Runs view writes a run's time: 24-hour, as every other figure Hotline shows (the
// report page, the CLI, run ids). The system locale's 12-hour clock ("2:02:11 PM") read as
// another format beside them. No `vscode` import: tested on its own.

const two = (n: number): string => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "14:02:11" today, "Nov 23 14:02" before; the run id when the time cannot be read. */
export function runTimeShort(startedAt: string, fallback: string, now = new Date()): string {
  const d = new Date(startedAt);
  if (Number.isNaN(d.getTime())) return fallback;
  const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  return d.toDateString() === now.toDateString()
    ? `${hm}:${two(d.getSeconds())}`
    : `${MONTHS[d.getMonth()]} ${d.getDate()} ${hm}`;
}

/** "2026-11-23 14:02:11" (local time). */
export function runTimeLong(startedAt: string, fallback: string): string {
  const d = new Date(startedAt);
  if (Number.isNaN(d.getTime())) return fallback;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
