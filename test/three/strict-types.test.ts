/**
 * spatialhash/three, spatialhash/gltf-transform and spatialhash/d3's API
 * files compile under the settings strict consumers use
 * (noUncheckedIndexedAccess, exactOptionalPropertyTypes:
 * tsconfig.strict.json), and so does the attribute test they share. The weld
 * core they import, and the grids and passes of src/d3/, are written for the
 * repository's settings (their hot loops index typed arrays), so only
 * diagnostics in those files count here; consumers see the rest through its
 * .d.ts, which these flags do not affect.
 */

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

it('src/three, src/gltf-transform and src/d3 (API files) have no errors under noUncheckedIndexedAccess and exactOptionalPropertyTypes', () => {
  let output = '';
  let failed = false;
  try {
    output = execFileSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.strict.json', '--noEmit', '--pretty', 'false'],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (error) {
    // tsc exits non-zero for the core's diagnostics; its report is on stdout.
    failed = true;
    output = String((error as { stdout?: unknown }).stdout ?? '');
  }
  const lines = output.split('\n');
  // A failed run must be one that compiled: a missing compiler or a broken config would say nothing about src/three.
  if (failed) expect(lines.some((line) => /^src[\\/].*: error TS\d+/.test(line))).toBe(true);
  expect(output).not.toMatch(/error TS5\d\d\d|error TS6\d\d\d/);
  const checked =
    /^src[\\/](three[\\/]|gltf-transform[\\/]|weld[\\/]attribute-test\.ts|d3[\\/](index|types|force-collide)\.ts)/;
  expect(lines.filter((line) => checked.test(line))).toEqual([]);
}, 60_000);
