/**
 * Fuzz cases for the four dynamic hashes with extreme numbers: command
 * sequences (insert, update, remove, box, radius and nearest queries, ray
 * casts for the box hashes, pairs) whose coordinates sit next to the origin,
 * on cell borders, millions of cells away, past 2^52 cells and near the
 * largest double, with cell sizes from subnormal to near the largest double,
 * radii whose squares underflow or overflow, and rays with subnormal or huge
 * directions. After each query the answer is compared with brute force over
 * a model of what was stored, and validate() runs at the end of each case.
 * Bad arguments are not the point here (the coercion and example tests cover
 * them); every call is valid, and none may throw, hang or answer wrongly.
 *
 * Each case is at most 24 items and 80 commands, and every query's work is
 * bounded by the hash (the scans that replace walks over empty cells), so a
 * case finishes quickly whatever its numbers; the runner's watchdog names one
 * that does not.
 *
 * @module
 */

import fc from 'fast-check';
import { expect } from 'vitest';
import { MAX_CELLS_PER_ITEM_LIMIT } from '../../src/index.js';
import { nearestWork as pointWork } from '../../src/pointhash/nearest.js';
import { nearestWork as boxWork } from '../../src/spatialhash/nearest.js';
import { EXTREME_CELL_SIZES } from '../spatialhash/far-geometry.js';
import {
  checkNearest,
  checkPairs,
  checkQueryBox,
  checkQueryRadius,
  checkRay,
  KINDS,
  type Kind,
  type Model,
  makeHash,
} from './hash-model.js';
import { fuzz } from './support.js';

/** Where items and queries gather, per axis. */
const PLACES = [0, 1, -1, 1e3, -1e8, 1e15, 2 ** 52, -(2 ** 60), 1e300, -1e306, Number.MAX_VALUE / 2, -Number.MAX_VALUE];

/** Offsets from a place, in cells (times the cell size) or in ulps of the place. */
const offsetArb = fc.record({
  cells: fc.integer({ min: -4, max: 4 }).map((n) => n / 2),
  ulps: fc.constantFrom(0, 0, 1, -1, 2),
});

/** A coordinate: a place, plus some cells, plus some ulps, kept finite. */
interface Coordinate {
  place: number;
  cells: number;
  ulps: number;
}

const coordinateArb: fc.Arbitrary<Coordinate> = fc
  .tuple(fc.constantFrom(...PLACES), offsetArb)
  .map(([place, o]) => ({ place, cells: o.cells, ulps: o.ulps }));

/** The next double above (n > 0) or below (n < 0) x, n times. */
function stepUlps(x: number, n: number): number {
  const view = new DataView(new ArrayBuffer(8));
  let v = x;
  for (let i = 0; i < Math.abs(n); i++) {
    if (v === 0) {
      v = n > 0 ? Number.MIN_VALUE : -Number.MIN_VALUE;
      continue;
    }
    view.setFloat64(0, v);
    const bits = view.getBigUint64(0);
    view.setBigUint64(0, v > 0 === n > 0 ? bits + 1n : bits - 1n);
    const next = view.getFloat64(0);
    if (Number.isFinite(next)) v = next;
  }
  return v;
}

function resolve(c: Coordinate, cellSize: number): number {
  const shifted = c.place + c.cells * cellSize;
  return stepUlps(Number.isFinite(shifted) ? shifted : c.place, c.ulps);
}

type Command =
  | { op: 'insert'; item: number; at: Coordinate[]; size: number[] }
  | { op: 'update'; item: number; at: Coordinate[]; size: number[] }
  | { op: 'remove'; item: number }
  | { op: 'box'; at: Coordinate[]; size: number[] }
  | { op: 'radius'; at: Coordinate[]; radius: number }
  | { op: 'nearest'; at: Coordinate[]; k: number; maxDistance: number }
  | { op: 'ray'; at: Coordinate[]; direction: number[]; maxDistance: number }
  | { op: 'pairs'; radius: number };

/** Box sides, in cells (times the cell size) when below 100, else absolute. */
const sizeArb = fc.constantFrom(0, 0, 0.5, 1, 3, 1e300, Number.MAX_VALUE);
/** Radii and distances: zero, subnormal, squares that underflow or overflow, huge, infinite; or some cells. */
const distanceArb = fc.constantFrom(
  0,
  5e-324,
  1e-170,
  0.5,
  2,
  1e150,
  1e160,
  1e300,
  Number.MAX_VALUE,
  Number.POSITIVE_INFINITY,
);
/** Ray direction components: zero, unit, subnormal, huge. */
const componentArb = fc.constantFrom(0, 0, 1, -1, 3, 5e-324, -5e-324, 1e-300, 1e308, -1e308);

function commandArb(dim: number): fc.Arbitrary<Command> {
  const at = fc.array(coordinateArb, { minLength: dim, maxLength: dim });
  const size = fc.array(sizeArb, { minLength: dim, maxLength: dim });
  const item = fc.nat(23);
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ op: fc.constant('insert' as const), item, at, size }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('update' as const), item, at, size }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), item }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('box' as const), at, size }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('radius' as const), at, radius: distanceArb }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('nearest' as const),
        at,
        k: fc.constantFrom(1, 2, 3, 30),
        maxDistance: distanceArb,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('ray' as const),
        at,
        direction: fc.array(componentArb, { minLength: dim, maxLength: dim }),
        maxDistance: distanceArb,
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('pairs' as const), radius: distanceArb }) },
  );
}

interface ExtremeCase {
  kind: Kind;
  cellSize: number;
  maxCellsPerItem: number;
  commands: Command[];
}

const caseArb: fc.Arbitrary<ExtremeCase> = fc.constantFrom(...KINDS).chain((kind) =>
  fc.record({
    kind: fc.constant(kind),
    cellSize: fc.constantFrom(...EXTREME_CELL_SIZES),
    maxCellsPerItem: fc.constantFrom(1, 4, 256, MAX_CELLS_PER_ITEM_LIMIT),
    commands: fc.array(commandArb(kind.dim), { minLength: 1, maxLength: 80, size: 'max' }),
  }),
);

/** The box at `at` with sides `size` (in cells below 100), every bound finite. */
function boxAt(at: Coordinate[], size: number[], cellSize: number, points: boolean): number[] {
  const lo = at.map((c) => resolve(c, cellSize));
  const hi = lo.map((v, a) => {
    if (points) return v;
    const side = size[a] < 100 ? size[a] * cellSize : size[a];
    const w = v + side;
    return Number.isFinite(w) ? w : Number.MAX_VALUE;
  });
  return [...lo, ...hi];
}

function runCase(c: ExtremeCase): void {
  const { kind, cellSize } = c;
  const dim = kind.dim;
  const adapted = makeHash(kind, { cellSize, maxCellsPerItem: c.maxCellsPerItem });
  const model: Model = new Map();
  for (const cmd of c.commands) {
    if (cmd.op === 'insert' || cmd.op === 'update') {
      const box = boxAt(cmd.at, cmd.size, cellSize, kind.points);
      if (model.has(cmd.item)) adapted.update(cmd.item, box);
      else adapted.insert(cmd.item, box);
      model.set(cmd.item, box);
    } else if (cmd.op === 'remove') {
      expect(adapted.remove(cmd.item)).toBe(model.delete(cmd.item));
    } else if (cmd.op === 'box') {
      checkQueryBox(adapted, model, boxAt(cmd.at, cmd.size, cellSize, false));
    } else if (cmd.op === 'radius') {
      checkQueryRadius(adapted, model, boxAt(cmd.at, [], cellSize, true).slice(0, dim), cmd.radius);
    } else if (cmd.op === 'nearest') {
      checkNearest(adapted, model, boxAt(cmd.at, [], cellSize, true).slice(0, dim), cmd.k, cmd.maxDistance);
      // Its cost: within a few times the cell ids, slots and overflow items (the count of issue 31).
      const work = kind.points ? pointWork : boxWork;
      const inside = adapted.hash as unknown as {
        cells: { idLimit: number };
        entryCount?: number;
        overflowCount?: number;
      };
      const slots = kind.points ? adapted.hash.size : (inside.entryCount ?? 0) + (inside.overflowCount ?? 0);
      const total = work.steps + work.lookups + work.scanned + work.scored;
      expect(total, 'nearest() work').toBeLessThanOrEqual(4 * (inside.cells.idLimit + slots) + 16);
    } else if (cmd.op === 'ray') {
      if (kind.points || cmd.direction.every((v) => v === 0)) continue;
      checkRay(adapted, model, boxAt(cmd.at, [], cellSize, true).slice(0, dim), cmd.direction, cmd.maxDistance);
    } else {
      checkPairs(adapted, model, cmd.radius);
    }
  }
  adapted.validate();
  expect(adapted.hash.size).toBe(model.size);
}

export const suites = {
  extremes(): void {
    fuzz('hashes: extreme coordinates and cell sizes against brute force', caseArb, runCase, 2000);
  },
};
