/**
 * The frame-loop allocation bar of issue 39 (item 9): a frame of rebuild() +
 * forEachPair() on 100,000 moving points allocates at most 1 KiB of
 * JavaScript heap, with no garbage collection in 300 frames, on the
 * WebAssembly kernels and on the JavaScript path. Measured by
 * bench/frame-allocation.ts in a child process of its own (it needs
 * `--expose-gc`, and a clean heap that no other test has touched): heap
 * growth between collection-free frames, the sampling's own cost
 * subtracted. A memory figure, not a time: the load of the machine does not
 * change it. Both paths run at once, one process each.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** What bench/frame-allocation.ts reports with --json. */
interface Figures {
  mode: string;
  frames: number;
  bytesPerFrame: number;
  medianBytesPerFrame: number;
  samplingBytes: number;
  collections: number;
}

function measure(mode: 'wasm' | 'javascript'): Promise<Figures> {
  const args = [
    '--expose-gc',
    '--import',
    'tsx',
    join(root, 'bench/frame-allocation.ts'),
    mode,
    '300',
    '100000',
    '--json',
  ];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: root, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() as string) as Figures);
    });
  });
}

describe('a particle frame loop (rebuild + forEachPair, 100,000 points)', () => {
  it('allocates at most 1 KiB a frame and never collects in 300 frames, on both paths', async () => {
    const figures = await Promise.all([measure('wasm'), measure('javascript')]);
    for (const f of figures) {
      expect({ mode: f.mode, collections: f.collections }, JSON.stringify(f)).toEqual({ mode: f.mode, collections: 0 });
      expect(f.bytesPerFrame, `${f.mode}: bytes a frame (${JSON.stringify(f)})`).toBeLessThanOrEqual(1024);
    }
  }, 180_000);
});
