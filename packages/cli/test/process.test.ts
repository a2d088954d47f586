/**
 * The command as a process, built from these sources into .test-build/: what
 * only a real process shows. SIGINT and SIGTERM sent while an output is
 * being written remove its temporary file and end the process by that
 * signal; after SIGKILL the next run into the folder removes the stale
 * temporary file (its pid is dead) and leaves a live process's alone. The
 * progress bar through a pseudo-terminal (python3's pty module), and none
 * through a pipe. A run under `ulimit -v 8000000`. In-process: the mode of a
 * replaced output, symbolic links, folders given as files.
 */

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { gridMesh, soupOf, stlBinary } from './fixtures.js';
import { cli, put, temporaries, workspace } from './helpers.js';

const cliRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repository = join(cliRoot, '../..');
const build = join(cliRoot, '.test-build');
const command = join(build, 'cli.js');
const dir = workspace();

beforeAll(() => {
  // Its own folder: the e2e test builds dist/ at the same time.
  rmSync(build, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [join(repository, 'node_modules/typescript/bin/tsc'), '-p', join(cliRoot, 'tsconfig.json'), '--outDir', build],
    { stdio: 'inherit' },
  );
}, 120_000);

/** Resolves once `dir` holds a temporary file of the command (polled: the file appears while the command runs). */
async function temporaryAppears(folder: string): Promise<string> {
  for (;;) {
    const found = temporaries(folder);
    if (found.length > 0) return found[0]!;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts the command on `args`, holding each complete temporary file 30 s before its rename. */
function start(args: string[]) {
  const child = spawn(process.execPath, [command, ...args], {
    env: { ...process.env, SPATIALHASH_TEST_HOLD_MS: '30000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (data) => {
    stderr += data;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, ended };
}

describe('signals', () => {
  const input = () => put(dir, 'signal.stl', stlBinary(soupOf(gridMesh(20), 1e-4, 5)));

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} while the output is written: the temporary file is removed, the old output kept, ended by ${signal}`, async () => {
      const folder = join(dir, signal);
      mkdirSync(folder, { recursive: true });
      const output = put(folder, 'out.stl', 'previous output');
      const { child, ended } = start(['weld', input(), '-o', output, '-t', '0.001']);
      await temporaryAppears(folder);
      child.kill(signal);
      const { code, signal: by, stderr } = await ended;
      expect({ code, by, stderr }).toEqual({ code: null, by: signal, stderr: '' });
      expect(readdirSync(folder)).toEqual(['out.stl']);
      expect(readFileSync(output, 'utf8')).toBe('previous output');
    });
  }

  it("SIGKILL leaves the temporary file; the next run into the folder removes it, and leaves a live process's", async () => {
    const folder = join(dir, 'killed');
    mkdirSync(folder, { recursive: true });
    const output = join(folder, 'out.stl');
    const { child, ended } = start(['weld', input(), '-o', output, '-t', '0.001']);
    const stale = await temporaryAppears(folder);
    child.kill('SIGKILL');
    expect((await ended).signal).toBe('SIGKILL');
    expect(temporaries(folder)).toEqual([stale]);
    // A temporary file of a process that is alive (this one) is not ours to remove.
    const live = `.other.stl.${process.pid}.abc1.tmp`;
    writeFileSync(join(folder, live), 'in use');
    const run = spawnSync(process.execPath, [command, 'weld', input(), '-o', output, '-t', '0.001', '-q']);
    expect(run.status, String(run.stderr)).toBe(0);
    expect(temporaries(folder)).toEqual([live]);
    expect(existsSync(output)).toBe(true);
  });
});

/** Runs the command on a pseudo-terminal (stdout and stderr both on it); returns what the terminal got. */
function onTerminal(args: string[], env: Record<string, string>): { status: number; text: string } {
  const script = [
    'import os, pty, sys',
    'pid, fd = pty.fork()',
    'if pid == 0:',
    '    os.execv(sys.argv[1], sys.argv[1:])',
    'out = b""',
    'while True:',
    '    try:',
    '        data = os.read(fd, 65536)',
    '    except OSError:',
    '        break',
    '    if not data:',
    '        break',
    '    out += data',
    '_, status = os.waitpid(pid, 0)',
    'sys.stdout.buffer.write(out)',
    'sys.exit(os.waitstatus_to_exitcode(status))',
  ].join('\n');
  const result = spawnSync('python3', ['-c', script, process.execPath, command, ...args], {
    env: { ...process.env, ...env },
    encoding: 'latin1',
    maxBuffer: 1 << 26,
  });
  return { status: result.status ?? -1, text: result.stdout };
}

describe('progress', () => {
  it('on a terminal: the bar follows the phases of the job in order, redrawn while the weld runs, then cleared', () => {
    const input = put(dir, 'progress.stl', stlBinary(soupOf(gridMesh(300), 1e-6, 6)));
    const output = join(dir, 'progress-out.stl');
    // No first-second wait and a redraw every 5 ms, so that the phases of this small file show.
    const { status, text } = onTerminal(['weld', input, '-o', output, '-t', '1e-5'], {
      SPATIALHASH_PROGRESS_DELAY_MS: '0',
      SPATIALHASH_PROGRESS_INTERVAL_MS: '5',
    });
    expect(status, text).toBe(0);
    const draws = text.split('\r').filter((part) => /^\w+ +\[[#-]{30}\] +\d+% [\d.]+ s/.test(part));
    const phases = draws.map((part) => part.split(' ')[0]);
    // The bar samples the job's phase every 5 ms, so a phase shorter than a tick on a loaded machine may go
    // undrawn (a CI run saw reading finish between two ticks): what holds is that phases are drawn in the job's
    // order, never going back, and that the weld, far longer than a tick, is drawn.
    const order = ['reading', 'welding', 'writing'];
    expect(
      phases.every((phase) => order.includes(phase)),
      phases.join(' '),
    ).toBe(true);
    const ranks = phases.map((phase) => order.indexOf(phase));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    // The weld is one synchronous call on the worker thread: the main thread keeps drawing meanwhile.
    expect(phases.filter((phase) => phase === 'welding').length).toBeGreaterThan(1);
    const seconds = draws.map((part) => Number(/([\d.]+) s/.exec(part)![1]));
    expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
    // Cleared before the summary, which starts on a clean line.
    expect(text).toMatch(/\r {60}\rweld .*progress\.stl -> /);
  });

  it('through a pipe: nothing but the summary', () => {
    const input = put(dir, 'pipe.stl', stlBinary(soupOf(gridMesh(10), 1e-4, 2)));
    const run = spawnSync(process.execPath, [command, 'weld', input, '-o', join(dir, 'pipe-out.stl'), '-t', '1e-3'], {
      env: { ...process.env, SPATIALHASH_PROGRESS_DELAY_MS: '0', SPATIALHASH_PROGRESS_INTERVAL_MS: '5' },
      encoding: 'utf8',
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(/^weld .* -> .*\n$/);
  });
});

describe('memory limits', () => {
  // Fails until the library stops reserving WebAssembly memory it cannot get at import (the lead's fix on main):
  // the run must then take the JavaScript path and succeed.
  it('runs and exits 0 under ulimit -v 8000000', () => {
    const input = put(dir, 'ulimit.stl', stlBinary(soupOf(gridMesh(10), 1e-4, 3)));
    const output = join(dir, 'ulimit-out.stl');
    const run = spawnSync(
      'bash',
      ['-c', `ulimit -v 8000000 && exec "${process.execPath}" "${command}" weld "${input}" -o "${output}" -t 0.001`],
      { encoding: 'utf8' },
    );
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(/^weld .* vertices in /);
  });

  it('a LAZ under ulimit -v 8000000, which laz-perf cannot decode without WebAssembly memory, is one line saying so', () => {
    // (Node 20 reserves about 10 GB of address space for any WebAssembly memory: under this limit none starts.)
    const input = join(cliRoot, 'test/wild/lazperf-point10.las.laz');
    const output = join(dir, 'ulimit-out.las');
    const run = spawnSync(
      'bash',
      ['-c', `ulimit -v 8000000 && exec "${process.execPath}" "${command}" dedupe "${input}" -o "${output}" -r 0.01`],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    // Before: laz-perf's own "failed to asynchronously prepare wasm" and "Aborted(...)" around an error naming no file.
    expect(run.stderr).toMatch(
      /^spatialhash: error: .*lazperf-point10\.las\.laz: cannot decompress: laz-perf's WebAssembly module did not start \(.*memory.*\); .*ulimit -v.*LAS needs none\n$/,
    );
    expect(existsSync(output)).toBe(false);
  });
});

describe('outputs in place', () => {
  const input = () => put(dir, 'place.stl', stlBinary(soupOf(gridMesh(3), 1e-4, 4)));

  it('a replaced output keeps its mode (0600 stays 0600); a new one gets the default', async () => {
    const output = put(dir, 'private.stl', 'old');
    chmodSync(output, 0o600);
    expect((await cli('weld', input(), '-o', output, '-t', '0.001')).code).toBe(0);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    chmodSync(output, 0o640);
    expect((await cli('weld', input(), '-o', output, '-t', '0.001')).code).toBe(0);
    expect(statSync(output).mode & 0o777).toBe(0o640);
    const fresh = join(dir, 'fresh.stl');
    expect((await cli('weld', input(), '-o', fresh, '-t', '0.001')).code).toBe(0);
    const umask = process.umask();
    expect(statSync(fresh).mode & 0o777).toBe(0o666 & ~umask);
  });

  it("a symbolic link as output: its target is replaced, the link kept (a dangling one's target created)", async () => {
    const target = put(dir, 'target.stl', 'old');
    const link = join(dir, 'link.stl');
    symlinkSync('target.stl', link);
    expect((await cli('weld', input(), '-o', link, '-t', '0.001')).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('target.stl');
    expect(readFileSync(target).length).toBeGreaterThan(84);
    const dangling = join(dir, 'dangling.stl');
    symlinkSync('made.stl', dangling);
    expect((await cli('weld', input(), '-o', dangling, '-t', '0.001')).code).toBe(0);
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'made.stl')).length).toBeGreaterThan(84);
    expect(temporaries(dir)).toEqual([]);
  });

  it('folders given as files, a missing folder, a file where a folder should be: one line each', async () => {
    const folder = join(dir, 'a-folder.stl');
    mkdirSync(folder, { recursive: true });
    const asInput = await cli('weld', folder, '-o', join(dir, 'x.stl'), '-t', '1');
    expect(asInput).toMatchObject({
      code: 1,
      stderr: `spatialhash: error: ${folder}: cannot read: it is a folder, not a file\n`,
    });
    const asOutput = await cli('weld', input(), '-o', folder, '-t', '1');
    expect(asOutput).toMatchObject({
      code: 1,
      stderr: `spatialhash: error: ${folder}: cannot write: it is a folder, not a file\n`,
    });
    const missing = await cli('weld', input(), '-o', join(dir, 'nowhere/x.stl'), '-t', '1');
    expect(missing.stderr).toMatch(/x\.stl: cannot write: the folder .*nowhere does not exist\n$/);
    const file = put(dir, 'plain-file', 'x');
    const under = await cli('weld', input(), '-o', join(file, 'x.stl'), '-t', '1');
    expect(under.stderr).toMatch(/x\.stl: cannot write: .*plain-file is not a folder\n$/);
    for (const run of [asInput, asOutput, missing, under]) expect(run.code).toBe(1);
  });

  it('no stack unless --debug', async () => {
    const plain = await cli('weld', join(dir, 'none.stl'), '-o', join(dir, 'x.stl'), '-t', '1');
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await cli('weld', join(dir, 'none.stl'), '-o', join(dir, 'x.stl'), '-t', '1', '--debug');
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(
      /^spatialhash: error: .*none\.stl: cannot read: no such file or folder \(ENOENT\)\nInputError: .*\n\s+at /,
    );
    const usage = await cli('weld', join(dir, 'none.stl'), '-t', '-1', '--debug');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/\n\s+at /);
  });
});
