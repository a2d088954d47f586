/**
 * `npm run bench [-- <workload>... ] [--quick] [--save]`
 *
 * Runs the workloads of issue 5, each in its own process with its
 * contenders side by side, and prints a markdown table per workload. A workload is named by number or name (see
 * WORKLOADS); none means all. `--quick` uses smaller sizes and fewer frames
 * for a smoke run. A full run of every workload (or `--save`) writes the
 * tables, machine and runtime to bench/RESULTS.md; `--save` of some workloads
 * replaces their sections there and keeps the others, each naming its run
 * (results-file.ts).
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environment, gc, sink } from './harness.js';
import { parseResults, spliceResults, workloadsNote } from './results-file.js';

interface Workload {
  id: number;
  name: string;
  run: (quick: boolean) => Promise<string>;
}

// Loaded on demand, so one workload runs even while another's module is broken.
const WORKLOADS: Workload[] = [
  { id: 1, name: 'radius', run: async (quick) => (await import('./radius2d.js')).radius2d('uniform', quick) },
  { id: 2, name: 'clustered', run: async (quick) => (await import('./radius2d.js')).radius2d('clustered', quick) },
  { id: 3, name: 'neighbors3d', run: async (quick) => (await import('./neighbors3d.js')).neighbors3d(quick) },
  { id: 4, name: 'particles', run: async (quick) => (await import('./particles.js')).particles(quick) },
  { id: 5, name: 'broadphase', run: async (quick) => (await import('./broadphase.js')).broadphase(quick) },
  { id: 6, name: 'churn', run: async (quick) => (await import('./churn.js')).churn(quick) },
  { id: 7, name: 'weld', run: async (quick) => (await import('./weld.js')).weldBench(quick) },
  { id: 8, name: 'parallel', run: async (quick) => (await import('./parallel.js')).parallel(quick) },
  { id: 9, name: 'gpu', run: async (quick) => (await import('./gpu.js')).gpuBench(quick) },
  {
    id: 10,
    name: 'gltf-transform',
    run: async (quick) => (await import('./gltf-transform.js')).gltfTransformBench(quick),
  },
  { id: 11, name: 'cli', run: async (quick) => (await import('./cli.js')).cliBench(quick) },
  { id: 12, name: 'gpu-dawn', run: async (quick) => (await import('./gpu-dawn.js')).gpuDawnBench(quick) },
  { id: 13, name: 'from', run: async (quick) => (await import('./from-check.js')).fromCheck(quick) },
  { id: 14, name: 'd3', run: async (quick) => (await import('./d3-collide.js')).d3Bench(quick) },
];

function usage(): string {
  const names = WORKLOADS.map((w) => `${w.id}|${w.name}`).join(', ');
  return `usage: npm run bench -- [workload...] [--quick] [--save]\nworkloads: ${names}`;
}

/**
 * Runs one workload in a fresh process (same node flags, so under tsx too)
 * and returns its section. A shared process would let one workload's code
 * paths reshape the JIT's view of the library for the next: after other
 * workloads, PointGrid3D.forEachPair's visitor call was no longer inlined and
 * each pair allocated, a result that depended on workload order.
 */
function runIsolated(w: Workload, quick: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'spatialhash-bench-'));
  const file = join(dir, 'section.md');
  try {
    const result = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), String(w.id), ...(quick ? ['--quick'] : [])],
      { stdio: 'inherit', env: { ...process.env, SPATIALHASH_BENCH_SECTION: file } },
    );
    if (result.status !== 0) throw new Error(`workload ${w.id} (${w.name}) failed with status ${result.status}`);
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const save = args.includes('--save');
  const names = args.filter((a) => !a.startsWith('--'));
  if (args.includes('--help')) {
    console.log(usage());
    return;
  }
  const unknown = args.filter((a) => a.startsWith('--') && !['--quick', '--save'].includes(a));
  const selected: Workload[] = [];
  for (const name of names) {
    const w = WORKLOADS.find((x) => String(x.id) === name || x.name === name);
    if (!w) unknown.push(name);
    else if (!selected.includes(w)) selected.push(w);
  }
  if (unknown.length > 0) {
    console.error(`unknown argument(s): ${unknown.join(' ')}\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  const chosen = selected.length > 0 ? selected : WORKLOADS;
  gc(); // fail early if the collector cannot be exposed
  const resultsFile = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
  // A --save of some workloads keeps the file's other sections, each naming the run it came from
  // (results-file.ts): read and split the file now, so that one it cannot split fails before the run, not after.
  const keeps = save && !process.env.SPATIALHASH_BENCH_SECTION && chosen.length < WORKLOADS.length;
  const old = keeps && existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : undefined;
  if (old !== undefined) parseResults(old);
  const sectionFile = process.env.SPATIALHASH_BENCH_SECTION;
  if (sectionFile) {
    // A child of runIsolated: progress to the shared terminal, the section to the parent.
    writeFileSync(sectionFile, await chosen[0].run(quick));
    console.log(`  sink: ${sink.value} (printed so no result can be optimised away)`);
    return;
  }
  const env = environment();
  console.log(`# spatialhash benchmarks${quick ? ' (quick)' : ''}\n\n${env}\n`);
  const sections: string[] = [];
  const started = performance.now();
  for (const w of chosen) {
    const t0 = performance.now();
    console.log(`> workload ${w.id} (${w.name})...`);
    const section = chosen.length === 1 ? await w.run(quick) : runIsolated(w, quick);
    sections.push(section);
    console.log(`\n${section}\n\n(workload ${w.id} took ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  }
  if (chosen.length === 1) console.log(`sink: ${sink.value} (printed so no result can be optimised away)`);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (save || (!quick && chosen.length === WORKLOADS.length)) {
    const fresh = new Map(chosen.map((w, k) => [w.id, sections[k]] as const));
    const keptIds = old === undefined ? [] : [...parseResults(old).sections.keys()].filter((id) => !fresh.has(id));
    const which = workloadsNote(
      chosen.map((w) => w.id),
      keptIds,
      selected.length === 0,
    );
    const header = [
      '# Benchmark results',
      '',
      `Machine and runtime: ${env}.`,
      '',
      `Produced by \`npm run bench${quick ? ' -- --quick' : ''}\` (each workload in its own process)${which}. Times are per run (build included unless said otherwise); "ratio" is the median divided by this library's median, so above 1 means slower than us. Every contender's answer was checked equal to ours before timing, except where a section says why not (three's mergeVertices, which does not weld by distance).`,
    ].join('\n');
    writeFileSync(resultsFile, spliceResults(old, header, fresh));
    console.log(`wrote ${resultsFile}`);
  }
}

await main();
