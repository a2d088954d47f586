// What pair-sink.ts does with a finished search's output, over the same
// layouts: flat pairs of sorted positions into original indices (writePairs),
// and partner runs into CSR rows (rowStarts, fillRows).

// @ts-nocheck: AssemblyScript, compiled by asc (see scripts/build-wasm.mjs).

// @ts-ignore: decorator
@inline function at(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

/** writePairs of pair-sink.ts, in place: each pair of sorted positions as original indices, lower first. */
export function originalPairs(order: usize, pairs: usize, length: i32): void {
  for (let k = 0; k < length; k += 2) {
    const i = load<i32>(at(order, load<i32>(at(pairs, k))));
    const j = load<i32>(at(order, load<i32>(at(pairs, k + 1))));
    const difference = i - j;
    const m = difference & (difference >> 31);
    store<i32>(at(pairs, k), j + m);
    store<i32>(at(pairs, k + 1), i - m);
  }
}

/** rowStarts of pair-sink.ts: row starts into offsets (count + 1 entries) and each sorted position's row cursor. */
export function rowStarts(order: usize, partners: usize, rowEnd: usize, offsets: usize, cursor: usize, count: i32): void {
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
  store<i32>(offsets, 0);
  for (let s = 0; s < count; s++) store<i32>(at(offsets, load<i32>(at(order, s)) + 1), load<i32>(at(cursor, s)));
  for (let i = 0; i < count; i++) store<i32>(at(offsets, i + 1), load<i32>(at(offsets, i + 1)) + load<i32>(at(offsets, i)));
  for (let s = 0; s < count; s++) store<i32>(at(cursor, s), load<i32>(at(offsets, load<i32>(at(order, s)))));
}

/** fillRows of pair-sink.ts over every sorted position. */
export function fillRows(order: usize, partners: usize, rowEnd: usize, cursor: usize, indices: usize, count: i32): void {
  for (let s = 0, k = 0; s < count; s++) {
    const i = load<i32>(at(order, s));
    const end = load<i32>(at(rowEnd, s));
    let own = load<i32>(at(cursor, s));
    for (; k < end; k++) {
      const t = load<i32>(at(partners, k));
      store<i32>(at(indices, own++), load<i32>(at(order, t)));
      const c = at(cursor, t);
      const w = load<i32>(c);
      store<i32>(at(indices, w), i);
      store<i32>(c, w + 1);
    }
    store<i32>(at(cursor, s), own);
  }
}
