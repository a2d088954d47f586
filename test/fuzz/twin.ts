/**
 * The JavaScript-path twin of the library for the stateful suites: the
 * sources bundled by esbuild into one module of their own and imported
 * beside the ordinary import, with kernel mode 'javascript' for good.
 *
 * Why a second module instance rather than `setKernelMode('javascript')`
 * around each twin call: the kernels keep state across calls and grids (one
 * mirrored grid, query globals, result areas, stamps per buffer), and the
 * suites must exercise it exactly as a program does, in mode 'auto' unless
 * a command switches. A twin that switched the one module's mode back and
 * forth, or built and searched its grids in the same module, would touch
 * that state between the subject's calls (a mode switch or a build that
 * resets it would hide a stale cache), and the twin itself would depend on
 * the code under test keeping its state apart. The bundle has its own
 * kernel mode, its own (never compiled) kernels, its own build stamps: the
 * subject's module state sees nothing of the twin, and its grids never go
 * near WebAssembly.
 *
 * @module
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';

/** The library's exports, as the sources declare them. */
export type Library = typeof import('../../src/index.js');

const entry = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'spatialhash-twin-'));
const outfile = join(dir, 'index.mjs');
buildSync({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', outfile, logLevel: 'error' });
const loaded = (await import(pathToFileURL(outfile).href)) as Library;
// The module is loaded: the file is not needed again (and no run leaves one behind).
rmSync(dir, { recursive: true, force: true });
loaded.setKernelMode('javascript');

/** The twin library: every batch path in JavaScript, whatever the subject's mode. */
export const twin: Library = loaded;
