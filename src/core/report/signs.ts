// One way to write a signed figure everywhere (CLI, report page, lenses, editor messages): a real
// minus sign (U+2212), a plus for gains, nothing for zero.
export const MINUS = '\u2212';

/** `text` is the figure's magnitude as it should be printed; the sign comes from `v`. */
export function withSign(v: number, text: string): string {
  return v > 0 ? `+${text}` : v < 0 ? `${MINUS}${text}` : text;
}

/** A number whose own minus (if any) is the real one: −12.3, not -12.3. */
export function minus(text: string): string {
  return text.replace(/^-/, MINUS);
}

/** "+12.3%" / "−4%": a signed percentage. */
export function signedPct(pct: number, digits = 1): string {
  return withSign(pct, `${Math.abs(pct).toFixed(digits).replace(/\.0+$/, '')}%`);
}

/** "[−3.1%, +2%]": a 95% interval of a change in %. */
export function intervalPct(lowPct: number, highPct: number, digits = 1): string {
  return `[${signedPct(lowPct, digits)}, ${signedPct(highPct, digits)}]`;
}
