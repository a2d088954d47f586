/** A Float64Array that doubles as values are pushed: text formats do not say how many numbers they hold. */
export class Float64List {
  array = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.array.length) {
      const grown = new Float64Array(this.array.length * 2);
      grown.set(this.array);
      this.array = grown;
    }
    this.array[this.length++] = value;
  }

  /** The values pushed, trimmed to their length (a copy, so the spare room is freed). */
  values(): Float64Array {
    return this.array.slice(0, this.length);
  }
}
