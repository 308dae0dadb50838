// Whose self time a workspace node's samples are: the function each of its lines is in. V8 puts
// the samples of a function it inlined on the caller's frame, with the callee's line numbers; the
// lines already go to the callee (call-lines.ts, LineShare.fn), and a function's self time must
// follow them, or Functions says the caller did the callee's work (DevTools shows an inlined
// callee as its own frame too). Pure.
import { identityOf, type LineShare } from './call-lines.ts';
import type { FunctionInfo } from './costs.ts';

/** A share of a node's self time that goes to a function (an index into the analysis' functions). */
export interface FunctionShare {
  key: number;
  frac: number;
}

/**
 * The function rows of inlined callees: found among the profile's functions by identity (the
 * script and the function's place in it), else added through `rowFor` (a function V8 always inlined
 * has no frame of its own in the profile).
 */
export class SelfFunctions {
  private byIdentity: Map<string, number> | undefined;

  constructor(
    private readonly fns: FunctionInfo[],
    private readonly rowFor: (inlined: FunctionInfo) => FunctionInfo,
  ) {}

  /** The node's self time by function: its own unless some of its lines are an inlined callee's; undefined when all its own. */
  sharesOf(own: number, lines: readonly LineShare[]): FunctionShare[] | undefined {
    if (!lines.some((l) => l.fn !== undefined)) return undefined;
    const byFn = new Map<number, number>();
    for (const l of lines) {
      const fi = l.fn ? this.rowOf(l.fn) : own;
      byFn.set(fi, (byFn.get(fi) ?? 0) + l.frac);
    }
    return [...byFn].map(([key, frac]) => ({ key, frac }));
  }

  private rowOf(fn: FunctionInfo): number {
    if (!this.byIdentity) {
      this.byIdentity = new Map();
      this.fns.forEach((f, i) => {
        if (f.category === 'user' && f.scope && !f.scope.isProgram) {
          const key = identityOf(f).key;
          if (!this.byIdentity!.has(key)) this.byIdentity!.set(key, i);
        }
      });
    }
    const key = identityOf(fn).key;
    let fi = this.byIdentity.get(key);
    if (fi === undefined) {
      fi = this.fns.length;
      this.fns.push(this.rowFor(fn));
      this.byIdentity.set(key, fi);
    }
    return fi;
  }
}
