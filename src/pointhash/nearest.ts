/**
 * k-nearest search of PointHash2D / PointHash3D (placeholder, being written).
 *
 * @module
 */
import type { ItemPredicate } from '../spatialhash/filter.js';
import type { PointHashBase } from './base.js';

/** Implements `nearest` of both point hashes (2D passes z = 0). */
export function nearestPoints<T>(
  _hash: PointHashBase<T>,
  _x: number,
  _y: number,
  _z: number,
  _k: number,
  _maxDistance: number,
  _out: T[],
  _mask: number,
  _predicate: ItemPredicate<T> | undefined,
): T[] {
  throw new Error('not written yet');
}
