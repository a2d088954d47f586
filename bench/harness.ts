/**
 * The measuring side of `npm run bench`: seeded random numbers, a garbage
 * collector handle, the interleaved timing loop with its answer check, and
 * the markdown tables.
 *
 * @module
 */
import { execSync } from 'node:child_process';
import { cpus } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Seeded uniform generator in [0, 1): a Weyl sequence through the murmur3
 * finaliser. Tiny, fast, and the same stream on every machine, which is all
 * a benchmark needs.
 */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

/** Standard normal deviates from a uniform source (Box-Muller, one value per call). */
export function gaussian(rand: () => number): () => number {
  return () => {
    const u = 1 - rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
}

/** Fisher-Yates shuffle of `order` in place. */
export function shuffle(order: Uint32Array, rand: () => number): Uint32Array {
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  return order;
}

/**
 * Everything a timed run returns flows in here and is printed at the end, so
 * the JIT cannot prove any result unused.
 */
export const sink = { value: 0 };

/** Adds a run's answer to the sink. */
export function consume(x: number | bigint): void {
  sink.value = (sink.value + Number(BigInt.asUintN(48, BigInt(x)))) % 1e15;
}

let gcFunction: (() => void) | undefined;

/**
 * The V8 collector, exposed at run time so `tsx bench/run.ts` needs no node
 * flag: setting `--expose-gc` late only takes effect for new contexts, which
 * is where we fetch it from.
 */
export function gc(): void {
  if (!gcFunction) {
    const existing = (globalThis as { gc?: () => void }).gc;
    if (typeof existing === 'function') gcFunction = existing;
    else {
      setFlagsFromString('--expose-gc');
      gcFunction = runInNewContext('gc') as () => void;
    }
  }
  gcFunction();
}

/**
 * Order-independent fingerprint of a set of (i, j) answers: the count in the
 * high bits, the sum of (i + 1) * (j + 1) modulo 2^30 in the low 32. A
 * bigint, because counts reach tens of millions and a double would round
 * the sum away. Modulo 2^30 because a loop in a closure (a visitor) keeps
 * its running sum in a context slot, where V8 boxes any value outside the
 * 31-bit small integers: summing modulo 2^32 there would allocate per
 * result and charge the contender for the harness's bookkeeping. Callers may
 * pass a sum modulo 2^32 (or 2^30); only its low 30 bits are kept.
 */
export function fingerprint(count: number, sum: number): bigint {
  return (BigInt(count) << 32n) | BigInt(sum & 0x3fffffff);
}

/** The count part of a {@link fingerprint}. */
export function answerCount(answer: bigint): number {
  return Number(answer >> 32n);
}

/**
 * The sum modulo 2^32 of (i + 1) * (j + 1) over the first `n` CSR rows, j in
 * row i: each row's (j + 1) summed first and multiplied once by (i + 1), the
 * same sum in a ring, at one multiplication a row instead of one an entry.
 * The C floors' fingerprints are plain C loops that the compiler vectorizes;
 * this keeps the harness's share of a JavaScript row small beside them (2.8
 * million entries: 4.2 ms where a multiplication an entry took 6.6 to 7.4 on
 * AMD EPYC, 2026-12-04), the same amount for every contender that returns
 * CSR rows.
 */
export function csrSum(offsets: Uint32Array, indices: Uint32Array, n: number): number {
  let sum = 0;
  for (let i = 0, k = offsets[0]; i < n; i++) {
    const end = offsets[i + 1];
    let row = 0;
    for (; k < end; k++) row = (row + indices[k] + 1) | 0;
    sum = (sum + Math.imul(i + 1, row)) | 0;
  }
  return sum;
}

/** Harness fingerprint of CSR rows: count and sum of (i + 1) * (j + 1) (see {@link csrSum}). */
export function csrFingerprint(csr: { offsets: Uint32Array; indices: Uint32Array }): bigint {
  const { offsets, indices } = csr;
  const n = offsets.length - 1;
  return fingerprint(offsets[n], csrSum(offsets, indices, n));
}

/** A {@link fingerprint} in words, for error messages. */
export function describeAnswer(answer: bigint): string {
  return `${answerCount(answer)} results, sum ${answer & 0x3fffffffn}`;
}

/** One thing to time. `run` does the whole job once and returns its answer's {@link fingerprint}. */
export interface Contender {
  name: string;
  run: () => bigint;
  /**
   * For contenders timed elsewhere (the C floor runs in its own process): the
   * duration of the last `run` in ms, used instead of the wall clock here.
   */
  lastMs?: () => number;
  /** Skip the equality check (say why in the workload's notes). */
  unchecked?: boolean;
}

/** Timing summary of one contender. */
export interface Timing {
  name: string;
  times: number[];
  median: number;
  min: number;
  answer: bigint;
  /**
   * Minor page faults of each timed run (first touches of memory the process
   * got from the OS), in the order of `times`: on a VM they can cost more
   * than the work itself, so a workload that allocates can show them.
   */
  faults: number[];
}

/** Minor page faults of this process so far (Node only: 0 where resourceUsage is missing). */
function minorFaults(): number {
  return typeof process.resourceUsage === 'function' ? process.resourceUsage().minorPageFault : 0;
}

/** Milliseconds one call of `run` takes: the profiles' timer (bench/profile-*.ts), outside measure(). */
export function elapsed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** Median of a list of numbers (mean of the middle two for even lengths). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile, p in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Options of {@link measure}. */
export interface MeasureOptions {
  /** Timed repetitions per contender (after the check run and one warm-up run). */
  reps: number;
  /**
   * A contender whose check run took longer than this (ms) gets no separate
   * warm-up run (its check run is its warm-up) and only `slowReps` timed
   * runs, so one slow peer cannot eat the time budget. The check run never
   * counts as a timed run: the process's first run of a path pays for
   * compiling and for memory it touches first (the kernels' memory growing
   * to its working size), which a later run does not.
   */
  slowMs?: number;
  slowReps?: number;
}

/**
 * Checks, warms up and times every contender: one run each whose answers must
 * all agree with the first contender's (else throws before anything is
 * timed), one warm-up run each, then repetitions interleaved A B C A B C so
 * drift in machine load hits everyone alike. A full collection precedes each
 * timed run so nobody pays for the previous contender's garbage. Every timed
 * run's answer is checked again.
 */
export function measure(label: string, contenders: readonly Contender[], options: MeasureOptions): Timing[] {
  const answers: bigint[] = [];
  const checkMs: number[] = [];
  for (const c of contenders) {
    gc();
    const start = performance.now();
    const answer = c.run();
    checkMs.push(c.lastMs ? c.lastMs() : performance.now() - start);
    answers.push(answer);
    consume(answer);
  }
  const slowMs = options.slowMs ?? Number.POSITIVE_INFINITY;
  const slow = checkMs.map((t) => t > slowMs);
  const reference = answers[0];
  const wrong = contenders.filter((c, k) => !c.unchecked && answers[k] !== reference);
  if (wrong.length > 0) {
    const lines = contenders.map((c, k) => `  ${c.name}: ${describeAnswer(answers[k])}`).join('\n');
    throw new Error(`${label}: contenders disagree, nothing timed:\n${lines}`);
  }
  // A slow contender ran long enough in its check to be warm: it gets no
  // separate warm-up, and fewer timed runs.
  const reps = contenders.map((_, k) => (slow[k] ? (options.slowReps ?? options.reps) : options.reps));
  // Warm-up: let every other contender reach its optimised code before timing.
  contenders.forEach((c, k) => {
    if (!slow[k]) consume(c.run());
  });
  const times: number[][] = contenders.map(() => []);
  const faults: number[][] = contenders.map(() => []);
  const rounds = Math.max(...reps);
  for (let r = 0; r < rounds; r++) {
    contenders.forEach((c, k) => {
      if (r >= reps[k]) return;
      gc();
      const before = minorFaults();
      const start = performance.now();
      const answer = c.run();
      const ms = c.lastMs ? c.lastMs() : performance.now() - start;
      faults[k].push(minorFaults() - before);
      if (answer !== answers[k]) throw new Error(`${label}: ${c.name} changed its answer between runs`);
      consume(answer);
      times[k].push(ms);
    });
  }
  return contenders.map((c, k) => ({
    name: c.name,
    times: times[k],
    median: median(times[k]),
    min: Math.min(...times[k]),
    answer: answers[k],
    faults: faults[k],
  }));
}

/** Formats milliseconds with 3 significant digits (at least 1 decimal below 100). */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** Ratio to the reference, `>1` meaning slower than the reference. */
export function ratio(value: number, reference: number): string {
  const r = value / reference;
  return r >= 10 ? r.toFixed(0) : r.toFixed(2);
}

/** A markdown table from a header row and data rows. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Extra columns for {@link timingTable}. */
export interface ExtraColumns {
  header: string[];
  cells: (t: Timing) => string[];
}

/**
 * The standard table of a workload: contender, median, min, runs and ratio of
 * medians to `reference` (the contender named so, this library).
 */
export function timingTable(timings: readonly Timing[], reference: string, extra?: ExtraColumns): string {
  const ours = timings.find((t) => t.name === reference);
  if (!ours) throw new Error(`no contender named ${reference}`);
  const header = ['contender', 'median ms', 'min ms', 'runs', `ratio to ${reference}`];
  const rows = timings.map((t) => [
    t.name,
    ms(t.median),
    ms(t.min),
    String(t.times.length),
    ratio(t.median, ours.median),
  ]);
  if (!extra) return table(header, rows);
  return table(
    [...header, ...extra.header],
    rows.map((row, k) => [...row, ...extra.cells(timings[k])]),
  );
}

/** Machine and runtime, for the header of the results. */
export function environment(): string {
  let model = cpus()[0]?.model ?? 'unknown CPU';
  try {
    const line = execSync('lscpu', { encoding: 'utf8' })
      .split('\n')
      .find((l) => l.startsWith('Model name:'));
    if (line) model = line.slice('Model name:'.length).trim();
  } catch {
    // lscpu is Linux-only; the os module's name is the fallback.
  }
  return `${model}, ${cpus().length} cores; Node ${process.version} (V8 ${process.versions.v8}); ${process.platform} ${process.arch}; ${new Date().toISOString()}`;
}
