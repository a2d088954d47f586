// What pair-sink.ts does with a finished search's output, over the same
// layouts: flat pairs of sorted positions into original indices (writePairs),
// and partner runs into CSR rows (rowStarts, fillRows). As there, every index
// handed over is clamped to the last point (see core/bounded.ts): a grid whose
// sorted indices are not a permutation (a buffer opened unchecked, or copied
// while another thread rewrote it) gives wrong rows, never an index past the
// points, and no write lands outside the rows.

// @ts-ignore: decorator
@inline function at(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

/** order[s] clamped to `top` (unsigned, as the Uint32Array the JavaScript path reads). */
// @ts-ignore: decorator
@inline function original(order: usize, s: i32, top: u32): i32 {
  return <i32>min(load<u32>(at(order, s)), top);
}

/** writePairs of pair-sink.ts, in place: each pair of sorted positions as original indices, lower first. */
export function originalPairs(order: usize, pairs: usize, length: i32, points: i32): void {
  const top = <u32>(points - 1);
  for (let k = 0; k < length; k += 2) {
    const i = original(order, load<i32>(at(pairs, k)), top);
    const j = original(order, load<i32>(at(pairs, k + 1)), top);
    const difference = i - j;
    const m = difference & (difference >> 31);
    store<i32>(at(pairs, k), j + m);
    store<i32>(at(pairs, k + 1), i - m);
  }
}

/** rowStarts of pair-sink.ts: row starts into offsets (count + 1 entries) and each sorted position's row cursor. */
export function rowStarts(order: usize, partners: usize, rowEnd: usize, offsets: usize, cursor: usize, count: i32): void {
  const top = <u32>(count - 1);
  memory.fill(cursor, 0, <usize>count << 2);
  for (let s = 0, from = 0; s < count; s++) {
    const to = load<i32>(at(rowEnd, s));
    store<i32>(at(cursor, s), load<i32>(at(cursor, s)) + to - from);
    for (let k = from; k < to; k++) {
      const c = at(cursor, load<i32>(at(partners, k)));
      store<i32>(c, load<i32>(c) + 1);
    }
    from = to;
  }
  memory.fill(offsets, 0, <usize>(count + 1) << 2);
  for (let s = 0; s < count; s++) store<i32>(at(offsets, original(order, s, top) + 1), load<i32>(at(cursor, s)));
  for (let i = 0; i < count; i++) store<i32>(at(offsets, i + 1), load<i32>(at(offsets, i + 1)) + load<i32>(at(offsets, i)));
  for (let s = 0; s < count; s++) store<i32>(at(cursor, s), load<i32>(at(offsets, original(order, s, top))));
}

/**
 * fillRows of pair-sink.ts over every sorted position, into `indices` of
 * `total` entries (offsets[count]): an entry past them (only when the sorted
 * indices repeat, so rows overlap) is dropped, as a typed array drops it.
 */
export function fillRows(order: usize, partners: usize, rowEnd: usize, cursor: usize, indices: usize, count: i32, total: u32): void {
  fillRowsOf(order, partners, rowEnd, cursor, indices, count, total, true);
}

/**
 * fillRows for a grid whose sorted indices are a permutation that no one else
 * writes (grid-base.ts's clampsIndices false: built here, or opened from a
 * checked buffer): every row then gets exactly the entries rowStarts counted,
 * so each write lands inside its row without a test or a clamp. The tests
 * cost the fill 10% on workload 3's lidar scan and 23% on its shuffled 1e5
 * lattice (AMD EPYC, 2026-12-04).
 */
export function fillRowsTrusted(order: usize, partners: usize, rowEnd: usize, cursor: usize, indices: usize, count: i32, total: u32): void {
  fillRowsOf(order, partners, rowEnd, cursor, indices, count, total, false);
}

/** The loop of fillRows and fillRowsTrusted: `guarded` is a constant at each of its two sites, so each compiles its own. */
// @ts-ignore: decorator
@inline function fillRowsOf(
  order: usize,
  partners: usize,
  rowEnd: usize,
  cursor: usize,
  indices: usize,
  count: i32,
  total: u32,
  guarded: bool,
): void {
  const top = <u32>(count - 1);
  for (let s = 0, k = 0; s < count; s++) {
    const i = guarded ? original(order, s, top) : load<i32>(at(order, s));
    const end = load<i32>(at(rowEnd, s));
    let own = load<u32>(at(cursor, s));
    for (; k < end; k++) {
      const t = load<i32>(at(partners, k));
      const j = guarded ? original(order, t, top) : load<i32>(at(order, t));
      if (!guarded || own < total) store<i32>(indices + (<usize>own << 2), j);
      own++;
      const c = at(cursor, t);
      const w = load<u32>(c);
      if (!guarded || w < total) store<i32>(indices + (<usize>w << 2), i);
      store<u32>(c, w + 1);
    }
    store<u32>(at(cursor, s), own);
  }
}
