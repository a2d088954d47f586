/**
 * The world of the stateful kernel suites (kernels.cases.ts): several
 * PointGrid2D / PointGrid3D grids at once, each in two module instances, the
 * subject (the library as a program imports it: kernel mode 'auto' unless a
 * command switches it, one kernels instance whose memory, mirror and query
 * state every grid of the thread shares) and its JavaScript-path twin (see
 * twin.ts), plus a model of what every grid buffer holds, from which the
 * brute-force oracle answers.
 *
 * Every call runs on both: the subject's answer must equal the twin's
 * exactly (same indices in the same order, the same visits, the same bytes
 * in the grid buffer after a build, the same Error for a rejected call) and,
 * as a set, the oracle's. The model is kept per buffer, not per grid, since
 * grids over one SharedArrayBuffer see each other's rebuilds (the threads
 * guide): a grid answers from what was last built into the buffer it views.
 *
 * Grids over an ordinary ArrayBuffer that another grid rebuilt in place (a
 * from() view, or its owner) are not queried until they rebuild: nothing
 * documents what such a grid answers. The other cases of an unusual buffer
 * are: a `corrupt` grid (a copy whose body was written over, opened with
 * `check: 'header'`), whose queries must end without an error and name only
 * points below the count; and a transferred buffer, whose queries must throw
 * the same Error on both.
 *
 * @module
 */

import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import type { NumericArray } from '../../src/core/validate.js';
import type { KernelMode, NeighborLists, PointGrid2D, PointGrid3D } from '../../src/index.js';
import * as subjectLibrary from '../../src/index.js';
import { H_BUILDS, H_POINTS, readGrid } from '../../src/pointgrid/grid-data.js';
import type { PointGridWorkers } from '../../src/workers/index.js';
import { gridContents } from '../support/grid-twins.js';
import { distanceSquared, type Layout, PointOracle, pack, pointAt } from '../support/pointgrid-oracle.js';
import { random } from '../support/random.js';
import type { ForeignBuilder } from './foreign.js';
import { type Library, twin } from './twin.js';

/** A grid of either module instance. */
export type Grid = PointGrid2D | PointGrid3D;
type Buffer = ArrayBuffer | SharedArrayBuffer;

/** The subject library (the sources as tests import them). */
export const subject: Library = subjectLibrary;

const ascending = (a: number, b: number) => a - b;

// ---------------------------------------------------------------------------
// Points

/** How a command's points are drawn (at run time, from `seed`, scaled to the grid's cell size). */
export interface PointsSpec {
  shape: 'uniform' | 'lattice' | 'coincident' | 'clustered' | 'far' | 'line' | 'distant';
  count: number;
  seed: number;
}

/** The points of `spec` in `d` dimensions for a grid of cell size `h`. */
export function makePoints(spec: PointsSpec, d: 2 | 3, h: number): number[][] {
  const rand = random(spec.seed);
  const n = spec.count;
  const span = (d === 2 ? 5 : 2.5) * h;
  const uniform = () => Array.from({ length: d }, () => (rand() * 2 - 1) * span);
  switch (spec.shape) {
    case 'uniform':
      return Array.from({ length: n }, uniform);
    case 'lattice':
      // Exactly on cell borders, or a hair either side.
      return Array.from({ length: n }, () =>
        Array.from({ length: d }, () => (Math.floor(rand() * 9) - 4 + [0, 0, 1e-9, -1e-9][Math.floor(rand() * 4)]) * h),
      );
    case 'coincident': {
      const few = Array.from({ length: 1 + Math.floor(rand() * 3) }, uniform);
      return Array.from({ length: n }, () => few[Math.floor(rand() * few.length)].slice());
    }
    case 'clustered': {
      // Clusters hundreds of cells apart: a box of too many cells for the dense layout.
      const centers = Array.from({ length: 1 + Math.floor(rand() * 3) }, () =>
        Array.from({ length: d }, () => (rand() * 2 - 1) * 400 * h),
      );
      return Array.from({ length: n }, () => {
        const c = centers[Math.floor(rand() * centers.length)];
        return c.map((v) => v + (rand() * 2 - 1) * 2 * h);
      });
    }
    case 'far': {
      const points = Array.from({ length: n }, uniform);
      for (let k = 0; k < Math.min(2, n); k++) points[k] = points[k].map((v) => v + (rand() < 0.5 ? -1 : 1) * 1e5 * h);
      return points;
    }
    case 'line':
      // Point i at (i h, 0[, 0]): issue 39's smallest case, in its cell size.
      return Array.from({ length: n }, (_, i) => [i * h, ...Array.from({ length: d - 1 }, () => 0)]);
    case 'distant': {
      const base = Array.from({ length: d }, () => (rand() < 0.5 ? -1 : 1) * 1e9);
      return Array.from({ length: n }, () => base.map((v) => v + (rand() * 2 - 1) * span));
    }
  }
}

/** How a command moves a grid's points in place (no rebuild). */
export interface MoveSpec {
  kind: 'jitter' | 'shift' | 'scatter' | 'collapse' | 'swap' | 'crowd';
  seed: number;
  /** Share of the points a jitter or scatter moves (0..1); a crowd moves that share (at least 25) onto point 0. */
  share: number;
}

// ---------------------------------------------------------------------------
// Queries

/** Where a query point lies, resolved at run time against the grid's points. */
export interface QuerySpec {
  anchor: 'point' | 'near' | 'free' | 'outside' | 'far';
  pick: number;
  /** Three numbers in [-1, 1]. */
  u: number[];
  /** Radius in cell sizes; 'exact' is the distance to another point (a border case). */
  radius: number | 'exact';
}

/** A query point and radius of `spec` over `points` in `d` dimensions, cell size `h`. */
export function resolveQuery(spec: QuerySpec, points: number[][], d: 2 | 3, h: number): { q: number[]; r: number } {
  const n = points.length;
  const low = Array.from({ length: d }, (_, a) => (n === 0 ? 0 : Math.min(...points.map((p) => p[a]))));
  const high = Array.from({ length: d }, (_, a) => (n === 0 ? 0 : Math.max(...points.map((p) => p[a]))));
  const extent = Math.max(h, ...high.map((v, a) => v - low[a]));
  const center = low.map((v, a) => v + (high[a] - v) / 2);
  const u = spec.u;
  const base = n === 0 ? center : points[spec.pick % n];
  let q: number[];
  let r = spec.radius === 'exact' ? 0 : spec.radius * h;
  switch (spec.anchor) {
    case 'point':
      q = base.slice();
      break;
    case 'near':
      q = base.map((v, a) => v + u[a] * h);
      break;
    case 'free':
      q = center.map((v, a) => v + u[a] * (extent / 2 + 2 * h));
      break;
    case 'outside': {
      // Past the grid along x (the dense within's row chords then miss the grid: issue 39, class 2), anywhere
      // along the other axes, with a radius that reaches into the grid by a fraction of its extent.
      q = center.map((v, a) => v + u[a] * extent * 1.5);
      q[0] = u[0] >= 0 ? high[0] + (0.5 + 3 * u[0]) * extent : low[0] + (-0.5 + 3 * u[0]) * extent;
      const gap = Math.sqrt(q.reduce((s, v, a) => s + (v - Math.min(Math.max(v, low[a]), high[a])) ** 2, 0));
      r = gap + Math.abs(u[2]) * extent;
      break;
    }
    case 'far':
      // Far outside with a radius that takes in everything (issue 39's trap at 9e5, 9e5, radius 1e6).
      q = center.map((v, a) => v + (u[a] >= 0 ? 1 : -1) * 1e6 * h);
      r = 2e6 * h;
      break;
  }
  if (spec.radius === 'exact' && n > 0 && spec.anchor !== 'outside' && spec.anchor !== 'far') {
    r = Math.sqrt(distanceSquared(q, points[(spec.pick * 7 + 3) % n]));
  }
  return { q, r };
}

// ---------------------------------------------------------------------------
// The world

/** A grid's settings as the stateful suites draw them. */
export interface Shape {
  d: 2 | 3;
  layout: Layout;
  cellSize: number;
  maxDenseCells: number | undefined;
  shared: boolean;
}

/** What was last built into one subject buffer: the oracle over its points, and a count of builds. */
interface Content {
  oracle: PointOracle;
  version: number;
  /** The slot whose build wrote it (validate checks a grid's copies only against its own positions). */
  builder: number;
}

/** One grid of the world, in both module instances. */
export interface Slot {
  /** A number that names the grid in messages (slots are replaced, numbers are not reused). */
  id: number;
  d: 2 | 3;
  cellSize: number;
  /** The layout of the positions the grid was built from last (stride and offset are the grid's own). */
  layout: Layout;
  /** The array the grid rebuilds from by default (shared by the two grids); undefined for a from() grid until rebuilt. */
  positions: NumericArray | undefined;
  subject: Grid;
  twin: Grid;
  /** How it was made, for messages. */
  how: string;
  /** A copy whose body was written over, opened with check 'header' (until it is rebuilt). */
  corrupt: boolean;
  /** The version of its buffer's content at its last build or from() (see isStale). */
  synced: number;
  /** Whether its positions moved since its last build (validate then finds the copies differ). */
  moved: boolean;
}

/** Most grids a world holds at once. */
export const MAX_SLOTS = 5;

/**
 * Expects `actual` to equal `expected` (vitest's toEqual), checked first by
 * node's deep equality: most of the suites' time went into expect() calls
 * that pass.
 */
export function same(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message).toEqual(expected);
}

/** Expects Object.is(actual, expected) (vitest's toBe), as cheaply when it holds. */
function is(actual: unknown, expected: unknown, message?: string): void {
  if (!Object.is(actual, expected)) expect(actual, message).toBe(expected);
}

/** gridContents with the header's build count (its 8 bytes at H_BUILDS) zeroed. */
function withoutBuildCount(contents: number[][]): number[][] {
  contents[0].fill(0, 8 * H_BUILDS, 8 * H_BUILDS + 8);
  return contents;
}

/** Whether `message` is mode 'verify''s Error for answers that differ between the paths (see verify.ts). */
export function isVerifyDifference(message: string): boolean {
  return /^Error: spatialhash: kernel mode 'verify': .* differs between the WebAssembly kernels and the JavaScript path/.test(
    message,
  );
}

/** A call's outcome: its value, or the message of what it threw. */
type Outcome<T> = { value: T } | { error: string };

function attempt<T>(call: () => T): Outcome<T> {
  try {
    return { value: call() };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** Calls method `name` of a grid with flat arguments (a 2D and a 3D grid differ only in their coordinates). */
export function call<T>(grid: Grid, name: string, args: unknown[]): T {
  return (grid as unknown as Record<string, (...a: unknown[]) => T>)[name](...args);
}

/** The stateful world: grids, the model, the subject's kernel mode, and the pools of the pool suite. */
export class World {
  readonly slots: Slot[] = [];
  private readonly contents = new Map<Buffer, Content>();
  private nextId = 0;
  mode: KernelMode = 'auto';
  /** Earlier results to hand back as `out`: the subject's and the twin's. */
  lastPairs: [Uint32Array, Uint32Array] | undefined;
  lastRows: [NeighborLists, NeighborLists] | undefined;
  readonly pools: PointGridWorkers[];
  /** Grids rebuilt from inside the visitor of the search under way (see nestedSearch). */
  private readonly rebuiltInVisitor = new Set<Slot>();
  /** Grids whose answers from inside the visitor of the search under way are compared (see nestedSearch). */
  private readonly checkedInVisitor = new Set<Slot>();
  /** Counts of what the commands did, so a suite can require that each path was taken. */
  readonly taken = new Map<string, number>();

  /** The thread that rebuilds shared buffers behind this one's back (see foreignRebuild). */
  readonly foreign: ForeignBuilder | undefined;

  constructor(pools: PointGridWorkers[] = [], foreign?: ForeignBuilder) {
    this.pools = pools;
    this.foreign = foreign;
    subject.setKernelMode('auto');
  }

  /** Notes that `what` happened (see {@link taken}). */
  count(what: string): void {
    this.taken.set(what, (this.taken.get(what) ?? 0) + 1);
  }

  /** The slot `pick` names (modulo the slots). */
  slot(pick: number): Slot | undefined {
    return this.slots.length === 0 ? undefined : this.slots[pick % this.slots.length];
  }

  /** Adds a slot, replacing slot `pick` when the world is full. */
  private place(slot: Omit<Slot, 'id'>, pick: number): Slot {
    const full: Slot = { ...slot, id: this.nextId++ };
    if (this.slots.length < MAX_SLOTS) this.slots.push(full);
    else this.slots[pick % MAX_SLOTS] = full;
    return full;
  }

  /** Builds a grid of `shape` over `points` in both instances. */
  build(shape: Shape, points: number[][], pick = 0): Slot | undefined {
    const layout = { ...shape.layout, offset: points.length === 0 ? 0 : shape.layout.offset };
    const positions = pack(points, shape.d, layout);
    const options = {
      cellSize: shape.cellSize,
      stride: layout.stride,
      offset: layout.offset,
      maxDenseCells: shape.maxDenseCells,
      shared: shape.shared,
    };
    const make = (lib: Library) =>
      shape.d === 2 ? new lib.PointGrid2D(positions, options) : new lib.PointGrid3D(positions, options);
    const made = this.both(
      () => make(subject),
      () => make(twin),
    );
    if (made === undefined) return undefined;
    const slot = this.place(
      {
        d: shape.d,
        cellSize: shape.cellSize,
        layout,
        positions,
        subject: made[0],
        twin: made[1],
        how: `new PointGrid${shape.d}D(${layout.kind}, stride ${layout.stride}, offset ${layout.offset}, cellSize ${shape.cellSize}, maxDenseCells ${shape.maxDenseCells}${shape.shared ? ', shared' : ''})`,
        corrupt: false,
        synced: 0,
        moved: false,
      },
      pick,
    );
    this.built(slot, positions);
    return slot;
  }

  /** Records a finished build of `slot` from `positions`: the model of its buffer, and the bytes of both. */
  built(slot: Slot, positions: NumericArray): void {
    const data = slot.subject.data;
    const before = this.contents.get(data);
    const n = slot.subject.count;
    const version = (before?.version ?? 0) + 1;
    this.contents.set(data, { oracle: PointOracle.of(positions, slot.d, slot.layout, n), version, builder: slot.id });
    slot.synced = version;
    slot.corrupt = false;
    slot.moved = false;
    slot.positions = positions;
    this.count(`build ${slot.subject.layout} ${slot.layout.kind}`);
    this.expectSameBuffers(slot, 'after a build');
  }

  /**
   * The two grids' buffers hold the same header and sections, byte for
   * byte, but for the header's build count (H_BUILDS): it tells grids and
   * kernels that a buffer changed, not what it holds, and a build in mode
   * 'verify' counts its JavaScript check as a build too.
   */
  expectSameBuffers(slot: Slot, when: string): void {
    if (slot.subject.data.byteLength === 0) return;
    same(
      withoutBuildCount(gridContents(slot.subject.data, slot.d)),
      withoutBuildCount(gridContents(slot.twin.data, slot.d)),
      `grid #${slot.id}'s buffer ${when}`,
    );
  }

  /**
   * Runs `a` on the subject and `b` on the twin. Both must succeed (returns
   * both values) or both throw the same Error (returns undefined). Mode
   * 'javascript' is never set around the twin's call: the twin is another
   * module instance (see twin.ts).
   */
  both<A, B>(a: () => A, b: () => B, what = 'the call', slot?: Slot): [A, B] | undefined {
    const outcome = this.outcomes(a, b, what, slot);
    return 'error' in outcome ? undefined : outcome.value;
  }

  /** {@link both} of `run` on the subject's and the twin's grid of `slot`, each with its own earlier result as `out`. */
  bothWithOut<T, O>(slot: Slot, run: (grid: Grid, out: O | undefined) => T, outs: [O, O] | undefined, what: string) {
    return this.both(
      () => run(slot.subject, outs?.[0]),
      () => run(slot.twin, outs?.[1]),
      what,
      slot,
    );
  }

  /**
   * {@link both}, with the Error both threw. A query of a corrupt grid (see
   * the module notes) in mode 'verify' may throw the mode's Error where the
   * twin answers: which points a bad body gives is unspecified on either
   * path (the reliability guide), so the two paths may differ there, and
   * saying so is what the mode is for.
   */
  private outcomes<A, B>(a: () => A, b: () => B, what: string, slot?: Slot): Outcome<[A, B]> {
    const x = attempt(a);
    const y = attempt(b);
    if ('value' in x && 'value' in y) return { value: [x.value, y.value] };
    if (slot?.corrupt && 'error' in x && isVerifyDifference(x.error) && 'value' in y) {
      this.count('verify difference on a corrupt grid');
      return { error: x.error };
    }
    const mine = 'error' in x ? x.error : 'no error';
    const theirs = 'error' in y ? y.error : 'no error';
    // The whole messages in the text: the assertion's own diff cuts them short.
    is(mine, theirs, `${what}: the subject's outcome (${mine}) against the twin's (${theirs})`);
    return { error: 'error' in x ? x.error : '' };
  }

  /** What a slot's queries must answer from: the model of its buffer; undefined when nothing documents it. */
  oracle(slot: Slot): PointOracle | undefined {
    if (slot.corrupt || this.isStale(slot)) return undefined;
    return this.contents.get(slot.subject.data)?.oracle;
  }

  /** A grid over an ArrayBuffer that another grid rebuilt in place since (see the module notes). */
  isStale(slot: Slot): boolean {
    const data = slot.subject.data;
    const content = this.contents.get(data);
    const shared = typeof SharedArrayBuffer !== 'undefined' && data instanceof SharedArrayBuffer;
    return content !== undefined && !shared && content.version !== slot.synced;
  }

  /** Whether the slot's buffer was transferred away (queries must throw, on both). */
  isDetached(slot: Slot): boolean {
    return slot.subject.data.byteLength === 0;
  }

  /**
   * Whether validate() must pass: a grid that is not corrupt, stale or
   * detached, unless it built its buffer's content itself and its points
   * moved since (validate then compares the copies with them). A grid whose
   * buffer another grid (or thread) rebuilt since validates the body only,
   * which must be whole: it checks its copies only while the buffer holds its
   * own last build (GridBase.holdsPositions, which sync clears).
   */
  validates(slot: Slot): boolean {
    if (slot.corrupt || this.isStale(slot) || this.isDetached(slot)) return false;
    const content = this.contents.get(slot.subject.data);
    if (content === undefined) return false;
    return slot.positions === undefined || content.builder !== slot.id || !slot.moved;
  }

  /** The cell size a slot's queries are scaled to. */
  scale(slot: Slot): number {
    return slot.cellSize;
  }

  /** The points a slot's grid holds as the model says (empty for corrupt or undocumented grids). */
  points(slot: Slot): number[][] {
    return this.oracle(slot)?.points ?? [];
  }

  // -------------------------------------------------------------------------
  // Builds

  /**
   * Rebuilds `slot` from `positions` (undefined: the grid's own array), with
   * `layout` the new array's; returns the Error both threw, else undefined.
   */
  rebuild(slot: Slot, positions: NumericArray | undefined, layout: Layout): string | undefined {
    const outcome = this.outcomes(
      () => slot.subject.rebuild(positions),
      () => slot.twin.rebuild(positions),
      `#${slot.id}.rebuild()`,
    );
    if ('error' in outcome) return outcome.error;
    slot.layout = layout;
    this.built(slot, positions ?? (slot.positions as NumericArray));
    return undefined;
  }

  /** A new array of the slot's stride and offset holding `points`, of `kind`. */
  packFor(slot: Slot, points: number[][], kind: Layout['kind']): { positions: NumericArray; layout: Layout } {
    const layout: Layout = { stride: slot.subject.stride, offset: slot.subject.offset, kind };
    return { positions: pack(points, slot.d, layout), layout };
  }

  /** The points of the slot's positions array as it is now (moved or not). */
  currentPoints(slot: Slot): number[][] {
    const p = slot.positions;
    if (
      p === undefined ||
      (ArrayBuffer.isView(p) && p.byteLength === 0 && p.length === 0 && this.headerCount(slot) > 0)
    ) {
      return this.points(slot);
    }
    const layout = { ...slot.layout, stride: slot.subject.stride, offset: slot.subject.offset };
    const n = p.length === 0 ? 0 : Math.floor((p.length - layout.offset - slot.d) / layout.stride) + 1;
    return Array.from({ length: n }, (_, i) => pointAt(p, slot.d, layout, i));
  }

  /** Moves the slot's points in place, in the positions array both grids share. */
  move(slot: Slot, spec: MoveSpec): void {
    const p = slot.positions as number[] | Float32Array | Float64Array | undefined;
    if (p === undefined || p.length === 0) return;
    const d = slot.d;
    const stride = slot.subject.stride;
    const offset = slot.subject.offset;
    const n = Math.floor((p.length - offset - d) / stride) + 1;
    const h = slot.cellSize;
    const rand = random(spec.seed);
    const at = (i: number, a: number) => offset + i * stride + a;
    switch (spec.kind) {
      case 'jitter':
        for (let i = 0; i < n; i++) {
          if (rand() >= spec.share) continue;
          for (let a = 0; a < d; a++) p[at(i, a)] += (rand() - 0.5) * 0.6 * h;
        }
        break;
      case 'shift': {
        const axis = Math.floor(rand() * d);
        const by = [10, -10, 1, 0.5, -3][Math.floor(rand() * 5)] * h;
        for (let i = 0; i < n; i++) p[at(i, axis)] += by;
        break;
      }
      case 'scatter':
        for (let i = 0; i < n; i++) {
          if (rand() >= spec.share / 4) continue;
          for (let a = 0; a < d; a++) p[at(i, a)] = (rand() * 2 - 1) * 1e4 * h;
        }
        break;
      case 'collapse':
        for (let i = 1; i < n; i++) for (let a = 0; a < d; a++) p[at(i, a)] = p[at(0, a)];
        break;
      case 'crowd':
        // One cell past the small-cell sort's 24 points (a crowded cell: the kernels' sort of it reserves scratch).
        for (let i = 1; i < n && i <= Math.max(25, spec.share * n); i++)
          for (let a = 0; a < d; a++) p[at(i, a)] = p[at(0, a)];
        break;
      case 'swap': {
        const i = Math.floor(rand() * n);
        const j = Math.floor(rand() * n);
        for (let a = 0; a < d; a++) {
          const t = p[at(i, a)];
          p[at(i, a)] = p[at(j, a)];
          p[at(j, a)] = t;
        }
        break;
      }
    }
    slot.moved = true;
  }

  // -------------------------------------------------------------------------
  // from()

  /** A from() grid over slot's buffer: a view of it, or of a copy; with the full or the header check. */
  open(source: Slot, clone: boolean, check: 'full' | 'header', pick: number): Slot | undefined {
    if (this.isDetached(source)) return undefined;
    const dataOf = (grid: Grid) => (clone ? grid.data.slice(0) : grid.data);
    const options = { check };
    const from = (lib: Library, grid: Grid) =>
      source.d === 2 ? lib.PointGrid2D.from(dataOf(grid), options) : lib.PointGrid3D.from(dataOf(grid), options);
    const made = this.both(
      () => from(subject, source.subject),
      () => from(twin, source.twin),
      `from(#${source.id}.data)`,
    );
    if (made === undefined) return undefined;
    const content = this.contents.get(source.subject.data);
    const slot = this.place(
      {
        d: source.d,
        cellSize: source.cellSize,
        layout: { ...source.layout },
        positions: undefined,
        subject: made[0],
        twin: made[1],
        how: `from(${clone ? 'a copy of ' : ''}#${source.id}.data, { check: '${check}' })`,
        corrupt: source.corrupt,
        synced: content?.version ?? 0,
        moved: false,
      },
      pick,
    );
    this.count(
      `from ${clone ? 'copy' : 'view'} ${check}${source.subject.data instanceof ArrayBuffer ? '' : ' shared'}`,
    );
    if (clone && content !== undefined) {
      this.contents.set(slot.subject.data, { oracle: content.oracle, version: 1, builder: -1 });
      slot.synced = 1;
    }
    return slot;
  }

  /**
   * A copy of slot's buffer with one number of its body overwritten at
   * relative position `where` (0..1) of section `section`, opened with
   * check 'header' (corrupt: see the module notes).
   */
  corrupt(source: Slot, section: 'cellStart' | 'sortedIndex' | 'coords', where: number, value: number, pick: number) {
    if (this.isDetached(source) || this.headerCount(source) === 0) return undefined;
    const d = source.d;
    const write = (grid: Grid) => {
      const copy = grid.data.slice(0);
      const header = new Float64Array(copy, 0, 32);
      const n = header[4];
      const cells = header[5];
      const views = readGrid('test', copy, d);
      if (section === 'cellStart') views.cellStart[Math.floor(where * (cells + 1)) % (cells + 1)] = value | 0;
      else if (section === 'sortedIndex') views.sortedIndex[Math.floor(where * n) % n] = value >>> 0;
      else views.coords[Math.floor(where * d * n) % (d * n)] = value;
      return copy;
    };
    const from = (lib: Library, data: Buffer) =>
      d === 2 ? lib.PointGrid2D.from(data, { check: 'header' }) : lib.PointGrid3D.from(data, { check: 'header' });
    const made = this.both(
      () => from(subject, write(source.subject)),
      () => from(twin, write(source.twin)),
      `from(a corrupt copy of #${source.id}.data)`,
    );
    if (made === undefined) return undefined;
    this.count('corrupt');
    return this.place(
      {
        d,
        cellSize: source.cellSize,
        layout: { ...source.layout },
        positions: undefined,
        subject: made[0],
        twin: made[1],
        how: `from(a copy of #${source.id}.data with ${section}[${where.toFixed(2)}] = ${value}, { check: 'header' })`,
        corrupt: true,
        synced: 0,
        moved: false,
      },
      pick,
    );
  }

  // -------------------------------------------------------------------------
  // Queries

  /**
   * Checks a query's answers: the subject's equal the twin's exactly, and
   * (as sorted sets, `expected` of each) the oracle's; for a corrupt grid,
   * only that every index is below the count. `answers` are index lists.
   */
  expectIndices(slot: Slot, what: string, got: number[][], twinGot: number[][], expected?: number[][]): void {
    if (slot.corrupt) {
      // (Which points a corrupt body gives is unspecified, on either path: only their range is promised.)
      const n = slot.subject.count;
      for (const list of got)
        for (const i of list) if (!(i < n)) expect(i, `${what}: an index of a corrupt grid`).toBeLessThan(n);
      return;
    }
    same(got, twinGot, `${what}: subject against its JavaScript twin`);
    if (expected === undefined) return;
    same(
      got.map((list) => [...list].sort(ascending)),
      expected,
      `${what}: against brute force`,
    );
  }

  /** Whether a query of `slot` has something to check against: the oracle, or corrupt / transferred grids' rules. */
  queryable(slot: Slot): boolean {
    return slot.corrupt || this.isDetached(slot) || this.oracle(slot) !== undefined;
  }

  /** One within-type query on both and the checks (see QueryKind). */
  query(slot: Slot, kind: QueryKind, spec: QuerySpec, k: number): void {
    if (!this.queryable(slot)) return;
    const points = this.points(slot);
    const { q, r } = resolveQuery(
      spec,
      points.length > 0 ? points : [[0, 0, 0].slice(0, slot.d)],
      slot.d,
      slot.cellSize,
    );
    const oracle = this.oracle(slot);
    const what = `#${slot.id}.${kind}(${q}, ${r})`;
    this.count(`query ${kind}`);
    if (oracle !== undefined && this.contents.get(slot.subject.data)?.builder !== slot.id) {
      this.count(
        slot.positions === undefined ? 'query of a from() grid' : 'query after another grid rebuilt the buffer',
      );
    }
    if (kind === 'within' || kind === 'withinOut') {
      const run = (grid: Grid) => {
        const out = kind === 'withinOut' ? [7, 7, 7] : undefined;
        const got = call<number[]>(grid, 'within', [...q, r, out]);
        if (out !== undefined) is(got, out);
        return [...got];
      };
      const done = this.both(
        () => run(slot.subject),
        () => run(slot.twin),
        what,
        slot,
      );
      if (done !== undefined) this.expectIndices(slot, what, [done[0]], [done[1]], oracle && [oracle.within(q, r)]);
      return;
    }
    if (kind === 'withinInto' || kind === 'withinIntoShort') {
      const n = this.headerCount(slot);
      const expected = oracle?.within(q, r);
      const length = kind === 'withinInto' ? n + 1 : Math.max(0, (expected?.length ?? 2) - 1);
      const run = (grid: Grid) => {
        const out = new Uint32Array(length).fill(0xdeadbeef);
        const found = call<number>(grid, 'withinInto', [...q, r, out]);
        return { found, written: Array.from(out.subarray(0, Math.min(found, length))) };
      };
      const done = this.both(
        () => run(slot.subject),
        () => run(slot.twin),
        what,
        slot,
      );
      if (done === undefined) return;
      const [a, b] = done;
      if (!slot.corrupt) is(a.found, b.found, `${what}: count, subject against twin`);
      if (expected !== undefined) is(a.found, expected.length, `${what}: count against brute force`);
      if (kind === 'withinInto' || expected === undefined) {
        this.expectIndices(slot, what, [a.written], [b.written], expected && [expected]);
      } else {
        // A short out: what fits is written, each once, all within the radius.
        this.expectIndices(slot, what, [a.written], [b.written]);
        is(new Set(a.written).size, a.written.length, `${what}: a short out holds each point once`);
        for (const i of a.written)
          if (!expected.includes(i)) expect(expected, `${what}: a short out's point`).toContain(i);
      }
      return;
    }
    if (kind === 'nearest') {
      const max = spec.radius === 'exact' || k % 2 === 0 ? Number.POSITIVE_INFINITY : r;
      const count = [0, 1, 3, this.headerCount(slot) + 2][k % 4];
      const run = (grid: Grid) => [...call<number[]>(grid, 'nearest', [...q, count, max, [5, 5]])];
      const done = this.both(
        () => run(slot.subject),
        () => run(slot.twin),
        `${what} nearest k ${count}`,
        slot,
      );
      if (done === undefined) return;
      if (!slot.corrupt) same(done[0], done[1], `${what}: nearest, subject against twin`);
      if (oracle !== undefined) same(done[0], oracle.nearest(q, count, max), `${what}: nearest against brute force`);
      if (slot.corrupt)
        for (const i of done[0]) is(i < this.headerCount(slot), true, `${what}: index ${i} of a corrupt grid`);
    }
  }

  /** withinMany of several queries on both (packed with a stride and offset, into an earlier result or not). */
  withinMany(slot: Slot, specs: QuerySpec[], layout: { stride: number; offset: number }, reuse: boolean): void {
    if (!this.queryable(slot)) return;
    const points = this.points(slot);
    const d = slot.d;
    const resolved = specs.map((s) =>
      resolveQuery(s, points.length > 0 ? points : [[0, 0, 0].slice(0, d)], d, slot.cellSize),
    );
    const r = resolved[0].r;
    const qs = resolved.map((x) => x.q);
    const flat = new Array<number>(layout.offset + qs.length * layout.stride).fill(0);
    qs.forEach((q, i) => {
      for (let a = 0; a < d; a++) flat[layout.offset + i * layout.stride + a] = q[a];
    });
    const queries = Float64Array.from(flat);
    const last = reuse ? this.lastRows : undefined;
    const what = `#${slot.id}.withinMany(${qs.length} queries, ${r})`;
    this.count('withinMany');
    const run = (grid: Grid, out: NeighborLists | undefined) => {
      const rows = grid.withinMany(queries, r, { stride: layout.stride, offset: layout.offset, out });
      return rows;
    };
    const done = this.bothWithOut(slot, run, last, what);
    if (done === undefined) return;
    const [a, b] = done;
    this.lastRows = [a, b];
    if (!slot.corrupt) same(Array.from(a.offsets), Array.from(b.offsets), `${what}: offsets, subject against twin`);
    const rows = (x: NeighborLists) => qs.map((_, i) => Array.from(x.indices.subarray(x.offsets[i], x.offsets[i + 1])));
    const oracle = this.oracle(slot);
    this.expectIndices(slot, what, rows(a), rows(b), oracle && qs.map((q) => oracle.within(q, r)));
  }

  // -------------------------------------------------------------------------
  // Pair searches

  /** The oracle's pairs of a slot as sorted "i,j" strings. */
  private expectedPairs(slot: Slot, radius: number): string[] | undefined {
    const oracle = this.oracle(slot);
    if (oracle === undefined) return undefined;
    return oracle
      .pairs(radius)
      .map((s) => s.split(',').slice(0, 2).join(','))
      .sort();
  }

  /** A pair search of one kind on both, and the checks. */
  pairSearch(slot: Slot, kind: PairKind, radius: number, part: number, parts: number, reuse: boolean): void {
    if (!this.queryable(slot)) return;
    const n = this.headerCount(slot);
    const what = `#${slot.id}.${kind}(${radius}${parts > 1 ? `, part ${part % parts} of ${parts}` : ''})`;
    const slice = parts > 1 ? { part: part % parts, parts } : undefined;
    this.count(`pairs ${kind}`);
    const expected = parts > 1 ? undefined : this.expectedPairs(slot, radius);
    const asPairs = (flat: ArrayLike<number>) => {
      const out: string[] = [];
      for (let k = 0; k + 1 < flat.length; k += 2) out.push(`${flat[k]},${flat[k + 1]}`);
      return out;
    };
    const checkFlat = (a: number[], b: number[], distances?: [number[], number[]]) => {
      if (slot.corrupt) {
        for (const i of a) if (!(i < n)) expect(i, `${what}: an index of a corrupt grid`).toBeLessThan(n);
        return;
      }
      same(a, b, `${what}: subject against twin`);
      if (distances) same(distances[0], distances[1], `${what}: distances, subject against twin`);
      const found = asPairs(a);
      is(new Set(found).size, found.length, `${what}: a pair found twice`);
      for (let k = 0; k < a.length; k += 2)
        if (!(a[k] < a[k + 1])) expect(a[k], `${what}: i < j`).toBeLessThan(a[k + 1]);
      if (expected !== undefined) same([...found].sort(), expected, `${what}: against brute force`);
    };
    if (kind === 'forEachPairBatch') {
      // The batches concatenated are forEachPair's visits, the twin's (JavaScript) batches the same pairs in the
      // same order; each batch's array holds its pairs (count <= length / 2) and no call hands over none.
      const run = (grid: Grid) => {
        const visits: number[] = [];
        grid.forEachPairBatch(
          radius,
          (pairs, count) => {
            if (!(Number.isInteger(count) && count > 0 && 2 * count <= pairs.length))
              throw new Error(`${what}: a batch of ${count} pairs in an array of ${pairs.length}`);
            for (let k = 0; k < 2 * count; k++) visits.push(pairs[k]);
          },
          slice,
        );
        return visits;
      };
      const done = this.both(
        () => run(slot.subject),
        () => run(slot.twin),
        what,
        slot,
      );
      if (done === undefined) return;
      checkFlat(done[0], done[1]);
      if (!slot.corrupt) {
        const visits: number[] = [];
        slot.twin.forEachPair(
          radius,
          (i, j) => {
            visits.push(i, j);
          },
          slice,
        );
        same(done[0], visits, `${what}: the batches against the twin's forEachPair`);
      }
      return;
    }
    if (kind === 'forEachPair' || kind === 'forEachPairDistance') {
      const run = (grid: Grid) => {
        const visits: number[] = [];
        const distances: number[] = [];
        if (kind === 'forEachPair') {
          grid.forEachPair(
            radius,
            (i, j) => {
              visits.push(i, j);
            },
            slice,
          );
        } else {
          grid.forEachPair(
            radius,
            (i, j, d2) => {
              visits.push(i, j);
              distances.push(d2);
            },
            slice,
          );
        }
        return { visits, distances };
      };
      const done = this.both(
        () => run(slot.subject),
        () => run(slot.twin),
        what,
        slot,
      );
      if (done === undefined) return;
      checkFlat(done[0].visits, done[1].visits, [done[0].distances, done[1].distances]);
      const oracle = this.oracle(slot);
      if (kind === 'forEachPairDistance' && oracle !== undefined) {
        done[0].visits.forEach((_, k) => {
          if (k % 2 === 1) return;
          const [i, j] = [done[0].visits[k], done[0].visits[k + 1]];
          is(
            done[0].distances[k / 2],
            distanceSquared(oracle.points[i], oracle.points[j]),
            `${what}: d2 of ${i}, ${j}`,
          );
        });
      }
      return;
    }
    if (kind === 'pairs') {
      const last = reuse ? this.lastPairs : undefined;
      const run = (grid: Grid, out: Uint32Array | undefined) => grid.pairs(radius, { ...slice, out });
      const done = this.bothWithOut(slot, run, last, what);
      if (done === undefined) return;
      this.lastPairs = done;
      checkFlat(Array.from(done[0]), Array.from(done[1]));
      if (slice !== undefined && !slot.corrupt) {
        // The slices concatenated in part order are the full result.
        const parts: number[] = [];
        for (let p = 0; p < slice.parts; p++)
          parts.push(...slot.subject.pairs(radius, { part: p, parts: slice.parts }));
        same(parts, Array.from(slot.twin.pairs(radius)), `${what}: the slices in order`);
      }
      return;
    }
    // neighbors
    const last = reuse ? this.lastRows : undefined;
    const run = (grid: Grid, out: NeighborLists | undefined) => grid.neighbors(radius, { ...slice, out });
    const done = this.bothWithOut(slot, run, last, what);
    if (done === undefined) return;
    const [a, b] = done;
    this.lastRows = done;
    if (!slot.corrupt) same(Array.from(a.offsets), Array.from(b.offsets), `${what}: offsets, subject against twin`);
    const rows = (x: NeighborLists) =>
      Array.from({ length: x.offsets.length - 1 }, (_, i) =>
        Array.from(x.indices.subarray(x.offsets[i], x.offsets[i + 1])),
      );
    const oracle = this.oracle(slot);
    const expectedRows =
      oracle === undefined || slice !== undefined
        ? undefined
        : oracle.points.map((p, i) => oracle.within(p, radius).filter((j) => j !== i));
    this.expectIndices(slot, what, rows(a), rows(b), expectedRows);
  }

  /**
   * forEachPair on `slot` with calls from inside its visitor: at the visits
   * numbered in `at`, `nested` runs on the subject's grids in the subject's
   * visitor and on the twin's in the twin's; the visits and every nested
   * answer (or Error) must agree, and the nested answers match brute force.
   */
  nestedSearch(slot: Slot, radius: number, at: number[], nested: Nested[], batches = false): void {
    if (this.oracle(slot) === undefined || this.headerCount(slot) === 0) return;
    const what = `#${slot.id}.${batches ? 'forEachPairBatch' : 'forEachPair'}(${radius}) with calls from its visitor`;
    this.count(batches ? 'nested in forEachPairBatch' : 'nested');
    const expected = this.expectedPairs(slot, radius);
    const logs: unknown[][] = [[], []];
    const visits: number[][] = [[], []];
    // Which grids' nested answers are compared, decided once for both sides (a rebuild from the subject's visitor
    // may change what the model says of a grid before the twin's visitor runs).
    this.checkedInVisitor.clear();
    for (const s of this.slots) if (this.queryable(s) && !s.corrupt) this.checkedInVisitor.add(s);
    // Each call's grid and query point, resolved once for both sides against the model as it is now.
    const resolved = nested.map((n) => {
      const target = n.other ? (this.slot(n.pick) ?? slot) : slot;
      const points = this.points(target);
      const fallback = [[0, 0, 0].slice(0, target.d)];
      return { target, ...resolveQuery(n.query, points.length > 0 ? points : fallback, target.d, target.cellSize) };
    });
    const sides = [0, 1] as const;
    for (const side of sides) {
      const grid = side === 0 ? slot.subject : slot.twin;
      let visit = 0;
      const log = logs[side];
      const onPair = (i: number, j: number) => {
        visits[side].push(i, j);
        const now = visit++;
        for (let c = 0; c < nested.length; c++) {
          if (at[c % at.length] !== now) continue;
          log.push(`visit ${now}: ${nested[c].op}`, this.nestedCall(side, slot, nested[c], resolved[c]));
        }
      };
      // From a batch visitor the calls come after the pairs of their batch were found, at the same pairs.
      const run = batches
        ? () =>
            grid.forEachPairBatch(radius, (pairs, count) => {
              for (let k = 0; k < 2 * count; k += 2) onPair(pairs[k], pairs[k + 1]);
            })
        : () => grid.forEachPair(radius, onPair);
      const outcome = attempt(run);
      log.push('error' in outcome ? outcome.error : 'done');
    }
    // The model of a grid rebuilt from the visitor changes once both sides have rebuilt it.
    for (const target of this.rebuiltInVisitor) this.built(target, target.positions as NumericArray);
    this.rebuiltInVisitor.clear();
    same(logs[0], logs[1], `${what}: nested calls, subject against twin`);
    same(visits[0], visits[1], `${what}: visits, subject against twin`);
    const found: string[] = [];
    for (let k = 0; k < visits[0].length; k += 2) found.push(`${visits[0][k]},${visits[0][k + 1]}`);
    if (expected !== undefined) same(found.sort(), expected, `${what}: against brute force`);
  }

  /** One call from inside a visitor, on side 0 (subject) or 1 (twin); returns what it answered or threw. */
  private nestedCall(
    side: 0 | 1,
    outer: Slot,
    nested: Nested,
    { target, q, r }: { target: Slot; q: number[]; r: number },
  ): unknown {
    const grid = side === 0 ? target.subject : target.twin;
    const shares = target.subject.data === outer.subject.data;
    // (Brute force answers for the model, which a rebuild from this visitor has not changed yet.)
    const oracle = this.rebuiltInVisitor.has(target) ? undefined : this.oracle(target);
    const outcome = attempt((): unknown => {
      switch (nested.op) {
        case 'within': {
          const got = [...call<number[]>(grid, 'within', [...q, r])];
          if (side === 0 && oracle !== undefined) {
            same([...got].sort(ascending), oracle.within(q, r), `within(${q}, ${r}) of #${target.id} from a visitor`);
          }
          return got;
        }
        case 'burst': {
          // Past the kernels' copy throttle (64 queries), so that one of these copies its grid in, if the kernels
          // take queries while a search is waiting on its visitor.
          let got: number[] = [];
          for (let i = 0; i < 70; i++) got = [...call<number[]>(grid, 'within', [...q, r])];
          if (side === 0 && oracle !== undefined) {
            same([...got].sort(ascending), oracle.within(q, r), `70 withins of #${target.id} from a visitor`);
          }
          return got;
        }
        case 'withinInto': {
          const out = new Uint32Array(this.headerCount(target) + 1);
          const found = call<number>(grid, 'withinInto', [...q, r, out]);
          return [found, ...out.subarray(0, found)];
        }
        case 'nearest': {
          const got = [...call<number[]>(grid, 'nearest', [...q, 3, Number.POSITIVE_INFINITY])];
          if (side === 0 && oracle !== undefined) {
            same(got, oracle.nearest(q, 3, Number.POSITIVE_INFINITY), `nearest(${q}) of #${target.id} from a visitor`);
          }
          return got;
        }
        case 'pairs':
          return Array.from(grid.pairs(r));
        case 'forEachPair': {
          const seen: number[] = [];
          grid.forEachPair(r, (i, j) => {
            seen.push(i, j);
          });
          return seen;
        }
        case 'rebuild':
          // Another grid's rebuild (its own array) from inside the visitor; never one over the searched buffer,
          // whose search would then race with it (the grid's own rebuild throws, which is tested).
          if (shares && target !== outer) return 'skipped';
          grid.rebuild();
          if (side === 0 && target !== outer) this.rebuiltInVisitor.add(target);
          return grid.count;
        case 'mode':
          if (side === 0) {
            subject.setKernelMode(nested.mode);
            this.mode = nested.mode;
          }
          return 'mode';
        case 'release':
          if (side === 0) subject.releaseKernelMemory();
          return 'release';
      }
    });
    // A queryless (stale or corrupt) target's answers are not compared, nor mode 'verify''s report that a corrupt
    // one's answers differ between the paths (see outcomes).
    if ('error' in outcome) return target.corrupt && isVerifyDifference(outcome.error) ? 'unchecked' : outcome.error;
    if (!this.checkedInVisitor.has(target)) return 'unchecked';
    return outcome.value;
  }

  // -------------------------------------------------------------------------
  // Pools

  /** The pool's rebuild of `slot` from `positions` (undefined: its own array); the twin rebuilds on its thread. */
  async poolRebuild(pool: PointGridWorkers, slot: Slot, positions: NumericArray | undefined, layout: Layout) {
    const what = `pool(${pool.shared ? 'shared' : 'copy'}).rebuild(#${slot.id})`;
    this.count(`pool rebuild ${pool.shared && slot.subject.data instanceof SharedArrayBuffer ? 'shared' : 'copy'}`);
    let error: string | undefined;
    try {
      await pool.rebuild(slot.subject, positions);
    } catch (e) {
      error = (e as Error).message;
    }
    const twinDone = attempt(() => slot.twin.rebuild(positions));
    is(error === undefined, 'value' in twinDone, `${what}: succeeds as the twin's rebuild does (${error})`);
    if (error !== undefined) return;
    slot.layout = layout;
    this.built(slot, positions ?? (slot.positions as NumericArray));
  }

  /** The pool's pairs or neighbors of `slot`, against the twin's one-thread call and brute force. */
  async poolSearch(pool: PointGridWorkers, slot: Slot, kind: 'pairs' | 'neighbors', radius: number, reuse: boolean) {
    if (this.oracle(slot) === undefined) return;
    const what = `pool(${pool.shared ? 'shared' : 'copy'}).${kind}(#${slot.id}, ${radius})`;
    this.count(`pool ${kind}`);
    if (kind === 'pairs') {
      const got = Array.from(await pool.pairs(slot.subject, radius));
      const want = Array.from(slot.twin.pairs(radius));
      same(got, want, `${what}: against the twin's pairs()`);
      const found: string[] = [];
      for (let k = 0; k < got.length; k += 2) found.push(`${got[k]},${got[k + 1]}`);
      same(found.sort(), this.expectedPairs(slot, radius), `${what}: against brute force`);
      return;
    }
    const last = reuse ? this.lastRows : undefined;
    const got = await pool.neighbors(slot.subject, radius, last === undefined ? undefined : { out: last[0] });
    const want = slot.twin.neighbors(radius, last === undefined ? undefined : { out: last[1] });
    this.lastRows = [got, want];
    same(Array.from(got.offsets), Array.from(want.offsets), `${what}: offsets against the twin's`);
    same(Array.from(got.indices), Array.from(want.indices), `${what}: indices against the twin's`);
    const oracle = this.oracle(slot) as PointOracle;
    for (let i = 0; i < oracle.points.length; i++) {
      const row = Array.from(got.indices.subarray(got.offsets[i], got.offsets[i + 1])).sort(ascending);
      same(
        row,
        oracle.within(oracle.points[i], radius).filter((j) => j !== i),
        `${what}: row ${i} against brute force`,
      );
    }
  }

  // -------------------------------------------------------------------------
  // Another thread

  /**
   * Rebuilds the slot's SharedArrayBuffer from `positions` on another thread
   * (a from() grid there), as a worker sharing the buffer would: every grid
   * over the buffer here must then answer from that build, though no build
   * of this thread's told its kernels. The twin's buffer is rebuilt the same
   * way here, through a from() grid of the twin's.
   */
  foreignRebuild(slot: Slot, positions: NumericArray | undefined, layout: Layout): void {
    const data = slot.subject.data;
    const twinData = slot.twin.data;
    if (this.foreign === undefined || positions === undefined || slot.corrupt) return;
    // (Positions whose buffer was transferred away cannot be posted; their rebuilds are the transfer commands'.)
    if (ArrayBuffer.isView(positions) && positions.buffer.byteLength === 0) return;
    if (!(data instanceof SharedArrayBuffer) || !(twinData instanceof SharedArrayBuffer)) return;
    const outcome = this.foreign.rebuild(slot.d, data, positions);
    const view =
      slot.d === 2
        ? twin.PointGrid2D.from(twinData, { check: 'header' })
        : twin.PointGrid3D.from(twinData, { check: 'header' });
    const done = attempt(() => view.rebuild(positions));
    const what = `#${slot.id}'s buffer rebuilt by another thread`;
    is(
      typeof outcome === 'object' ? `Error: ${outcome.error}` : 'no error',
      'error' in done ? done.error.replace(/^\w*Error: /, 'Error: ') : 'no error',
      `${what}: its outcome against the twin's`,
    );
    if (typeof outcome === 'object') return;
    is(outcome === 'in place', view.data === twinData, `${what}: in place, as the twin's`);
    this.count(`foreign rebuild ${outcome}`);
    if (outcome !== 'in place') return;
    const stride = slot.subject.stride;
    const offset = slot.subject.offset;
    const n = positions.length === 0 ? 0 : Math.floor((positions.length - offset - slot.d) / stride) + 1;
    const before = this.contents.get(data);
    const oracle = PointOracle.of(positions, slot.d, { ...layout, stride, offset }, n);
    this.contents.set(data, { oracle, version: (before?.version ?? 0) + 1, builder: -2 });
    same(
      withoutBuildCount(gridContents(data, slot.d)),
      withoutBuildCount(gridContents(twinData, slot.d)),
      `${what}: the buffer, against the twin's`,
    );
  }

  // -------------------------------------------------------------------------
  // Transfers

  /** Transfers the slot's grid buffer away (an ArrayBuffer), on both: every grid over it then throws on queries. */
  transferData(slot: Slot): void {
    const data = slot.subject.data;
    if (!(data instanceof ArrayBuffer) || data.byteLength === 0) return;
    const twinData = slot.twin.data as ArrayBuffer;
    structuredClone(data, { transfer: [data] });
    structuredClone(twinData, { transfer: [twinData] });
    this.contents.delete(data);
    this.count('transfer data');
  }

  /**
   * Transfers the buffer of the slot's positions away (a typed array; both
   * grids share the array), then rebuilds from it: both must throw an Error
   * naming the positions (issue 39, class 6) and keep the grid as it was.
   */
  transferPositions(slot: Slot): void {
    const p = slot.positions;
    if (!(p instanceof Float32Array || p instanceof Float64Array) || p.length === 0) return;
    if (p.buffer instanceof SharedArrayBuffer) return;
    structuredClone(p.buffer, { transfer: [p.buffer as ArrayBuffer] });
    // (validate() compares the grid's copies with its positions, which no longer hold anything.)
    slot.moved = true;
    this.count('transfer positions');
    const error = this.rebuild(slot, undefined, slot.layout);
    expect(error, `#${slot.id}.rebuild() from transferred positions`).toMatch(/^Error: .*positions/);
  }

  /**
   * Each live grid's count is the model's, on both. Not after every command:
   * reading `count` re-reads a grid's header when another grid rebuilt its
   * buffer (as every query does first), and a check between every two
   * commands would do for the grids what their queries must do themselves.
   */
  expectCounts(): void {
    for (const slot of this.slots) {
      const oracle = this.oracle(slot);
      if (oracle === undefined || this.isDetached(slot)) continue;
      is(slot.subject.count, oracle.points.length, `#${slot.id} (${slot.how}).count`);
      is(slot.twin.count, oracle.points.length, `#${slot.id}'s twin count`);
    }
  }

  /** The point count the slot's buffer header holds, read without the grid (whose getter would sync it). */
  headerCount(slot: Slot): number {
    const data = slot.subject.data;
    return data.byteLength === 0 ? 0 : new Float64Array(data, 0, 32)[H_POINTS];
  }
}

/** The within-type queries: within (a new or a given out), withinInto (full or short), nearest. */
export type QueryKind = 'within' | 'withinOut' | 'withinInto' | 'withinIntoShort' | 'nearest';

/** The pair searches: forEachPair (2 or 3 parameter visitor), pairs, neighbors. */
export type PairKind = 'forEachPair' | 'forEachPairDistance' | 'forEachPairBatch' | 'pairs' | 'neighbors';

/** A call from inside a forEachPair visitor (see World.nestedSearch). */
export interface Nested {
  op: 'within' | 'burst' | 'withinInto' | 'nearest' | 'pairs' | 'forEachPair' | 'rebuild' | 'mode' | 'release';
  /** On another grid (slot `pick`) rather than the searched one. */
  other: boolean;
  pick: number;
  query: QuerySpec;
  mode: KernelMode;
}
