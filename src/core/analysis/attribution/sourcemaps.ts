// Generated → original positions for TypeScript and bundled code, through
// @jridgewell/trace-mapping. The maps are handed in already read (the analysis does no I/O);
// a map that does not parse, or whose sources leave the workspace, is dropped with a note.
import {
  GREATEST_LOWER_BOUND,
  LEAST_UPPER_BOUND,
  TraceMap,
  decodedMappings,
  originalPositionFor,
} from '@jridgewell/trace-mapping';
import { isWithin } from '../../common/index.ts';
import { fileOfUrl } from '../../profile/index.ts';
import { type Workspace } from './categories.ts';

export interface SourceMapInput {
  /** Absolute path of the generated script the map describes. */
  generatedFile: string;
  /** The map as read from disk or a data: URL (object or JSON text). */
  map: unknown;
  /** Where the map lives (absolute path); its `sources` are relative to it. */
  mapFile: string;
}

export interface OriginalPosition {
  file: string;
  /** 1-based */
  line: number;
  /** 0-based */
  column: number;
}

export class SourceMapper {
  private readonly maps = new Map<string, TraceMap>();

  constructor(inputs: Iterable<SourceMapInput>, workspace: Workspace, notes: string[]) {
    for (const input of inputs) {
      let traced: TraceMap;
      try {
        const raw = typeof input.map === 'string' ? JSON.parse(input.map) : input.map;
        traced = new TraceMap(raw, input.mapFile);
        if (!Array.isArray(traced.resolvedSources)) throw new Error('no sources');
      } catch (err) {
        notes.push(`Ignored the source map of ${input.generatedFile}: ${(err as Error).message}.`);
        continue;
      }
      const outside = traced.resolvedSources.map((s) => fileOfUrl(s)).filter((s) => !isWithin(workspace.root, s));
      if (outside.length > 0) {
        notes.push(
          `Ignored the source map of ${input.generatedFile}: it points outside the workspace (${outside[0]}).`,
        );
        continue;
      }
      this.maps.set(input.generatedFile, traced);
    }
  }

  has(generatedFile: string): boolean {
    return this.maps.has(generatedFile);
  }

  /** The original position of an exact generated position (1-based line, 0-based column). */
  at(generatedFile: string, line: number, column: number): OriginalPosition | undefined {
    const map = this.maps.get(generatedFile);
    // trace-mapping throws on a line below 1 or a negative column (a profile can say line -5).
    if (!map || !validPosition(line, column)) return undefined;
    return (
      toOriginal(originalPositionFor(map, { line, column, bias: GREATEST_LOWER_BOUND })) ??
      toOriginal(originalPositionFor(map, { line, column, bias: LEAST_UPPER_BOUND }))
    );
  }

  /** How many distinct original lines the segments of a generated line map to. */
  originalLinesOn(generatedFile: string, line: number): number {
    const map = this.maps.get(generatedFile);
    if (!map || !validPosition(line, 0)) return 0;
    const key = `${generatedFile}\u0000${line}`;
    let n = this.lineCounts.get(key);
    if (n === undefined) {
      const seen = new Set<string>();
      for (const seg of decodedMappings(map)[line - 1] ?? []) if (seg.length >= 4) seen.add(`${seg[1]}:${seg[2]}`);
      n = seen.size;
      this.lineCounts.set(key, n);
    }
    return n;
  }

  private readonly lineCounts = new Map<string, number>();

  /**
   * A whole generated line (V8's position ticks carry no column): the original line most of its
   * segments map to. Not simply the first segment: bundlers open an indented line with one that
   * continues the previous original line.
   */
  line(generatedFile: string, line: number): OriginalPosition | undefined {
    const map = this.maps.get(generatedFile);
    if (!map || !validPosition(line, 0)) return undefined;
    const segments = decodedMappings(map)[line - 1] ?? [];
    const votes = new Map<string, { count: number; column: number; source: number; line: number }>();
    for (const seg of segments) {
      if (seg.length < 4) continue;
      const [, source, origLine, column] = seg as [number, number, number, number];
      const key = `${source}:${origLine}`;
      const v = votes.get(key) ?? { count: 0, column, source, line: origLine };
      v.count++;
      votes.set(key, v);
    }
    let best: { count: number; column: number; source: number; line: number } | undefined;
    for (const v of votes.values()) if (!best || v.count > best.count) best = v;
    if (!best) return undefined;
    return toOriginal({ source: map.resolvedSources[best.source], line: best.line + 1, column: best.column });
  }
  /**
   * The original lines that the segments of generated columns [from, to) of one generated line map
   * to, each with the first generated column mapping to it: what a minified line of one function
   * holds (call-lines.ts).
   */
  linesIn(
    generatedFile: string,
    line: number,
    from: number,
    to: number,
  ): Array<OriginalPosition & { generatedColumn: number }> {
    const map = this.maps.get(generatedFile);
    if (!map || !validPosition(line, 0)) return [];
    const out = new Map<string, OriginalPosition & { generatedColumn: number }>();
    for (const seg of decodedMappings(map)[line - 1] ?? []) {
      if (seg.length < 4 || seg[0] < from || seg[0] >= to) continue;
      const [column, source, origLine, origColumn] = seg as [number, number, number, number];
      const original = toOriginal({ source: map.resolvedSources[source], line: origLine + 1, column: origColumn });
      const key = `${source}:${origLine}`;
      if (original && !out.has(key)) out.set(key, { ...original, generatedColumn: column });
    }
    return [...out.values()];
  }
}

/**
 * Whether a generated line holds the code of more than two original lines (a loader's or a
 * minifier's one-line output): V8 gives a top frame's line only, which cannot say which of them ran.
 */
export function packedLine(mapper: SourceMapper, generatedFile: string, line: number): boolean {
  return mapper.originalLinesOn(generatedFile, line) > 2;
}

function validPosition(line: number, column: number): boolean {
  return Number.isSafeInteger(line) && line >= 1 && Number.isSafeInteger(column) && column >= 0;
}

/**
 * A corrupt `mappings` string decodes to negative lines and columns or to source indices the map
 * does not have (`source` undefined): such a segment maps nowhere.
 */
function toOriginal(m: {
  source: string | null | undefined;
  line: number | null;
  column: number | null;
}): OriginalPosition | undefined {
  if (typeof m.source !== 'string' || m.line === null || m.column === null) return undefined;
  if (!validPosition(m.line, m.column)) return undefined;
  return { file: fileOfUrl(m.source), line: m.line, column: m.column };
}
