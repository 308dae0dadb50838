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

/**
 * A stall's bar and its 1 px backing, from the theme's own colours. The bar stands out from a busy
 * cell (the hot orange) by at least 3:1: the theme's red where it does, else its foreground or
 * background (the red is too close to the orange in both Modern themes and in High Contrast, where
 * it was a pale line on the cells). The backing is the contrast border (High Contrast) or, round a
 * bar that is not red, the red, so the mark still reads as the stall colour.
 */
export function stallColors(
  v: (name: string, fallback: string) => string,
  hot: string,
): { stall: string; backing: string } {
  const red = v('--vscode-charts-red', v('--vscode-editorError-foreground', '#f14c4c'));
  const cell = parseColor(hot);
  const stall =
    (cell &&
      readableOn([red, v('--vscode-foreground', '#cccccc'), v('--vscode-editor-background', '#1e1e1e')], [cell])) ??
    red;
  const backing = v('--vscode-contrastBorder', stall === red ? v('--vscode-editor-background', '#1e1e1e') : red);
  return { stall, backing };
}
