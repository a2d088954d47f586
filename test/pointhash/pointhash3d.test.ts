/**
 * PointHash3D against a brute-force model: seeded random command sequences and
 * hand-computed cases (test/support/point-oracle.ts), with the 3D argument
 * lists spelled out.
 */

import { PointHash3D } from '../../src/pointhash/pointhash3d.js';
import type { ItemFilter } from '../../src/spatialhash/filter.js';
import {
  describePointHashExamples,
  describePointHashProperties,
  type PointHashFactory,
  type PointHashUnderTest,
} from '../support/point-oracle.js';

type Options = ConstructorParameters<typeof PointHash3D>[0];
type Visitor = (item: unknown, id: number) => boolean | undefined;
type Predicate = (item: unknown, id: number) => boolean;

/** The 3D hash behind the flat-array interface the shared tests use; bad arguments pass through untouched. */
function wrap(hash: PointHash3D<unknown>): PointHashUnderTest {
  const n = (v: unknown) => v as number;
  return {
    get size() {
      return hash.size;
    },
    get cellSize() {
      return hash.cellSize;
    },
    get cellCount() {
      return hash.cellCount;
    },
    get trackItems() {
      return hash.trackItems;
    },
    insert: (item, p, filter) => hash.insert(item, p[0], p[1], p[2], filter as ItemFilter | undefined),
    update: (item, p) => hash.update(item, p[0], p[1], p[2]),
    updateById: (id, p) => hash.updateById(n(id), p[0], p[1], p[2]),
    remove: (item) => hash.remove(item),
    removeById: (id) => hash.removeById(n(id)),
    has: (item) => hash.has(item),
    hasId: (id) => hash.hasId(n(id)),
    idOf: (item) => hash.idOf(item),
    itemById: (id) => hash.itemById(n(id)),
    positionById: (id, out) => hash.positionById(n(id), out),
    getPosition: (item, out) => hash.getPosition(item, out),
    categoryOf: (id) => hash.categoryOf(n(id)),
    maskOf: (id) => hash.maskOf(n(id)),
    setFilter: (item, category, mask) => hash.setFilter(item, n(category), n(mask)),
    setFilterById: (id, category, mask) => hash.setFilterById(n(id), n(category), n(mask)),
    clear: () => hash.clear(),
    queryBox: (b, out, mask) => hash.queryBox(b[0], b[1], b[2], b[3], b[4], b[5], out, n(mask)),
    forEachOverlap: (b, visit, mask) =>
      hash.forEachOverlap(b[0], b[1], b[2], b[3], b[4], b[5], visit as Visitor, n(mask)),
    queryRadius: (p, radius, out, mask) => hash.queryRadius(p[0], p[1], p[2], n(radius), out, n(mask)),
    nearest: (p, k, maxDistance, out, mask, predicate) =>
      hash.nearest(p[0], p[1], p[2], n(k), n(maxDistance), out, n(mask), predicate as Predicate | undefined),
    forEachPair: (radius, visit) => hash.forEachPair(n(radius), visit as (a: unknown, b: unknown) => void),
    forEach: (visit) => hash.forEach(visit as (item: unknown, id: number) => void),
    [Symbol.iterator]: () => hash[Symbol.iterator](),
    validate: () => hash.validate(),
  };
}

const factory: PointHashFactory = (options) => wrap(new PointHash3D<unknown>(options as Options));

describePointHashProperties(3, factory);
describePointHashExamples(3, factory);
