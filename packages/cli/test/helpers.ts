/** Running the CLI in-process on files in a temporary folder, and reading its outputs back independently. */

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { run } from '../src/run.js';

/** A fresh temporary folder, removed after the test file. */
export function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spatialhash-cli-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `spatialhash ...args` in-process (stderr not a terminal: no progress bar). */
export async function cli(...args: string[]): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { isTTY: false, write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/**
 * Runs `command` on a file `dir/name` holding `data` and expects what a rejected input gives: exit code 1, nothing on
 * stdout, one line on stderr naming the input and matching `pattern`, the previous output kept, no temporary file.
 */
export async function rejects(
  dir: string,
  command: 'weld' | 'dedupe',
  name: string,
  data: string | Uint8Array,
  pattern: RegExp,
): Promise<void> {
  const input = put(dir, name, data);
  const output = join(dir, `out-${name.replace(/\.laz$/, '.las')}`);
  writeFileSync(output, 'previous output');
  const reach = command === 'weld' ? ['--tolerance', '0.001'] : ['--radius', '0.001'];
  const { code, stdout, stderr } = await cli(command, input, '-o', output, ...reach);
  expect({ code, stdout, lines: stderr.trimEnd().split('\n').length }).toEqual({ code: 1, stdout: '', lines: 1 });
  expect(stderr.startsWith(`spatialhash: error: ${input}: `), stderr).toBe(true);
  expect(stderr).toMatch(pattern);
  expect(readFileSync(output, 'utf8')).toBe('previous output');
  expect(temporaries(dir)).toEqual([]);
}

/** Writes `data` to `dir/name` and returns the path. */
export function put(dir: string, name: string, data: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

/** The file's bytes as an ArrayBuffer (what three's loaders parse). */
export function arrayBufferOf(path: string): ArrayBuffer {
  const bytes = readFileSync(path);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Files in `dir` whose names look like the CLI's temporaries. */
export function temporaries(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp'));
}

/** The distinct xyz triples of a flat coordinate array, as strings. */
export function distinctPoints(positions: ArrayLike<number>): Set<string> {
  const set = new Set<string>();
  for (let i = 0; i < positions.length; i += 3) set.add(`${positions[i]},${positions[i + 1]},${positions[i + 2]}`);
  return set;
}
