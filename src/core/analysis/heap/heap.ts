// V8's sampling heap profile (HeapProfiler.stopSampling, saved as heap.heapprofile) → bytes
// allocated per function and per line of the user's code. Pure: no I/O.
//
// Precision, honestly: a node of the sampling heap profile names a function by its call frame
// (where the function starts), not the line that allocated; V8 gives no line per sample. So the
// bytes of a function land on the line where the function starts, and the report says so.
// Sizes: V8 scales each sample by the sampling probability, so `selfSize` estimates all bytes
// allocated there (with the include-collected flags: allocated, not just still alive).
import { fileOfUrl, type SamplingHeapNode, type SamplingHeapProfile } from '../../profile/index.ts';
import { Workspace, categoryOf } from '../attribution/categories.ts';
import type { HeapFunction, HeapLine } from '../model.ts';

export type { HeapFunction, HeapLine };

export interface HeapAnalysis {
  totalBytes: number;
  /** Bytes allocated with no frame of your code on the stack (dependencies, Node itself). */
  outsideUserBytes: number;
  lines: HeapLine[];
  functions: HeapFunction[];
}

const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10000) / 100 : 0);

type FnAcc = Omit<HeapFunction, 'selfPct' | 'totalPct'>;

/** Bytes allocated per function and per user line; `root` is the app folder ("your code"). */
export function analyzeHeapProfile(
  profile: SamplingHeapProfile,
  root: string,
  limits: { lines?: number; functions?: number } = {},
): HeapAnalysis {
  const workspace = new Workspace(root);
  const fns = new Map<string, FnAcc>();
  const own = new Map<string, HeapLine>();
  let totalBytes = 0;
  let outsideUserBytes = 0;

  // Subtree sizes first (iteratively: a deep recursion in the app must not overflow our stack).
  const subtree = new Map<SamplingHeapNode, number>();
  const order: SamplingHeapNode[] = [];
  const walk: SamplingHeapNode[] = [profile.head];
  while (walk.length > 0) {
    const n = walk.pop()!;
    order.push(n);
    for (const c of n.children ?? []) walk.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i];
    subtree.set(n, n.selfSize + (n.children ?? []).reduce((sum, c) => sum + (subtree.get(c) ?? 0), 0));
  }

  // Then down the tree with the path's functions (for total bytes) and its deepest user frame.
  interface Visit {
    node: SamplingHeapNode;
    onPath: ReadonlySet<string>;
    user: FnAcc | undefined;
  }
  const visits: Visit[] = [{ node: profile.head, onPath: new Set(), user: undefined }];
  while (visits.length > 0) {
    const { node, onPath, user: userAbove } = visits.pop()!;
    const cf = node.callFrame;
    const synthetic = node === profile.head && cf.functionName === '(root)';
    let here = onPath;
    let user = userAbove;
    if (!synthetic) {
      const file = fileOfUrl(cf.url);
      const key = `${file}\u0000${cf.lineNumber}\u0000${cf.columnNumber}\u0000${cf.functionName}`;
      let fn = fns.get(key);
      if (!fn) {
        fn = {
          name: cf.functionName || '(anonymous)',
          file,
          line: cf.lineNumber + 1,
          column: cf.columnNumber + 1,
          category: categoryOf(cf.functionName, cf.url, file, workspace),
          selfBytes: 0,
          totalBytes: 0,
        };
        fns.set(key, fn);
      }
      fn.selfBytes += node.selfSize;
      if (!onPath.has(key)) {
        fn.totalBytes += subtree.get(node) ?? 0;
        here = new Set(onPath).add(key);
      }
      if (fn.category === 'user' && fn.line >= 1) user = fn;
    }
    totalBytes += node.selfSize;
    if (node.selfSize > 0) {
      if (user) {
        const k = `${user.file}\u0000${user.line}`;
        const l = own.get(k) ?? { file: user.file, line: user.line, function: user.name, ownBytes: 0, ownPct: 0 };
        l.ownBytes += node.selfSize;
        own.set(k, l);
      } else outsideUserBytes += node.selfSize;
    }
    for (const c of node.children ?? []) visits.push({ node: c, onPath: here, user });
  }

  const lines = [...own.values()]
    .map((l) => ({ ...l, ownPct: pct(l.ownBytes, totalBytes) }))
    .sort((a, b) => b.ownBytes - a.ownBytes || a.file.localeCompare(b.file) || a.line - b.line)
    .slice(0, limits.lines ?? 200);
  const functions = [...fns.values()]
    .filter((f) => f.selfBytes > 0 || f.totalBytes > 0)
    .map((f) => ({ ...f, selfPct: pct(f.selfBytes, totalBytes), totalPct: pct(f.totalBytes, totalBytes) }))
    .sort((a, b) => b.selfBytes - a.selfBytes || b.totalBytes - a.totalBytes || a.name.localeCompare(b.name))
    .slice(0, limits.functions ?? 200);
  return { totalBytes, outsideUserBytes, lines, functions };
}
