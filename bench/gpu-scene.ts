/**
 * The particles of the GPU workloads (`gpu` in Chromium, `gpu-dawn` in Node)
 * and the CPU's answer for them: one generator, so the GPU page, Dawn and the
 * CPU grid time and check the same points.
 *
 * @module
 */
import { PointGrid3D } from '../src/index.js';

/** Smoothing radius and cell size of the density pass, in position units. */
export const H = 1;

/**
 * `n` seeded uniform particles, vec4 each (w = 0), in a cube of side `side`
 * sized so that a particle has about 30 others within {@link H}.
 */
export function particleScene(n: number): { positions: Float32Array; side: number } {
  const side = Math.cbrt((n * 4.19) / 30);
  let state = 12345;
  const positions = new Float32Array(4 * n);
  for (let i = 0; i < 4 * n; i++) {
    if (i % 4 === 3) continue;
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    positions[i] = (state / 4294967296) * side;
  }
  return { positions, side };
}

/**
 * The poly6 density sum of the GPU pass without its constant factor (mass
 * and poly6 coefficient 1): sum over j within `h`, i itself included, of
 * (h^2 - d^2)^3, in float64 over the float32 positions (vec4 each), through
 * PointGrid3D's pair search. `grid` may be passed to reuse one across frames.
 */
export function densityOnCpu(
  positions: Float32Array,
  h: number,
  out: Float64Array,
  grid = new PointGrid3D(positions, { cellSize: h, stride: 4 }),
): PointGrid3D {
  const h2 = h * h;
  out.fill(h2 * h2 * h2);
  grid.forEachPair(h, (i, j, d2) => {
    const w = h2 - d2;
    out[i] += w * w * w;
    out[j] += w * w * w;
  });
  return grid;
}
