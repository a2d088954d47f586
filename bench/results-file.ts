/**
 * bench/RESULTS.md as a header and numbered sections (`## 3. ...`), so that
 * `npm run bench -- 1 2 --save` can replace the sections it ran and keep the
 * others from the file's earlier runs. A kept section that does not name
 * its own run (a `Run: ` line, which scripts/bench-table.ts reads) is given
 * one naming the run it came from, so no figure in the file is credited to a
 * run that did not make it.
 *
 * @module
 */

/** The file's parts: the text before the first section, and each section by its number. */
export interface ResultsFile {
  header: string;
  sections: Map<number, string>;
}

/** Splits a RESULTS.md at its `## N.` headings (any other text before the first heading is the header). */
export function parseResults(markdown: string): ResultsFile {
  const sections = new Map<number, string>();
  const lines = markdown.split('\n');
  let header: string[] | undefined;
  let current: { id: number; lines: string[] } | undefined;
  const close = () => {
    if (current) sections.set(current.id, current.lines.join('\n').trimEnd());
  };
  const before: string[] = [];
  for (const line of lines) {
    const heading = /^## (\d+)\. /.exec(line);
    // Every workload's section is numbered (bench/run.ts): any other heading of that level would be lost in a splice.
    if (heading === null && line.startsWith('## '))
      throw new Error(`bench/RESULTS.md: a section without a number: ${line}`);
    if (heading) {
      close();
      header ??= before;
      current = { id: Number(heading[1]), lines: [line] };
    } else if (current) current.lines.push(line);
    else before.push(line);
  }
  close();
  return { header: (header ?? before).join('\n').trimEnd(), sections };
}

/** The run a file's header names (its "Machine and runtime:" line), or undefined. */
export function headerRun(header: string): string | undefined {
  return /^Machine and runtime: (.*?)\.?$/m.exec(header)?.[1];
}

/** Whether a section names its own run: a `Run: ` line before its first table or subsection. */
export function namesOwnRun(section: string): boolean {
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('Run: ')) return true;
    if (line.startsWith('#') || line.startsWith('|')) return false;
  }
  return false;
}

/**
 * The new file: `header`, then every section by number, those of this run
 * (`fresh`) in place of the old ones; each old section kept gets a Run line
 * naming the old file's run unless it names its own. Throws when a kept
 * section's run cannot be named (an old file without a "Machine and runtime:"
 * line).
 */
export function spliceResults(old: string | undefined, header: string, fresh: ReadonlyMap<number, string>): string {
  const parsed = old === undefined ? undefined : parseResults(old);
  const kept = parsed?.sections ?? new Map<number, string>();
  const oldRun = parsed === undefined ? undefined : headerRun(parsed.header);
  const all = new Map<number, string>();
  for (const [id, section] of kept) {
    if (fresh.has(id)) continue;
    if (namesOwnRun(section)) {
      all.set(id, section);
      continue;
    }
    if (oldRun === undefined) throw new Error(`bench/RESULTS.md: section ${id} is kept, but no run names it`);
    const [heading, ...rest] = section.split('\n');
    all.set(
      id,
      [heading, '', `Run: \`npm run bench\` on ${oldRun}, an earlier run than this file's header names.`, ...rest].join(
        '\n',
      ),
    );
  }
  for (const [id, section] of fresh) all.set(id, section.trimEnd());
  const ids = [...all.keys()].sort((a, b) => a - b);
  return `${header}\n\n${ids.map((id) => all.get(id)).join('\n\n')}\n`;
}

/**
 * What a file's header says of the workloads behind it: nothing for a run of every workload, else the workloads
 * run and the sections kept from earlier runs (each of which names its run).
 */
export function workloadsNote(run: readonly number[], kept: readonly number[], all: boolean): string {
  if (all) return '';
  const ran = `${run.length === 1 ? 'workload' : 'workloads'} ${run.join(', ')}`;
  const sorted = [...kept].sort((a, b) => a - b);
  if (sorted.length === 0) return ` (${ran})`;
  if (sorted.length === 1) return ` (${ran}; section ${sorted[0]} kept from an earlier run, which its Run line names)`;
  return ` (${ran}; sections ${sorted.join(', ')} kept from earlier runs, each with a Run line naming its run)`;
}
