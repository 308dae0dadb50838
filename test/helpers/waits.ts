// Waiting on a state, for tests: polls a condition until it holds, and fails with a message that
// says what never happened when a generous bound passes (a hung test is a failure, not a hang).
// The bound is no assertion on speed: a busy machine only makes the wait longer.

/** Polls `probe` (every `everyMs`) until it returns a value other than undefined/false; returns it. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  opts: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000} s, and still not: ${what}`);
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 20));
  }
}
