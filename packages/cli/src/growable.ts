/** Typed arrays that double as values are pushed: text formats do not say how many numbers they hold. */

type Typed = Float64Array | Uint32Array | Uint8Array;

/** A typed array that doubles when full. */
class TypedList<T extends Typed> {
  array: T;
  length = 0;

  constructor(private readonly make: (length: number) => T) {
    this.array = make(1024);
  }

  push(value: number): void {
    if (this.length === this.array.length) {
      const grown = this.make(this.array.length * 2);
      grown.set(this.array);
      this.array = grown;
    }
    this.array[this.length++] = value;
  }

  /** The values pushed, trimmed to their length (a copy, so the spare room is freed). */
  values(): T {
    return this.array.slice(0, this.length) as T;
  }
}

// One factory per type, shared by every list: a closure made per list was another call target for each list, and
// optimised code that grew one list was thrown away when the next list grew ("wrong call target").
const float64 = (length: number) => new Float64Array(length);
const uint32 = (length: number) => new Uint32Array(length);
const uint8 = (length: number) => new Uint8Array(length);

/** A growable Float64Array. */
export class Float64List extends TypedList<Float64Array> {
  constructor() {
    super(float64);
  }
}

/** A growable Uint32Array. */
export class Uint32List extends TypedList<Uint32Array> {
  constructor() {
    super(uint32);
  }
}

/** A growable Uint8Array. */
export class Uint8List extends TypedList<Uint8Array> {
  constructor() {
    super(uint8);
  }
}
