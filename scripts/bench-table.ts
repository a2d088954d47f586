/**
 * The README's benchmark table, made from bench/RESULTS.md so that it quotes
 * no figure by hand: each row is one workload of the last full run, our time
 * and the peers' and the C floor's times as ratios to it, with the machine
 * and date of that run; and the d3 guide's speed table, every case of
 * workload 14. test/docs/bench-table.test.ts fails when either differs from
 * what this makes.
 *
 *   npx tsx scripts/bench-table.ts           print the tables
 *   npx tsx scripts/bench-table.ts --write   write them into README.md and docs/guides/d3.md, between their markers
 *
 * After `npm run bench -- --save` rewrites bench/RESULTS.md, run it with
 * --write. A row whose section, table or contender is gone fails loudly,
 * naming what it looked for.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One Markdown table of RESULTS.md, with the headings it sits under. */
interface Table {
  section: string;
  subsection: string;
  header: string[];
  rows: string[][];
}

/** Where to find one contender's median: a table (by section, subsection and position) and a row name. */
interface Pick {
  /** Start of the `##` heading, e.g. `1.` */
  section: string;
  /** Start of the `###` heading, when the section has several. */
  subsection?: string;
  /** Which table under those headings, default the first. */
  table?: number;
  /** The contender's name as RESULTS.md writes it (the row's first cell, or that cell up to ` (`). */
  name: string;
  /** How the README names it. */
  label: string;
}

interface Row {
  workload: string;
  ours: Pick;
  peers: Pick[];
  /** The C floor's forms this row is measured against, each named in the cell. */
  c?: Pick[];
}

/**
 * The line of a section that says it comes from a run of its own
 * (`Run: ...`), when a workload was timed apart from the last full run;
 * undefined when the section is the full run's.
 */
export function ownRun(markdown: string, section: string): string | undefined {
  let inside = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) inside = line.slice(3).startsWith(section);
    else if (inside && line.startsWith('Run: ')) return line.slice('Run: '.length).trim();
  }
  return undefined;
}

const W1 = { section: '1.', subsection: '1e6' };
const W2 = { section: '2.', subsection: '1e6' };
const CITIES = { section: '2.', subsection: '135,233' };
const LONLAT = { section: '2.', subsection: 'the same 135,233 places as [lon, lat]' };
const W3 = { section: '3.', subsection: '1e6' };
const D3_2D = { section: '14.', subsection: '1e5 nodes, 2D, uniform radii, beeswarm' };
const D3_3D = { section: '14.', subsection: '1e5 nodes, 3D, uniform radii, beeswarm' };

/** The C floor of `forEachPair`'s form: each pair handed to a function, as `forEachPair` hands it to a visitor. */
const VISIT_FLOOR = 'C floor, each pair to a visitor through a function pointer';
/** The C floor that counts the same pairs with no call, the fastest way found for C (grid.c's count2). */
const COUNT_FLOOR = 'C floor, pairs counted branch-free, cells unsorted, dense up to 16n cells';

/** Both C floors of a `forEachPair` row, the visitor's form first. */
function pairFloors(where: { section: string; subsection: string }): Pick[] {
  return [
    { ...where, name: VISIT_FLOOR, label: 'a visitor call per pair' },
    { ...where, name: COUNT_FLOOR, label: 'counting pairs' },
  ];
}

/** The workloads of the README table, in order. Each peer is its fastest variant (kdbush's `within`, not `withinInto`). */
const ROWS: Row[] = [
  {
    workload: '2D radius search, 1e6 uniform points: build + every pair',
    ours: { ...W1, name: 'PointGrid2D.forEachPair', label: '`PointGrid2D.forEachPair`' },
    peers: [
      { ...W1, name: 'kdbush.within', label: 'kdbush' },
      { ...W1, name: 'flatbush search + filter', label: 'flatbush' },
    ],
    c: pairFloors(W1),
  },
  {
    workload: '2D radius search, 1e6 clustered points',
    ours: { ...W2, name: 'PointGrid2D.forEachPair', label: '`PointGrid2D.forEachPair`' },
    peers: [{ ...W2, name: 'kdbush.within', label: 'kdbush' }],
    c: pairFloors(W2),
  },
  {
    workload: '135,233 real places, 30 km radius',
    ours: { ...CITIES, name: 'PointGrid2D.forEachPair', label: '`PointGrid2D.forEachPair`' },
    peers: [
      { ...CITIES, name: 'kdbush.within', label: 'kdbush' },
      { ...CITIES, name: 'rbush search + filter', label: 'rbush' },
      { ...CITIES, name: 'd3-quadtree visit', label: 'd3-quadtree' },
    ],
    c: pairFloors(CITIES),
  },
  {
    workload: 'The same places as [lon, lat] degrees, r = 0.25 degrees',
    ours: { ...LONLAT, name: 'PointGrid2D.forEachPair', label: '`PointGrid2D.forEachPair`' },
    peers: [{ ...LONLAT, name: 'kdbush.within', label: 'kdbush' }],
    c: pairFloors(LONLAT),
  },
  {
    workload: '3D neighbour lists (CSR), 1e6 points',
    ours: { ...W3, name: 'PointGrid3D.neighbors', label: '`PointGrid3D.neighbors`' },
    peers: [{ ...W3, name: 'Ten Minute Physics hash', label: "Müller's hash" }],
    c: [{ ...W3, name: 'C floor', label: 'CSR rows' }],
  },
  {
    workload: '100,000 moving particles, rebuild + neighbour lists per frame (p50)',
    ours: { section: '4.', name: 'PointGrid3D rebuild + neighbors', label: '`PointGrid3D`' },
    peers: [{ section: '4.', name: 'Ten Minute Physics hash', label: "Müller's hash" }],
  },
  {
    workload: 'Game broadphase, 20,000 boxes, 5% moving, per frame (alone)',
    ours: { section: '5.', table: 1, name: 'SpatialHash2D', label: '`SpatialHash2D`' },
    peers: [
      { section: '5.', table: 1, name: 'rbush', label: 'rbush' },
      { section: '5.', table: 1, name: 'flatbush', label: 'flatbush' },
      { section: '5.', table: 1, name: 'box-intersect', label: 'box-intersect' },
    ],
  },
  {
    workload: '1e6 inserts, moves and removes of points, from empty',
    ours: { section: '6.', name: 'PointHash2D', label: '`PointHash2D`' },
    peers: [
      { section: '6.', name: 'rbush', label: 'rbush' },
      { section: '6.', name: 'd3-quadtree', label: 'd3-quadtree' },
    ],
  },
  {
    workload: 'Weld a 1,002,000-vertex triangle soup',
    ours: { section: '7.', name: 'weldMesh', label: '`weldMesh`' },
    peers: [{ section: '7.', name: 'three mergeVertices', label: "three's mergeVertices" }],
  },
  {
    workload: 'Weld a 480,000-vertex three.js geometry',
    ours: { section: '7.', subsection: 'weldGeometry', name: 'weldGeometry', label: '`weldGeometry`' },
    peers: [{ section: '7.', subsection: 'weldGeometry', name: 'three mergeVertices', label: 'mergeVertices' }],
  },
  {
    workload: 'd3-force beeswarm, 100,000 nodes, one tick (forceX + forceY + collide)',
    ours: { ...D3_2D, name: 'spatialhash/d3 forceCollide', label: '`forceCollide` (`spatialhash/d3`)' },
    peers: [{ ...D3_2D, name: 'd3-force forceCollide', label: "d3-force's forceCollide" }],
  },
  {
    workload: 'The same in 3D, d3-force-3d (forceX + forceY + forceZ + collide)',
    ours: { ...D3_3D, name: 'spatialhash/d3 forceCollide', label: '`forceCollide` (`spatialhash/d3`)' },
    peers: [{ ...D3_3D, name: 'd3-force-3d forceCollide', label: "d3-force-3d's forceCollide" }],
  },
];

/** Every table of a RESULTS.md text, with its headings. */
export function parseTables(markdown: string): Table[] {
  const tables: Table[] = [];
  let section = '';
  let subsection = '';
  let current: Table | undefined;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) [section, subsection] = [line.slice(3).trim(), ''];
    else if (line.startsWith('### ')) subsection = line.slice(4).trim();
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    const cells = line
      .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
      .split('|')
      .map((cell) => cell.trim());
    if (current === undefined) {
      current = { section, subsection, header: cells, rows: [] };
      tables.push(current);
    } else if (!cells.every((cell) => /^:?-+:?$/.test(cell))) {
      current.rows.push(cells);
    }
  }
  return tables;
}

/** The median time (ms) of one contender. */
function median(tables: Table[], pick: Pick): number {
  const where = `section "${pick.section}"${pick.subsection ? `, subsection "${pick.subsection}"` : ''}`;
  const found = tables.filter(
    (t) =>
      t.section.startsWith(pick.section) && (pick.subsection === undefined || t.subsection.startsWith(pick.subsection)),
  );
  const table = found[pick.table ?? 0];
  if (table === undefined) throw new Error(`bench/RESULTS.md: no table ${pick.table ?? 0} in ${where}`);
  const column = table.header.findIndex((cell) => /^(median ms|frame median ms|frame p50 ms)$/.test(cell));
  if (column < 0) throw new Error(`bench/RESULTS.md: no median column in ${where}: ${table.header.join(' | ')}`);
  const row = table.rows.find((cells) => cells[0] === pick.name || cells[0]?.startsWith(`${pick.name} (`));
  if (row === undefined) throw new Error(`bench/RESULTS.md: no row "${pick.name}" in ${where}`);
  const value = Number((row[column] ?? '').replace(/,/g, ''));
  if (!(value > 0)) throw new Error(`bench/RESULTS.md: "${row[column]}" is not a time, row "${pick.name}" in ${where}`);
  return value;
}

/** Marks of the runs other than the file's own, in order; none of them is markdown emphasis. */
const RUN_MARKS = ['*', '†', '‡', '§'];

/** The mark of the `index`-th run other than the file's own: (*), (†), (‡), (§), then (*5), (*6), ... */
function runMark(index: number): string {
  return `(${RUN_MARKS[index] ?? `*${index + 1}`})`;
}

/** A ratio as the README prints it: one decimal below 10, whole numbers above. */
function times(ratio: number): string {
  return ratio < 10 ? `${ratio.toFixed(1)}x` : `${Math.round(ratio)}x`;
}

/** A time as the README prints it. */
function ms(value: number): string {
  return `${value >= 100 ? Math.round(value).toLocaleString('en-US') : String(value)} ms`;
}

/** The README's benchmark table (with its caption) for a RESULTS.md text. */
export function benchTable(results: string): string {
  const machine = /^Machine and runtime: (.*)$/m.exec(results)?.[1];
  if (machine === undefined) throw new Error('bench/RESULTS.md: no "Machine and runtime:" line');
  const [cpu = '', node = '', , date = ''] = machine.split(';').map((part) => part.trim());
  const tables = parseTables(results);
  const lines = [
    `From \`npm run bench\` on ${cpu}, ${node.replace(/\s*\(.*\)$/, '')}, ${date.slice(0, 10)}`,
    '([bench/RESULTS.md](bench/RESULTS.md)). Peers: how many times slower than us; C floor: how many times faster, and in which form: "a visitor call per pair" hands each pair to a function through a pointer, as `forEachPair` hands it to yours; "counting pairs" counts the same pairs and hands none anywhere, the fastest way found for C (every candidate tested without a branch, cells unsorted, a dense grid up to 16n cells); "CSR rows" writes neighbour lists as `neighbors()` does.',
    '',
    '| workload | this library | peers, times slower | C floor (gcc -O3), times faster (its form) |',
    '| --- | --- | --- | --- |',
  ];
  const notes: string[] = [];
  for (const row of ROWS) {
    const ours = median(tables, row.ours);
    const peers = row.peers.map((peer) => `${peer.label} ${times(median(tables, peer) / ours)}`).join(', ');
    const c =
      row.c === undefined
        ? '-'
        : row.c.map((form) => `${times(ours / median(tables, form))} (${form.label})`).join(', ');
    // A row from a workload timed on its own says so, with that run's machine, date and load.
    // Each such run gets its own mark, so that no two notes share one.
    const run = ownRun(results, row.ours.section);
    if (run !== undefined && !notes.includes(run)) notes.push(run);
    const mark = run === undefined ? '' : ` ${runMark(notes.indexOf(run))}`;
    lines.push(`| ${row.workload}${mark} | ${row.ours.label} ${ms(ours)} | ${peers} | ${c} |`);
  }
  for (const [index, run] of notes.entries()) lines.push('', `${runMark(index)} Not from that run: ${run}`);
  return lines.join('\n');
}

/** The layouts of workload 14, as its headings end, in the guide's column order. */
const D3_LAYOUTS = ['converged', 'random start', 'beeswarm'];

/**
 * The d3 guide's speed table: every case of workload 14 (bench/d3-collide.ts),
 * a row per node count, simulation and radii, a column per layout, each cell
 * our tick's median and how many times d3's own force is slower. Its caption
 * is the section's own run line when it has one, else the full run's.
 */
export function d3Table(results: string): string {
  const tables = parseTables(results).filter((t) => t.section.startsWith('14.'));
  if (tables.length === 0) throw new Error('bench/RESULTS.md: no section "14."');
  const rows = new Map<string, Map<string, string>>();
  for (const table of tables) {
    const heading = /^(\S+) nodes, ([23])D, (.+) radii, (.+)$/.exec(table.subsection);
    if (heading === null) throw new Error(`bench/RESULTS.md: section 14: unexpected heading "${table.subsection}"`);
    const [, size, dims, radii, layout] = heading as unknown as [string, string, string, string, string];
    if (!D3_LAYOUTS.includes(layout)) throw new Error(`bench/RESULTS.md: section 14: unknown layout "${layout}"`);
    const pick = { section: '14.', subsection: table.subsection, label: '' };
    const ours = median(tables, { ...pick, name: 'spatialhash/d3 forceCollide' });
    const theirs = median(tables, {
      ...pick,
      name: dims === '2' ? 'd3-force forceCollide' : 'd3-force-3d forceCollide',
    });
    const key = `| ${size} | ${dims === '2' ? 'd3-force, 2D' : 'd3-force-3d, 3D'} | ${radii} |`;
    const cells = rows.get(key) ?? new Map<string, string>();
    cells.set(layout, `${ms(ours)}, ${times(theirs / ours)}`);
    rows.set(key, cells);
  }
  const own = ownRun(results, '14.');
  const run = own === undefined ? `\`npm run bench\` on ${/^Machine and runtime: (.*)$/m.exec(results)?.[1]}` : own;
  const lines = [
    `Our tick's median, and how many times slower d3's own \`forceCollide\` is in the same simulation`,
    `([bench/RESULTS.md](../../bench/RESULTS.md), workload 14), from ${run}`,
    '',
    `| nodes | simulation | radii | ${D3_LAYOUTS.join(' | ')} |`,
    `| --- | --- | --- |${' --- |'.repeat(D3_LAYOUTS.length)}`,
  ];
  for (const [key, cells] of rows) lines.push(`${key} ${D3_LAYOUTS.map((l) => cells.get(l) ?? '-').join(' | ')} |`);
  return lines.join('\n');
}

/** Where the d3 guide's table goes (docs/guides/d3.md). */
export const D3_START = '<!-- d3 table: made by scripts/bench-table.ts from bench/RESULTS.md -->';

export const START = '<!-- bench table: made by scripts/bench-table.ts from bench/RESULTS.md -->';
export const END = '<!-- end of bench table -->';

/** `readme` with the text between the markers (`start` and END) replaced by `table`. */
export function withTable(readme: string, table: string, start = START): string {
  const from = readme.indexOf(start);
  const end = readme.indexOf(END, from);
  if (from < 0 || end < from) throw new Error(`no "${start}" ... "${END}" markers`);
  return `${readme.slice(0, from + start.length)}\n${table}\n${readme.slice(end)}`;
}

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = readFileSync(join(root, 'bench/RESULTS.md'), 'utf8');
  const written: [string, string, string][] = [
    ['README.md', benchTable(results), START],
    ['docs/guides/d3.md', d3Table(results), D3_START],
  ];
  for (const [file, table, start] of written) {
    if (process.argv.includes('--write')) {
      const path = join(root, file);
      writeFileSync(path, withTable(readFileSync(path, 'utf8'), table, start));
      console.log(`${file}: benchmark table written from bench/RESULTS.md`);
    } else {
      console.log(`${file}:\n${table}\n`);
    }
  }
}
