/**
 * The particles page's threads control: with more than one thread chosen, a
 * PointGridWorkers pool rebuilds a shared PointGrid2D over a snapshot of the
 * balls and lists their touching pairs across the threads, beside the
 * page's own one-thread search, and shows the time and whether both agree.
 *
 * On a cross-origin isolated page (the dev server, the preview and the e2e
 * server send COOP/COEP headers: demo/vite.config.ts) the pool shares the
 * grid's memory; elsewhere it runs in copy mode, slower, with the same pairs.
 * Exposes `window.__threads` for the e2e test.
 */
import { PointGrid2D } from '../src/index.js';
import { PointGridWorkers } from '../src/workers/index.js';
import { byId, formatFixed, Smoothed, setText } from './common.js';

/** What the particles page lends the control: its live state, read when a search starts. */
export interface ThreadsSource {
  positions(): Float64Array;
  radius(): number;
  /** Pairs the page's own search found on the same positions, flat (i, j, ...), or undefined when not comparable. */
  pairsNow(): Uint32Array | undefined;
}

/** What the e2e test reads: the last parallel search and the positions it ran on. */
export interface ThreadsHook {
  readonly threads: number;
  readonly runs: number;
  readonly error: string;
  last(): { positions: number[]; pairs: number[]; radius: number; agrees: boolean } | undefined;
}

declare global {
  interface Window {
    __threads?: ThreadsHook;
  }
}

/** Adds the threads control to the page; `source` gives the balls. */
export function attachThreads(source: ThreadsSource): void {
  const select = byId<HTMLSelectElement>('threads');
  const figure = byId('parallel-ms');
  const note = byId('threads-note');
  const cores = Math.max(1, navigator.hardwareConcurrency || 1);
  const choices = [1, 2, 4, 8, 16].filter((t) => t === 1 || t <= Math.max(cores, 2));
  for (const t of choices) select.add(new Option(t === 1 ? '1 (this thread only)' : `${t} workers`, String(t)));

  let threads = 1;
  let pool: PointGridWorkers | undefined;
  let grid: PointGrid2D | undefined;
  let snapshot: Float64Array<ArrayBufferLike> = new Float64Array(0);
  let runs = 0;
  let error = '';
  let last: { positions: Float64Array; pairs: Uint32Array; radius: number; agrees: boolean } | undefined;
  const timing = new Smoothed();

  const isolated = typeof SharedArrayBuffer !== 'undefined' && globalThis.crossOriginIsolated === true;
  if (!isolated) {
    setText(note, 'This page is not cross-origin isolated (COOP/COEP headers): the workers get copies of the grid.');
  }

  async function loop(generation: number): Promise<void> {
    while (threads > 1 && generation === current) {
      const positions = source.positions();
      const radius = source.radius();
      // A snapshot (shared when the pool shares memory: read in place); reallocated only when the count changes.
      if (snapshot.length !== positions.length) {
        const bytes = 8 * Math.max(positions.length, 1);
        const buffer = pool!.shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
        snapshot = new Float64Array(buffer, 0, positions.length);
      }
      snapshot.set(positions);
      // A copy: the page overwrites its pairs every frame, while the pool works.
      const expected = source.pairsNow()?.slice();
      const started = performance.now();
      if (grid === undefined) grid = new PointGrid2D(snapshot, { cellSize: 2 * radius, shared: pool!.shared });
      await pool!.rebuild(grid, snapshot);
      const pairs = await pool!.pairs(grid, 2 * radius);
      if (generation !== current) return;
      // The first run includes starting the workers: left out of the figure.
      if (runs > 0) timing.add(performance.now() - started);
      const agrees = expected === undefined || samePairs(expected, pairs);
      last = { positions: snapshot.slice(), pairs, radius, agrees };
      runs++;
      setText(
        figure,
        `${formatFixed(timing.value, 2)} ms on ${threads} workers${agrees ? '' : ' (differs from the page search!)'}`,
      );
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  }

  let current = 0;
  select.addEventListener('change', () => {
    threads = Number(select.value);
    current++;
    pool?.close();
    pool = undefined;
    grid = undefined;
    last = undefined;
    setText(figure, '–');
    if (threads <= 1) return;
    try {
      // From the sources (under Vite) the pool starts worker.ts as a module worker, which Vite bundles.
      pool = new PointGridWorkers({ threads });
    } catch (e) {
      error = (e as Error).message;
      setText(note, error);
      return;
    }
    loop(current).catch((e: Error) => {
      error = e.message;
      setText(note, `Parallel search failed: ${error}`);
    });
  });

  window.__threads = {
    get threads() {
      return threads;
    },
    get runs() {
      return runs;
    },
    get error() {
      return error;
    },
    last() {
      if (last === undefined) return undefined;
      return {
        positions: Array.from(last.positions),
        pairs: Array.from(last.pairs),
        radius: last.radius,
        agrees: last.agrees,
      };
    },
  };
}

/** Same unordered pairs, whatever the order (the page's own search may list them differently). */
function samePairs(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  const key = (p: Uint32Array, k: number) => Math.min(p[k], p[k + 1]) * 2 ** 21 + Math.max(p[k], p[k + 1]);
  const keys = new Set<number>();
  for (let k = 0; k < a.length; k += 2) keys.add(key(a, k));
  for (let k = 0; k < b.length; k += 2) if (!keys.has(key(b, k))) return false;
  return true;
}
