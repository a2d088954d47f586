/**
 * A Node process whose script forgets pool.close() exits once its last call
 * has settled (idle workers are unref'd), and not before (a worker running a
 * call is ref'd). Each case runs test/workers/fixtures/forgets-close.ts in a
 * child process; no clock is read: the child either exits, or is killed by a
 * generous safety timeout, which fails the test.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/forgets-close.ts', import.meta.url));

/** Runs the fixture with `args`; resolves with its exit code (null when killed) and output. */
function runFixture(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    // The safety net only: a process that never exits is what this test exists to catch.
    const safety = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(safety);
      resolve({ code, out });
    });
  });
}

describe('PointGridWorkers in a Node process that forgets close()', () => {
  for (const mode of ['shared', 'copy']) {
    it(`exits once its last call settled (${mode} mode)`, async () => {
      const { code, out } = await runFixture([mode]);
      expect(out).toMatch(/^settled \d+\n$/);
      expect(code).toBe(0);
    });

    it(`stays alive while a call nothing awaits is running, then exits (${mode} mode)`, async () => {
      const { code, out } = await runFixture([mode, 'in-flight']);
      expect(out).toMatch(/^settled \d+\n$/);
      expect(code).toBe(0);
    });
  }
});
