// The I/O half of the analysis: read the workspace scripts a profile names, their source maps
// (a sourceMappingURL comment: a file beside the script or a data: URL) and the original
// sources, so the pure analysis gets them as data. Nothing outside the workspace is read.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type SourceMapInput, Workspace } from '../analysis/index.ts';
import { type CpuProfile, fileOfUrl } from '../profile/index.ts';
import { dataUrlText, isBelow } from '../common/index.ts';

export interface LoadedSources {
  sources: Map<string, string>;
  sourceMaps: SourceMapInput[];
  notes: string[];
}

/** Larger files are not read: a script this big is generated, and parsing it would be slow. */
const MAX_SOURCE_BYTES = 16 * 1024 * 1024;
const MAPPING_URL = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/;

/**
 * `given`: code and maps the run saved (the code as run of scripts compiled in memory,
 * analysis/attribution/apply-runtime-scripts.ts): used as they are, and their maps' original files are read.
 */
export function loadSources(
  profile: CpuProfile,
  root: string,
  given: { sources: ReadonlyMap<string, string>; sourceMaps: readonly SourceMapInput[] } = {
    sources: new Map(),
    sourceMaps: [],
  },
): LoadedSources {
  const workspace = new Workspace(root);
  const out: LoadedSources = { sources: new Map(given.sources), sourceMaps: [...given.sourceMaps], notes: [] };
  const files = new Set<string>();
  // Each script once: a long run's profile has hundreds of thousands of nodes in a few scripts.
  const urls = new Set<string>();
  for (const node of profile.nodes) urls.add(node.callFrame.url);
  for (const url of urls) {
    const file = fileOfUrl(url);
    if (workspace.contains(file) && !given.sources.has(file)) files.add(file);
  }
  const realRoot = realPathOf(workspace.root);
  for (const map of given.sourceMaps) addOriginals(map, workspace.root, realRoot, out);
  for (const file of files) {
    const text = readText(file, realRoot, out.notes);
    if (text === undefined) continue;
    out.sources.set(file, text);
    const map = readSourceMap(file, text, workspace.root, realRoot, out.notes);
    if (!map) continue;
    out.sourceMaps.push(map);
    addOriginals(map, workspace.root, realRoot, out);
  }
  return out;
}

function realPathOf(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The callers check the path as written; this checks where it really leads. A symlink in the
 * workspace can point outside it (to /etc/passwd), and only a regular file is read: a named
 * pipe would block forever and a device (/dev/zero) never ends.
 */
function readText(file: string, realRoot: string, notes: string[]): string | undefined {
  try {
    const real = fs.realpathSync.native(file);
    if (!isBelow(realRoot, real)) {
      notes.push(`Skipped ${file}: it is a link to outside the workspace.`);
      return undefined;
    }
    const stat = fs.statSync(real);
    if (!stat.isFile()) {
      notes.push(`Skipped ${file}: not a regular file.`);
      return undefined;
    }
    const size = stat.size;
    if (size > MAX_SOURCE_BYTES) {
      notes.push(`Skipped ${file} (${Math.round(size / 1048576)} MB): too large to read for call sites.`);
      return undefined;
    }
    return fs.readFileSync(real, 'utf8');
  } catch {
    notes.push(`Could not read ${file} (deleted or moved since the run?): its lines are shown without source.`);
    return undefined;
  }
}

function readSourceMap(
  file: string,
  text: string,
  root: string,
  realRoot: string,
  notes: string[],
): SourceMapInput | undefined {
  const trimmed = text.trimEnd();
  const lastLine = trimmed.slice(trimmed.lastIndexOf('\n') + 1);
  const m = MAPPING_URL.exec(lastLine);
  if (!m) return undefined;
  const ref = m[1];
  if (ref.startsWith('data:')) {
    const json = dataUrlText(ref);
    if (json !== undefined) return { generatedFile: file, map: json, mapFile: file };
    notes.push(`Ignored the inline source map of ${file}: it does not decode.`);
    return undefined;
  }
  let mapFile: string;
  try {
    mapFile = ref.startsWith('file://') ? fileOfUrl(ref) : path.resolve(path.dirname(file), decodeURIComponent(ref));
  } catch {
    notes.push(`Ignored the source map reference of ${file}: ${ref} is not a path.`);
    return undefined;
  }
  if (!isBelow(root, mapFile)) {
    notes.push(`Ignored the source map of ${file}: ${mapFile} is outside the workspace.`);
    return undefined;
  }
  const mapText = readText(mapFile, realRoot, notes);
  return mapText === undefined ? undefined : { generatedFile: file, map: mapText, mapFile };
}

/** The original files a map points at: from its sourcesContent, else from disk. */
function addOriginals(map: SourceMapInput, root: string, realRoot: string, out: LoadedSources): void {
  let raw: { sources?: unknown; sourcesContent?: unknown; sourceRoot?: unknown } | null;
  try {
    raw = JSON.parse(String(map.map)) as typeof raw;
  } catch {
    return; // the analysis notes the broken map when it reads it
  }
  // A map file holding `null` (or a number) is JSON too.
  if (typeof raw !== 'object' || raw === null || !Array.isArray(raw.sources)) return;
  const sourceRoot = typeof raw.sourceRoot === 'string' ? raw.sourceRoot : '';
  raw.sources.forEach((source, i) => {
    if (typeof source !== 'string') return;
    const file = source.startsWith('file://')
      ? fileOfUrl(source)
      : path.resolve(path.dirname(map.mapFile), sourceRoot, source);
    if (!isBelow(root, file) || out.sources.has(file)) return;
    const content = Array.isArray(raw.sourcesContent) ? raw.sourcesContent[i] : undefined;
    if (typeof content === 'string') out.sources.set(file, content);
    else if (fs.existsSync(file)) {
      const text = readText(file, realRoot, out.notes);
      if (text !== undefined) out.sources.set(file, text);
    }
  });
}
