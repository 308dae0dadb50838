// What the app prints goes into a file the kernel writes, not through a pipe Hotline reads: an app
// that logs every request would otherwise have Hotline's own process wake for each line in the
// measured sub-windows, competing with it for a small machine's CPU (docs/measurement.md, "What
// runs beside the app"). The file is unlinked at once: it lives as long as the descriptors (the
// app's and ours) and leaves nothing behind, whatever happens to the run.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** How much of the end of the output error messages quote. */
export const OUTPUT_TAIL_BYTES = 16 * 1024;

export class OutputLog {
  private closed = false;
  private kept = '';
  private following: { timer: NodeJS.Timeout; flush(): void } | undefined;

  private constructor(
    /** Opened for appending: the app's writes and ours (its stderr, read through a pipe) interleave whole. */
    readonly fd: number,
  ) {}

  static open(): OutputLog {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-output-'));
    const fd = fs.openSync(path.join(dir, 'app.log'), 'a+');
    fs.rmSync(dir, { recursive: true, force: true });
    return new OutputLog(fd);
  }

  /** Text that reached Hotline rather than the file (the app's stderr, which Hotline reads for its inspector). */
  append(text: string): void {
    if (!this.closed && text !== '') fs.writeSync(this.fd, text);
  }

  /** Everything printed so far (all of it once closed). */
  all(): string {
    return this.closed ? this.kept : this.read(0);
  }

  /** The last `bytes` of it, from a whole character on. */
  tail(bytes = OUTPUT_TAIL_BYTES): string {
    if (this.closed) return this.kept.slice(-bytes);
    const size = fs.fstatSync(this.fd).size;
    return this.read(Math.max(0, size - bytes)).replace(/^\uFFFD+/, '');
  }

  /**
   * Calls `onText` with what was printed since, every `everyMs` (the editor's Output channel):
   * one read a tick however much the app logs, and nothing at all when nobody follows.
   */
  follow(onText: (text: string) => void, everyMs = 250): void {
    let offset = 0;
    const decoder = new TextDecoder();
    const flush = (): void => {
      const size = fs.fstatSync(this.fd).size;
      if (size <= offset) return;
      const text = decoder.decode(this.bytes(offset, size), { stream: true });
      offset = size;
      if (text !== '') onText(text);
    };
    const timer = setInterval(flush, everyMs);
    timer.unref();
    this.following = { timer, flush };
  }

  /** Keeps the whole output in memory and lets the file go: once the app has been stopped. */
  close(): void {
    if (this.closed) return;
    if (this.following) {
      clearInterval(this.following.timer);
      this.following.flush();
    }
    this.kept = this.read(0);
    this.closed = true;
    fs.closeSync(this.fd);
  }

  private read(from: number): string {
    return new TextDecoder().decode(this.bytes(from, fs.fstatSync(this.fd).size));
  }

  private bytes(from: number, to: number): Buffer {
    const out = Buffer.alloc(Math.max(0, to - from));
    let done = 0;
    while (done < out.length) {
      const n = fs.readSync(this.fd, out, done, out.length - done, from + done);
      if (n === 0) break;
      done += n;
    }
    return out.subarray(0, done);
  }
}
