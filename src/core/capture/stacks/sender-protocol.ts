// Messages between the capture sender's thread (send-thread.ts) and its handle (capture-sender.ts).
// One thread sends for every stack sampler of the run (the app and each child process): a
// session each, `key` names it.

export interface SenderSetup {
  /** One Int32: bumped with every command, to wake the thread's futex sleep. */
  wake: SharedArrayBuffer;
}

export type SenderCommand =
  /** Open a session at the inspector's address and send `params` at `rateHz` Poisson moments. */
  | { kind: 'open'; key: number; url: string; rateHz: number; params: object }
  /** Stop sending; close the session once the answers in flight are in, or after `waitMs`. */
  | { kind: 'pause'; key: number; waitMs: number };

export type SenderEvent =
  | { kind: 'opened'; key: number }
  /** `reply`: the CDP result of `Runtime.evaluate` (`{ result, exceptionDetails }`), or `{ error }`. */
  | { kind: 'answer'; key: number; sentUs: number; reply: unknown }
  | { kind: 'failed'; key: number; message: string }
  | { kind: 'paused'; key: number };
