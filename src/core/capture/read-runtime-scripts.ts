// The code the app runs when it is not the file on disk: loaders that compile in memory (tsx,
// ts-node, @swc-node/register, babel's register hook) hand V8 JavaScript with an inline source
// map that exists only in the process. V8's positions are in that code, so the analysis needs it
// and its map; both are read here from the runtime (Debugger.scriptParsed's sourceMapURL and
// Debugger.getScriptSource, as VS Code's js-debug does) and saved in the run folder
// (store/scripts-file.ts). The Debugger domain is on only for this read, before the warm-up:
// it is off again in every measured and profiled window.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataUrlText, isBelow, isJson } from '../common/index.ts';
import type { CdpChannel } from '../inspector/index.ts';
import type { RuntimeScript } from '../store/index.ts';

interface ScriptParsed {
  scriptId: string;
  url: string;
  sourceMapURL?: string;
}

/** Scripts this big are bundles with maps on disk (sources.ts reads those), not loader output. */
const MAX_SCRIPT_CHARS = 16 * 1024 * 1024;

/**
 * The app's own scripts (under `root`, outside node_modules) whose code as run does not keep the
 * positions of the file on disk, each with the map the runtime holds for it, if any. Scripts that
 * keep them (plain JavaScript; Node's type stripping, which blanks types with spaces) are left out.
 */
export async function captureRuntimeScripts(channel: CdpChannel, root: string): Promise<RuntimeScript[]> {
  const parsed: ScriptParsed[] = [];
  const off = channel.on('Debugger.scriptParsed', (p: ScriptParsed) => {
    if (p.url.startsWith('file://')) parsed.push(p);
  });
  const out: RuntimeScript[] = [];
  try {
    // V8 replays every script already parsed before it answers.
    await channel.send('Debugger.enable', {});
    off();
    for (const p of parsed) {
      const file = fileOf(p.url);
      if (!file || !isBelow(root, file) || file.split(path.sep).includes('node_modules')) continue;
      const { scriptSource } = (await channel.send('Debugger.getScriptSource', { scriptId: p.scriptId })) as {
        scriptSource: string;
      };
      if (scriptSource.length > MAX_SCRIPT_CHARS || samePositions(readOrUndefined(file), scriptSource)) continue;
      out.push({ url: p.url, file, source: scriptSource, ...mapOf(p.sourceMapURL) });
    }
  } finally {
    off();
    await channel.send('Debugger.disable', {}).catch(() => undefined);
  }
  return out;
}

function fileOf(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

function readOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Whether V8's line and column in `ran` are those of `disk`: the same lines of the same lengths
 * (Node's type stripping blanks types with spaces). A `#!` first line may have been blanked by
 * the loader, and blank lines and a `//# sourceURL=` may follow (Node 22+ adds them to stripped .ts).
 */
export function samePositions(disk: string | undefined, ran: string): boolean {
  if (disk === undefined) return false;
  const a = disk.replace(/^\uFEFF/, '').split('\n');
  const b = ran.split('\n');
  if (b.length < a.length || !b.slice(a.length).every((l) => /^\s*$|^\/\/# source(URL|MappingURL)=/.test(l)))
    return false;
  return a.every((line, i) => line.length === b[i].length || (i === 0 && line.startsWith('#!')));
}

/** The map a `data:` sourceMappingURL carries; a map elsewhere is read from disk by sources.ts. */
function mapOf(sourceMapURL: string | undefined): Pick<RuntimeScript, 'map' | 'mapProblem'> {
  if (!sourceMapURL) return { mapProblem: 'the runtime holds no source map for it' };
  if (!sourceMapURL.startsWith('data:'))
    return { mapProblem: `its source map (${sourceMapURL.slice(0, 200)}) is not held in memory` };
  const map = dataUrlText(sourceMapURL);
  if (map === undefined || !isJson(map)) return { mapProblem: 'its inline source map does not decode' };
  return { map };
}
