/**
 * Workload `gpu-dawn`: the `gpu` workload's frame (GPUPointGrid3D build + an
 * SPH density pass) on a real GPU through Dawn for Node (the
 * `webgpu` devDependency, a prebuilt dawn.node), for machines with a GPU and
 * a Vulkan driver but no browser. Before timing it checks the GPU against the
 * CPU: the scan against a serial scan at sizes of one, two and three levels
 * (a real GPU runs workgroups in parallel, so a missing barrier shows here
 * where SwiftShader hides it), neighbors() against PointGrid3D's rows, and
 * every particle's density against PointGrid3D's pair search in float64.
 * The density pass runs in the guide's short form (gridNext, one invocation
 * per particle in input order), in sorted order (gpu-frame.ts's
 * DensityOrder), and as nested loops over the cells in sorted order
 * (NESTED_DENSITY_LOOP), the form docs/guides/gpu.md's example uses.
 *
 * The frame, the checks and the three times are gpu-frame.ts's; Dawn's
 * timestamp quantization is turned off here.
 *
 * On a machine whose only Vulkan driver is a software one, Dawn picks it:
 * the header names the adapter, and a CPU adapter's times are not GPU times.
 *
 * @module
 */
import { create, globals } from 'webgpu';
import * as thisTree from '../src/webgpu/index.js';
import {
  checkNeighbors,
  checkScan,
  FRAME_COLUMNS,
  FRAME_LEGEND,
  frameCells,
  NESTED_DENSITY_LOOP,
  timeFrames,
  type Variant,
} from './gpu-frame.js';
import { densityOnCpu, H, particleScene } from './gpu-scene.js';
import { table } from './harness.js';

/** Dawn's device, the adapter's description, and whether timestamp queries are on. */
export interface Dawn {
  /**
   * The object create() returned: Dawn's instance lives only as long as it
   * is referenced, and once it is collected, pending maps and
   * onSubmittedWorkDone never settle (the process hangs or crashes).
   */
  gpu: GPU;
  device: GPUDevice;
  adapter: string;
  timestamps: boolean;
}

/**
 * Opens Dawn's high-performance adapter and a device, with timestamp queries
 * when offered; undefined when Dawn finds no adapter (no Vulkan loader or
 * driver).
 */
export async function openDawn(): Promise<Dawn | undefined> {
  Object.assign(globalThis, globals);
  // Dawn rounds timestamps to 100 microseconds unless this toggle is off.
  const gpu = create(['disable-dawn-features=timestamp_quantization']);
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) return undefined;
  const info = adapter.info;
  const described = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' / ');
  const timestamps = adapter.features.has('timestamp-query');
  // Default limits, as a page would get them.
  const device = await adapter.requestDevice({ requiredFeatures: timestamps ? ['timestamp-query'] : [] });
  // A validation error would leave results unwritten: make it fail the run.
  device.onuncapturederror = (event) => {
    console.error(`WebGPU error: ${event.error.message}`);
    process.exitCode = 1;
  };
  return { gpu, device, adapter: described, timestamps };
}

/**
 * Runs the checks and the timings; `variants` defaults to this tree's grid
 * (a before/after run passes another version's module too).
 */
export async function gpuDawnBench(
  quick: boolean,
  variants: Variant[] = [
    { label: 'gridNext, input order', lib: thisTree },
    { label: 'gridNext, sorted order', lib: thisTree, order: 'sorted' },
    { label: 'nested loops, sorted order', lib: thisTree, order: 'sorted', loop: NESTED_DENSITY_LOOP },
  ],
): Promise<string> {
  const dawn = await openDawn();
  if (!dawn) {
    return '## 12. gpu-dawn: GPUPointGrid3D through Dawn for Node\n\nDawn found no adapter it accepts on this machine (no Vulkan loader, or no driver with the features Dawn needs): nothing timed.';
  }
  try {
    console.log(`  gpu-dawn: adapter ${dawn.adapter}; timestamps ${dawn.timestamps ? 'on' : 'off'}`);
    // A failed check fails the workload, after the rest has run: one run on a
    // lent GPU should bring back everything it can.
    const failures: string[] = [];
    const attempt = async (what: string, run: () => Promise<void>) => {
      try {
        await run();
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
        console.error(`  gpu-dawn: ${what} FAILED: ${(error as Error).message}`);
      }
    };
    const scans = quick ? [0, 1, 1025, 2 ** 20 + 1] : [0, 1, 1025, 2 ** 20 + 1, 3_000_017];
    for (const n of scans) await attempt(`scan of ${n} counters`, () => checkScan(dawn.device, n, n + 3));
    const grids = quick ? [1e4] : [1e5, 3e5];
    for (const n of grids) await attempt(`neighbors of ${n} points`, () => checkNeighbors(dawn.device, n));
    if (failures.length === 0) {
      console.log(
        `  gpu-dawn: checked the scan (${scans.join(', ')} counters) and neighbors() (${grids.join(', ')} points)`,
      );
    }
    const sizes = quick ? [1e4] : [1e5, 1e6];
    const rows: string[][] = [];
    for (const n of sizes) {
      const { positions } = particleScene(n);
      const reference = new Float64Array(n);
      densityOnCpu(positions, H, reference);
      for (const variant of variants) {
        console.log(`  gpu-dawn: ${variant.label}, ${n} particles...`);
        // --quick is a smoke run (and a software adapter takes ~0.3 s a frame at 1e4).
        const counts = quick
          ? { frames: 3, streams: 1, streamLength: 3 }
          : { frames: n >= 1e6 ? 50 : 100, streams: 7, streamLength: 20 };
        await attempt(`${variant.label} at ${n}`, async () => {
          const t = await timeFrames(dawn.device, dawn.timestamps, variant, positions, reference, counts);
          rows.push([String(n), variant.label, ...frameCells(t)]);
        });
      }
    }
    if (failures.length > 0) process.exitCode = 1;
    const header = [
      '## 12. gpu-dawn: GPUPointGrid3D build + SPH density pass through Dawn for Node',
      '',
      `Adapter: ${dawn.adapter}. ${FRAME_LEGEND}`,
      ...(failures.length > 0
        ? ['', '**Failed checks** (their rows are missing):', ...failures.map((f) => `- ${f}`)]
        : []),
      '',
    ].join('\n');
    return `${header}${table(['particles', 'grid', ...FRAME_COLUMNS], rows)}`;
  } finally {
    dawn.device.destroy();
  }
}
