// Hotline's own work out of the user's profile. A stack capture (capture/stacks/stack-sampler.ts) runs
// on top of whatever JavaScript it interrupted, so V8 samples it as a callee of the user's code:
// its frames would show as a callee of the hot line, among the functions, in the flame graph and
// in the heat map. Each of those subtrees is cut out and its samples go to one node under the root,
// named for what it is: the profiler's overhead, one labelled figure. Pure.
import { HOTLINE_SCRIPT_PREFIX } from './frame-urls.ts';
import type { CpuProfile, CpuProfileNode } from './cpuprofile.ts';

/** The node that holds the samples of Hotline's own scripts. */
export const OWN_FRAMES_NAME = '(hotline: stack captures and probes)';

const OWN_FRAMES_URL = `${HOTLINE_SCRIPT_PREFIX}overhead`;

/** A frame of Hotline's scripts, other than the node that already holds their samples. */
const isOwn = (node: CpuProfileNode): boolean =>
  node.callFrame.url.startsWith(HOTLINE_SCRIPT_PREFIX) && node.callFrame.url !== OWN_FRAMES_URL;

/**
 * The profile with every subtree of Hotline's own scripts moved into one node under the root
 * (the same samples, in the same order: stack captures' ticks still name them by index). The
 * profile itself when it has none.
 */
export function withoutOwnFrames(profile: CpuProfile): CpuProfile {
  if (!profile.nodes.some(isOwn)) return profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const isChild = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const root = profile.nodes.find((n) => !isChild.has(n.id));
  if (!root) return profile;
  const collector: CpuProfileNode = {
    id: profile.nodes.reduce((m, n) => Math.max(m, n.id), 0) + 1,
    callFrame: {
      functionName: OWN_FRAMES_NAME,
      scriptId: '0',
      url: OWN_FRAMES_URL,
      lineNumber: -1,
      columnNumber: -1,
    },
    hitCount: 0,
    children: [],
  };
  const moved = new Set<number>();
  const kept = new Map<number, CpuProfileNode>();
  const stack: Array<{ node: CpuProfileNode; own: boolean }> = [{ node: root, own: false }];
  while (stack.length > 0) {
    const { node, own } = stack.pop()!;
    if (own) {
      moved.add(node.id);
      collector.hitCount! += node.hitCount ?? 0;
    } else {
      const children = (node.children ?? []).filter((id) => !isOwn(byId.get(id)!));
      kept.set(node.id, { ...node, children });
    }
    for (const id of node.children ?? []) {
      const child = byId.get(id);
      if (child) stack.push({ node: child, own: own || isOwn(child) });
    }
  }
  const newRoot = kept.get(root.id)!;
  newRoot.children = [...(newRoot.children ?? []), collector.id];
  const samples = profile.samples
    ? Array.from(profile.samples, (id) => (moved.has(id) ? collector.id : id))
    : undefined;
  return {
    ...profile,
    nodes: [...profile.nodes.filter((n) => kept.has(n.id)).map((n) => kept.get(n.id)!), collector],
    ...(samples ? { samples } : {}),
  };
}
