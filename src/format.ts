// How every end shows a number: the CLI, the language server's lenses and hovers, and the report
// webview use these and no other rule, so a figure reads the same wherever it is shown.
// Browser-safe (no Node imports): the webviews bundle it.

/** 0 ms, <0.1 ms, 4.2 ms, 812 ms, 1.9 s, 123 s. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0 ms';
  if (ms < 0.05) return '<0.1 ms';
  if (ms < 9.95) return `${ms.toFixed(1)} ms`;
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return s < 99.95 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

/** 0%, <0.1%, 2.1%, 93% (no decimals from 10%). */
export function formatPct(pct: number): string {
  if (!Number.isFinite(pct) || pct <= 0) return '0%';
  if (pct < 0.05) return '<0.1%';
  if (pct < 9.95) return `${pct.toFixed(1)}%`;
  return `${Math.round(pct)}%`;
}

/** 0 B, 812 B, 3.1 KB, 42 KB, 12 MB, 1.2 GB (powers of 1024, as V8 and DevTools count). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 B';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${Math.round(v)} B`;
  return v < 9.95 ? `${v.toFixed(1)} ${units[u]}` : `${Math.round(v)} ${units[u]}`;
}

/** 3 significant-ish digits: 1234 → "1234", 12.34 → "12.3", 0.1234 → "0.123". */
export const num = (v: number): string =>
  Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(3);

/** A rate or a count: ≥ 100 without decimals, else one decimal ("24.3 req/s", "1250 req/s"). */
export const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));
