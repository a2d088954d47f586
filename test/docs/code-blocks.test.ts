/** The fence reader every doc test shares (test/support/code-blocks.ts). */
import { describe, expect, it } from 'vitest';
import { codeBlocks, docBlocks } from '../support/code-blocks.js';

describe('codeBlocks', () => {
  it('reads language, flags, file, text and line of each fence', () => {
    const text = [
      '# Title',
      '',
      '```ts',
      "import { PointGrid2D } from 'spatialhash';",
      '```',
      '',
      '````ts browser',
      '```',
      'nested fence text',
      '````',
      '~~~js file=demo/vite.config.ts',
      'x',
      '~~~',
      '```',
      'no language',
      '```',
    ].join('\n');
    expect(codeBlocks(text)).toEqual([
      {
        lang: 'ts',
        info: 'ts',
        browser: false,
        file: undefined,
        code: "import { PointGrid2D } from 'spatialhash';\n",
        line: 3,
      },
      { lang: 'ts', info: 'ts browser', browser: true, file: undefined, code: '```\nnested fence text\n', line: 7 },
      {
        lang: 'js',
        info: 'js file=demo/vite.config.ts',
        browser: false,
        file: 'demo/vite.config.ts',
        code: 'x\n',
        line: 11,
      },
      { lang: '', info: '', browser: false, file: undefined, code: 'no language\n', line: 14 },
    ]);
  });

  it('removes a list item indentation, keeps deeper indentation, and runs an unclosed block to the end', () => {
    const text = ['- step:', '  ```sh', '  npm test', '    indented', ' short', '  ```', '```wgsl', 'fn f() {}'].join(
      '\n',
    );
    const blocks = codeBlocks(text);
    expect(blocks.map((block) => [block.lang, block.code, block.line])).toEqual([
      ['sh', 'npm test\n  indented\nshort\n', 2],
      ['wgsl', 'fn f() {}\n', 7],
    ]);
  });

  it('ignores inline code that starts a line with three backticks', () => {
    expect(codeBlocks('```a` b```\ntext')).toEqual([]);
  });

  it('docBlocks gives the blocks of README.md and the guides, none of the generated API site', () => {
    const files = new Set(docBlocks().map(({ file }) => file));
    expect(files.has('README.md')).toBe(true);
    expect([...files].some((file) => file.startsWith('docs/guides/'))).toBe(true);
    expect([...files].filter((file) => file.startsWith('docs/api/'))).toEqual([]);
  });
});
