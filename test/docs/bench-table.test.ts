/**
 * The README's benchmark table is the one scripts/bench-table.ts makes from
 * bench/RESULTS.md, so every figure in it comes from the last full run, with
 * that run's machine and date (or a workload's own run, which it names); so
 * is the d3 guide's speed table, from workload 14. After a new run: `npx tsx scripts/bench-table.ts --write`.
 */
import { describe, expect, it } from 'vitest';
import {
  benchTable,
  D3_START,
  d3Table,
  END,
  ownRun,
  parseTables,
  START,
  withTable,
} from '../../scripts/bench-table.js';
import { readDoc } from './markdown.js';

describe("the README's benchmark table", () => {
  it('is made from bench/RESULTS.md (npx tsx scripts/bench-table.ts --write)', () => {
    const readme = readDoc('README.md');
    expect(readme).toContain(START);
    expect(readme).toEqual(withTable(readme, benchTable(readDoc('bench/RESULTS.md'))));
  });

  it('reads medians by section, table and row, and fails naming a row it cannot find', () => {
    const results = [
      'Machine and runtime: Test CPU, 2 cores; Node v1.2.3 (V8); linux x64; 2030-01-02T00:00:00Z.',
      '## 1. Radius',
      '### 1e6 points',
      '| contender | median ms | min ms |',
      '| --- | --- | --- |',
      '| PointGrid2D.forEachPair (each pair once) | 100 | 90 |',
      '| kdbush.within | 1,250 | 1,000 |',
    ].join('\n');
    expect(parseTables(results)).toEqual([
      {
        section: '1. Radius',
        subsection: '1e6 points',
        header: ['contender', 'median ms', 'min ms'],
        rows: [
          ['PointGrid2D.forEachPair (each pair once)', '100', '90'],
          ['kdbush.within', '1,250', '1,000'],
        ],
      },
    ]);
    expect(() => benchTable(results)).toThrow(/no row "flatbush search \+ filter" in section "1\."/);
    expect(withTable(`a\n${START}\nold\n${END}\nb`, 'new')).toBe(`a\n${START}\nnew\n${END}\nb`);
  });

  it("finds a section's own run line, and none in a section of the full run", () => {
    const results = ['## 1. Radius', 'text', '## 14. d3', 'Run: alone, 2030-01-03.', '## 15. Next', 'Run: x'].join(
      '\n',
    );
    expect(ownRun(results, '14.')).toBe('alone, 2030-01-03.');
    expect(ownRun(results, '1.')).toBeUndefined();
  });

  it("the d3 guide's speed table is made from workload 14 (npx tsx scripts/bench-table.ts --write)", () => {
    const guide = readDoc('docs/guides/d3.md');
    expect(guide).toContain(D3_START);
    expect(guide).toEqual(withTable(guide, d3Table(readDoc('bench/RESULTS.md')), D3_START));
  });

  it('lays out workload 14 a row per size, simulation and radii, a column per layout', () => {
    const table = (name: string, ours: string, theirs: string) => [
      '| contender | median ms |',
      '| --- | --- |',
      `| spatialhash/d3 forceCollide | ${ours} |`,
      `| ${name} | ${theirs} |`,
    ];
    const results = [
      '## 14. forceCollide',
      'Run: alone, 2030-01-03.',
      '### 1e5 nodes, 2D, uniform radii, converged',
      ...table('d3-force forceCollide', '10', '250'),
      '### 1e5 nodes, 2D, uniform radii, beeswarm',
      ...table('d3-force forceCollide', '20', '50'),
      '### 1e5 nodes, 3D, power law radii, random start',
      ...table('d3-force-3d forceCollide', '200', '1,000'),
    ].join('\n');
    const lines = d3Table(results).split('\n');
    expect(lines[1]).toContain('alone, 2030-01-03.');
    expect(lines.slice(3)).toEqual([
      '| nodes | simulation | radii | converged | random start | beeswarm |',
      '| --- | --- | --- | --- | --- | --- |',
      '| 1e5 | d3-force, 2D | uniform | 10 ms, 25x | - | 20 ms, 2.5x |',
      '| 1e5 | d3-force-3d, 3D | power law | - | 200 ms, 5.0x | - |',
    ]);
    expect(() => d3Table(results.replace('d3-force-3d', 'd3'))).toThrow(/no row "d3-force-3d forceCollide"/);
    expect(withTable(`a\n${D3_START}\nold\n${END}\nb`, 'new', D3_START)).toBe(`a\n${D3_START}\nnew\n${END}\nb`);
  });
});
