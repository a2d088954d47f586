/**
 * The README's benchmark table is the one scripts/bench-table.ts makes from
 * bench/RESULTS.md, so every figure in it comes from the last full run, with
 * that run's machine and date. After a new run: `npx tsx scripts/bench-table.ts --write`.
 */
import { describe, expect, it } from 'vitest';
import { benchTable, END, parseTables, START, withTable } from '../../scripts/bench-table.js';
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
});
