/**
 * The README's benchmark table, made from bench/RESULTS.md so that it quotes
 * no figure by hand: each row is one workload of the last full run, our time
 * and the peers' and the C floor's times as ratios to it, with the machine
 * and date of that run. test/docs/bench-table.test.ts fails when the README's
 * table differs from what this makes.
 *
 *   npx tsx scripts/bench-table.ts           print the table
 *   npx tsx scripts/bench-table.ts --write   write it into README.md, between its markers
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
  c?: Pick;
}

const W1 = { section: '1.', subsection: '1e6' };
const W2 = { section: '2.', subsection: '1e6' };
const CITIES = { section: '2.', subsection: '135,233' };
const W3 = { section: '3.', subsection: '1e6' };

/** The workloads of the README table, in order. Each peer is its fastest variant (kdbush's `within`, not `withinInto`). */
const ROWS: Row[] = [
  {
    workload: '2D radius search, 1e6 uniform points: build + every pair',
    ours: { ...W1, name: 'PointGrid2D.forEachPair', label: '`PointGrid2D.forEachPair`' },
    peers: [
      { ...W1, name: 'kdbush.within', label: 'kdbush' },
      { ...W1, name: 'flatbush search + filter', label: 'flatbush' },
    ],
    c: { ...W1, name: 'C floor, half-stencil pairs', label: 'C' },
  },
  {
    workload: '2D radius search, 1e6 clustered points',
    ours: { ...W2, name: 'PointGrid2D.forEachPair', label: '`PointGrid2D.forEachPair`' },
    peers: [{ ...W2, name: 'kdbush.within', label: 'kdbush' }],
    c: { ...W2, name: 'C floor, half-stencil pairs', label: 'C' },
  },
  {
    workload: '135,233 real places, 30 km radius',
    ours: { ...CITIES, name: 'PointGrid2D.forEachPair', label: '`PointGrid2D.forEachPair`' },
    peers: [
      { ...CITIES, name: 'kdbush.within', label: 'kdbush' },
      { ...CITIES, name: 'rbush search + filter', label: 'rbush' },
      { ...CITIES, name: 'd3-quadtree visit', label: 'd3-quadtree' },
    ],
    c: { ...CITIES, name: 'C floor, half-stencil pairs', label: 'C' },
  },
  {
    workload: '3D neighbour lists (CSR), 1e6 points',
    ours: { ...W3, name: 'PointGrid3D.neighbors', label: '`PointGrid3D.neighbors`' },
    peers: [{ ...W3, name: 'Ten Minute Physics hash', label: "Müller's hash" }],
    c: { ...W3, name: 'C floor', label: 'C' },
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
    '([bench/RESULTS.md](bench/RESULTS.md)). Peers: how many times slower than us; C floor: how many times faster.',
    '',
    '| workload | this library | peers, times slower | C floor (gcc -O3), times faster |',
    '| --- | --- | --- | --- |',
  ];
  for (const row of ROWS) {
    const ours = median(tables, row.ours);
    const peers = row.peers.map((peer) => `${peer.label} ${times(median(tables, peer) / ours)}`).join(', ');
    const c = row.c === undefined ? '-' : times(ours / median(tables, row.c));
    lines.push(`| ${row.workload} | ${row.ours.label} ${ms(ours)} | ${peers} | ${c} |`);
  }
  return lines.join('\n');
}

export const START = '<!-- bench table: made by scripts/bench-table.ts from bench/RESULTS.md -->';
export const END = '<!-- end of bench table -->';

/** `readme` with the text between the markers replaced by `table`. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md: no "${START}" ... "${END}" markers`);
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;
}

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const table = benchTable(readFileSync(join(root, 'bench/RESULTS.md'), 'utf8'));
  if (process.argv.includes('--write')) {
    const path = join(root, 'README.md');
    writeFileSync(path, withTable(readFileSync(path, 'utf8'), table));
    console.log('README.md: benchmark table written from bench/RESULTS.md');
  } else {
    console.log(table);
  }
}
