// Generated from src/templates/pairs.template.ts by scripts/expand-templates.mjs (npm run build): edit the template, not this file.
// The half-stencil pair search of a PointGrid: every pair of points within the radius once (i < j by sorted
// position), written once for 2D and 3D and for both paths (scripts/expand-templates.mjs explains the
// directives). Both paths run it as the same resumable loop: it writes pairs into an output region and stops
// before a point whose worst case would not fit, so that its driver can hand a batch to a visitor, or grow the
// output, and call it again (src/pointgrid/pair-driver.ts on the JavaScript path, src/wasm/pair-kernels.ts on
// the kernels). So the two find the same pairs in the same order, candidate for candidate.
//
// Per cell (in cell order): gather the cell's half stencil (the rest of its row to the right within reach is
// one run of sorted positions after the cell's own points; each row above, and in 3D each row of the layers
// above, between cx - reach and cx + reach is one more range, with the y (and z) edge nearest the cell). Per
// point of the cell: test the later points of the run, then each range, every scan cut to the x window that
// the range's gap leaves (cells are sorted by x, so a scan stops at the first point too far right). Every
// candidate in the window is written and the length advances only on a hit: no branch to mispredict. The
// kernels test two candidates at once where the coordinates are float64 in 2D (f64x2): the same tests lane by
// lane, so the same pairs.

/**
 * The half-stencil pair search on the JavaScript path, from the same
 * template as the kernels' (src/wasm/assembly/pair-search.ts): see
 * pair-driver.ts for who calls it and what it does with the pairs.
 *
 * @module
 */
import { SLACK } from '../core/margins.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';

const EMPTY = new Uint32Array(0);

/**
 * Where one search stands (the kernels keep the same numbers as module
 * globals): set up by pair-driver.ts, carried on by the search from call to
 * call. One per grid, so that a visitor may search another grid.
 */
export class PairSearch {
  /** Cells of the stencil along an axis (at most 2^30: see stencilReach), and as a double. */
  reach = 0;
  reachF = 0;
  r2 = 0;
  /** Hashed grids whose stencil holds more cells than the grid: every later cell is tested instead. */
  scanAll = false;
  cellTo = 0;
  /** A cell's gathered ranges: 2 sorted positions each. */
  ranges = new Int32Array(64);
  /** Each range's edges: 2 numbers in 2D, 4 in 3D (see the template). */
  edges = new Float64Array(128);
  /** Hashed: a cell id per stencil row, moving forward as the cells are visited. */
  cursors = new Int32Array(8);
  /** Where pairs go: `step` numbers a pair, `length` used, room for `outCapacity`. */
  out: Uint32Array = EMPTY;
  outCapacity = 0;
  step = 2;
  /** ROWS searches (step 1): each point's run end in `out`, by sorted position. */
  rowEnd: Uint32Array = EMPTY;
  /** The cell the search is in, the next point, that cell's end and run end, its ranges (-1: not gathered yet). */
  cell = 0;
  point = 0;
  cellEnd = 0;
  runEnd = 0;
  rangeCount = -1;
  length = 0;
  /** Numbers the next point may write at worst, when the search stopped for room. */
  needed = 0;
}

/**
 * Gathers cell c's half stencil into st.ranges and st.edges and its run end
 * into st.runEnd; returns the number of range entries (2 a range).
 */
function gather2(g: Grid2D, st: PairSearch, c: number): number {
  const cellStart = g.cellStart;
  const keys = g.cellKeys;
  const cells = g.cellTotal;
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const dense = g.dense;
  const width = g.width;
  const ranges = st.ranges;
  const edges = st.edges;
  const cursors = st.cursors;
  const reach = st.reach;
  const reachF = st.reachF;
  const scanAll = st.scanAll;
  let count = 0;
  if (dense) {
    const cy = Math.floor(c / cellsX);
    const row = cy * cellsX;
    const cx = c - row;
    const rowsAbove = Math.min(reach, cellsY - 1 - cy);
    const left = cx > reach ? cx - reach : 0;
    const right = Math.min(cx + reach, cellsX - 1) + 1;
    st.runEnd = cellStart[row + right];
    for (let dy = 1, above = row + cellsX; dy <= rowsAbove; dy++, above += cellsX) {
      const a = cellStart[above + left];
      const b = cellStart[above + right];
      if (a < b) {
        edges[count] = cy + dy > cy ? (cy + dy) * width : cy + dy < cy ? (cy + dy + 1) * width : 0;
        edges[count + 1] = cy + dy > cy ? 1.0 : cy + dy < cy ? -1.0 : 0.0;
        ranges[count] = a;
        ranges[count + 1] = b;
        count += 2;
      }
    }
    return count;
  }
  const kx = keys[2 * c];
  const ky = keys[2 * c + 1];
  const reachOf = reachF;
  if (scanAll) {
    st.runEnd = cellStart[c + 1];
    for (let other = c + 1; other < cells; other++) {
      if (Math.abs(keys[2 * other] - kx) <= reachOf && Math.abs(keys[2 * other + 1] - ky) <= reachOf) {
        edges[count] =
          keys[2 * other + 1] > ky
            ? keys[2 * other + 1] * width
            : keys[2 * other + 1] < ky
              ? (keys[2 * other + 1] + 1) * width
              : 0;
        edges[count + 1] = keys[2 * other + 1] > ky ? 1.0 : keys[2 * other + 1] < ky ? -1.0 : 0.0;
        ranges[count] = cellStart[other];
        ranges[count + 1] = cellStart[other + 1];
        count += 2;
      }
    }
    return count;
  }
  // The rest of the cell's row within reach: the cells right after it in row-major order.
  let next = c + 1;
  while (next < cells && keys[2 * next + 1] === ky && keys[2 * next] <= kx + reachOf) next++;
  st.runEnd = cellStart[next];
  const left = kx - reachOf;
  // A cursor per stencil row (the rows above in the cell's layer, then every row of the layers above, in 3D):
  // the first cell at or after (left, y, z) in row-major order only moves forward as the cells are visited.
  let row = 0;
  for (let dz = 0; dz <= 0; dz++) {
    for (let dy = dz === 0 ? 1 : -reach; dy <= reach; dy++, row++) {
      const y = ky + dy;
      let first = cursors[row];
      while (first < cells) {
        const fy = keys[2 * first + 1];
        if (fy > y || (fy === y && keys[2 * first] >= left)) break;
        first++;
      }
      cursors[row] = first;
      if (first === cells || keys[2 * first + 1] !== y || keys[2 * first] > kx + reachOf) continue;
      let last = first + 1;
      while (last < cells && keys[2 * last + 1] === y && keys[2 * last] <= kx + reachOf) last++;
      edges[count] = y > ky ? y * width : y < ky ? (y + 1) * width : 0;
      edges[count + 1] = y > ky ? 1.0 : y < ky ? -1.0 : 0.0;
      ranges[count] = cellStart[first];
      ranges[count + 1] = cellStart[last];
      count += 2;
    }
  }
  return count;
}

/**
 * Runs `st`'s search of `g` on until it is done (returns 0) or the next
 * point's worst case does not fit the output (returns 1, with st.needed
 * set): the caller then empties or grows the output and calls again.
 */
export function searchPairs2D(g: Grid2D, st: PairSearch): number {
  const coords = g.coords;
  const cellStart = g.cellStart;
  const originY = g.originY;
  const width = g.width;
  const pointCount = g.points;
  const ranges = st.ranges;
  const edges = st.edges;
  const out = st.out;
  const rowEnd = st.rowEnd;
  const r2 = st.r2;
  const step = st.step;
  const cellTo = st.cellTo;
  const capacity = st.outCapacity;
  // The second sorted position of a pair goes step - 1 after the first: in ROWS mode it overwrites it.
  const last = step - 1;
  // (Locals named apart from the state: in the kernels the state is module globals of those names.)
  let c = st.cell;
  let p = st.point;
  let end = st.cellEnd;
  let run = st.runEnd;
  let count = st.rangeCount;
  let used = st.length;
  for (; c < cellTo; c++) {
    if (count < 0) {
      let first = cellStart[c];
      end = cellStart[c + 1];
      if (first === end) continue;
      count = gather2(g, st, c);
      run = st.runEnd;
      // Runs read from cell starts stay inside the points and never run backwards, whatever a buffer from
      // elsewhere holds (see core/bounded.ts), so that a point's candidates, what it may write, stay bounded.
      if (first < 0) first = 0;
      if (end > pointCount) end = pointCount;
      if (run > pointCount) run = pointCount;
      if (run < end) run = end;
      for (let k = 0; k < count; k += 2) {
        let a = ranges[k];
        let b = ranges[k + 1];
        if (b > pointCount) b = pointCount;
        if (a < 0) a = 0;
        if (a > b) a = b;
        ranges[k] = a;
        ranges[k + 1] = b;
      }
      p = first;
    }
    for (; p < end; p++) {
      const s = p;
      let most = run - s - 1;
      for (let k = 0; k < count; k += 2) most += ranges[k + 1] - ranges[k];
      if (used + step * most > capacity) {
        st.cell = c;
        st.point = p;
        st.cellEnd = end;
        st.runEnd = run;
        st.rangeCount = count;
        st.length = used;
        st.needed = step * most;
        return 1;
      }
      const px = coords[2 * s];
      const py = coords[2 * s + 1];
      let t = s + 1;
      const open = true;
      for (; open && t < run; t++) {
        const dx = coords[2 * t] - px;
        const dx2 = dx * dx;
        if (dx2 > r2) break;
        const dy = coords[2 * t + 1] - py;
        out[used] = s;
        out[used + last] = t;
        used = (used + step * +(dx2 + dy * dy <= r2)) | 0;
      }
      const relY = py - originY;
      for (let k = 0; k < count; k += 2) {
        const stop = ranges[k + 1];
        let t = ranges[k];
        while (t < stop) {
          const dx = coords[2 * t] - px;
          if (dx >= 0 || dx * dx <= r2) break;
          t++;
        }
        ranges[k] = t;
        // The x window of this range: no point of it is nearer in y (and z) than its gap, lowered by a margin
        // for the rounding of cell borders and of relY (relZ); widened by one for the distance test's own
        // rounding, so it holds every pair the test accepts. (A NaN from overflowing edges of huge cells counts
        // as no gap, never as a window of NaN.)
        const edge = edges[k];
        const below = edges[k + 1] * (edge - relY) - (Math.abs(edge) + Math.abs(relY) + width) * SLACK;
        const gap = below > 0 ? below : 0;
        const window2 = r2 - gap * gap + r2 * SLACK;
        // (The range's start moved on by the radius alone: the window changes from point to point.)
        while (t < stop) {
          const dx = coords[2 * t] - px;
          if (dx >= 0 || dx * dx <= window2) break;
          t++;
        }
        const inside = true;
        for (; inside && t < stop; t++) {
          const dx = coords[2 * t] - px;
          const dx2 = dx * dx;
          if (dx2 > window2) break;
          const dy = coords[2 * t + 1] - py;
          out[used] = s;
          out[used + last] = t;
          used = (used + step * +(dx2 + dy * dy <= r2)) | 0;
        }
      }
      if (step === 1) rowEnd[s] = used;
    }
    count = -1;
  }
  st.cell = c;
  st.point = p;
  st.rangeCount = count;
  st.length = used;
  return 0;
}

/**
 * Gathers cell c's half stencil into st.ranges and st.edges and its run end
 * into st.runEnd; returns the number of range entries (2 a range).
 */
function gather3(g: Grid3D, st: PairSearch, c: number): number {
  const cellStart = g.cellStart;
  const keys = g.cellKeys;
  const cells = g.cellTotal;
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const cellsZ = g.cellsZ;
  const dense = g.dense;
  const width = g.width;
  const ranges = st.ranges;
  const edges = st.edges;
  const cursors = st.cursors;
  const reach = st.reach;
  const reachF = st.reachF;
  const scanAll = st.scanAll;
  let count = 0;
  if (dense) {
    const layer = cellsX * cellsY;
    const r = Math.floor(c / cellsX);
    const cz = Math.floor(r / cellsY);
    const cy = r - cz * cellsY;
    const row = r * cellsX;
    const layersAbove = Math.min(reach, cellsZ - 1 - cz);
    const yLow = Math.max(cy - reach, 0);
    const yHigh = Math.min(cy + reach, cellsY - 1);
    const cx = c - row;
    const rowsAbove = Math.min(reach, cellsY - 1 - cy);
    const left = cx > reach ? cx - reach : 0;
    const right = Math.min(cx + reach, cellsX - 1) + 1;
    st.runEnd = cellStart[row + right];
    for (let dy = 1, above = row + cellsX; dy <= rowsAbove; dy++, above += cellsX) {
      const a = cellStart[above + left];
      const b = cellStart[above + right];
      if (a < b) {
        edges[2 * count] = cy + dy > cy ? (cy + dy) * width : cy + dy < cy ? (cy + dy + 1) * width : 0;
        edges[2 * count + 1] = cy + dy > cy ? 1.0 : cy + dy < cy ? -1.0 : 0.0;
        edges[2 * count + 2] = 0;
        edges[2 * count + 3] = 0;
        ranges[count] = a;
        ranges[count + 1] = b;
        count += 2;
      }
    }
    for (let dz = 1; dz <= layersAbove; dz++) {
      const base = (cz + dz) * layer;
      for (let oy = yLow; oy <= yHigh; oy++) {
        const other = base + oy * cellsX;
        const a = cellStart[other + left];
        const b = cellStart[other + right];
        if (a < b) {
          edges[2 * count] = oy > cy ? oy * width : oy < cy ? (oy + 1) * width : 0;
          edges[2 * count + 1] = oy > cy ? 1.0 : oy < cy ? -1.0 : 0.0;
          edges[2 * count + 2] = cz + dz > cz ? (cz + dz) * width : cz + dz < cz ? (cz + dz + 1) * width : 0;
          edges[2 * count + 3] = cz + dz > cz ? 1.0 : cz + dz < cz ? -1.0 : 0.0;
          ranges[count] = a;
          ranges[count + 1] = b;
          count += 2;
        }
      }
    }
    return count;
  }
  const kx = keys[3 * c];
  const ky = keys[3 * c + 1];
  const kz = keys[3 * c + 2];
  const reachOf = reachF;
  if (scanAll) {
    st.runEnd = cellStart[c + 1];
    for (let other = c + 1; other < cells; other++) {
      if (
        Math.abs(keys[3 * other] - kx) <= reachOf &&
        Math.abs(keys[3 * other + 2] - kz) <= reachOf &&
        Math.abs(keys[3 * other + 1] - ky) <= reachOf
      ) {
        edges[2 * count] =
          keys[3 * other + 1] > ky
            ? keys[3 * other + 1] * width
            : keys[3 * other + 1] < ky
              ? (keys[3 * other + 1] + 1) * width
              : 0;
        edges[2 * count + 1] = keys[3 * other + 1] > ky ? 1.0 : keys[3 * other + 1] < ky ? -1.0 : 0.0;
        edges[2 * count + 2] =
          keys[3 * other + 2] > kz
            ? keys[3 * other + 2] * width
            : keys[3 * other + 2] < kz
              ? (keys[3 * other + 2] + 1) * width
              : 0;
        edges[2 * count + 3] = keys[3 * other + 2] > kz ? 1.0 : keys[3 * other + 2] < kz ? -1.0 : 0.0;
        ranges[count] = cellStart[other];
        ranges[count + 1] = cellStart[other + 1];
        count += 2;
      }
    }
    return count;
  }
  // The rest of the cell's row within reach: the cells right after it in row-major order.
  let next = c + 1;
  while (next < cells && keys[3 * next + 2] === kz && keys[3 * next + 1] === ky && keys[3 * next] <= kx + reachOf)
    next++;
  st.runEnd = cellStart[next];
  const left = kx - reachOf;
  // A cursor per stencil row (the rows above in the cell's layer, then every row of the layers above, in 3D):
  // the first cell at or after (left, y, z) in row-major order only moves forward as the cells are visited.
  let row = 0;
  for (let dz = 0; dz <= reach; dz++) {
    const z = kz + dz;
    for (let dy = dz === 0 ? 1 : -reach; dy <= reach; dy++, row++) {
      const y = ky + dy;
      let first = cursors[row];
      while (first < cells) {
        const fz = keys[3 * first + 2];
        const fy = keys[3 * first + 1];
        if (fz > z || (fz === z && (fy > y || (fy === y && keys[3 * first] >= left)))) break;
        first++;
      }
      cursors[row] = first;
      if (first === cells || keys[3 * first + 2] !== z || keys[3 * first + 1] !== y || keys[3 * first] > kx + reachOf)
        continue;
      let last = first + 1;
      while (last < cells && keys[3 * last + 2] === z && keys[3 * last + 1] === y && keys[3 * last] <= kx + reachOf)
        last++;
      edges[2 * count] = y > ky ? y * width : y < ky ? (y + 1) * width : 0;
      edges[2 * count + 1] = y > ky ? 1.0 : y < ky ? -1.0 : 0.0;
      edges[2 * count + 2] = z > kz ? z * width : z < kz ? (z + 1) * width : 0;
      edges[2 * count + 3] = z > kz ? 1.0 : z < kz ? -1.0 : 0.0;
      ranges[count] = cellStart[first];
      ranges[count + 1] = cellStart[last];
      count += 2;
    }
  }
  return count;
}

/**
 * Runs `st`'s search of `g` on until it is done (returns 0) or the next
 * point's worst case does not fit the output (returns 1, with st.needed
 * set): the caller then empties or grows the output and calls again.
 */
export function searchPairs3D(g: Grid3D, st: PairSearch): number {
  const coords = g.coords;
  const cellStart = g.cellStart;
  const originY = g.originY;
  const originZ = g.originZ;
  const width = g.width;
  const pointCount = g.points;
  const ranges = st.ranges;
  const edges = st.edges;
  const out = st.out;
  const rowEnd = st.rowEnd;
  const r2 = st.r2;
  const step = st.step;
  const cellTo = st.cellTo;
  const capacity = st.outCapacity;
  // The second sorted position of a pair goes step - 1 after the first: in ROWS mode it overwrites it.
  const last = step - 1;
  // (Locals named apart from the state: in the kernels the state is module globals of those names.)
  let c = st.cell;
  let p = st.point;
  let end = st.cellEnd;
  let run = st.runEnd;
  let count = st.rangeCount;
  let used = st.length;
  for (; c < cellTo; c++) {
    if (count < 0) {
      let first = cellStart[c];
      end = cellStart[c + 1];
      if (first === end) continue;
      count = gather3(g, st, c);
      run = st.runEnd;
      // Runs read from cell starts stay inside the points and never run backwards, whatever a buffer from
      // elsewhere holds (see core/bounded.ts), so that a point's candidates, what it may write, stay bounded.
      if (first < 0) first = 0;
      if (end > pointCount) end = pointCount;
      if (run > pointCount) run = pointCount;
      if (run < end) run = end;
      for (let k = 0; k < count; k += 2) {
        let a = ranges[k];
        let b = ranges[k + 1];
        if (b > pointCount) b = pointCount;
        if (a < 0) a = 0;
        if (a > b) a = b;
        ranges[k] = a;
        ranges[k + 1] = b;
      }
      p = first;
    }
    for (; p < end; p++) {
      const s = p;
      let most = run - s - 1;
      for (let k = 0; k < count; k += 2) most += ranges[k + 1] - ranges[k];
      if (used + step * most > capacity) {
        st.cell = c;
        st.point = p;
        st.cellEnd = end;
        st.runEnd = run;
        st.rangeCount = count;
        st.length = used;
        st.needed = step * most;
        return 1;
      }
      const px = coords[3 * s];
      const py = coords[3 * s + 1];
      const pz = coords[3 * s + 2];
      let t = s + 1;
      const open = true;
      for (; open && t < run; t++) {
        const dx = coords[3 * t] - px;
        const dx2 = dx * dx;
        if (dx2 > r2) break;
        const dy = coords[3 * t + 1] - py;
        const dz = coords[3 * t + 2] - pz;
        out[used] = s;
        out[used + last] = t;
        used = (used + step * +(dx2 + dy * dy + dz * dz <= r2)) | 0;
      }
      const relY = py - originY;
      const relZ = pz - originZ;
      for (let k = 0; k < count; k += 2) {
        const stop = ranges[k + 1];
        let t = ranges[k];
        while (t < stop) {
          const dx = coords[3 * t] - px;
          if (dx >= 0 || dx * dx <= r2) break;
          t++;
        }
        ranges[k] = t;
        // The x window of this range: no point of it is nearer in y (and z) than its gap, lowered by a margin
        // for the rounding of cell borders and of relY (relZ); widened by one for the distance test's own
        // rounding, so it holds every pair the test accepts. (A NaN from overflowing edges of huge cells counts
        // as no gap, never as a window of NaN.)
        const edgeY = edges[2 * k];
        const edgeZ = edges[2 * k + 2];
        const belowY = edges[2 * k + 1] * (edgeY - relY) - (Math.abs(edgeY) + Math.abs(relY) + width) * SLACK;
        const belowZ = edges[2 * k + 3] * (edgeZ - relZ) - (Math.abs(edgeZ) + Math.abs(relZ) + width) * SLACK;
        const gapY = belowY > 0 ? belowY : 0;
        const gapZ = belowZ > 0 ? belowZ : 0;
        const window2 = r2 - gapY * gapY - gapZ * gapZ + r2 * SLACK;
        // (The range's start moved on by the radius alone: the window changes from point to point.)
        while (t < stop) {
          const dx = coords[3 * t] - px;
          if (dx >= 0 || dx * dx <= window2) break;
          t++;
        }
        const inside = true;
        for (; inside && t < stop; t++) {
          const dx = coords[3 * t] - px;
          const dx2 = dx * dx;
          if (dx2 > window2) break;
          const dy = coords[3 * t + 1] - py;
          const dz = coords[3 * t + 2] - pz;
          out[used] = s;
          out[used + last] = t;
          used = (used + step * +(dx2 + dy * dy + dz * dz <= r2)) | 0;
        }
      }
      if (step === 1) rowEnd[s] = used;
    }
    count = -1;
  }
  st.cell = c;
  st.point = p;
  st.rangeCount = count;
  st.length = used;
  return 0;
}
