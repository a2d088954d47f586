/**
 * The C floor: bench/c/grid.c compiled at bench time into bench/c/build/,
 * with `-O3 -march=native` (the floor the ratios name) and with `-O3
 * -mno-avx` (128-bit vectors at most, as WebAssembly SIMD has: context).
 * Skipped, with a printed note, where no C compiler exists or the build
 * fails.
 *
 * Each floor runs in a process of its own, but not one per repetition: a
 * process the bench starts marks every page of the bench's memory
 * copy-on-write while it forks, and the contenders timed after it then pay
 * a page fault for each page they write again (measured: about 3,700 faults,
 * 10 to 20 ms, on a 1e5-point forEachPair run after a spawn, none without).
 * So a floor's repetitions are all run, and recorded, by the processes its
 * check run starts, before the JavaScript contenders' warm-up runs.
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Contender, fingerprint, type MeasureOptions } from '../harness.js';

/** The jobs of bench/c/grid.c (its module comment says what each does). */
export type FloorMode =
  | 'within2'
  | 'withininto2'
  | 'pairs2'
  | 'visit2'
  | 'count2'
  | 'visitdense2'
  | 'collect2'
  | 'csr2'
  | 'csr3'
  | 'collect3';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, '..', 'c', 'grid.c');
const buildDir = join(here, '..', 'c', 'build');

/** The builds of the floor: the flags each is compiled with. */
const FLAGS = {
  native: ['-O3', '-march=native'],
  'no-avx': ['-O3', '-mno-avx'],
} as const;

/** Which build of the floor a contender runs. */
export type FloorFlags = keyof typeof FLAGS;

const built = new Map<FloorFlags, string | null>();

function findCompiler(): string | null {
  for (const cc of [process.env.CC, 'cc', 'gcc', 'clang']) {
    if (!cc) continue;
    const probe = spawnSync(cc, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return cc;
  }
  return null;
}

/**
 * Path of the floor compiled with `flags`, building it when the source is
 * newer; null (after printing why) when there is no working compiler.
 */
export function cFloorBinary(flags: FloorFlags = 'native'): string | null {
  const known = built.get(flags);
  if (known !== undefined) return known;
  const cc = findCompiler();
  let path: string | null = null;
  if (!cc) {
    console.log('> C floor skipped: no C compiler (cc, gcc or clang) on PATH.');
  } else {
    const binary = join(buildDir, flags === 'native' ? 'grid' : `grid-${flags}`);
    try {
      if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
        mkdirSync(buildDir, { recursive: true });
        execFileSync(cc, [...FLAGS[flags], '-std=c11', '-o', binary, source, '-lm'], { stdio: 'pipe' });
      }
      path = binary;
    } catch (error) {
      console.log(
        `> C floor (${FLAGS[flags].join(' ')}) skipped: ${cc} failed to build bench/c/grid.c: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
  built.set(flags, path);
  return path;
}

/** Writes `points` as raw little-endian float64 for the floor to read; returns the file's path. */
export function writePoints(name: string, points: Float64Array): string {
  mkdirSync(buildDir, { recursive: true });
  const file = join(buildDir, `${name}.bin`);
  writeFileSync(file, new Uint8Array(points.buffer, points.byteOffset, points.byteLength));
  return file;
}

/** One timed run of the floor, as grid.c prints it. */
interface FloorRun {
  ms: number;
  answer: bigint;
}

/** Runs the floor once untimed, then `runs` timed runs, in one process; returns them in order. */
function runFloor(exe: string, mode: string, file: string, radius: number, runs: number): FloorRun[] {
  const result = spawnSync(exe, [mode, file, String(radius), String(runs)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`C floor failed: ${result.stderr || result.error?.message}`);
  const lines = result.stdout.trim().split('\n');
  if (lines.length !== runs) throw new Error(`C floor printed ${lines.length} runs, expected ${runs}`);
  return lines.map((line) => {
    const [ms, count, sum] = line.trim().split(/\s+/).map(Number);
    return { ms, answer: fingerprint(count, sum) };
  });
}

/**
 * The native floor's own timings of `runs` runs of `mode` in one process
 * (the job only: process start and file reading excluded), for the profiles
 * (bench/profile-*.ts); empty when the floor is unavailable.
 */
export function floorTimes(mode: FloorMode, file: string, radius: number, runs: number): number[] {
  const exe = cFloorBinary('native');
  if (exe === null) return [];
  const out = execFileSync(exe, [mode, file, String(radius), String(runs)], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/**
 * A contender running the floor in `mode` ('within2', 'withininto2', 'pairs2', 'visit2',
 * 'count2', 'visitdense2', 'collect2', 'csr2', 'csr3' or 'collect3', see grid.c) over the points in `file`, or
 * null when the floor is unavailable. Its answer is the harness fingerprint
 * computed in C; its time is the one C measured around the job (process
 * start and file reading excluded).
 *
 * `plan` is the MeasureOptions the contender will be measured with: its
 * first call (the harness's check run) runs one timed run, then, in a second
 * process, as many more as the harness will ask for (a warm-up and `reps`,
 * or `slowReps` when that first run took over `slowMs`); later calls hand
 * those out in order (see the module comment for why).
 */
export function cFloor(
  mode: FloorMode,
  file: string,
  radius: number,
  plan: MeasureOptions,
  name = 'C floor (gcc -O3)',
  flags: FloorFlags = 'native',
): Contender | null {
  const exe = cFloorBinary(flags);
  if (!exe) return null;
  let last = 0;
  const recorded: FloorRun[] = [];
  return {
    name,
    run() {
      if (recorded.length === 0) {
        const [first] = runFloor(exe, mode, file, radius, 1);
        const slow = first.ms > (plan.slowMs ?? Number.POSITIVE_INFINITY);
        const more = slow ? (plan.slowReps ?? plan.reps) : plan.reps + 1;
        recorded.push(first, ...(more > 0 ? runFloor(exe, mode, file, radius, more) : []));
      }
      const next = recorded.shift()!;
      last = next.ms;
      return next.answer;
    },
    lastMs: () => last,
  };
}
