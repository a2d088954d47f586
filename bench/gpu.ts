/**
 * Workload `gpu`: GPUPointGrid3D build + one SPH density pass (the README's,
 * poly6, about 30 neighbours per particle) at 1e5 and 1e6 particles, next to
 * PointGrid3D on the CPU doing the same (rebuild + a pair search summing
 * densities). Runs in headless Chromium through the GPU tests' page: on a
 * machine without a GPU that is SwiftShader, a CPU emulation, and the output
 * says so: SwiftShader timings are not GPU timings.
 *
 * @module
 */
import { PointGrid3D } from '../src/index.js';
import { openGpuPage } from '../test/webgpu/browser.js';
import { consume, median, ms, ratio, table } from './harness.js';

type PageFns = {
  timeDensity(n: number, side: number, h: number, frames: number): Promise<number[]>;
  adapterInfo(): Promise<string>;
};

/** The CPU side: same points (same generator), rebuild + density through forEachPair. */
function cpuDensity(n: number, side: number, h: number, frames: number): number[] {
  let state = 12345;
  const rand = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const positions = new Float32Array(3 * n);
  for (let i = 0, k = 0; i < 4 * n; i++) {
    const x = rand() * side;
    if (i % 4 !== 3) positions[k++] = x;
  }
  const density = new Float64Array(n);
  const h2 = h * h;
  const grid = new PointGrid3D(positions, { cellSize: h });
  const times: number[] = [];
  for (let f = 0; f <= frames; f++) {
    const t0 = performance.now();
    grid.rebuild();
    density.fill(h2 * h2 * h2);
    grid.forEachPair(h, (i, j, d2) => {
      const w = h2 - d2;
      density[i] += w * w * w;
      density[j] += w * w * w;
    });
    if (f > 0) times.push(performance.now() - t0);
    consume(Math.round(density[f % n] * 1000));
  }
  return times;
}

export async function gpuBench(quick: boolean): Promise<string> {
  const gpu = await openGpuPage(new URL('./gpu-page.ts', import.meta.url), 'timeDensity');
  try {
    const adapter = await gpu.page.evaluate(() => (globalThis as unknown as PageFns).adapterInfo());
    const software = /swiftshader/i.test(adapter);
    const sizes = quick ? [1e4] : [1e5, 1e6];
    const rows: string[][] = [];
    for (const n of sizes) {
      const side = Math.cbrt((n * 4.19) / 30);
      const frames = n >= 1e6 ? 3 : 5;
      console.log(`  gpu: ${n} particles...`);
      const gpuTimes = await gpu.page.evaluate(
        ([count, s, f]) => (globalThis as unknown as PageFns).timeDensity(count, s, 1, f),
        [n, side, frames] as [number, number, number],
      );
      const cpuTimes = cpuDensity(n, side, 1, frames);
      const g = median(gpuTimes);
      const c = median(cpuTimes);
      rows.push([String(n), ms(g), ms(c), ratio(c, g)]);
    }
    const header = [
      '## gpu: GPUPointGrid3D build + SPH density pass vs PointGrid3D (CPU)',
      '',
      `Adapter: ${adapter}.${
        software
          ? ' **SwiftShader is a CPU emulation of a GPU: these timings are not GPU timings** (they measure the shaders on the CPU, next to the CPU grid on the same CPU).'
          : ''
      } Median milliseconds per frame (build + one density pass, waited for), after one warm-up frame; CPU: rebuild + forEachPair summing densities.`,
      '',
    ].join('\n');
    return `${header}${table(['particles', 'GPUPointGrid3D', 'PointGrid3D (CPU)', 'CPU / GPU'], rows)}`;
  } finally {
    await gpu.close();
  }
}
