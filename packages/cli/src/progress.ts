/**
 * The progress bar: one line on stderr, redrawn at most ten times a second,
 * shown only when stderr is a terminal and only once a run has taken more than
 * a second (quick runs and pipes stay quiet). Every step of a run is
 * synchronous, so the bar is drawn from inside the loops, which call
 * {@link Progress.update} often and cheaply.
 *
 * @module
 */

const DELAY_MS = 1000;
const INTERVAL_MS = 100;
const WIDTH = 30;

/** Where the bar is drawn: stderr, or a test's stand-in. */
export interface ProgressSink {
  isTTY?: boolean;
  write(text: string): unknown;
}

export class Progress {
  private readonly started = Date.now();
  private nextDraw = this.started + DELAY_MS;
  private drawn = false;
  private phase = '';

  constructor(
    private readonly sink: ProgressSink = process.stderr,
    private readonly enabled = sink.isTTY === true,
  ) {}

  /** Reports `done` of `total` units of the current phase (reading, welding, writing). */
  update(phase: string, done: number, total: number): void {
    if (!this.enabled) return;
    this.phase = phase;
    const now = Date.now();
    if (now < this.nextDraw) return;
    this.nextDraw = now + INTERVAL_MS;
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(fraction * WIDTH);
    const seconds = ((now - this.started) / 1000).toFixed(1);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}`;
    this.sink.write(`\r${this.phase.padEnd(8)} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${seconds} s`);
    this.drawn = true;
  }

  /** Shows that a phase with no measure of its own (the weld itself) is under way, if the bar is showing. */
  step(phase: string): void {
    this.update(phase, 0, 0);
  }

  /** Clears the bar's line, if one was drawn. */
  done(): void {
    if (this.drawn) this.sink.write(`\r${' '.repeat(WIDTH + 30)}\r`);
    this.drawn = false;
  }
}
