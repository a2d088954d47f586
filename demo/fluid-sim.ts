/**
 * A small position-based fluid (double density relaxation, after Clavet et al.
 * 2005) in a 3D tank. Its only spatial query is PointGrid3D.forEachPair, run
 * on a grid rebuilt every step from the flat position array. No DOM: the page
 * draws it, and it can be stepped in Node to tune it.
 */
import { PointGrid3D } from '../src/index.js';

/** Tank size and particle spacing, in simulation units (about one pixel at scale 1). */
export interface FluidOptions {
  count: number;
  width: number;
  height: number;
  depth: number;
  /** Interaction radius: particles closer than this push each other apart. */
  radius: number;
}

export class Fluid {
  readonly count: number;
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly radius: number;
  /** x, y, z per particle; y grows downwards like the screen. */
  readonly positions: Float32Array;
  readonly velocities: Float32Array;
  /** Pairs closer than `radius` found by the last step. */
  pairCount = 0;
  /** Milliseconds spent in PointGrid3D (rebuild + forEachPair) by the last step. */
  searchMs = 0;
  /** Gravity tilt in radians: the tank is rocked to keep the fluid sloshing. */
  tilt = 0;

  private readonly previous: Float32Array;
  /** Positions as the last neighbour search saw them (relaxation moves them right after), for checking its pairs. */
  private readonly searched: Float32Array;
  private readonly density: Float32Array;
  private readonly nearDensity: Float32Array;
  private readonly grid: PointGrid3D;
  private pairs = new Uint32Array(1 << 16);
  private closeness = new Float32Array(1 << 15);
  private restDensity = 1;

  constructor(options: FluidOptions) {
    const { count, width, height, depth, radius } = options;
    this.count = count;
    this.width = width;
    this.height = height;
    this.depth = depth;
    this.radius = radius;
    this.positions = new Float32Array(count * 3);
    this.velocities = new Float32Array(count * 3);
    this.previous = new Float32Array(count * 3);
    this.searched = new Float32Array(count * 3);
    this.density = new Float32Array(count);
    this.nearDensity = new Float32Array(count);
    // A dam: a block of fluid against the left wall, released at once.
    const spacing = radius * 0.5;
    const columns = Math.max(1, Math.floor((width * 0.3) / spacing));
    const layers = Math.max(1, Math.floor((depth - spacing) / spacing));
    for (let i = 0; i < count; i++) {
      const column = i % columns;
      const layer = Math.floor(i / columns) % layers;
      const row = Math.floor(i / (columns * layers));
      // A little jitter breaks the lattice's perfect symmetry.
      const jitter = ((i * 2654435761) % 1000) / 1000 - 0.5;
      this.positions[3 * i] = spacing * (column + 0.5) + jitter * 0.1 * spacing;
      this.positions[3 * i + 1] = height - spacing * (row + 0.5);
      this.positions[3 * i + 2] = spacing * (layer + 0.5) + jitter * 0.1 * spacing;
    }
    this.grid = new PointGrid3D(this.positions, { cellSize: radius });
    this.restDensity = this.measureRestDensity();
  }

  /** Rest density = the density inside the initial block, so the dam neither explodes nor collapses. */
  private measureRestDensity(): number {
    this.findPairs();
    this.accumulateDensity();
    let max = 0;
    for (let i = 0; i < this.count; i++) max = Math.max(max, this.density[i]);
    return Math.max(1, max * 0.9);
  }

  private findPairs(): void {
    const start = performance.now();
    this.pairCount = 0;
    this.grid.rebuild(this.positions);
    this.grid.forEachPair(this.radius, this.collectPair);
    this.searchMs = performance.now() - start;
  }

  private readonly collectPair = (i: number, j: number, distanceSquared: number): void => {
    const p = this.pairCount;
    if (p >= this.closeness.length) {
      const pairs = new Uint32Array(this.pairs.length * 2);
      pairs.set(this.pairs);
      this.pairs = pairs;
      const closeness = new Float32Array(this.closeness.length * 2);
      closeness.set(this.closeness);
      this.closeness = closeness;
    }
    this.pairs[2 * p] = i;
    this.pairs[2 * p + 1] = j;
    this.closeness[p] = 1 - Math.sqrt(distanceSquared) / this.radius;
    this.pairCount = p + 1;
  };

  private accumulateDensity(): void {
    const { density, nearDensity, pairs, closeness } = this;
    density.fill(0);
    nearDensity.fill(0);
    for (let p = 0; p < this.pairCount; p++) {
      const q = closeness[p];
      const q2 = q * q;
      const q3 = q2 * q;
      density[pairs[2 * p]] += q2;
      density[pairs[2 * p + 1]] += q2;
      nearDensity[pairs[2 * p]] += q3;
      nearDensity[pairs[2 * p + 1]] += q3;
    }
  }

  /** Copies of the last search's input positions (x, y, z, ...) and its pairs (i, j, ...). */
  lastSearch(): { positions: number[]; pairs: number[] } {
    return { positions: Array.from(this.searched), pairs: Array.from(this.pairs.subarray(0, 2 * this.pairCount)) };
  }

  /** One frame: gravity, prediction, neighbour search, density relaxation, walls. */
  step(time: number): void {
    const { count, positions, velocities, previous, density, nearDensity } = this;
    const gravity = 0.045;
    this.tilt = 0.22 * Math.sin(time * 0.45);
    const gx = Math.sin(this.tilt) * gravity;
    const gy = Math.cos(this.tilt) * gravity;
    for (let i = 0; i < count; i++) {
      velocities[3 * i] += gx;
      velocities[3 * i + 1] += gy;
      previous[3 * i] = positions[3 * i];
      previous[3 * i + 1] = positions[3 * i + 1];
      previous[3 * i + 2] = positions[3 * i + 2];
      positions[3 * i] += velocities[3 * i];
      positions[3 * i + 1] += velocities[3 * i + 1];
      positions[3 * i + 2] += velocities[3 * i + 2];
    }
    this.findPairs();
    this.searched.set(positions);
    this.accumulateDensity();
    const stiffness = 0.006;
    const nearStiffness = 0.02;
    const rest = this.restDensity;
    const { pairs, closeness } = this;
    for (let p = 0; p < this.pairCount; p++) {
      const i = pairs[2 * p];
      const j = pairs[2 * p + 1];
      const q = closeness[p];
      const pressure = stiffness * (density[i] + density[j] - 2 * rest) * 0.5;
      const nearPressure = nearStiffness * (nearDensity[i] + nearDensity[j]) * 0.5;
      const push = (pressure * q + nearPressure * q * q) * 0.5;
      let dx = positions[3 * j] - positions[3 * i];
      let dy = positions[3 * j + 1] - positions[3 * i + 1];
      let dz = positions[3 * j + 2] - positions[3 * i + 2];
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (d < 1e-6) continue;
      dx = (dx / d) * push * this.radius;
      dy = (dy / d) * push * this.radius;
      dz = (dz / d) * push * this.radius;
      positions[3 * i] -= dx;
      positions[3 * i + 1] -= dy;
      positions[3 * i + 2] -= dz;
      positions[3 * j] += dx;
      positions[3 * j + 1] += dy;
      positions[3 * j + 2] += dz;
    }
    const limits = [this.width, this.height, this.depth];
    for (let i = 0; i < count; i++) {
      for (let axis = 0; axis < 3; axis++) {
        const k = 3 * i + axis;
        const limit = limits[axis];
        // Walls keep a small jittered margin so particles never stack on one plane.
        if (positions[k] < 0) positions[k] = ((i * 0.618) % 1) * 0.01 * this.radius;
        else if (positions[k] > limit) positions[k] = limit - ((i * 0.618) % 1) * 0.01 * this.radius;
        velocities[k] = (positions[k] - previous[k]) * 0.995;
      }
    }
  }
}
