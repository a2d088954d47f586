/**
 * Workload `gpu`: GPUPointGrid3D build + one SPH density pass (poly6, about
 * 30 neighbours per particle; the `gridNext` short form of docs/guides/gpu.md,
 * one invocation per particle, as this workload's earlier runs timed it) at
 * 1e5 and 1e6 particles, next to PointGrid3D on the CPU doing the same
 * (rebuild + a pair search summing densities). Runs in headless Chromium through the GPU tests' page: on a
 * machine without a GPU that is SwiftShader, a CPU emulation, and the output
 * says so: SwiftShader timings are not GPU timings. On a machine with a GPU
 * but no browser, `gpu-dawn` (gpu-dawn.ts) times the same frame through Dawn
 * for Node.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { CHROMIUM, openGpuPage } from '../test/webgpu/browser.js';
import { FRAME_COLUMNS, FRAME_LEGEND, type FrameTimes, frameCells } from './gpu-frame.js';
import { densityOnCpu, H, particleScene } from './gpu-scene.js';
import { consume, median, ms, ratio, table } from './harness.js';

type PageFns = {
  timeDensity(n: number, frames: number): Promise<FrameTimes>;
  adapterInfo(): Promise<string>;
};

/** The CPU side: the same particles, rebuild + density through forEachPair. */
function cpuDensity(n: number, frames: number): number[] {
  const { positions } = particleScene(n);
  const density = new Float64Array(n);
  const grid = densityOnCpu(positions, H, density);
  const times: number[] = [];
  for (let f = 0; f <= frames; f++) {
    const t0 = performance.now();
    grid.rebuild();
    densityOnCpu(positions, H, density, grid);
    if (f > 0) times.push(performance.now() - t0);
    consume(Math.round(density[f % n] * 1000));
  }
  return times;
}

/**
 * Workload 9's section; on a machine without the browser it runs in, a
 * section that says so, as gpu-dawn's does without an adapter, so that a
 * `--save` run of every workload still records the others.
 */
export async function gpuBench(quick: boolean): Promise<string> {
  if (!existsSync(CHROMIUM)) {
    return `## 9. gpu: GPUPointGrid3D build + SPH density pass vs PointGrid3D (CPU)\n\nNo browser at ${CHROMIUM} (set CHROMIUM_PATH; on Debian, \`apt-get install chromium\`): nothing timed.`;
  }
  const gpu = await openGpuPage(new URL('./gpu-page.ts', import.meta.url), 'timeDensity');
  try {
    const adapter = await gpu.page.evaluate(() => (globalThis as unknown as PageFns).adapterInfo());
    const software = /swiftshader/i.test(adapter);
    const sizes = quick ? [1e4] : [1e5, 1e6];
    const rows: string[][] = [];
    for (const n of sizes) {
      const frames = n >= 1e6 ? 3 : 5;
      console.log(`  gpu: ${n} particles...`);
      const times = await gpu.page.evaluate(([count, f]) => (globalThis as unknown as PageFns).timeDensity(count, f), [
        n,
        frames,
      ] as [number, number]);
      const c = median(cpuDensity(n, frames));
      rows.push([String(n), ...frameCells(times), ms(c), ratio(c, times.wait)]);
    }
    const header = [
      '## 9. gpu: GPUPointGrid3D build + SPH density pass vs PointGrid3D (CPU)',
      '',
      `Adapter: ${adapter}.${
        software
          ? ' **SwiftShader is a CPU emulation of a GPU: these timings are not GPU timings** (they measure the shaders on the CPU, next to the CPU grid on the same CPU).'
          : ''
      } ${FRAME_LEGEND} PointGrid3D (CPU): rebuild + forEachPair summing densities, median of the same number of frames; CPU / GPU divides it by wait.`,
      '',
    ].join('\n');
    return `${header}${table(['particles', ...FRAME_COLUMNS, 'PointGrid3D (CPU)', 'CPU / GPU'], rows)}`;
  } finally {
    await gpu.close();
  }
}
