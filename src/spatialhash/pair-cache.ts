/**
 * The pairs of forEachPair kept from one call to the next, for a world where
 * most things stand still (Box2D keeps its contacts for the same reason).
 *
 * A pair of items that neither moved, nor was inserted, removed or given a
 * new filter since the last call still intersects exactly as it did, so it
 * need not be found again: only the pairs of the items that changed are. The
 * cache holds the pairs (of handles) the last call reported and flags each
 * handle changed since; a call then (pair-refresh.ts)
 * 1. drops every kept pair with a flagged handle,
 * 2. finds the pairs of each flagged live handle by walking its own cells
 *    and the overflow list (a pair of two flagged handles is taken from the
 *    lower handle's side only),
 * 3. clears the flags and reports the pairs.
 * With 5% of 20,000 boxes moving per frame that is a thousand small box
 * walks and a pass over a flat array, instead of sorting and sweeping every
 * cell.
 *
 * Keeping pairs costs memory (two ints a pair) and a flag per change, so the
 * cache works only while it pays: a full pass records its pairs only when
 * few things changed since the call before (the next call will likely look
 * the same) and the last pass found at most {@link PAIRS_PER_ITEM} pairs per
 * item; flagging stops, and the cache is dropped, once more than one item in
 * {@link CHANGED_SHARE} has changed. A world where everything moves every
 * frame therefore pays one counter increment per change and nothing else.
 *
 * @module
 */

import { grownCopy } from '../core/grow.js';
import { ballsMeet } from './balls.js';

/**
 * The cache is used (and a full pass records) while at most one item in this
 * many changed since the last call; past that the full pass is faster.
 */
const CHANGED_SHARE = 4;
/** A full pass records its pairs only when the last pass found at most this many per item. */
const PAIRS_PER_ITEM = 32;
/** Changes always allowed, however few the items. */
const MIN_CHANGED = 64;

/** @internal Pair cache of one hash (see the module comment). */
export class PairCache {
  /**
   * True while {@link pairs} holds every intersecting, accepted pair of
   * handles as of the last call, except those with a flagged handle, and
   * {@link changed} lists every flagged handle.
   */
  valid = false;
  /** Pairs of handles, two ints each. */
  pairs = new Int32Array(0);
  /** Number of pairs in {@link pairs}. */
  pairCount = 0;
  /** 1 for a handle changed since the last call (only while valid). */
  flags = new Uint8Array(0);
  /** The flagged handles, each once. */
  changed = new Int32Array(0);
  /** Number of handles in {@link changed}. */
  changedCount = 0;
  /** Changes (inserts, moves, removes, filters) since the last call, counted whether valid or not. */
  changes = 0;
  /** Pairs the last call found, or -1 when unknown. */
  lastPairs = -1;
  /** Flagged handles allowed before the cache is dropped; set at each call from the item count. */
  private limit = 0;

  /**
   * Notes that handle `h` changed. O(1); drops the cache when too many
   * changed. Small, so that V8 inlines it into every move (see
   * SpatialHash2D's move): the flagging is {@link PairCache.flag}.
   */
  touch(h: number): void {
    this.changes++;
    if (this.valid && this.flags[h] !== 1) this.flag(h);
  }

  /** Flags handle `h` for the next refresh, or drops the cache when the limit is reached. */
  private flag(h: number): void {
    if (this.changedCount === this.limit) {
      this.drop();
      return;
    }
    if (h >= this.flags.length) this.flags = grownCopy(this.flags, Math.max(h + 1, this.flags.length * 2));
    this.flags[h] = 1;
    this.changed[this.changedCount++] = h;
  }

  /** Forgets the pairs (the next call makes a full pass). */
  drop(): void {
    this.unflag();
    this.valid = false;
  }

  /** Whether a full pass over a hash of `items` items should record its pairs. */
  worthRecording(items: number): boolean {
    return this.changes <= changedLimit(items) && this.lastPairs <= pairLimit(items);
  }

  /** Empties the pair list before a full pass records into it. */
  begin(): void {
    this.unflag();
    this.pairCount = 0;
  }

  /** Appends the pair (a, b). */
  push(a: number, b: number): void {
    const at = this.pairCount * 2;
    if (at === this.pairs.length) this.pairs = grownCopy(this.pairs, Math.max(64, at * 2));
    this.pairs[at] = a;
    this.pairs[at + 1] = b;
    this.pairCount++;
  }

  /**
   * Ends a call that found `found` pairs: they are kept (and exact) when
   * `kept` and not too many, and flagging starts again from nothing.
   */
  finish(kept: boolean, items: number, handleLimit: number, found: number): void {
    // The refresh has found the flagged handles' pairs again: from here on a
    // flag means a change after this call.
    this.unflag();
    this.changes = 0;
    this.lastPairs = found;
    this.limit = changedLimit(items);
    this.valid = kept && found <= pairLimit(items);
    if (!this.valid) return;
    if (this.changed.length < this.limit) this.changed = new Int32Array(this.limit);
    // Every handle in use has a flag, so no read past the end (touch grows it for new ones).
    if (this.flags.length < handleLimit) this.flags = grownCopy(this.flags, handleLimit);
  }

  /**
   * Calls `visit` with the items of every pair: step 3's report. The list
   * holds box pairs; with `balls` (a dimension, else 0) only those whose
   * balls meet in `boxes` are reported, so one list serves both shapes.
   */
  report<T>(items: (T | undefined)[], visit: (a: T, b: T) => void, boxes: Float64Array, balls: number): void {
    const pairs = this.pairs;
    const end = this.pairCount * 2;
    if (balls === 0) {
      for (let i = 0; i < end; i += 2) visit(items[pairs[i]] as T, items[pairs[i + 1]] as T);
      return;
    }
    const stride = 2 * balls;
    for (let i = 0; i < end; i += 2) {
      const a = pairs[i];
      const b = pairs[i + 1];
      if (ballsMeet(boxes, a * stride, boxes, b * stride, balls)) visit(items[a] as T, items[b] as T);
    }
  }

  private unflag(): void {
    for (let i = 0; i < this.changedCount; i++) this.flags[this.changed[i]] = 0;
    this.changedCount = 0;
  }
}

/** Most pairs kept for a hash of `items` items. */
function pairLimit(items: number): number {
  return PAIRS_PER_ITEM * items + MIN_CHANGED;
}

/** Flagged handles allowed for a hash of `items` items. */
function changedLimit(items: number): number {
  return Math.max(MIN_CHANGED, Math.floor(items / CHANGED_SHARE));
}
