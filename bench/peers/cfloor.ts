/**
 * The C floor: bench/c/grid.c compiled at bench time with `-O3
 * -march=native` into bench/c/build/, run in its own process once per
 * repetition so it interleaves with the JavaScript contenders. Skipped, with
 * a printed note, where no C compiler exists or the build fails.
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Contender, fingerprint } from '../harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, '..', 'c', 'grid.c');
const buildDir = join(here, '..', 'c', 'build');
const binary = join(buildDir, 'grid');

let built: string | null | undefined;

function findCompiler(): string | null {
  for (const cc of [process.env.CC, 'cc', 'gcc', 'clang']) {
    if (!cc) continue;
    const probe = spawnSync(cc, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return cc;
  }
  return null;
}

/**
 * Path of the compiled floor, building it when the source is newer; null
 * (after printing why) when there is no working compiler.
 */
export function cFloorBinary(): string | null {
  if (built !== undefined) return built;
  const cc = findCompiler();
  if (!cc) {
    console.log('> C floor skipped: no C compiler (cc, gcc or clang) on PATH.');
    built = null;
    return built;
  }
  try {
    if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
      mkdirSync(buildDir, { recursive: true });
      execFileSync(cc, ['-O3', '-march=native', '-std=c11', '-o', binary, source, '-lm'], { stdio: 'pipe' });
    }
    built = binary;
  } catch (error) {
    console.log(`> C floor skipped: ${cc} failed to build bench/c/grid.c: ${(error as Error).message.split('\n')[0]}`);
    built = null;
  }
  return built;
}

/** Writes `points` as raw little-endian float64 for the floor to read; returns the file's path. */
export function writePoints(name: string, points: Float64Array): string {
  mkdirSync(buildDir, { recursive: true });
  const file = join(buildDir, `${name}.bin`);
  writeFileSync(file, new Uint8Array(points.buffer, points.byteOffset, points.byteLength));
  return file;
}

/**
 * A contender running the floor in `mode` ('within2', 'pairs2', 'collect2',
 * 'csr2', 'csr3' or 'collect3', see grid.c) over the points in `file`, or null when the floor is
 * unavailable. Its answer is the harness fingerprint computed in C; its time
 * is the one C measured around the job (process start and file reading
 * excluded).
 */
export function cFloor(
  mode: 'within2' | 'pairs2' | 'collect2' | 'csr2' | 'csr3' | 'collect3',
  file: string,
  radius: number,
  name = 'C floor (gcc -O3)',
): Contender | null {
  const exe = cFloorBinary();
  if (!exe) return null;
  let last = 0;
  return {
    name,
    run() {
      const result = spawnSync(exe, [mode, file, String(radius)], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`C floor failed: ${result.stderr || result.error?.message}`);
      const [time, count, sum] = result.stdout.trim().split(/\s+/).map(Number);
      last = time;
      return fingerprint(count, sum);
    },
    lastMs: () => last,
  };
}
