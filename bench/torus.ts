/**
 * The torus the weld benchmarks share (workloads 10 and 11): a ring of
 * `around` x `along` quads written as a triangle soup, 6 corners per quad,
 * each copy of a vertex bit-identical (float32) or jittered per axis; or as
 * an indexed mesh, for the formats that have an index (PLY, OBJ).
 *
 * @module
 */
import { random } from './harness.js';

/** The soup of quad rings `first` to `end - 1` (all of them by default), jittered by up to `jitter` per axis. */
export function torusSoup(
  around: number,
  along: number,
  jitter: number,
  seed: number,
  first = 0,
  end = around,
): Float32Array<ArrayBuffer> {
  const rand = random(seed + first);
  const soup = new Float32Array((end - first) * along * 18);
  let k = 0;
  const vertex = (u: number, v: number) => {
    const a = ((u % around) / around) * 2 * Math.PI;
    const b = ((v % along) / along) * 2 * Math.PI;
    const ring = 1 + 0.35 * Math.cos(b);
    // Offset from the origin so coordinates are not small round numbers.
    soup[k++] = 3.1 + ring * Math.cos(a);
    soup[k++] = -1.7 + ring * Math.sin(a);
    soup[k++] = 0.9 + 0.35 * Math.sin(b);
  };
  for (let u = first; u < end; u++) {
    for (let v = 0; v < along; v++) {
      vertex(u, v);
      vertex(u + 1, v);
      vertex(u + 1, v + 1);
      vertex(u, v);
      vertex(u + 1, v + 1);
      vertex(u, v + 1);
    }
  }
  // Rounded to float32 first: without jitter the copies of a vertex stay bit-identical.
  if (jitter > 0) for (let j = 0; j < soup.length; j++) soup[j] += (rand() - 0.5) * 2 * jitter;
  return soup;
}

/**
 * The same torus as an indexed mesh (two triangles a quad), its coordinates
 * rounded to `digits` significant digits when given (as exporters print them).
 */
export function torusMesh(
  around: number,
  along: number,
  digits?: number,
): { positions: Float64Array; triangles: Uint32Array } {
  const positions = new Float64Array(around * along * 3);
  const round = (x: number) => (digits === undefined ? x : Number(x.toPrecision(digits)));
  for (let u = 0; u < around; u++) {
    for (let v = 0; v < along; v++) {
      const a = (u / around) * 2 * Math.PI;
      const b = (v / along) * 2 * Math.PI;
      const ring = 1 + 0.35 * Math.cos(b);
      const at = (u * along + v) * 3;
      positions[at] = round(3.1 + ring * Math.cos(a));
      positions[at + 1] = round(-1.7 + ring * Math.sin(a));
      positions[at + 2] = round(0.9 + 0.35 * Math.sin(b));
    }
  }
  const triangles = new Uint32Array(around * along * 6);
  const id = (u: number, v: number) => (u % around) * along + (v % along);
  let t = 0;
  for (let u = 0; u < around; u++) {
    for (let v = 0; v < along; v++) {
      triangles.set([id(u, v), id(u + 1, v), id(u + 1, v + 1), id(u, v), id(u + 1, v + 1), id(u, v + 1)], t);
      t += 6;
    }
  }
  return { positions, triangles };
}
