/**
 * What a structure holds in typed arrays, for tests that bound the memory
 * of from() by the size of its data.
 *
 * @module
 */

/** Bytes of every typed array a hash holds, its cell table's included: what from() allocated. */
export function retainedBytes(hash: object): number {
  let bytes = 0;
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (ArrayBuffer.isView(value)) {
      bytes += value.byteLength;
      return;
    }
    if (depth === 0 || Array.isArray(value) || value instanceof Map) return;
    for (const key of Object.keys(value)) visit((value as Record<string, unknown>)[key], depth - 1);
  };
  visit(hash, 3);
  return bytes;
}
