// WCAG contrast between theme colours, so a mark drawn on the canvas can pick, among the theme's
// own colours, one that stands out from what it is drawn on (3:1, the ratio for graphics).
// Pure: no DOM, so the unit tests run it on the themes' values.

export type Rgb = readonly [number, number, number];

/** #rgb, #rrggbb, #rrggbbaa (alpha dropped), rgb()/rgba(); undefined for anything else. */
export function parseColor(text: string): Rgb | undefined {
  const t = text.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(t);
  if (hex) {
    const d = hex[1];
    if (d.length === 3) return [0, 1, 2].map((i) => parseInt(d[i] + d[i], 16)) as unknown as Rgb;
    return [0, 2, 4].map((i) => parseInt(d.slice(i, i + 2), 16)) as unknown as Rgb;
  }
  const fn = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(t);
  return fn ? [Number(fn[1]), Number(fn[2]), Number(fn[3])] : undefined;
}

/** WCAG 2 relative luminance of an sRGB colour. */
export function luminance([r, g, b]: Rgb): number {
  const lin = (c: number): number => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** 1 (same) to 21 (black on white). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** `top` at `alpha` over `under`, as the canvas composites it (sRGB, rounded). */
export function blend(top: Rgb, under: Rgb, alpha: number): Rgb {
  return [0, 1, 2].map((i) => Math.round(top[i] * alpha + under[i] * (1 - alpha))) as unknown as Rgb;
}

/**
 * The first candidate with at least `min`:1 against every backdrop; when none has, the one whose
 * worst contrast is highest. Candidates that do not parse are skipped; undefined when none does.
 */
export function readableOn(candidates: string[], backdrops: Rgb[], min = 3): string | undefined {
  let best: { color: string; worst: number } | undefined;
  for (const c of candidates) {
    const rgb = parseColor(c);
    if (!rgb) continue;
    const worst = Math.min(...backdrops.map((b) => contrastRatio(rgb, b)));
    if (worst >= min) return c;
    if (!best || worst > best.worst) best = { color: c, worst };
  }
  return best?.color;
}
