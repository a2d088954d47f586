/**
 * weld and weldMesh against the brute-force definition: vertices in index
 * order, each joins the nearest earlier representative within tolerance (ties:
 * lowest representative) or founds a new one; the O(n^2) oracle below uses the
 * same float64 distance test. Then the Stanford bunny (npm `bunny`) as real data,
 * and every documented rejection.
 */

import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setKernelMode, weld, weldMesh } from '../../src/index.js';
import { random } from '../support/random.js';
import { expectMatches, oracle } from '../support/weld-oracle.js';

// The package ships no types: { positions: [x, y, z][], cells: [a, b, c][] }.
const bunny = createRequire(import.meta.url)('bunny') as { positions: number[][]; cells: number[][] };

type Point = number[];

function distance2(p: Point, q: Point): number {
  let d2 = 0;
  for (let axis = 0; axis < p.length; axis++) {
    const d = q[axis] - p[axis];
    d2 += d * d;
  }
  return d2;
}

/** Invariants every weld must hold, whatever the data. */
function checkInvariants(points: readonly Point[], tolerance: number, result: ReturnType<typeof weld>): void {
  const { remap, representatives, count } = result;
  expect(remap).toBeInstanceOf(Uint32Array);
  expect(representatives).toBeInstanceOf(Uint32Array);
  expect(remap.length).toBe(points.length);
  expect(representatives.length).toBe(count);
  for (let c = 0; c < count; c++) {
    expect(remap[representatives[c]]).toBe(c);
    if (c > 0) expect(representatives[c]).toBeGreaterThan(representatives[c - 1]);
  }
  for (let i = 0; i < points.length; i++) {
    expect(remap[i]).toBeLessThan(count);
    const rep = points[representatives[remap[i]]];
    if (tolerance === 0) expect(points[i].map((v) => v + 0)).toEqual(rep.map((v) => v + 0));
    else expect(distance2(points[i], rep)).toBeLessThanOrEqual(tolerance * tolerance);
  }
}

/** No two representatives within tolerance: sorted sweep on x, fine for a few thousand. */
function checkRepresentativesApart(points: readonly Point[], tolerance: number, representatives: Uint32Array): void {
  const reps = Array.from(representatives, (i) => points[i]).sort((a, b) => a[0] - b[0]);
  for (let a = 0; a < reps.length; a++) {
    for (let b = a + 1; b < reps.length && reps[b][0] - reps[a][0] <= tolerance; b++) {
      if (tolerance === 0) expect(reps[a]).not.toEqual(reps[b]);
      else expect(distance2(reps[a], reps[b])).toBeGreaterThan(tolerance * tolerance);
    }
  }
}

function flat(points: readonly Point[]): number[] {
  return points.flat();
}

/** Embeds points in an interleaved buffer full of NaN filler, which must never be read. */
function interleave(points: readonly Point[], dimension: number, stride: number, offset: number): Float64Array {
  const out = new Float64Array(points.length === 0 ? 0 : offset + (points.length - 1) * stride + dimension).fill(
    Number.NaN,
  );
  points.forEach((p, i) => {
    for (let axis = 0; axis < dimension; axis++) out[offset + i * stride + axis] = p[axis];
  });
  return out;
}

// ---------------------------------------------------------------------------
// Generators. Each builds points from integers so borders, exact-tolerance
// distances and ties come up often.

const TOLERANCES = [1, 0.5, 0.1, 0.3, 2.5, 1e-3, 7];
const BASES = [0, -7.25, -1000.5, 1e6, -3e9, 123.456];

interface Scene {
  dimension: 2 | 3;
  tolerance: number;
  points: Point[];
}

const integerPoint = (dimension: number, span: number) =>
  fc.array(fc.integer({ min: -span, max: span }), { minLength: dimension, maxLength: dimension });

/** Points on a lattice of tolerance / 4 (or / 2): many pairs at exactly the tolerance, many on cell borders. */
const latticeScene = (dimension: 2 | 3) =>
  fc
    .record({
      tolerance: fc.constantFrom(...TOLERANCES),
      base: fc.constantFrom(...BASES),
      divisor: fc.constantFrom(2, 4, 3),
      cells: fc.array(integerPoint(dimension, 12), { maxLength: 90 }),
      repeats: fc.array(fc.nat(), { maxLength: 20 }),
    })
    .map(({ tolerance, base, divisor, cells, repeats }): Scene => {
      const points = cells.map((k) => k.map((v) => base + (v * tolerance) / divisor));
      // Coincident points: copies of earlier ones, spliced in later.
      for (const r of repeats) if (points.length > 0) points.push([...points[r % points.length]]);
      return { dimension, tolerance, points };
    });

/** Clusters of points within about a tolerance of centres placed on multiples of tolerance / 2. */
const clusterScene = (dimension: 2 | 3) =>
  fc
    .record({
      tolerance: fc.constantFrom(...TOLERANCES),
      base: fc.constantFrom(...BASES),
      centres: fc.array(integerPoint(dimension, 8), { minLength: 1, maxLength: 8 }),
      members: fc.array(
        fc.record({
          centre: fc.nat(),
          offset: fc.array(fc.double({ min: -0.7, max: 0.7, noNaN: true }), {
            minLength: dimension,
            maxLength: dimension,
          }),
        }),
        { maxLength: 100 },
      ),
    })
    .map(({ tolerance, base, centres, members }): Scene => {
      const points = members.map(({ centre, offset }) => {
        const c = centres[centre % centres.length];
        return c.map((v, axis) => base + (v * tolerance) / 2 + offset[axis] * tolerance);
      });
      return { dimension, tolerance, points };
    });

/** Chains: each vertex within tolerance of the next, taken in chain order or shuffled. */
const chainScene = (dimension: 2 | 3) =>
  fc
    .record({
      tolerance: fc.constantFrom(...TOLERANCES),
      base: fc.constantFrom(...BASES),
      direction: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: dimension, maxLength: dimension }),
      steps: fc.array(fc.double({ min: 0.25, max: 1, noNaN: true }), { minLength: 1, maxLength: 80 }),
      order: fc.array(fc.nat(), { maxLength: 80 }),
    })
    .map(({ tolerance, base, direction, steps, order }): Scene => {
      const length = Math.hypot(...direction) || 1;
      const unit = direction.map((v) => (direction.every((d) => d === 0) ? (v === 0 ? 1 : 0) : v / length));
      let along = 0;
      const points = steps.map((step) => {
        along += step * tolerance;
        return unit.map((u) => base + u * along);
      });
      // Swap-shuffle driven by the generated indices.
      order.forEach((o, k) => {
        const a = k % points.length;
        const b = o % points.length;
        [points[a], points[b]] = [points[b], points[a]];
      });
      return { dimension, tolerance, points };
    });

/**
 * Representatives a little more than a tolerance apart along a line, then probes near their midpoints:
 * each probe is about half a tolerance from two representatives, so which one is nearest (or a tie)
 * is decided by a hair, often across a cell border.
 */
const betweenScene = (dimension: 2 | 3) =>
  fc
    .record({
      tolerance: fc.constantFrom(...TOLERANCES),
      base: fc.constantFrom(...BASES),
      axis: fc.nat({ max: dimension - 1 }),
      gaps: fc.array(fc.double({ min: 1.0001, max: 1.15, noNaN: true }), { minLength: 1, maxLength: 12 }),
      probes: fc.array(
        fc.record({
          gap: fc.nat(),
          at: fc.double({ min: 0.4, max: 0.6, noNaN: true }),
          side: fc.double({ min: -0.1, max: 0.1, noNaN: true }),
        }),
        { maxLength: 40 },
      ),
    })
    .map(({ tolerance, base, axis, gaps, probes }): Scene => {
      const along = [0];
      for (const g of gaps) along.push(along[along.length - 1] + g * tolerance);
      const at = (t: number, side: number) =>
        Array.from({ length: dimension }, (_, k) => base + (k === axis ? t : k === (axis + 1) % dimension ? side : 0));
      const points = along.map((t) => at(t, 0));
      for (const probe of probes) {
        const g = probe.gap % gaps.length;
        points.push(at(along[g] + probe.at * (along[g + 1] - along[g]), probe.side * tolerance));
      }
      return { dimension, tolerance, points };
    });

const anyScene = (dimension: 2 | 3) =>
  fc.oneof(latticeScene(dimension), clusterScene(dimension), chainScene(dimension), betweenScene(dimension));

const SEED = 0x5eed06;
const RUNS = 150;

// Both paths: the WebAssembly kernels and the JavaScript loops (test/wasm/weld-dual-path.test.ts compares them).
describe.each([
  ['wasm', 2],
  ['wasm', 3],
  ['javascript', 2],
  ['javascript', 3],
] as const)('weld (%s) in %iD matches the brute-force definition', (mode, dimension) => {
  beforeAll(() => setKernelMode(mode));
  afterAll(() => setKernelMode('auto'));

  it(`on lattice points with exact-tolerance distances and coincident copies (seed ${SEED})`, () => {
    fc.assert(
      fc.property(latticeScene(dimension), ({ tolerance, points }) => {
        const result = weld(flat(points), tolerance, { dimension });
        expectMatches(result, oracle(points, tolerance));
        checkInvariants(points, tolerance, result);
        checkRepresentativesApart(points, tolerance, result.representatives);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it(`on clusters straddling cell borders (seed ${SEED + 1})`, () => {
    fc.assert(
      fc.property(clusterScene(dimension), ({ tolerance, points }) => {
        const result = weld(flat(points), tolerance, { dimension });
        expectMatches(result, oracle(points, tolerance));
        checkInvariants(points, tolerance, result);
        checkRepresentativesApart(points, tolerance, result.representatives);
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });

  it(`on chains of vertices each within tolerance of the next (seed ${SEED + 2})`, () => {
    fc.assert(
      fc.property(chainScene(dimension), ({ tolerance, points }) => {
        const result = weld(flat(points), tolerance, { dimension });
        expectMatches(result, oracle(points, tolerance));
        checkInvariants(points, tolerance, result);
      }),
      { seed: SEED + 2, numRuns: RUNS },
    );
  });

  it(`on probes about half a tolerance from two representatives (seed ${SEED + 6})`, () => {
    fc.assert(
      fc.property(betweenScene(dimension), ({ tolerance, points }) => {
        const result = weld(flat(points), tolerance, { dimension });
        expectMatches(result, oracle(points, tolerance));
        checkInvariants(points, tolerance, result);
      }),
      { seed: SEED + 6, numRuns: RUNS },
    );
  });

  it(`on Float32Array input, compared on the float32 values (seed ${SEED + 3})`, () => {
    fc.assert(
      fc.property(anyScene(dimension), ({ tolerance, points }) => {
        const input = new Float32Array(flat(points));
        const widened = points.map((_, i) => Array.from(input.subarray(i * dimension, (i + 1) * dimension)));
        const result = weld(input, tolerance, { dimension });
        expectMatches(result, oracle(widened, tolerance));
        checkInvariants(widened, tolerance, result);
      }),
      { seed: SEED + 3, numRuns: RUNS },
    );
  });

  it(`through stride and offset, never reading the other attributes (seed ${SEED + 4})`, () => {
    fc.assert(
      fc.property(
        anyScene(dimension),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 6 }),
        ({ tolerance, points }, extra, rawOffset) => {
          const stride = dimension + extra;
          const offset = points.length === 0 ? 0 : rawOffset % (stride + 1);
          const input = interleave(points, dimension, stride, offset);
          const result = weld(input, tolerance, { dimension, stride, offset });
          expectMatches(result, oracle(points, tolerance));
        },
      ),
      { seed: SEED + 4, numRuns: RUNS },
    );
  });

  it(`with tolerance 0: exact duplicates only, +0 equal to -0 (seed ${SEED + 5})`, () => {
    const value = fc.constantFrom(0, -0, 1, -1, 0.5, -0.5, 1e-300, -1e-300, 5e-324, 3e9);
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { minLength: dimension, maxLength: dimension }), { maxLength: 80 }),
        (points) => {
          const result = weld(flat(points), 0, { dimension });
          expectMatches(result, oracle(points, 0));
          checkInvariants(points, 0, result);
          checkRepresentativesApart(points, 0, result.representatives);
        },
      ),
      { seed: SEED + 5, numRuns: RUNS },
    );
  });
});

describe('weld edge cases', () => {
  it('a nearer representative just past a cell border, found after a farther one in the own cell', () => {
    // Tolerance 0.5: cells ~1 wide from x = 0 (vertex 0). Vertex 3 (x 0.602) has A (x 0.202) 0.4 away in its own
    // cell (not within tolerance / 2, so the search goes on) and B (x 1.0005) 0.3985 away in the next cell: the
    // search, narrowed to the distance of the best so far, must still reach B's cell.
    const points = new Float64Array([0, 0, 0, 0.202, 3, 0, 1.0005, 3, 0, 0.602, 3, 0]);
    const result = weld(points, 0.5);
    expect(Array.from(result.remap)).toEqual([0, 1, 2, 2]);
  });

  it('merges +0 and -0 with tolerance 0 and keeps 5e-324 apart from 0', () => {
    const result = weld([0, 0, 0, -0, -0, -0, 0, -0, 5e-324, 0, 0, 0], 0);
    expect(Array.from(result.remap)).toEqual([0, 0, 1, 0]);
    expect(result.count).toBe(2);
  });

  it('joins the nearest representative, and the lower-numbered one on a tie', () => {
    // Representatives at x = 0 and x = 3 (tolerance 2); x = 1.6 is nearer to 3, x = 1.5 ties.
    const points = [[0], [3], [1.6], [1.5], [1.4]].map((p) => [p[0], 0, 0]);
    const result = weld(flat(points), 2);
    expect(Array.from(result.remap)).toEqual([0, 1, 1, 0, 0]);
  });

  it('merges a pair at exactly the tolerance and keeps one just beyond apart', () => {
    expect(weld([0, 0, 0, 0.25, 0, 0], 0.25).count).toBe(1);
    expect(weld([0, 0, 0, 0.25000000000000006, 0, 0], 0.25).count).toBe(2);
  });

  it('handles empty input and a single vertex', () => {
    expect(weld([], 1)).toEqual({ remap: new Uint32Array(0), representatives: new Uint32Array(0), count: 0 });
    expect(weld(new Float32Array([1, 2, 3]), 1).count).toBe(1);
    expect(weld([1, 2], 0, { dimension: 2 }).count).toBe(1);
  });

  it('welds by the distance itself where squares underflow: tolerances from 5e-324 to 1e-133 (seed 61)', () => {
    // Float64 squared 1e-170 and every gap below ~1e-162 to 0, so all of these merged; under the distance rule
    // (decision 2) only gaps up to the tolerance do.
    fc.assert(
      fc.property(
        fc.array(integerPoint(3, 4), { maxLength: 40 }),
        fc.constantFrom(1e-163, 1e-162, 3e-162, 1e-170, 5e-324, 1e-140),
        fc.constantFrom(1e-170, 2e-170, 1e-162, 5e-324, 1e-140, 2 ** -441, 2 ** -440),
        fc.constantFrom(0, 1, -1e-300),
        (cells, step, tolerance, origin) => {
          const points = cells.map((k) => k.map((v) => origin + v * step));
          for (const dimension of [2, 3] as const) {
            const used = points.map((p) => p.slice(0, dimension));
            expectMatches(weld(flat(used), tolerance, { dimension }), oracle(used, tolerance));
          }
        },
      ),
      { seed: 61, numRuns: 80 },
    );
  });

  it('welds by the distance itself where squares overflow: 1e300 is not within 1e200 (decision 2)', () => {
    const points = [
      [1e300, 0, 0],
      [-1e300, 5, 0],
      [0, 0, 0],
      [1e300, 1e199, 0],
      [9e199, 0, 0],
      [-1e300, 1e200, 0],
    ];
    const result = weld(flat(points), 1e200);
    expectMatches(result, oracle(points, 1e200));
    // Float64 squared 1e200 to Infinity and merged everything into vertex 0.
    expect(Array.from(result.remap)).toEqual([0, 1, 2, 0, 2, 1]);
    expect(weld([-1e308, 0, 1e308, 0], Number.MAX_VALUE, { dimension: 2 }).count).toBe(2);
    expect(weld([-1e308, 0, 1e308, 0, 0, 0], 1e308, { dimension: 2 }).remap).toEqual(new Uint32Array([0, 1, 0]));
  });

  it('welds at huge tolerances as the definition says (seed 63)', () => {
    fc.assert(
      fc.property(
        fc.array(integerPoint(3, 6), { maxLength: 40 }),
        fc.constantFrom(1e200, 1e300, 2e307, 1e-200),
        fc.constantFrom(1e200, 1e250, 1e300, 1.3e154, Number.MAX_VALUE),
        (cells, step, tolerance) => {
          const points = cells.map((k) =>
            k.map((v) => Math.max(-Number.MAX_VALUE, Math.min(v * step, Number.MAX_VALUE))),
          );
          expectMatches(weld(flat(points), tolerance), oracle(points, tolerance));
          const plane = points.map((p) => p.slice(0, 2));
          expectMatches(weld(flat(plane), tolerance, { dimension: 2 }), oracle(plane, tolerance));
        },
      ),
      { seed: 63, numRuns: 60 },
    );
  });

  it('welds near far-away coordinates and across a huge extent (seed 62)', () => {
    fc.assert(
      fc.property(
        fc.array(integerPoint(3, 6), { maxLength: 50 }),
        fc.constantFrom(1e15, -1e12, 1e300, -1e300),
        (cells, far) => {
          // Half of the points near the origin, half near a far corner: cells must stay exact and int32.
          const points = cells.map((k, i) => k.map((v) => (i % 2 === 0 ? 0 : far) + v * 0.375));
          expectMatches(weld(flat(points), 0.5), oracle(points, 0.5));
          expectMatches(weld(flat(points), 1e-9), oracle(points, 1e-9));
        },
      ),
      { seed: 62, numRuns: 60 },
    );
  });

  it('keeps clusters 2^32 cells apart, whose cells share table keys, apart (seed 63)', () => {
    // Tolerance 2^-10: cells are a hair over 2^-9 wide, so 2^23 (plus that hair times 2^32) is 2^32 cells away.
    const tolerance = 2 ** -10;
    const far = 2 ** 23 + 2 ** 23 * 2 ** -40;
    fc.assert(
      fc.property(fc.array(fc.tuple(integerPoint(3, 8), fc.boolean()), { maxLength: 60 }), (cells) => {
        const points = cells.map(([k, isFar]) => k.map((v) => (isFar ? far : 0) + (v * tolerance) / 4));
        expectMatches(weld(flat(points), tolerance), oracle(points, tolerance));
      }),
      { seed: 63, numRuns: 80 },
    );
  });

  it('is deterministic and never modifies its input', () => {
    const input = new Float32Array([0, 0, 0, 0.1, 0, 0, -0, 0, 0, 5, 5, 5]);
    const copy = input.slice();
    const a = weld(input, 0.2);
    const b = weld(input, 0.2);
    expect(a).toEqual(b);
    expect(Array.from(input)).toEqual(Array.from(copy));
    expect(Object.is(input[6], -0)).toBe(true);
  });

  it('reads any numeric array type', () => {
    const points = [
      [1, 2, 3],
      [1, 2, 4],
      [1, 2, 3],
    ];
    for (const input of [new Int16Array(flat(points)), new Uint8Array(flat(points)), new Float64Array(flat(points))]) {
      expect(Array.from(weld(input, 0).remap)).toEqual([0, 1, 0]);
      expect(Array.from(weld(input, 1).remap)).toEqual([0, 0, 0]);
    }
  });
});

// ---------------------------------------------------------------------------
// weldMesh

/** weldMesh by hand from the oracle's remap. */
function meshOracle(points: Point[], indices: number[] | undefined, tolerance: number, removeDegenerate: boolean) {
  const { remap, count, representatives } = oracle(points, tolerance);
  const corners = indices ?? points.map((_, i) => i);
  const out: number[] = [];
  let removed = 0;
  for (let t = 0; t < corners.length; t += 3) {
    const [a, b, c] = [remap[corners[t]], remap[corners[t + 1]], remap[corners[t + 2]]];
    if (removeDegenerate && (a === b || b === c || a === c)) removed++;
    else out.push(a, b, c);
  }
  return { remap, count, indices: out, removed, positions: representatives.flatMap((i) => points[i]) };
}

describe('weldMesh', () => {
  it(`matches weld plus a remapped, filtered index buffer (seed ${SEED + 7})`, () => {
    fc.assert(
      fc.property(
        anyScene(3),
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        ({ tolerance, points }, rawIndices, indexed, removeDegenerate) => {
          const whole = points.slice(0, points.length - (points.length % 3));
          const indices =
            indexed && whole.length > 0
              ? rawIndices.slice(0, rawIndices.length - (rawIndices.length % 3)).map((v) => v % whole.length)
              : undefined;
          const expected = meshOracle(whole, indices, tolerance, removeDegenerate);
          const result = weldMesh(flat(whole), indices, tolerance, { removeDegenerate });
          expect(result.count).toBe(expected.count);
          expect(Array.from(result.remap)).toEqual(expected.remap);
          expect(result.indices).toBeInstanceOf(Uint32Array);
          expect(Array.from(result.indices)).toEqual(expected.indices);
          expect(result.removedTriangles).toBe(expected.removed);
          expect(Array.isArray(result.positions)).toBe(true);
          expect(result.positions).toEqual(expected.positions.map((v) => v + 0));
          expect(Array.from(result.representatives)).toEqual(oracle(whole, tolerance).representatives);
        },
      ),
      { seed: SEED + 7, numRuns: RUNS },
    );
  });

  it('returns positions in the input array type and indices as Uint32Array', () => {
    const soup = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0];
    const f32 = weldMesh(new Float32Array(soup), undefined, 0);
    expect(f32.positions).toBeInstanceOf(Float32Array);
    expect(Array.from(f32.positions)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]);
    expect(Array.from(f32.indices)).toEqual([0, 1, 2, 1, 3, 2]);
    expect(weldMesh(new Float64Array(soup), undefined, 0).positions).toBeInstanceOf(Float64Array);
    const array = weldMesh(soup, undefined, 0);
    expect(Array.isArray(array.positions)).toBe(true);
    // Vertex 3 duplicates vertex 1, so the second triangle collapses to (1, 2, 1) and is removed.
    const indexed = weldMesh(new Float32Array(soup.slice(0, 12)), new Uint16Array([0, 1, 2, 3, 2, 1]), 0);
    expect(indexed.indices).toBeInstanceOf(Uint32Array);
    expect(Array.from(indexed.indices)).toEqual([0, 1, 2]);
    expect(indexed.removedTriangles).toBe(1);
    expect(indexed.count).toBe(3);
    // Any integer array works as indices, as three.js types geometry.index.array.
    for (const list of [new Int32Array([0, 1, 2]), new Float32Array([0, 1, 2]), new Uint8Array([0, 1, 2])]) {
      expect(Array.from(weldMesh(soup.slice(0, 9), list, 0).indices)).toEqual([0, 1, 2]);
    }
    expect(() => weldMesh(soup.slice(0, 9), new Float32Array([0, 1, 1.5]), 0)).toThrow(/indices\[2\] .* got 1.5/);
    expect(() => weldMesh([], [0, 0, 0], 0)).toThrow(/indices\[0\] .* positions holds no vertices, got 0/);
  });

  it('removes triangles whose corners merged, unless removeDegenerate is false', () => {
    // Two triangles; the second has two corners 0.01 apart.
    const soup = [0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 2, 0.01, 0, 3, 0, 0];
    const removed = weldMesh(soup, undefined, 0.05);
    expect(removed.count).toBe(5);
    expect(removed.removedTriangles).toBe(1);
    expect(Array.from(removed.indices)).toEqual([0, 1, 2]);
    const kept = weldMesh(soup, undefined, 0.05, { removeDegenerate: false });
    expect(kept.removedTriangles).toBe(0);
    expect(Array.from(kept.indices)).toEqual([0, 1, 2, 3, 3, 4]);
  });

  it('welds 2D meshes and interleaved three.js-style buffers', () => {
    const flat2 = [0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1];
    expect(Array.from(weldMesh(flat2, undefined, 0, { dimension: 2 }).indices)).toEqual([0, 1, 2, 1, 3, 2]);
    // position (3) + normal (3) per vertex, positions at offset 0 then at offset 3.
    const points = [
      [0, 0, 0],
      [1, 0, 0],
      [0, 1, 0],
      [1, 0, 0],
      [1, 1, 0],
      [0, 1, 0],
    ];
    for (const offset of [0, 3]) {
      const input = interleave(points, 3, 6, offset);
      const result = weldMesh(input, undefined, 0, { stride: 6, offset });
      expect(Array.from(result.indices)).toEqual([0, 1, 2, 1, 3, 2]);
      expect(Array.from(result.positions)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]);
    }
  });
});

// ---------------------------------------------------------------------------
// Real data: the Stanford bunny (1,839 vertices, 3,674 triangles, no duplicates).

function bunnySoup(jitter: number, seed: number): Float64Array {
  const next = random(seed);
  const soup = new Float64Array(bunny.cells.length * 9);
  let k = 0;
  for (const cell of bunny.cells) {
    for (const v of cell)
      for (const coordinate of bunny.positions[v]) soup[k++] = coordinate + (next() * 2 - 1) * jitter;
  }
  return soup;
}

/** The welded triangles are bunny's triangles up to a renumbering of the vertices (a bijection). */
function expectBunnyTriangles(indices: Uint32Array, count: number): void {
  expect(count).toBe(bunny.positions.length);
  expect(indices.length).toBe(bunny.cells.length * 3);
  const welded = new Map<number, number>();
  const used = new Set<number>();
  bunny.cells.forEach((cell, t) => {
    cell.forEach((v, corner) => {
      const w = indices[t * 3 + corner];
      if (!welded.has(v)) {
        expect(used.has(w)).toBe(false);
        welded.set(v, w);
        used.add(w);
      }
      expect(w).toBe(welded.get(v));
    });
  });
  expect(used.size).toBe(count);
}

function minimumVertexDistance(): number {
  const p = bunny.positions;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < p.length; i++)
    for (let j = 0; j < i; j++) best = Math.min(best, Math.sqrt(distance2(p[i], p[j])));
  return best;
}

describe('weldMesh on the Stanford bunny', () => {
  it('with tolerance 0, gives back its vertex count and triangles from the de-indexed soup', () => {
    const soup = bunnySoup(0, 1);
    const copy = soup.slice();
    const result = weldMesh(soup, undefined, 0);
    expectBunnyTriangles(result.indices, result.count);
    expect(result.removedTriangles).toBe(0);
    expect(soup).toEqual(copy);
    // Float32, interleaved like a three.js buffer with normals: the same.
    const f32 = new Float32Array(
      interleave(
        Array.from({ length: soup.length / 3 }, (_, i) => Array.from(soup.subarray(i * 3, i * 3 + 3))),
        3,
        6,
        3,
      ),
    );
    const interleaved = weldMesh(f32, undefined, 0, { stride: 6, offset: 3 });
    expectBunnyTriangles(interleaved.indices, interleaved.count);
    expect(interleaved.positions).toBeInstanceOf(Float32Array);
  });

  it.each([7, 8, 9])(
    'with every vertex jittered below tolerance / 4, gives back the same mesh (jitter seed %i)',
    (seed) => {
      // Well below the smallest edge (~0.179): copies of one vertex are within tolerance / 2 of each other,
      // distinct vertices stay more than 3 tolerances apart.
      const tolerance = minimumVertexDistance() / 4;
      // Per-axis jitter tolerance / 8 keeps each copy within sqrt(3) / 8 < 1 / 4 tolerance of the vertex.
      const soup = bunnySoup(tolerance / 8, seed);
      const points = Array.from({ length: soup.length / 3 }, (_, i) => Array.from(soup.subarray(i * 3, i * 3 + 3)));
      const result = weldMesh(soup, undefined, tolerance);
      expectBunnyTriangles(result.indices, result.count);
      expect(result.removedTriangles).toBe(0);
      checkInvariants(points, tolerance, weld(soup, tolerance));
      checkRepresentativesApart(points, tolerance, result.representatives);
      // Also through Float32 storage, as a three.js geometry would hold it.
      const f32 = weldMesh(new Float32Array(soup), undefined, tolerance);
      expectBunnyTriangles(f32.indices, f32.count);
    },
  );

  it('matches the brute-force definition on the jittered soup with a tolerance near the edge length', () => {
    // Dense case: the tolerance now merges neighbours, so many vertices are near several representatives.
    const soup = bunnySoup(0.02, 5);
    const points = Array.from({ length: soup.length / 3 }, (_, i) => Array.from(soup.subarray(i * 3, i * 3 + 3)));
    const result = weld(soup, 0.4);
    expectMatches(result, oracle(points, 0.4));
  });
});

// ---------------------------------------------------------------------------
// Rejections: RangeError naming the argument and its value; nothing is modified.

describe('weld and weldMesh reject bad input', () => {
  const good = [0, 0, 0, 1, 1, 1, 2, 2, 2];

  it.each([
    [-1, /tolerance must be a finite number >= 0, got -1/],
    [Number.NaN, /tolerance .* got NaN/],
    [Number.POSITIVE_INFINITY, /tolerance .* got Infinity/],
    [Number.NEGATIVE_INFINITY, /tolerance .* got -Infinity/],
    ['1' as unknown as number, /tolerance .* got "1"/],
  ])('tolerance %s', (tolerance, message) => {
    expect(() => weld(good, tolerance)).toThrow(RangeError);
    expect(() => weld(good, tolerance)).toThrow(message);
    expect(() => weldMesh(good, undefined, tolerance)).toThrow(message);
  });

  it('bad dimension, stride, offset and options', () => {
    expect(() => weld(good, 1, { dimension: 4 as 3 })).toThrow(/dimension must be 2 or 3, got 4/);
    expect(() => weld(good, 1, { dimension: 1 as 2 })).toThrow(/dimension must be 2 or 3, got 1/);
    expect(() => weld(good, 1, { stride: 2 })).toThrow(/stride must be an integer >= 3, got 2/);
    expect(() => weld(good, 1, { stride: 3.5 })).toThrow(/stride .* got 3.5/);
    expect(() => weld(good, 1, { offset: -1 })).toThrow(/offset must be an integer >= 0, got -1/);
    expect(() => weld(good, 1, { offset: 9 })).toThrow(/offset \(9\) is past the end of positions/);
    expect(() => weld(good, 1, null as unknown as object)).toThrow(/options must be an object, got null/);
    expect(() => weldMesh(good, undefined, 1, { removeDegenerate: 1 as unknown as boolean })).toThrow(
      /removeDegenerate must be a boolean, got 1/,
    );
    for (const f of [
      () => weld(good, 1, { dimension: 4 as 3 }),
      () => weld(good, 1, { stride: 2 }),
      () => weld(good, 1, { offset: -1 }),
    ]) {
      expect(f).toThrow(RangeError);
    }
  });

  it('a length that leaves a partial vertex', () => {
    expect(() => weld([0, 0, 0, 1], 1)).toThrow(/positions.length \(4\) leaves a partial point/);
    expect(() => weld([0, 0, 0], 1, { dimension: 2 })).toThrow(/leaves a partial point/);
    expect(() => weld('abc' as unknown as number[], 1)).toThrow(/positions must be an array/);
  });

  it('strings, null and booleans as coordinates, naming the vertex, axis and index', () => {
    for (const bad of ['1', null, true, false, undefined]) {
      const positions = [0, 0, 0, 1, 1, bad, 2, 2, 2] as unknown as number[];
      expect(() => weld(positions, 1)).toThrow(RangeError);
      expect(() => weld(positions, 1)).toThrow(/point 1 has a non-number z coordinate \(.* at index 5\)/);
      expect(() => weldMesh(positions, undefined, 0)).toThrow(/point 1 has a non-number z coordinate/);
    }
    expect(() => weld(['1', 0] as unknown as number[], 0, { dimension: 2 })).toThrow(/"1" at index 0/);
  });

  it('a non-finite coordinate, naming the vertex and axis', () => {
    expect(() => weld([0, 0, 0, 1, Number.NaN, 1], 1)).toThrow(/point 1 has a non-finite y coordinate \(NaN\)/);
    expect(() => weld(new Float32Array([0, 0, Number.POSITIVE_INFINITY]), 0)).toThrow(
      /point 0 has a non-finite z coordinate \(Infinity\)/,
    );
    expect(() => weld([0, 0, 1, Number.NEGATIVE_INFINITY], 1, { dimension: 2 })).toThrow(
      /point 1 has a non-finite y coordinate \(-Infinity\)/,
    );
    // Interleaved: the vertex index, not the array position.
    expect(() => weld([9, 9, 0, 0, 0, 9, 9, 1, Number.NaN, 1], 1, { stride: 5, offset: 2 })).toThrow(
      /point 1 has a non-finite y coordinate \(NaN\)/,
    );
  });

  it('indices out of range, not integers or not whole triangles, naming the position and value', () => {
    expect(() => weldMesh(good, [0, 1], 0)).toThrow(/indices.length must be a multiple of 3 \(triangles\), got 2/);
    expect(() => weldMesh(good, [0, 1, 3], 0)).toThrow(
      /indices\[2\] must be an integer vertex index in \[0, 2\], got 3/,
    );
    expect(() => weldMesh(good, [0, -1, 2], 0)).toThrow(/indices\[1\] .* got -1/);
    expect(() => weldMesh(good, [0.5, 1, 2], 0)).toThrow(/indices\[0\] .* got 0.5/);
    expect(() => weldMesh(good, [0, 1, Number.NaN], 0)).toThrow(/indices\[2\] .* got NaN/);
    expect(() => weldMesh(good, new Uint16Array([0, 1, 7]), 0)).toThrow(/indices\[2\] .* got 7/);
    expect(() => weldMesh(good, 5 as unknown as number[], 0)).toThrow(/indices must be an array/);
    expect(() => weldMesh(good.slice(0, 6), undefined, 0)).toThrow(/multiple of 3 vertices, got 2/);
  });

  it("weld's argument order (positions, tolerance) says that indices come second", () => {
    const soup = new Float32Array(good);
    const before = soup.slice();
    const call = () => weldMesh(soup, 1e-5 as unknown as number[], undefined as unknown as number);
    expect(call).toThrow(RangeError);
    expect(call).toThrow(
      /indices come second .*got the number 0\.00001 there; did you mean weldMesh\(positions, undefined, 0\.00001\)/,
    );
    expect(soup).toEqual(before);
  });

  it('leaves every input array untouched, accepted or rejected', () => {
    const positions = new Float32Array([0, 0, 0, -0, 0, 0, 1, 1, 1]);
    const indices = new Uint32Array([0, 1, 2, 2, 1, 0]);
    const p = positions.slice();
    const i = indices.slice();
    weldMesh(positions, indices, 0.5);
    expect(() => weldMesh(positions, new Uint32Array([0, 1, 9]), 0.5)).toThrow(RangeError);
    expect(() => weldMesh(positions, indices, -1)).toThrow(RangeError);
    expect(positions).toEqual(p);
    expect(Object.is(positions[3], -0)).toBe(true);
    expect(indices).toEqual(i);
  });
});
