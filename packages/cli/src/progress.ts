/**
 * The progress bar: one line on stderr, shown only when stderr is a terminal
 * and only once a run has taken more than a second (quick runs and pipes stay
 * quiet), then redrawn four times a second.
 *
 * The command (cli.ts) runs its job on a worker thread and draws the bar on
 * the main thread from shared memory: the job only stores its phase and how
 * far it got ({@link Progress.update}, cheap, called from inside the loops),
 * so the bar keeps moving (its clock at least) while the job is inside one
 * long synchronous call such as the weld itself. Run in-process (tests,
 * `run()` called directly), the bar is drawn from update() itself, at most
 * ten times a second.
 *
 * @module
 */

/** Before the first drawing; SPATIALHASH_PROGRESS_DELAY_MS overrides it (for tests through a terminal). */
const DELAY_MS = numberFromEnvironment('SPATIALHASH_PROGRESS_DELAY_MS', 1000);
/** Between drawings on the main thread; SPATIALHASH_PROGRESS_INTERVAL_MS overrides it (for tests). */
const TICK_MS = numberFromEnvironment('SPATIALHASH_PROGRESS_INTERVAL_MS', 250);
/** Between drawings from update() in-process. */
const INTERVAL_MS = 100;
const WIDTH = 30;

/** The phases a job reports, by number in shared memory (0: nothing yet). */
const PHASES = ['', 'reading', 'decoding', 'welding', 'merging', 'encoding', 'writing'];

/** Bytes of the shared memory a {@link Progress} reports into: phase number, done, total. */
export const PROGRESS_BYTES = 3 * 8;

function numberFromEnvironment(name: string, fallback: number): number {
  const text = typeof process === 'undefined' ? undefined : process.env[name];
  const value = text === undefined || text === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** Where the bar is drawn: stderr, or a test's stand-in. */
export interface ProgressSink {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** The bar's line for `phase` at `done` of `total` (total 0: a phase with no measure), `seconds` into the run. */
function barLine(phase: string, done: number, total: number, seconds: number): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(fraction * WIDTH);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}`;
  return `\r${phase.padEnd(8)} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${seconds.toFixed(1)} s`;
}

const CLEAR = `\r${' '.repeat(WIDTH + 30)}\r`;

export class Progress {
  private readonly started = Date.now();
  private nextDraw = this.started + DELAY_MS;
  private drawn = false;
  private phase = '';
  private readonly shared: Float64Array | undefined;

  /**
   * @param sink where to draw in-process (only when it is a terminal).
   * @param shared memory of {@link PROGRESS_BYTES} that another thread draws from ({@link ProgressTicker}):
   * then nothing is drawn here.
   */
  constructor(
    private readonly sink: ProgressSink = process.stderr,
    shared?: SharedArrayBuffer,
  ) {
    this.shared = shared === undefined ? undefined : new Float64Array(shared, 0, 3);
    this.enabled = shared === undefined && sink.isTTY === true;
  }

  private readonly enabled: boolean;

  /** Reports `done` of `total` units of the current phase (reading, welding, writing). */
  update(phase: string, done: number, total: number): void {
    const shared = this.shared;
    if (shared !== undefined) {
      shared[0] = Math.max(0, PHASES.indexOf(phase));
      shared[1] = done;
      shared[2] = total;
      return;
    }
    if (!this.enabled) return;
    this.phase = phase;
    const now = Date.now();
    if (now < this.nextDraw) return;
    this.nextDraw = now + INTERVAL_MS;
    this.sink.write(barLine(this.phase, done, total, (now - this.started) / 1000));
    this.drawn = true;
  }

  /** Shows that a phase with no measure of its own (the weld itself) is under way. */
  step(phase: string): void {
    this.update(phase, 0, 0);
  }

  /** Clears the bar's line, if one was drawn. */
  done(): void {
    if (this.drawn) this.sink.write(CLEAR);
    this.drawn = false;
  }
}

/**
 * Draws the bar of a job on another thread from the shared memory its
 * {@link Progress} reports into: every {@link TICK_MS} once the run has taken
 * {@link DELAY_MS}, whatever the job is doing, and only on a terminal.
 */
export class ProgressTicker {
  private readonly started = Date.now();
  private readonly state: Float64Array;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private drawn = false;

  constructor(
    shared: SharedArrayBuffer,
    private readonly sink: ProgressSink = process.stderr,
  ) {
    this.state = new Float64Array(shared, 0, 3);
    if (sink.isTTY === true) {
      this.timer = setInterval(() => this.draw(), TICK_MS);
      // The bar never keeps the process alive.
      this.timer.unref();
    }
  }

  private draw(): void {
    const elapsed = Date.now() - this.started;
    const phase = PHASES[this.state[0]!] ?? '';
    if (elapsed < DELAY_MS || phase === '') return;
    this.sink.write(barLine(phase, this.state[1]!, this.state[2]!, elapsed / 1000));
    this.drawn = true;
  }

  /** Clears the bar's line (before other text is written, or at the end); the next tick draws it again. */
  clear(): void {
    if (this.drawn) this.sink.write(CLEAR);
    this.drawn = false;
  }

  /** Clears the line and stops drawing. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.clear();
  }
}
