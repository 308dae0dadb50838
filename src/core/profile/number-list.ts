// Numbers appended one by one into typed memory, for a profile's `samples` and `timeDeltas`
// (tens of millions each in a 1–2 GB file). With the count known (the time deltas, read after as
// many samples) they go straight into an array of that size. Otherwise into one resizable
// ArrayBuffer grown in place, copied once at the end into a plain array (a plain one: V8 reads
// arrays over resizable buffers at half the speed, and every later pass reads these) and the
// buffer shrunk to nothing. Either way far fewer bytes of ArrayBuffers are allocated than with
// chunks joined at the end, which matters beyond the copy: V8 answers every ~64 MB of new
// ArrayBuffer memory with a full garbage collection of the heap ("external memory pressure"),
// which at 1 GB ran a dozen times over ~400 MB of live objects. Past the largest resizable
// buffer (2 GiB), where resizing is missing, or past the count given, the numbers go on in fixed
// chunks joined at the end. Int32 while every value fits, doubles otherwise (exact either way).
import { int32ViewWithSpareSlot } from './spare-slot.ts';

/** Elements of a fixed chunk (and the resizable buffer's first size). */
const CHUNK = 1 << 20;
/** The largest resizable ArrayBuffer V8 makes. */
const MAX_RESIZABLE_BYTES = 2 ** 31;

/** ES2024's resizable ArrayBuffer, which the ES2022 lib this project compiles against does not declare. */
interface ResizableBuffer extends ArrayBuffer {
  resize(bytes: number): void;
  readonly maxByteLength: number;
}

function resizableBuffer(bytes: number): ResizableBuffer | undefined {
  try {
    const Ctor = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ResizableBuffer;
    const b = new Ctor(bytes, { maxByteLength: MAX_RESIZABLE_BYTES });
    return typeof b.resize === 'function' && b.maxByteLength === MAX_RESIZABLE_BYTES ? b : undefined;
  } catch {
    return undefined; // a runtime without resizable buffers: fixed chunks
  }
}

export class NumberList {
  /** Filled chunks, in order, before `current` (only once the resizable buffer is full or gone). */
  private chunks: Array<Int32Array | Float64Array> = [];
  private filled = 0;
  /** The resizable buffer under `current` while it is one. */
  private growing: ResizableBuffer | undefined;
  /** The array being filled and its fill: the scan writes int32 values straight into them. */
  current: Int32Array | Float64Array;
  at = 0;
  floats = false;

  /** `expected`: how many numbers there should be, when known (a wrong count only costs speed). */
  constructor(expected?: number) {
    if (expected !== undefined) {
      this.current = int32ViewWithSpareSlot(new ArrayBuffer((expected + 1) * 4), expected);
      return;
    }
    this.growing = resizableBuffer(CHUNK * 4);
    this.current = this.growing ? new Int32Array(this.growing) : new Int32Array(CHUNK);
  }

  /** The slow path of a write: a full array, or the first value that is not an int32. */
  push(v: number): void {
    if (!this.floats && (v | 0) !== v) this.toFloats();
    if (this.at === this.current.length) this.grow();
    this.current[this.at++] = v;
  }

  private grow(): void {
    const g = this.growing;
    if (g && g.byteLength < g.maxByteLength) {
      g.resize(Math.min(g.maxByteLength, g.byteLength * 2));
      this.current = new Int32Array(g);
      return;
    }
    this.growing = undefined;
    this.chunks.push(this.current);
    this.filled += this.at;
    this.current = this.floats ? new Float64Array(CHUNK) : new Int32Array(CHUNK);
    this.at = 0;
  }

  private toFloats(): void {
    this.floats = true;
    this.growing = undefined;
    this.chunks = this.chunks.map((c) => Float64Array.from(c));
    const f = new Float64Array(Math.max(CHUNK, this.at));
    f.set(this.current.subarray(0, this.at));
    this.current = f;
  }

  /**
   * One array of exactly the values, the list let go. Int32 values get a spare slot after them,
   * so the profile tree's durations can be a view of the time deltas (spare-slot.ts).
   */
  done(): Int32Array | Float64Array {
    const c = this.current;
    if (!this.floats && this.chunks.length === 0 && !this.growing && c.buffer.byteLength >= (this.at + 1) * 4)
      return int32ViewWithSpareSlot(c.buffer as ArrayBuffer, this.at); // the array of the count given
    const length = this.filled + this.at;
    const out = this.floats
      ? new Float64Array(length)
      : int32ViewWithSpareSlot(new ArrayBuffer((length + 1) * 4), length);
    let k = 0;
    for (const c of this.chunks) {
      out.set(c, k);
      k += c.length;
    }
    out.set(this.current.subarray(0, this.at), k);
    this.chunks = [];
    // The resizable buffer's memory handed back now, not whenever the garbage collector gets to it.
    this.growing?.resize(0);
    this.growing = undefined;
    return out;
  }
}
