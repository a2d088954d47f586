/**
 * The file fuzz (files.cases.ts): the command-line tool on mutants of real
 * and generated files of every format it reads, one suite per format in a
 * worker under the runner's watchdog; `npm run fuzz` runs them longer.
 *
 * And memory: each format's `huge` variants (headers claiming 2^28 to 2^32
 * points, vertices or triangles of a file of a few KB) run in a child
 * process, whose peak virtual size (VmPeak, which counts memory reserved and
 * never touched too) and peak resident size (VmHWM) must stay within a few
 * MB of the same run on the seed itself: a count is checked before anything
 * is allocated for it, and decoded data grows with what the file holds.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FORMATS } from './files.cases.js';
import { runSuite, SUITE_TIMEOUT } from './support.js';

const cases = new URL('./files.cases.ts', import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('file fuzz', () => {
  for (const format of FORMATS) it(format.name, () => runSuite(cases, format.name), SUITE_TIMEOUT);
});

describe('file fuzz: a huge claimed count allocates nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spatialhash-file-memory-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const preload = join(dir, 'peak.cjs');
  writeFileSync(
    preload,
    "process.on('exit', () => { const fs = require('node:fs'); const s = fs.readFileSync('/proc/self/status', 'utf8'); const kb = (k) => Number(new RegExp(k + ':\\\\s+(\\\\d+)').exec(s)[1]); fs.writeFileSync(process.env.SPATIALHASH_PEAK_FILE, JSON.stringify({ peak: kb('VmPeak'), hwm: kb('VmHWM') })); });\n",
  );

  /**
   * Runs the CLI from its sources in a child, whose job runs on its worker thread (cli.ts starts worker.ts through
   * tsx): the peaks are the whole process's. Returns the exit code, stderr and the peaks in MB.
   */
  function measure(format: (typeof FORMATS)[number], name: string, data: Uint8Array) {
    const input = join(dir, `${name}${format.extension}`);
    const output = join(dir, `${name}-out${format.outputExtension ?? format.extension}`);
    const peakFile = join(dir, `${name}.peak`);
    writeFileSync(input, data);
    const reach = format.command === 'weld' ? ['--tolerance', '0.001'] : ['--radius', '0.001'];
    const result = spawnSync(
      process.execPath,
      [
        '--require',
        preload,
        '--import',
        'tsx',
        'packages/cli/src/cli.ts',
        format.command,
        input,
        '-o',
        output,
        ...reach,
        '-q',
      ],
      { cwd: root, encoding: 'utf8', env: { ...process.env, SPATIALHASH_PEAK_FILE: peakFile } },
    );
    const { peak, hwm } = JSON.parse(readFileSync(peakFile, 'utf8')) as { peak: number; hwm: number };
    return { code: result.status, stderr: result.stderr, peakMB: peak / 1024, hwmMB: hwm / 1024 };
  }

  for (const format of FORMATS.filter((f) => f.huge !== undefined)) {
    it(`${format.name}: within a few MB of the seed's own run`, () => {
      const seed = format.seeds().find((s) => s.data.length > 1000)!;
      const base = measure(format, `${format.name}-seed`, seed.data);
      expect(base.code, base.stderr).toBe(0);
      for (const [k, data] of format.huge!(seed.data).entries()) {
        const claim = measure(format, `${format.name}-huge-${k}`, data);
        expect(claim.code, `${format.name} huge ${k}: ${claim.stderr}`).toBe(1);
        expect(claim.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(
          claim.peakMB - base.peakMB,
          `${format.name} huge ${k}: VmPeak ${claim.peakMB} MB against ${base.peakMB}`,
        ).toBeLessThan(64);
        expect(
          claim.hwmMB - base.hwmMB,
          `${format.name} huge ${k}: VmHWM ${claim.hwmMB} MB against ${base.hwmMB}`,
        ).toBeLessThan(32);
      }
    }, 120_000);
  }
});
