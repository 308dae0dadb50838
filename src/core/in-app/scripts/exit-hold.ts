// In each worker thread (host side: inspector/worker-session.ts, which says why): an 'exit'
// handler that tells Hotline through a binding and holds the thread (a JS loop, in which the
// inspector still answers) until its profile is taken, at most `holdMs`. Armed (`watching`) only
// in profiled sub-windows.
import { readSlot, writeSlot } from './shared/state.ts';

interface State {
  watching: boolean;
  released: boolean;
}

const SLOT = 'hotline.exitHold';

export function install(binding: string, holdMs: number): void {
  if (readSlot<State>(SLOT)) return;
  const state = writeSlot<State>(SLOT, { watching: false, released: false });
  process.on('exit', () => {
    if (!state.watching) return;
    // Looked up now: a session that attaches again (after the inspector was reopened) adds its own.
    try {
      (globalThis as unknown as Record<string, (payload: string) => void>)[binding]('');
    } catch {
      return;
    }
    const end = Date.now() + holdMs;
    while (!state.released && Date.now() < end) {
      // the inspector's messages are served here
    }
  });
}

/** The profile was taken (or the hold is called off): the thread may exit. */
export function release(): void {
  const s = readSlot<State>(SLOT);
  if (s) s.released = true;
}

/** Arms or disarms the hold; disarming for good (`final`) also releases a thread that waits. */
export function watch(on: boolean, final = false): void {
  const s = readSlot<State>(SLOT);
  if (!s) return;
  s.watching = on;
  if (final) s.released = true;
}
