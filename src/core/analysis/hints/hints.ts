// The rule table behind the hints: APIs that block the event loop, how to recognise them in a
// profile (the frame V8 shows for them), and the fix to name. Rules match frames, so they hold
// for any app; the analysis decides which line of the user's code each match belongs to.
import { formatPct } from '../../../format.ts';
import type { Frame } from '../../profile/index.ts';

export interface FrameRule {
  id: string;
  /** The API label (`crypto.pbkdf2Sync`) when the frame is this rule's, else undefined. */
  match(frame: Frame, file: string): string | undefined;
  /** The async or cheaper alternative, in a sentence. */
  fix(api: string): string;
}

const internal = (file: string, ...modules: string[]): boolean =>
  modules.some((m) => file === `node:${m}` || file.startsWith(`node:internal/${m}`));

const CRYPTO_SYNC: Record<string, string> = {
  pbkdf2Sync: 'crypto.pbkdf2',
  scryptSync: 'crypto.scrypt',
  hkdfSync: 'crypto.hkdf',
  generateKeyPairSync: 'crypto.generateKeyPair',
  generatePrimeSync: 'crypto.generatePrime',
  checkPrimeSync: 'crypto.checkPrime',
  randomFillSync: 'crypto.randomFill',
  randomBytes: 'crypto.randomBytes with a callback',
};

export const FRAME_RULES: readonly FrameRule[] = [
  {
    id: 'crypto-sync',
    match: (f, file) =>
      internal(file, 'crypto') && Object.hasOwn(CRYPTO_SYNC, f.functionName) ? `crypto.${f.functionName}` : undefined,
    fix: (api) => {
      const name = api.slice('crypto.'.length);
      return `use ${CRYPTO_SYNC[name] ?? 'the async form'} (runs on the libuv threadpool; raise UV_THREADPOOL_SIZE if many run at once)`;
    },
  },
  {
    id: 'zlib-sync',
    match: (f, file) =>
      internal(file, 'zlib') && (/Sync$/.test(f.functionName) || f.functionName === 'syncBufferWrapper')
        ? 'zlib'
        : undefined,
    fix: (api) =>
      `use the callback or promise form${api.endsWith('Sync') ? ` (zlib.${api.replace(/^zlib\./, '').replace(/Sync$/, '')})` : ''}, or stream with zlib.create* (runs on the libuv threadpool)`,
  },
  {
    id: 'fs-sync',
    match: (f, file) => (internal(file, 'fs') && /Sync$/.test(f.functionName) ? `fs.${f.functionName}` : undefined),
    fix: (api) =>
      `use fs.promises.${api.replace(/^fs\./, '').replace(/Sync$/, '')} (or the callback form); for large files stream with fs.createReadStream`,
  },
  {
    id: 'child-process-sync',
    match: (f, file) =>
      internal(file, 'child_process') && /^(execSync|execFileSync|spawnSync)$/.test(f.functionName)
        ? `child_process.${f.functionName}`
        : undefined,
    fix: (api) =>
      `use child_process.${api.replace(/^child_process\./, '').replace(/Sync$/, '')} (async): the event loop waits for the whole child process otherwise`,
  },
  {
    id: 'library-sync',
    // A dependency's synchronous API (bcryptjs.compareSync, …): the name says it blocks.
    match: (f, file) =>
      file.includes('/node_modules/') && /^[a-z]\w*Sync$/.test(lastName(f.functionName))
        ? lastName(f.functionName)
        : undefined,
    fix: (api) =>
      `look for the asynchronous form of ${api} in that library, or move the work to a worker thread (worker_threads)`,
  },
];

export interface LineRule {
  id: string;
  /** A hot line of user code whose own text names a built-in that has no frame of its own. */
  match(lineText: string): string | undefined;
  fix(api: string): string;
}

export const LINE_RULES: readonly LineRule[] = [
  {
    id: 'json-large',
    match: (text) =>
      /\bJSON\s*\.\s*stringify\s*\(/.test(text)
        ? 'JSON.stringify'
        : /\bJSON\s*\.\s*parse\s*\(/.test(text)
          ? 'JSON.parse'
          : undefined,
    fix: (api) =>
      api === 'JSON.stringify'
        ? 'serialise less, cache the result, use a schema-based serializer (fast-json-stringify) or stream the output'
        : 'parse less or stream it (a streaming JSON parser), or move it to a worker thread',
  },
];

/** Share of non-idle time above which a match becomes a hint. */
export const HINT_MIN_PCT = 5;
/** GC share above which allocation pressure is worth a hint. */
export const GC_HINT_MIN_PCT = 15;

export function hintMessage(api: string, fn: string, pct: number): string {
  return `\`${api}\` in \`${fn}\` blocks the event loop in ${formatPct(pct)} of non-idle samples`;
}

export function gcHintMessage(pct: number): string {
  return `Garbage collection takes ${formatPct(pct)} of non-idle time`;
}
export const GC_FIX =
  'allocate less on the hot path (reuse buffers and objects, avoid building large temporary arrays or strings); a heap profile shows where';

function lastName(functionName: string): string {
  return functionName.slice(functionName.lastIndexOf('.') + 1);
}
