// Numbers appended one by one into typed memory, for a profile's `samples` and `timeDeltas`
// (tens of millions each in a 1–2 GB file). They go into one resizable ArrayBuffer that grows in
// place: no chunks copied into a final array at the end, so the numbers are never in memory
// twice, and far fewer bytes of ArrayBuffers are allocated. That matters beyond the copy: V8
// answers every ~64 MB of new ArrayBuffer memory with a full garbage collection of the heap
// ("external memory pressure"), which at 1 GB ran a dozen times over ~400 MB of live objects.
// Past the largest resizable buffer (2 GiB), or where resizing is missing, the numbers go on in
// fixed chunks joined at the end. Int32 while every value fits, doubles otherwise (exact either way).
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

  constructor() {
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
    const g = this.growing;
    if (g) {
      // The buffer itself, cut to the values and the spare slot (a smaller size hands the rest back).
      const bytes = (this.at + 1) * 4;
      if (bytes <= g.maxByteLength) {
        g.resize(bytes);
        this.growing = undefined;
        return int32ViewWithSpareSlot(g, this.at);
      }
    }
    const length = this.filled + this.at;
    const out = this.floats ? new Float64Array(length) : int32ViewWithSpareSlot(new ArrayBuffer((length + 1) * 4), length);
    let k = 0;
    for (const c of this.chunks) {
      out.set(c, k);
      k += c.length;
    }
    out.set(this.current.subarray(0, this.at), k);
    this.chunks = [];
    return out;
  }
}
