/**
 * docs/screenshot.png, the README's picture, is made by the e2e run's browser
 * (e2e/screenshot.ts) and holds what it shows: the hash of each demo file the
 * grid explorer is built from, and the scene. The e2e run compares the scene;
 * this test, which needs no browser, compares the files, so that a change to
 * the page fails `npm test` until the screenshot is made again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Fingerprint, fingerprint, SCREENSHOT_KEY, staleness, textOf, withText } from '../../e2e/screenshot.js';
import { root } from './markdown.js';

describe("the README's screenshot", () => {
  it('was made by the e2e run from the demo as it is now', () => {
    const held = textOf(readFileSync(join(root, 'docs/screenshot.png')), SCREENSHOT_KEY);
    const scene = held === undefined ? undefined : (JSON.parse(held) as Fingerprint).scene;
    const stale = staleness(held, fingerprint(root, join(root, 'demo'), 'grid', scene));
    expect(stale, 'docs/screenshot.png is stale: run npm run test:e2e, which rewrites it, and commit it').toEqual([]);
  });

  it('names what changed: a demo file, a file added or gone, the scene', () => {
    const before: Fingerprint = { sources: { 'demo/a.ts': '1', 'demo/b.css': '2' }, scene: { cells: 41 } };
    const now: Fingerprint = { sources: { 'demo/a.ts': '9', 'demo/c.ts': '3' }, scene: { cells: 40 } };
    expect(staleness(JSON.stringify(before), now)).toEqual([
      'demo/a.ts changed',
      'demo/b.css no longer builds the page',
      'demo/c.ts builds the page now',
      'the scene it shows differs',
    ]);
    expect(staleness(JSON.stringify(before), before)).toEqual([]);
    expect(staleness(undefined, now)).toEqual([
      'it holds no description of what it shows (it was not made by this test)',
    ]);
  });

  it('writes its description into the PNG as a text chunk, replacing an earlier one, CRCs checked', () => {
    const png = readFileSync(join(root, 'docs/screenshot.png'));
    const twice = withText(withText(png, 'probe', 'first'), 'probe', 'second');
    expect(textOf(twice, 'probe')).toBe('second');
    expect(twice.length - png.length).toBe(12 + 'probe'.length + 1 + 'second'.length);
    const corrupt = Buffer.from(twice);
    corrupt[40] = (corrupt[40] as number) ^ 1; // inside the first chunks
    expect(() => textOf(corrupt, 'probe')).toThrow(/fails its CRC/);
  });
});
