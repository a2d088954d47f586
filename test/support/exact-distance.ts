/**
 * An exact oracle for the library's distance rule (src/core/distance.ts):
 * `dx * dx + dy * dy (+ dz * dz) <= r * r` evaluated in float64 as if its
 * exponent range were unbounded. Every double is a dyadic rational n * 2^e,
 * so the oracle holds each value as a BigInt n and an exponent e, does every
 * operation exactly and rounds its result to 53 significant bits (to nearest,
 * ties to even) without ever overflowing or underflowing: the rule, written
 * with none of the library's reasoning about bands and scales.
 *
 * It also computes the unrounded squared distance, so a test can check that
 * the rule is the mathematically right answer up to rounding.
 *
 * @module
 */

/** The dyadic rational n * 2^e. */
export interface Dyadic {
  readonly n: bigint;
  readonly e: number;
}

const ZERO: Dyadic = { n: 0n, e: 0 };
const view = new DataView(new ArrayBuffer(8));

/** The exact value of a finite double. */
export function dyadic(x: number): Dyadic {
  if (!Number.isFinite(x)) throw new RangeError(`dyadic(${x}): not finite`);
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  // Normal: (2^52 + fraction) * 2^(exponent - 1075); subnormal: fraction * 2^-1074.
  const n = exponent === 0 ? fraction : fraction | (1n << 52n);
  const e = exponent === 0 ? -1074 : exponent - 1075;
  return { n: negative ? -n : n, e };
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : (n < 0n ? -n : n).toString(2).length;
}

/** n * 2^e rounded to 53 significant bits, to nearest, ties to even; no exponent bound. */
export function round53(value: Dyadic): Dyadic {
  const { n, e } = value;
  const excess = bitLength(n) - 53;
  if (excess <= 0) return value;
  const negative = n < 0n;
  const magnitude = negative ? -n : n;
  const shift = BigInt(excess);
  let kept = magnitude >> shift;
  const rest = magnitude - (kept << shift);
  const half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (kept & 1n) === 1n)) kept += 1n;
  return { n: negative ? -kept : kept, e: e + excess };
}

function align(a: Dyadic, b: Dyadic): [bigint, bigint, number] {
  const e = Math.min(a.e, b.e);
  return [a.n << BigInt(a.e - e), b.n << BigInt(b.e - e), e];
}

/** a - b, exact. */
export function exactSub(a: Dyadic, b: Dyadic): Dyadic {
  const [x, y, e] = align(a, b);
  return { n: x - y, e };
}

/** a + b, exact. */
export function exactAdd(a: Dyadic, b: Dyadic): Dyadic {
  const [x, y, e] = align(a, b);
  return { n: x + y, e };
}

/** a * b, exact. */
export function exactMul(a: Dyadic, b: Dyadic): Dyadic {
  return { n: a.n * b.n, e: a.e + b.e };
}

/** Sign of a - b. */
export function compareDyadic(a: Dyadic, b: Dyadic): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The rule's squared distance of the per-axis differences `a[i] - b[i]`:
 * each difference rounded, each square rounded, summed left to right with
 * each sum rounded, no exponent bound.
 */
export function ruleSquare(a: readonly number[], b: readonly number[]): Dyadic {
  let sum = ZERO;
  for (let i = 0; i < a.length; i++) {
    const d = round53(exactSub(dyadic(a[i]), dyadic(b[i])));
    const square = round53(exactMul(d, d));
    sum = i === 0 ? square : round53(exactAdd(sum, square));
  }
  return sum;
}

/** The rule's r * r: r squared, rounded once. */
export function ruleRadiusSquare(radius: number): Dyadic {
  const r = dyadic(radius);
  return round53(exactMul(r, r));
}

/** Whether p is within `radius` of q under the rule (radius Infinity: always). */
export function ruleWithin(p: readonly number[], q: readonly number[], radius: number): boolean {
  if (radius === Number.POSITIVE_INFINITY) return true;
  return compareDyadic(ruleSquare(p, q), ruleRadiusSquare(radius)) <= 0;
}

/**
 * The per-axis gaps from a point to a box (all mins, then all maxes), as
 * pairs [a, b] whose difference a - b is the gap (0 inside): what the box
 * hashes' distance test subtracts.
 */
function boxGaps(box: readonly number[], point: readonly number[]): [number[], number[]] {
  const d = point.length;
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < d; i++) {
    const lo = box[i];
    const hi = box[d + i];
    if (lo > point[i]) {
      a.push(lo);
      b.push(point[i]);
    } else if (point[i] > hi) {
      a.push(point[i]);
      b.push(hi);
    } else {
      a.push(0);
      b.push(0);
    }
  }
  return [a, b];
}

/** The rule's squared distance from a point to a box (all mins, then all maxes). */
export function ruleBoxSquare(box: readonly number[], point: readonly number[]): Dyadic {
  const [a, b] = boxGaps(box, point);
  return ruleSquare(a, b);
}

/** Whether a box is within `radius` of a point under the rule. */
export function ruleBoxWithin(box: readonly number[], point: readonly number[], radius: number): boolean {
  if (radius === Number.POSITIVE_INFINITY) return true;
  return compareDyadic(ruleBoxSquare(box, point), ruleRadiusSquare(radius)) <= 0;
}

/** The mathematically exact squared distance, no rounding at all. */
export function exactSquare(a: readonly number[], b: readonly number[]): Dyadic {
  let sum = ZERO;
  for (let i = 0; i < a.length; i++) {
    const d = exactSub(dyadic(a[i]), dyadic(b[i]));
    sum = exactAdd(sum, exactMul(d, d));
  }
  return sum;
}

/**
 * Indices of `points` sorted by the rule's squared distance from q, ties by
 * index: the order of a k-nearest answer. Only those within `maxDistance`.
 */
export function ruleNearestOrder(
  points: readonly (readonly number[])[],
  q: readonly number[],
  maxDistance: number,
): number[] {
  const limit = maxDistance === Number.POSITIVE_INFINITY ? undefined : ruleRadiusSquare(maxDistance);
  const keyed: { index: number; key: Dyadic }[] = [];
  points.forEach((p, index) => {
    const key = ruleSquare(p, q);
    if (limit === undefined || compareDyadic(key, limit) <= 0) keyed.push({ index, key });
  });
  keyed.sort((a, b) => compareDyadic(a.key, b.key) || a.index - b.index);
  return keyed.map((k) => k.index);
}

/** float64's `sum (a[i] - b[i])^2`, left to right: what the hot loops compute. */
function floatSquare(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    sum = i === 0 ? d * d : sum + d * d;
  }
  return sum;
}

const LOW = 2 ** -900;
const HIGH = 2 ** 1020;

/**
 * {@link ruleWithin}, decided in float64 where rounding cannot matter and
 * with BigInt otherwise: when r * r lies well inside the normal range, a
 * float64 squared distance below half of it or above twice it (Infinity
 * included) decides, and so does one in that range farther than 2^-40
 * relative from it (float64 and the rule are both within a few ulps of the
 * exact value there). Fast enough for the property tests' brute force.
 */
export function withinRule(p: readonly number[], q: readonly number[], radius: number): boolean {
  if (radius === Number.POSITIVE_INFINITY) return true;
  const r2 = radius * radius;
  if (r2 >= LOW && r2 <= HIGH) {
    const d2 = floatSquare(p, q);
    if (d2 <= r2 * 0.5) return true;
    if (d2 >= r2 * 2) return false;
    if (Math.abs(d2 - r2) > r2 * 2 ** -40) return d2 <= r2;
  }
  return ruleWithin(p, q, radius);
}

/**
 * Sign of the rule's squared distance of p from q minus that of r from q,
 * decided in float64 where both are well inside the normal range and apart
 * by more than rounding, with BigInt otherwise.
 */
export function compareRule(p: readonly number[], r: readonly number[], q: readonly number[]): number {
  const a = floatSquare(p, q);
  const b = floatSquare(r, q);
  if (a >= LOW && a <= HIGH && b >= LOW && b <= HIGH && Math.abs(a - b) > Math.max(a, b) * 2 ** -40) {
    return a < b ? -1 : 1;
  }
  return compareDyadic(ruleSquare(p, q), ruleSquare(r, q));
}

/** The k nearest of `points` to q within maxDistance under the rule, ties by index (see {@link ruleNearestOrder}). */
export function nearestRule(
  points: readonly (readonly number[])[],
  q: readonly number[],
  k: number,
  maxDistance: number,
): number[] {
  return points
    .map((_, i) => i)
    .filter((i) => withinRule(points[i], q, maxDistance))
    .sort((i, j) => compareRule(points[i], points[j], q) || i - j)
    .slice(0, k);
}

/**
 * {@link ruleSquare}, in float64 where float64 is the rule: when no square
 * underflows (each is 0 from a zero difference, or at least 2^-1022) and the
 * sum stays finite, no operation left the normal range, so float64 and the
 * unbounded evaluation are the same operations. BigInt otherwise.
 */
export function ruleSquareFast(a: readonly number[], b: readonly number[]): Dyadic {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    const square = d * d;
    if (square === 0 ? d !== 0 : square < 2 ** -1022) return ruleSquare(a, b);
    sum = i === 0 ? square : sum + square;
  }
  return Number.isFinite(sum) ? dyadic(sum) : ruleSquare(a, b);
}

/** {@link ruleBoxSquare}, in float64 where float64 is the rule (see {@link ruleSquareFast}). */
export function ruleBoxSquareFast(box: readonly number[], point: readonly number[]): Dyadic {
  const [a, b] = boxGaps(box, point);
  return ruleSquareFast(a, b);
}

/** Whether a box is within `radius` of a point under the rule, in float64 where rounding cannot matter. */
export function boxWithinRule(box: readonly number[], point: readonly number[], radius: number): boolean {
  const [a, b] = boxGaps(box, point);
  return withinRule(a, b, radius);
}

/** A canonical string of a dyadic value, equal for equal values: for comparing lists of distances. */
export function dyadicKey(value: Dyadic): string {
  let { n, e } = value;
  if (n === 0n) return '0';
  while ((n & 1n) === 0n) {
    n >>= 1n;
    e++;
  }
  return `${n}p${e}`;
}

/** The keys of the `k` smallest of `values`, ascending: what a nearest answer's distances must be. */
export function smallestKeys(values: readonly Dyadic[], k: number): string[] {
  return [...values].sort(compareDyadic).slice(0, k).map(dyadicKey);
}
