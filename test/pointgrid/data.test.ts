/**
 * PointGrid2D/3D in one buffer: `from(grid.data)` answers every query as the
 * grid that built it (dense and hashed, ArrayBuffer and SharedArrayBuffer),
 * bad buffers are refused with a clear Error, and partitioned pair searches
 * (`{ part, parts }`) add up to the full search, each pair once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NumericArray } from '../../src/core/validate.js';
import { type KernelMode, PointGrid2D, PointGrid3D, type PointGridOptions, setKernelMode } from '../../src/index.js';
import { pack, scenarios } from '../support/pointgrid-oracle.js';

type Grid = PointGrid2D | PointGrid3D;

/** Both dimensions through one face: queries take a flat point. */
const dims = [
  {
    d: 2 as const,
    make: (p: NumericArray, o: PointGridOptions): Grid => new PointGrid2D(p, o),
    from: (data: ArrayBuffer | SharedArrayBuffer): Grid => PointGrid2D.from(data),
    within: (g: Grid, q: number[], r: number) => (g as PointGrid2D).within(q[0], q[1], r).sort((a, b) => a - b),
    withinInto: (g: Grid, q: number[], r: number, out: Uint32Array) =>
      (g as PointGrid2D).withinInto(q[0], q[1], r, out),
    nearest: (g: Grid, q: number[], k: number) => (g as PointGrid2D).nearest(q[0], q[1], k),
  },
  {
    d: 3 as const,
    make: (p: NumericArray, o: PointGridOptions): Grid => new PointGrid3D(p, o),
    from: (data: ArrayBuffer | SharedArrayBuffer): Grid => PointGrid3D.from(data),
    within: (g: Grid, q: number[], r: number) => (g as PointGrid3D).within(q[0], q[1], q[2], r).sort((a, b) => a - b),
    withinInto: (g: Grid, q: number[], r: number, out: Uint32Array) =>
      (g as PointGrid3D).withinInto(q[0], q[1], q[2], r, out),
    nearest: (g: Grid, q: number[], k: number) => (g as PointGrid3D).nearest(q[0], q[1], q[2], k),
  },
];

function visited(grid: Grid, radius: number, options?: { part: number; parts: number }): number[][] {
  const seen: number[][] = [];
  grid.forEachPair(radius, (i, j, d2) => seen.push([i, j, d2]), options);
  return seen;
}

for (const dim of dims) {
  const name = `PointGrid${dim.d}D`;
  const seed = 40260 + dim.d;

  describe(`${name}.from(data)`, () => {
    it(`answers every query as the original, dense and hashed, shared or not (seed ${seed})`, () => {
      fc.assert(
        fc.property(scenarios(dim.d), fc.boolean(), (s, shared) => {
          if (s.points.length === 0) s.layout.offset = 0;
          const positions = pack(s.points, dim.d, s.layout);
          const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset };
          if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
          const original = dim.make(positions, { ...options, shared });
          const queries = s.points.slice(0, 8).concat(s.queries);
          expect(original.data instanceof SharedArrayBuffer).toBe(shared);
          const copy = dim.from(original.data);
          expect(copy.count).toBe(original.count);
          expect(copy.layout).toBe(original.layout);
          expect(copy.cellSize).toBe(original.cellSize);
          copy.validate();
          const out = new Uint32Array(original.count + 1);
          const outCopy = new Uint32Array(original.count + 1);
          for (const q of queries) {
            expect(dim.within(copy, q, s.radius)).toEqual(dim.within(original, q, s.radius));
            const found = dim.withinInto(original, q, s.radius, out);
            expect(dim.withinInto(copy, q, s.radius, outCopy)).toBe(found);
            expect(Array.from(outCopy.subarray(0, found)).sort()).toEqual(Array.from(out.subarray(0, found)).sort());
            expect(dim.nearest(copy, q, 3)).toEqual(dim.nearest(original, q, 3));
          }
          expect(copy.pairs(s.radius)).toEqual(original.pairs(s.radius));
          expect(copy.neighbors(s.radius)).toEqual(original.neighbors(s.radius));
          expect(visited(copy, s.radius)).toEqual(visited(original, s.radius));
        }),
        { seed, numRuns: 120 },
      );
    });

    it('sees a rebuild of the shared buffer in place, and needs positions to rebuild itself', () => {
      const positions = new Float64Array(dim.d * 50).map((_, k) => (k * 7919) % 13);
      const grid = dim.make(positions, { cellSize: 2, shared: true });
      const view = dim.from(grid.data);
      expect(() => view.rebuild()).toThrow(/made by from\(\) and has no positions array/);
      // Same count: the buffer is reused, so the view answers for the moved points (after re-reading nothing).
      const moved = positions.map((v) => v * 0.5);
      const data = grid.data;
      grid.rebuild(moved);
      expect(grid.data).toBe(data);
      const again = dim.from(grid.data);
      expect(again.pairs(1)).toEqual(grid.pairs(1));
      // More points than the buffer holds: a new buffer (data changes identity).
      const more = new Float64Array(dim.d * 500).map((_, k) => (k * 31) % 17);
      grid.rebuild(more);
      expect(grid.data).not.toBe(data);
      expect(dim.from(grid.data).pairs(1.5)).toEqual(grid.pairs(1.5));
      // A from() grid rebuilds from positions it is given, into its own buffer.
      view.rebuild(more);
      view.validate();
      expect(view.pairs(1.5)).toEqual(grid.pairs(1.5));
    });

    for (const mode of ['javascript', 'auto'] as KernelMode[]) {
      it(`a rebuild that outgrows the buffer leaves the old one as it was, whose from() grids keep its build (${mode})`, () => {
        // Two points, dense; then one moved 10,000 cells away: the rebuild is hashed and needs more room, so it
        // moves to a new buffer. The JavaScript hashed build used to keep its sort keys in the old buffer's
        // coordinates before it moved (found by the stateful suites: the view then answered [] for its point 0).
        const positions = new Float64Array(dim.d * 2).map((_, k) => (k % dim.d) + k / 10);
        const grid = dim.make(positions, { cellSize: 1 });
        expect(grid.layout).toBe('dense');
        const view = dim.from(grid.data);
        const old = grid.data;
        const before = new Uint8Array(old.slice(0));
        positions[dim.d] += 1e4;
        setKernelMode(mode);
        try {
          grid.rebuild();
        } finally {
          setKernelMode('auto');
        }
        expect(grid.layout).toBe('hashed');
        expect(grid.data).not.toBe(old);
        expect(new Uint8Array(old)).toEqual(before);
        const first = Array.from(positions.subarray(0, dim.d));
        expect(dim.within(view, first, 0)).toEqual([0]);
        view.validate();
      });
    }

    it('validate() checks what another grid rebuilt into the buffer in place, as queries read it', () => {
      const positions = new Float64Array(dim.d * 20).map((_, k) => (k * 7919) % 13);
      const grid = dim.make(positions, { cellSize: 2 });
      const view = dim.from(grid.data);
      // Every point 10 cells along x: the same cells and count, so the same buffer, at another origin. validate()
      // used to check the new body against the bounds the view read in from() ("point 0 lies outside the cell").
      for (let i = 0; i < positions.length; i += dim.d) positions[i] += 20;
      const data = grid.data;
      grid.rebuild();
      expect(grid.data).toBe(data);
      view.validate();
      expect(view.pairs(3)).toEqual(grid.pairs(3));
      // The view rebuilds the buffer in place from points of its own: the grid's validate() then checks the body,
      // not its copies against its own positions, which the buffer no longer holds.
      view.rebuild(positions.map((v) => v / 2));
      expect(view.data).toBe(data);
      grid.validate();
      expect(grid.pairs(3)).toEqual(view.pairs(3));
    });

    it('refuses buffers that are not grids, of the other dimension or version, or truncated', () => {
      const grid = dim.make(pack([[0, 1, 2].slice(0, dim.d)], dim.d, { stride: dim.d, offset: 0, kind: 'f64' }), {
        cellSize: 1,
      });
      const other = dims.find((x) => x.d !== dim.d)!;
      expect(() => dim.from(new ArrayBuffer(8))).toThrow(/not a PointGrid buffer/);
      expect(() => dim.from(new ArrayBuffer(4096))).toThrow(/not a PointGrid buffer/);
      expect(() => dim.from([1, 2] as never)).toThrow(/must be an ArrayBuffer or SharedArrayBuffer/);
      expect(() => other.from(grid.data)).toThrow(new RegExp(`is a ${dim.d}D grid; use ${name}.from`));
      const truncated = grid.data.slice(0, grid.data.byteLength - 8);
      expect(() => dim.from(truncated)).toThrow(/truncated/);
      const version = grid.data.slice(0);
      new Float64Array(version, 0, 2)[1] = 99;
      expect(() => dim.from(version)).toThrow(/version 99; this library reads version 2/);
      const inconsistent = grid.data.slice(0);
      new Float64Array(inconsistent, 0, 8)[4] = 1e9;
      expect(() => dim.from(inconsistent)).toThrow(/bad PointGrid header: the point count is 1000000000/);
      new Float64Array(inconsistent, 0, 32)[19] = 3;
      expect(() => dim.from(inconsistent)).toThrow(/inconsistent/);
      expect(() => dim.make([0, 0, 0], { cellSize: 1, shared: 'yes' as never })).toThrow(RangeError);
    });
  });

  describe(`${name} partitioned pair search`, () => {
    it(`slices for parts = 1..7 add up to the full search, each pair once, in order (seed ${seed + 10})`, () => {
      fc.assert(
        fc.property(scenarios(dim.d), (s) => {
          const positions = pack(s.points.length === 0 ? [] : s.points, dim.d, { ...s.layout, offset: 0 });
          const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride };
          if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
          const grid = dim.make(positions, options);
          const full = grid.pairs(s.radius);
          const fullVisits = visited(grid, s.radius);
          const fullRows = grid.neighbors(s.radius);
          for (let parts = 1; parts <= 7; parts++) {
            const pairs: number[] = [];
            const visits: number[][] = [];
            const rows: number[][] = Array.from({ length: grid.count }, () => []);
            for (let part = 0; part < parts; part++) {
              pairs.push(...grid.pairs(s.radius, { part, parts }));
              visits.push(...visited(grid, s.radius, { part, parts }));
              const { offsets, indices } = grid.neighbors(s.radius, { part, parts });
              for (let i = 0; i < grid.count; i++) rows[i].push(...indices.subarray(offsets[i], offsets[i + 1]));
            }
            // Same pairs in the same order: so no pair twice and none missing.
            expect(pairs).toEqual(Array.from(full));
            expect(visits).toEqual(fullVisits);
            for (let i = 0; i < grid.count; i++) {
              expect(rows[i]).toEqual(
                Array.from(fullRows.indices.subarray(fullRows.offsets[i], fullRows.offsets[i + 1])),
              );
            }
          }
          const keys = new Set<number>();
          for (let k = 0; k < full.length; k += 2) keys.add(full[k] * 1e6 + full[k + 1]);
          expect(keys.size).toBe(full.length / 2);
        }),
        { seed: seed + 10, numRuns: 80 },
      );
    });

    it('rejects a bad part or parts with a RangeError naming it', () => {
      const grid = dim.make(new Float64Array(dim.d * 4), { cellSize: 1 });
      expect(() => grid.pairs(1, { part: 2, parts: 2 })).toThrow(
        /part must be an integer from 0 to parts - 1 = 1, got 2/,
      );
      expect(() => grid.pairs(1, { part: -1, parts: 2 })).toThrow(RangeError);
      expect(() => grid.neighbors(1, { part: 0, parts: 0 })).toThrow(/parts must be an integer >= 1, got 0/);
      expect(() => grid.forEachPair(1, () => {}, { part: 0.5, parts: 2 })).toThrow(RangeError);
      expect(() => grid.pairs(1, { parts: Number.NaN })).toThrow(/parts must be an integer >= 1, got NaN/);
      expect(() => grid.pairs(1, 3 as never)).toThrow(/options must be an object/);
      // More parts than cells: some slices are empty, the rest still add up.
      const slices = Array.from({ length: 9 }, (_, part) => Array.from(grid.pairs(1, { part, parts: 9 })));
      expect(slices.filter((p) => p.length > 0).length).toBe(1);
      expect(slices.flat()).toEqual(Array.from(grid.pairs(1)));
    });
  });
}
