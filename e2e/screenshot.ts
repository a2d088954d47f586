/**
 * The README's screenshot (docs/screenshot.png) is made by the e2e run's
 * browser and says what it shows, so that it cannot go stale unseen.
 *
 * The run opens the grid explorer in a fixed state (`?still`: the seeded
 * items at rest; a ray dragged across the world, a radius query clicked) and
 * screenshots it. Into the PNG goes a text chunk (`tEXt`, key
 * `spatialhash-demo`) with what decides the picture: a hash of each demo file
 * the page is built from (its HTML, the stylesheet and the scripts it
 * imports) and the scene the page's hook reports (the ray's cells and hits,
 * the query's answers). Pixels differ between machines (fonts, Chromium
 * versions); those do not.
 *
 * When the committed screenshot's chunk differs from the fresh one, the page
 * changed since it was taken: under CI the run fails, naming what changed;
 * elsewhere it rewrites docs/screenshot.png (then in `git status`) and says so.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const KEY = 'spatialhash-demo';
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What a screenshot shows: demo file -> short hash, and the scene's answers. */
export interface Fingerprint {
  sources: Record<string, string>;
  scene: unknown;
}

let crcTable: Uint32Array | undefined;

/** PNG's CRC-32 (ISO 3309) of `bytes`. */
function crc32(bytes: Uint8Array): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The chunks of a PNG file, as type and data; throws for a file that is not one. */
function chunks(png: Buffer): { type: string; data: Buffer }[] {
  if (png.length < 8 || !png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG file');
  const found: { type: string; data: Buffer }[] = [];
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    if (at + 12 + length > png.length) throw new Error('a truncated PNG chunk');
    const type = png.toString('latin1', at + 4, at + 8);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) {
      throw new Error(`PNG chunk ${type} at byte ${at} fails its CRC`);
    }
    found.push({ type, data: png.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
  }
  return found;
}

/** `png` with a tEXt chunk `key` = `text` (ASCII) right after its header chunk, replacing any earlier one. */
export function withText(png: Buffer, key: string, text: string): Buffer {
  const parts: Buffer[] = [SIGNATURE];
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    parts.push(head, data, crc);
  };
  for (const { type, data } of chunks(png)) {
    if (type === 'tEXt' && data.toString('latin1').startsWith(`${key}\0`)) continue;
    chunk(type, data);
    if (type === 'IHDR') chunk('tEXt', Buffer.from(`${key}\0${text}`, 'latin1'));
  }
  return Buffer.concat(parts);
}

/** The text of `png`'s tEXt chunk `key`, or undefined when it has none. */
export function textOf(png: Buffer, key: string): string | undefined {
  const prefix = `${key}\0`;
  const chunk = chunks(png).find((c) => c.type === 'tEXt' && c.data.toString('latin1').startsWith(prefix));
  return chunk?.data.toString('latin1').slice(prefix.length);
}

/** The demo files a page is built from: its HTML, the stylesheets it links, the demo modules it imports. */
export function pageSources(demoDir: string, page: string): string[] {
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(join(demoDir, file), 'utf8');
    const references = file.endsWith('.html')
      ? [...text.matchAll(/(?:href|src)="\.\/([\w.-]+\.(?:css|ts))"/g)].map((m) => m[1] as string)
      : [...text.matchAll(/from '\.\/([\w.-]+)\.js'/g)].map((m) => `${m[1]}.ts`);
    for (const reference of references) visit(reference);
  };
  visit(`${page}.html`);
  return [...files].sort();
}

/** The fingerprint of a page built from `demoDir` showing `scene`. */
export function fingerprint(root: string, demoDir: string, page: string, scene: unknown): Fingerprint {
  const sources: Record<string, string> = {};
  for (const file of pageSources(demoDir, page)) {
    const path = relative(root, join(demoDir, file)).split('\\').join('/');
    sources[path] = createHash('sha256')
      .update(readFileSync(join(demoDir, file)))
      .digest('hex')
      .slice(0, 16);
  }
  return { sources, scene };
}

/** What differs between the fingerprint a screenshot holds and the page's now, in words; [] when nothing. */
export function staleness(held: string | undefined, now: Fingerprint): string[] {
  if (held === undefined) return ['it holds no description of what it shows (it was not made by this test)'];
  let before: Fingerprint;
  try {
    before = JSON.parse(held) as Fingerprint;
  } catch {
    return ['its description is not JSON'];
  }
  const changed = [...new Set([...Object.keys(before.sources ?? {}), ...Object.keys(now.sources)])]
    .sort()
    .filter((file) => before.sources?.[file] !== now.sources[file])
    .map((file) =>
      now.sources[file] === undefined
        ? `${file} no longer builds the page`
        : before.sources?.[file] === undefined
          ? `${file} builds the page now`
          : `${file} changed`,
    );
  if (JSON.stringify(before.scene) !== JSON.stringify(now.scene)) changed.push('the scene it shows differs');
  return changed;
}

export { KEY as SCREENSHOT_KEY };
