/**
 * The ball test of `forEachPair(visit, { shape: 'ball' })`, on its own so
 * that the sweeps, the overflow walk and the pair cache's report share it
 * without importing each other.
 *
 * @module
 */

/**
 * True when the balls of boxes b1 of `boxes1` and b2 of `boxes2` meet (closed:
 * touching counts). An item's ball is the one inscribed in its box: centred on
 * the box's centre, with a radius of half its smallest side, so a circle or
 * sphere given by its bounding box is itself. Worked at twice the scale (sums
 * of min and max, whole sides), so no halving rounds:
 * `sum over axes of ((min2 + max2) - (min1 + max1))^2 <= (side1 + side2)^2`.
 * That is the centre and radius test with every length doubled: the same
 * answer wherever halving is exact and no square overflows (magnitudes from
 * about 1e-300 to 1e153).
 */
export function ballsMeet(boxes1: Float64Array, b1: number, boxes2: Float64Array, b2: number, dim: number): boolean {
  let distance = 0;
  let side1 = Number.POSITIVE_INFINITY;
  let side2 = Number.POSITIVE_INFINITY;
  for (let a = 0; a < dim; a++) {
    const d = boxes2[b2 + a] + boxes2[b2 + dim + a] - (boxes1[b1 + a] + boxes1[b1 + dim + a]);
    distance += d * d;
    side1 = Math.min(side1, boxes1[b1 + dim + a] - boxes1[b1 + a]);
    side2 = Math.min(side2, boxes2[b2 + dim + a] - boxes2[b2 + a]);
  }
  return distance <= (side1 + side2) * (side1 + side2);
}
