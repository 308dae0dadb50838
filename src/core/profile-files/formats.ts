// The profile files Hotline opens, by their content: V8 CPU profiles (.cpuprofile), heap profiles
// (.heapprofile), pprof (.pb.gz), `node --prof` logs (isolate-*.log, converted by the running
// node's own `--prof-process --preprocess`), and Linux `perf script` text. The CLI's `analyze`
// asks which one a file is (formatOfFile); the flame graph shows them all. speedscope imports all
// of these itself and picks its importer by the file's name (".heapprofile", ".v8log.json",
// ".linux-perf.txt"), so for it this module only recognises the content, converts the --prof log,
// and names the bytes. A file that is none of these gets one sentence saying so.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { looksLikePprof, ProfileFormatError, readPprof } from '../profile/index.ts';

export type ProfileFormat = 'cpuprofile' | 'heapprofile' | 'v8log' | 'prof-log' | 'perf-script' | 'pprof';

/** How long `node --prof-process --preprocess` may take (it reads the whole log and the symbols). */
export const PROF_PROCESS_TIMEOUT_MS = 120_000;

const NOT_A_PROFILE =
  'Hotline shows .cpuprofile and .heapprofile files (V8/Chrome), pprof files (.pb.gz), `node --prof` logs (isolate-*.log) and `perf script` output.';

/** Which kind of profile this is, from its first bytes (and its name as a tiebreak); undefined: none. */
export function detectFormat(head: string, fileName = ''): ProfileFormat | undefined {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) {
    // Only the start of a large file is read: look for the keys, not a parse.
    if (/"head"\s*:\s*\{\s*"callFrame"/.test(text) || (fileName.endsWith('.heapprofile') && /"head"\s*:/.test(text)))
      return 'heapprofile';
    if (/"nodes"\s*:\s*\[/.test(text) && /"callFrame"/.test(text)) return 'cpuprofile';
    if (/"code"\s*:\s*\[/.test(text) && (/"ticks"\s*:/.test(text) || /"functions"\s*:/.test(text))) return 'v8log';
    if (fileName.endsWith('.cpuprofile')) return 'cpuprofile';
    return undefined;
  }
  if (/^v8-version,\d+/.test(text) || /^(shared-library|code-creation|tick),/m.test(text.slice(0, 65536)))
    return 'prof-log';
  // perf script: "comm pid[/tid] [cpu] time: [period] event:" then indented "addr symbol (dso)" frames.
  if (
    /^\S[^\n]*?\s+\d+(?:\/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(?:\d+\s+)?\S+:\s*$/m.test(text) &&
    /^\s+[0-9a-f]+\s+\S.*\(.*\)\s*$/m.test(text)
  )
    return 'perf-script';
  return undefined;
}

export interface FlameInput {
  /** The name speedscope gets: it chooses its importer by it. */
  name: string;
  data: Buffer;
  format: ProfileFormat;
}

/** What speedscope needs to open a file: the name that picks its importer, and converted bytes when the file itself is not importable. */
export interface FlameSource {
  name: string;
  format: ProfileFormat;
  /** Present for `node --prof` logs, converted to JSON; other formats are read from the file as they are. */
  converted?: Buffer;
}

/** Bytes read to recognise a format: a big profile is never read whole just to name it. */
const HEAD_BYTES = 1 << 20;

/**
 * Recognises a profile file from its first megabyte and names it for speedscope. A --prof log is
 * converted by `node --prof-process --preprocess` (the node binary given, by default `node` on
 * PATH; it should be the version that wrote the log).
 */
export async function flameSource(
  file: string,
  o: { nodePath?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<FlameSource> {
  let head: string;
  let pprof = false;
  try {
    const handle = await fs.promises.open(file, 'r');
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
      pprof = looksLikePprof(buffer.subarray(0, bytesRead));
      head = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new ProfileFormatError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  const base = path.basename(file);
  const format = pprof ? 'pprof' : detectFormat(head, base);
  const stem = base.replace(/(\.(cpuprofile|heapprofile|json|log|txt|perf|data|pb|gz|pprof|prof))+$/i, '');
  switch (format) {
    case undefined:
      throw new ProfileFormatError(`${base} is not a profile Hotline can show. ${NOT_A_PROFILE}`);
    case 'cpuprofile':
      return { name: base.endsWith('.cpuprofile') ? base : `${stem}.cpuprofile`, format };
    case 'heapprofile':
      return { name: `${stem}.heapprofile`, format };
    case 'v8log':
      return { name: `${stem}.v8log.json`, format };
    case 'perf-script':
      return { name: `${stem}.linux-perf.txt`, format };
    case 'prof-log':
      return { name: `${stem}.v8log.json`, format, converted: await preprocessProfLog(file, o) };
    case 'pprof':
      return pprofForFlame(file, stem);
  }
}

/** A pprof file as the .cpuprofile (or .heapprofile) the analysis reads it as: the same flame graph as theirs. */
function pprofForFlame(file: string, stem: string): FlameSource {
  const pprof = readPprof(fs.readFileSync(file));
  if (pprof.kind === 'heap')
    return { name: `${stem}.heapprofile`, format: 'pprof', converted: Buffer.from(JSON.stringify(pprof.profile)) };
  const { samples, timeDeltas, ...rest } = pprof.profile;
  const json = { ...rest, samples: Array.from(samples ?? []), timeDeltas: Array.from(timeDeltas ?? []) };
  return { name: `${stem}.cpuprofile`, format: 'pprof', converted: Buffer.from(JSON.stringify(json)) };
}

/** flameSource with the bytes: the file's own, or the converted ones. */
export async function prepareForFlame(
  file: string,
  o: { nodePath?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<FlameInput> {
  const source = await flameSource(file, o);
  let data = source.converted;
  if (!data) {
    try {
      data = await fs.promises.readFile(file);
    } catch (err) {
      throw new ProfileFormatError(`Cannot read ${file}: ${(err as Error).message}`);
    }
  }
  return { name: source.name, format: source.format, data };
}

/** `node --prof-process --preprocess LOG` → its JSON on stdout (speedscope's "v8 prof log" importer). */
export function preprocessProfLog(
  file: string,
  o: { nodePath?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Buffer> {
  const node = o.nodePath || 'node';
  const timeoutMs = o.timeoutMs ?? PROF_PROCESS_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--prof-process', '--preprocess', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: path.dirname(file),
    });
    const out: Buffer[] = [];
    let err = '';
    let settled = false;
    const finish = (e: Error | undefined, result?: Buffer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (e) reject(e);
      else resolve(result!);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(
        new ProfileFormatError(
          `Converting ${path.basename(file)} with \`${node} --prof-process --preprocess\` took over ${Math.round(timeoutMs / 1000)} s; it was stopped.`,
        ),
      );
    }, timeoutMs);
    const onAbort = (): void => {
      child.kill('SIGKILL');
      finish(new ProfileFormatError('Cancelled.'));
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 4000) err += d.toString();
    });
    child.on('error', (e) =>
      finish(
        new ProfileFormatError(
          `Cannot run ${node} to convert ${path.basename(file)} (${e.message}): set hotline.nodePath to a node binary.`,
        ),
      ),
    );
    child.on('close', (code) => {
      const json = Buffer.concat(out);
      if (code !== 0) {
        finish(
          new ProfileFormatError(
            `\`${node} --prof-process --preprocess\` failed on ${path.basename(file)} (exit ${code}): ${err.trim().split('\n').slice(-3).join(' ') || 'no message'}`,
          ),
        );
        return;
      }
      // The tick processor prints warnings before the JSON on some versions: keep from the first "{".
      const start = json.indexOf('{');
      if (start < 0) {
        finish(
          new ProfileFormatError(
            `\`${node} --prof-process --preprocess\` gave no JSON for ${path.basename(file)}: is it a log written by \`node --prof\`?`,
          ),
        );
        return;
      }
      const body = start === 0 ? json : json.subarray(start);
      // A log with no samples converts to JSON without ticks: say so here, not as speedscope's blank page.
      let ticks = 0;
      try {
        ticks = (JSON.parse(body.toString('utf8')) as { ticks?: unknown[] }).ticks?.length ?? 0;
      } catch (e) {
        finish(
          new ProfileFormatError(
            `\`${node} --prof-process --preprocess\` gave broken JSON for ${path.basename(file)}: ${(e as Error).message}`,
          ),
        );
        return;
      }
      if (ticks === 0) {
        finish(
          new ProfileFormatError(
            `${path.basename(file)} has no samples (ticks): is it a complete log written by \`node --prof\`?`,
          ),
        );
        return;
      }
      finish(undefined, body);
    });
  });
}

/** Enough of a file to recognise it (the formats announce themselves in their first bytes). */
const FORMAT_HEAD_BYTES = 64 * 1024;

/** A file's format, or 'text' for a file that is not even JSON (no profile at all); undefined: JSON of no known kind. */
export function formatOfFile(file: string): ProfileFormat | 'text' | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(FORMAT_HEAD_BYTES);
    const n = fs.readSync(fd, buffer, 0, FORMAT_HEAD_BYTES, 0);
    if (looksLikePprof(buffer.subarray(0, n))) return 'pprof';
    const head = buffer.subarray(0, n).toString('utf8');
    return detectFormat(head, file) ?? (/^\uFEFF?\s*[{[]/.test(head) ? undefined : 'text');
  } finally {
    fs.closeSync(fd);
  }
}
