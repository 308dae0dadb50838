// The `samples` and `timeDeltas` arrays of a big .cpuprofile read on a second thread while the
// streaming reader (cpuprofile-stream.ts) reads the nodes before them: they are most of the
// file's bytes (an Int32 parse per number), and the nodes are most of the reader's other work.
// The worker guesses where the samples start (the first `"samples":[` in the file) and reads the
// plain integer arrays V8 writes from there; the reader takes its arrays only when they start
// exactly where its own scan finds those keys at the top level, and reads them itself otherwise
// (any other layout, a fraction, a space, a wrong guess, a worker that failed). So what is read is
// always what the reader's own scan would have read.
//
// The worker's code is a string, not a module: a worker needs a file to run, and this reader is
// bundled into the CLI, the language server and the bench alike, each in its own place. Its
// answer is taken synchronously (the reader is synchronous): a shared flag to wait on, and
// receiveMessageOnPort for the arrays, which are moved, not copied.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { int32ViewWithSpareSlot } from './spare-slot.ts';

/** What the worker found: for each array, where its `[` is in the file and where it ends. */
interface Ahead {
  samplesAt?: number;
  samplesEnd?: number;
  samples?: ArrayBuffer;
  samplesCount?: number;
  deltasAt?: number;
  deltasEnd?: number;
  deltas?: ArrayBuffer;
  deltasCount?: number;
}

/** The flag's values: the worker's code began to run; it has posted its answer. */
const STARTED = 1;
const POSTED = 2;
/** How long to wait for a worker that never began (it could not start): then the reader reads. */
const START_TIMEOUT_MS = 10_000;

const WORKER_SOURCE = String.raw`
'use strict';
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { file, port, flag, windowBytes } = workerData;
Atomics.store(flag, 0, ${STARTED});
const SAMPLES = Buffer.from('"samples":[', 'latin1');
const DELTAS = Buffer.from(',"timeDeltas":[', 'latin1');
const buf = Buffer.allocUnsafe(windowBytes + 1);
let fileAt = 0, end = 0, eof = false, fd = -1;
// Keeps the window's bytes from keep on, at its start, and reads more after them.
function refill(keep) {
  buf.copyWithin(0, keep, end);
  fileAt += keep;
  end -= keep;
  while (end < windowBytes && !eof) {
    const n = fs.readSync(fd, buf, end, windowBytes - end, fileAt + end);
    if (n <= 0) eof = true;
    else end += n;
  }
  buf[end] = 0;
}
// The numbers from window index i (just past a '['): -?(0|[1-9][0-9]{0,8}) tokens, commas, ']'.
// Anything else: undefined (the reader reads that array itself).
function numbers(i) {
  let values = new Int32Array(1 << 20);
  let count = 0;
  for (;;) {
    if (end - i <= 16 && !eof) {
      refill(i);
      i = 0;
    }
    const stop = eof ? end : end - 16;
    if (i >= stop) return undefined;
    while (i < stop) {
      let c = buf[i];
      const negative = c === 0x2d;
      if (negative) c = buf[++i];
      if (c < 0x30 || c > 0x39) return undefined;
      const from = i;
      let v = c - 0x30;
      c = buf[++i];
      if (v === 0) {
        if (c >= 0x30 && c <= 0x39) return undefined;
      } else
        while (c >= 0x30 && c <= 0x39) {
          v = v * 10 + (c - 0x30);
          c = buf[++i];
        }
      if (i - from > 9) return undefined;
      if (count + 1 >= values.length) {
        const bigger = new Int32Array(values.length * 2);
        bigger.set(values);
        values = bigger;
      }
      values[count++] = negative ? -v : v;
      i++;
      if (c === 0x5d) return { values, count, end: fileAt + i, at: i };
      if (c !== 0x2c) return undefined;
    }
  }
}
const answer = {};
const moved = [];
try {
  fd = fs.openSync(file, 'r');
  refill(0);
  let k = -1;
  for (;;) {
    k = buf.subarray(0, end).indexOf(SAMPLES);
    if (k >= 0 || eof) break;
    refill(Math.max(0, end - SAMPLES.length));
  }
  if (k >= 0) {
    answer.samplesAt = fileAt + k + SAMPLES.length - 1;
    const samples = numbers(k + SAMPLES.length);
    if (samples) {
      Object.assign(answer, { samplesEnd: samples.end, samples: samples.values.buffer, samplesCount: samples.count });
      moved.push(samples.values.buffer);
      let i = samples.at;
      if (end - i < 64 && !eof) {
        refill(i);
        i = 0;
      }
      if (buf.subarray(i, i + DELTAS.length).equals(DELTAS)) {
        const at = fileAt + i + DELTAS.length - 1;
        const deltas = numbers(i + DELTAS.length);
        if (deltas) {
          Object.assign(answer, { deltasAt: at, deltasEnd: deltas.end, deltas: deltas.values.buffer, deltasCount: deltas.count });
          moved.push(deltas.values.buffer);
        }
      }
    }
  }
} catch {
  // whatever went wrong, the reader reads the arrays itself
} finally {
  if (fd >= 0) fs.closeSync(fd);
  port.postMessage(answer, moved);
  Atomics.store(flag, 0, ${POSTED});
  Atomics.notify(flag, 0);
}
`;

export class NumbersAhead {
  private readonly worker: Worker | undefined;
  private readonly port: MessagePort | undefined;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private answer: Ahead | undefined;

  constructor(file: string, windowBytes: number) {
    try {
      const { port1, port2 } = new MessageChannel();
      this.worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { file, port: port2, flag: this.flag, windowBytes },
        transferList: [port2],
        // Not the reader's process flags (a loader, an inspector): this code needs none.
        execArgv: [],
        stdout: false,
        stderr: false,
      });
      this.worker.unref();
      // An error in the worker is only a worse guess: the reader reads the arrays itself.
      this.worker.on('error', () => undefined);
      this.port = port1;
    } catch {
      this.answer = {};
    }
  }

  /**
   * The array of `key` whose `[` is at byte `at` of the file, and the byte just past its `]`,
   * when the worker read exactly that array; else undefined. Waits for the worker's answer.
   */
  take(key: 'samples' | 'timeDeltas', at: number): { values: Int32Array; end: number } | undefined {
    const a = this.wait();
    if (key === 'samples' && a.samples && a.samplesAt === at)
      return { values: int32ViewWithSpareSlot(a.samples, a.samplesCount!), end: a.samplesEnd! };
    if (key === 'timeDeltas' && a.deltas && a.deltasAt === at)
      return { values: int32ViewWithSpareSlot(a.deltas, a.deltasCount!), end: a.deltasEnd! };
    return undefined;
  }

  /** Lets the worker go (its answer, if not taken, with it). */
  close(): void {
    this.port?.close();
    void this.worker?.terminate();
  }

  private wait(): Ahead {
    if (this.answer) return this.answer;
    const began = Date.now();
    while (Atomics.load(this.flag, 0) !== POSTED) {
      if (Atomics.load(this.flag, 0) === 0 && Date.now() - began > START_TIMEOUT_MS) {
        this.answer = {};
        return this.answer;
      }
      Atomics.wait(this.flag, 0, Atomics.load(this.flag, 0), 50);
    }
    this.answer = (receiveMessageOnPort(this.port!)?.message as Ahead | undefined) ?? {};
    return this.answer;
  }
}
