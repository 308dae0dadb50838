// The one way Hotline checks data it did not make itself (report.json, timeline.json, webview and
// IPC messages): small predicates combined into the shape of the type. Browser-safe.

export type Check = (v: unknown) => boolean;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const str = (v: unknown): v is string => typeof v === 'string';
export const bool = (v: unknown): v is boolean => typeof v === 'boolean';
/** A whole number ≥ 0. */
export const count = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
export const arr =
  (c: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(c);
export const record =
  (c: Check): Check =>
  (v) =>
    isObject(v) && Object.values(v).every(c);
export const oneOf =
  (...values: readonly unknown[]): Check =>
  (v) =>
    values.includes(v);

/** Required fields, then optional ones (absent or undefined is fine). */
export function shape(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (v) =>
    isObject(v) &&
    Object.entries(required).every(([k, c]) => Object.hasOwn(v, k) && c(v[k])) &&
    Object.entries(optional).every(([k, c]) => v[k] === undefined || c(v[k]));
}
