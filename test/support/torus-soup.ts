/**
 * The jittered torus soup weld's suites share (the bench's shape, see
 * bench/torus.ts): a triangle soup over a ring of quads, as after a lossy
 * export.
 *
 * @module
 */
import { random } from './random.js';

/**
 * A triangle soup over a ring of `around` x `along` quads (6 corners a quad)
 * whose corner copies are jittered by up to `jitter` (in tolerances) per axis,
 * `d` coordinates a vertex.
 */
export function torusSoup(
  d: 2 | 3,
  around: number,
  along: number,
  jitter: number,
  tolerance: number,
  seed: number,
): number[] {
  const rand = random(seed);
  const out: number[] = [];
  const corner = (u: number, v: number) => {
    const a = (u / around) * 2 * Math.PI;
    const b = (v / along) * 2 * Math.PI;
    const ring = 1 + 0.35 * Math.cos(b);
    const point = [3.1 + ring * Math.cos(a), -1.7 + ring * Math.sin(a), 0.9 + 0.35 * Math.sin(b)];
    for (let axis = 0; axis < d; axis++) out.push(point[axis] + (rand() - 0.5) * 2 * jitter * tolerance);
  };
  for (let u = 0; u < around; u++) {
    for (let v = 0; v < along; v++) {
      for (const [du, dv] of [
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 0],
        [1, 1],
        [0, 1],
      ]) {
        corner(u + du, v + dv);
      }
    }
  }
  return out;
}
