/**
 * `npm run bench -- 1 2 --save` replaces those sections of bench/RESULTS.md
 * and keeps the others (bench/results-file.ts): every kept section must then
 * name the run it came from, and the recorded file must split into the
 * sections bench/run.ts writes.
 */
import { describe, expect, it } from 'vitest';
import { headerRun, namesOwnRun, parseResults, spliceResults, workloadsNote } from '../../bench/results-file.js';
import { readDoc } from './markdown.js';

const OLD = [
  '# Benchmark results',
  '',
  'Machine and runtime: Old CPU, 2 cores; Node v1; linux x64; 2030-01-01T00:00:00Z.',
  '',
  'Produced by `npm run bench`.',
  '',
  '## 1. Radius',
  '',
  'About 1.',
  '',
  '| contender | median ms |',
  '| --- | --- |',
  '| ours | 100 |',
  '',
  '## 2. Clustered',
  '',
  'About 2.',
  '',
  '## 14. d3',
  '',
  'Run: alone, 2030-01-03.',
  '',
  'About 14.',
  '',
].join('\n');

describe('bench/RESULTS.md as sections', () => {
  it('splits at numbered headings, and the recorded file into its workloads', () => {
    const { header, sections } = parseResults(OLD);
    expect(headerRun(header)).toBe('Old CPU, 2 cores; Node v1; linux x64; 2030-01-01T00:00:00Z');
    expect([...sections.keys()]).toEqual([1, 2, 14]);
    expect(sections.get(2)).toBe('## 2. Clustered\n\nAbout 2.');
    expect(namesOwnRun(sections.get(14) ?? '')).toBe(true);
    expect(namesOwnRun(sections.get(1) ?? '')).toBe(false);
    const recorded = parseResults(readDoc('bench/RESULTS.md'));
    expect(headerRun(recorded.header)).toMatch(/\d{4}-\d\d-\d\dT/);
    expect([...recorded.sections.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  });

  it('replaces the sections run, keeps the others in order, and names the run of each kept one', () => {
    const header = '# Benchmark results\n\nMachine and runtime: New CPU; 2030-02-01T00:00:00Z.';
    const spliced = spliceResults(OLD, header, new Map([[1, '## 1. Radius\n\nNew 1.']]));
    const { header: top, sections } = parseResults(spliced);
    expect(top).toBe(header);
    expect([...sections.keys()]).toEqual([1, 2, 14]);
    expect(sections.get(1)).toBe('## 1. Radius\n\nNew 1.');
    // The full run's section 2 now says which run made it; section 14 keeps the line it had.
    expect(sections.get(2)).toBe(
      "## 2. Clustered\n\nRun: `npm run bench` on Old CPU, 2 cores; Node v1; linux x64; 2030-01-01T00:00:00Z, an earlier run than this file's header names.\n\nAbout 2.",
    );
    expect(sections.get(14)).toBe(parseResults(OLD).sections.get(14));
    // A new section lands in number order; with no old file there is nothing to keep.
    expect([...parseResults(spliceResults(OLD, header, new Map([[3, '## 3. 3D']]))).sections.keys()]).toEqual([
      1, 2, 3, 14,
    ]);
    expect(spliceResults(undefined, header, new Map([[1, '## 1. Radius']]))).toBe(`${header}\n\n## 1. Radius\n`);
  });

  it('says in the header which workloads ran and which sections were kept', () => {
    expect(workloadsNote([1, 2, 3], [], true)).toBe('');
    expect(workloadsNote([3], [], false)).toBe(' (workload 3)');
    expect(workloadsNote([1, 2], [14], false)).toBe(
      ' (workloads 1, 2; section 14 kept from an earlier run, which its Run line names)',
    );
    expect(workloadsNote([2], [14, 1], false)).toBe(
      ' (workload 2; sections 1, 14 kept from earlier runs, each with a Run line naming its run)',
    );
  });

  it('refuses a section without a number, which a splice could not place', () => {
    expect(() => parseResults('# h\n\n## 1. a\n\n## gpu: b')).toThrow(/a section without a number: ## gpu: b/);
  });

  it('refuses to keep a section whose run it cannot name', () => {
    expect(() => spliceResults('## 2. Clustered\n\nAbout 2.', '# h', new Map([[1, '## 1. x']]))).toThrow(
      /section 2 is kept, but no run names it/,
    );
  });
});
