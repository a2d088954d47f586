/**
 * Radius classes: the nodes split by radius, each class with a grid whose
 * cells fit its largest radius. One grid sized from the largest radius loses
 * when a few bubbles are huge (every cell then holds crowds of small nodes);
 * one sized from the common radius makes a huge node's reach span thousands
 * of cells for every small node's query. With a class per factor of 4 in
 * radius, a query into a class reaches about three cells per axis of that
 * class's grid, whatever the mix; a huge node's own query scans the small
 * classes' cells its reach covers, as it must.
 *
 * @module
 */

/** Radii within this factor of each other share a class. */
const CLASS_RATIO = 4;

/** At most this many classes: radii below the largest / 4^(MAX_CLASSES - 1) share the last one. */
export const MAX_CLASSES = 8;

/**
 * How far a node may move from where its grid filed it before it is filed
 * again, as a fraction of the class's largest diameter. The cells are that
 * much wider (a query reaches radius + radius + skin), so a larger skin means
 * more candidates per query and fewer refilings. 1/4 measured best on both
 * converged layouts (almost nothing moves that far) and random starts (where
 * many nodes do): see bench/d3-collide.ts.
 */
export const SKIN = 0.25;

/** The classes of one set of radii. */
export interface RadiusClasses {
  /** How many classes (0 when no pair can overlap: every radius is 0 or NaN). */
  count: number;
  /** Class of each node (-1: the node collides with nothing, its radius being NaN). */
  classOf: Int32Array;
  /** Largest radius of each class. */
  largest: Float64Array;
  /** Nodes in each class. */
  members: Int32Array;
}

/**
 * Splits `radii[0..n)` (each finite and >= 0, or NaN) into classes, largest
 * radii first. Radius 0 joins the class of the smallest positive radii: two
 * such nodes never overlap, but either overlaps a larger node.
 */
export function radiusClasses(radii: Float64Array, n: number, classOf: Int32Array): RadiusClasses {
  let largest = 0;
  for (let i = 0; i < n; i++) if (radii[i] > largest) largest = radii[i];
  const rawMembers = new Int32Array(MAX_CLASSES);
  const raw = classOf;
  let finest = -1;
  for (let i = 0; i < n; i++) {
    const r = radii[i];
    if (!(r > 0)) {
      raw[i] = r === 0 ? -2 : -1;
      continue;
    }
    // The ratio is >= 1; its base-4 logarithm's floor, capped. Rounding only moves a radius between two
    // neighbouring classes, which changes speed, never an answer.
    const k = Math.min(MAX_CLASSES - 1, Math.floor(Math.log(largest / r) / Math.log(CLASS_RATIO)));
    raw[i] = k;
    rawMembers[k]++;
    if (k > finest) finest = k;
  }
  // Number the classes in use 0, 1, ... (coarsest first).
  const renumber = new Int32Array(MAX_CLASSES).fill(-1);
  let count = 0;
  for (let k = 0; k < MAX_CLASSES; k++) if (rawMembers[k] > 0) renumber[k] = count++;
  const members = new Int32Array(count);
  const largestOf = new Float64Array(count);
  for (let i = 0; i < n; i++) {
    const k = raw[i];
    // Radius 0: the finest class (none exists when every radius is 0 or NaN: then nothing overlaps).
    const c = k >= 0 ? renumber[k] : k === -2 && finest >= 0 ? renumber[finest] : -1;
    classOf[i] = c;
    if (c < 0) continue;
    members[c]++;
    if (radii[i] > largestOf[c]) largestOf[c] = radii[i];
  }
  return { count, classOf, largest: largestOf, members };
}
