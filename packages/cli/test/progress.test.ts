/**
 * The progress bar: nothing on a stream that is not a terminal, nothing
 * during the first second, then at most ten redraws a second, and a cleared
 * line at the end. The clock is vitest's fake one.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress } from '../src/progress.js';

describe('Progress', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function sink(isTTY: boolean) {
    const writes: string[] = [];
    return { writes, stream: { isTTY, write: (text: string) => writes.push(text) } };
  }

  it('stays quiet for a second, then draws at most every 100 ms, and clears its line', () => {
    const { writes, stream } = sink(true);
    const progress = new Progress(stream);
    progress.update('reading', 10, 100);
    vi.advanceTimersByTime(999);
    progress.update('reading', 20, 100);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    progress.update('reading', 50, 100);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^\rreading {2}\[#{15}-{15}\] {2}50% 1\.0 s$/);
    vi.advanceTimersByTime(50);
    progress.update('reading', 60, 100);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(50);
    progress.step('welding');
    expect(writes[1]).toMatch(/^\rwelding {2}\[-{30}\] {3}0% 1\.1 s$/);
    progress.done();
    expect(writes[2]).toMatch(/^\r +\r$/);
    progress.done();
    expect(writes).toHaveLength(3);
  });

  it('draws nothing when stderr is not a terminal, and clears nothing it did not draw', () => {
    const { writes, stream } = sink(false);
    const progress = new Progress(stream);
    vi.advanceTimersByTime(5000);
    progress.update('writing', 1, 2);
    progress.done();
    expect(writes).toEqual([]);
    const quick = sink(true);
    const fast = new Progress(quick.stream);
    fast.update('reading', 1, 2);
    fast.done();
    expect(quick.writes).toEqual([]);
  });
});
