import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { BUILTIN_PROFILES } from '../../src/core/profiles/defaults';
import { blockProfile, FENCE_ALIASES, fenceLanguage, fenceName } from '../../src/core/source/fenceLanguages';
import { pickProfile, resolveProfiles } from '../../src/core/profiles/profileResolution';
import { findFencedBlocks } from '../../src/core/source/fences';

/** The blocks of `md` as [fenceLine, info, content lines joined by LF, closeLine or -1]. */
function blocks(md: string): [number, string, string, number][] {
  return findFencedBlocks(md).map((b) => [b.fenceLine, b.info, b.lines.join('\n'), b.closeLine ?? -1]);
}

describe('Markdown fenced code blocks (unit)', () => {
  // CommonMark 0.31.2, section 4.5 "Fenced code blocks", examples 119-147 (the expected content
  // is the spec's <code> text without its final line end).
  const spec: [number, string, [number, string, string, number][]][] = [
    [119, '```\n<\n >\n```', [[0, '', '<\n >', 3]]],
    [120, '~~~\n<\n >\n~~~', [[0, '', '<\n >', 3]]],
    [121, '``\nfoo\n``', []],
    [122, '```\naaa\n~~~\n```', [[0, '', 'aaa\n~~~', 3]]],
    [123, '~~~\naaa\n```\n~~~', [[0, '', 'aaa\n```', 3]]],
    [124, '````\naaa\n```\n``````', [[0, '', 'aaa\n```', 3]]],
    [125, '~~~~\naaa\n~~~\n~~~~', [[0, '', 'aaa\n~~~', 3]]],
    [126, '```', [[0, '', '', -1]]],
    [127, '`````\n\n```\naaa', [[0, '', '\n```\naaa', -1]]],
    [128, '> ```\n> aaa\n\nbbb', [[0, '', 'aaa', -1]]],
    [129, '```\n\n  \n```', [[0, '', '\n  ', 3]]],
    [130, '```\n```', [[0, '', '', 1]]],
    [131, ' ```\n aaa\naaa\n```', [[0, '', 'aaa\naaa', 3]]],
    [132, '  ```\naaa\n  aaa\naaa\n  ```', [[0, '', 'aaa\naaa\naaa', 4]]],
    [133, '   ```\n   aaa\n    aaa\n  aaa\n   ```', [[0, '', 'aaa\n aaa\naaa', 4]]],
    [134, '    ```\n    aaa\n    ```', []],
    [135, '```\naaa\n  ```', [[0, '', 'aaa', 2]]],
    [136, '   ```\naaa\n  ```', [[0, '', 'aaa', 2]]],
    [137, '```\naaa\n    ```', [[0, '', 'aaa\n    ```', -1]]],
    [138, '``` ```\naaa', []],
    [139, '~~~~~~\naaa\n~~~ ~~', [[0, '', 'aaa\n~~~ ~~', -1]]],
    [140, 'foo\n```\nbar\n```\nbaz', [[1, '', 'bar', 3]]],
    [141, 'foo\n---\n~~~\nbar\n~~~\n# baz', [[2, '', 'bar', 4]]],
    [142, '```ruby\ndef foo(x)\n  return 3\nend\n```', [[0, 'ruby', 'def foo(x)\n  return 3\nend', 4]]],
    [143, '~~~~    ruby startline=3 $%@#$\ndef foo(x)\n  return 3\nend\n~~~~~~~', [[0, 'ruby', 'def foo(x)\n  return 3\nend', 4]]],
    [144, '````;\n````', [[0, ';', '', 1]]],
    [145, '``` aa ```\nfoo', []],
    [146, '~~~ aa ``` ~~~\nfoo\n~~~', [[0, 'aa', 'foo', 2]]],
    [147, '```\n``` aaa\n```', [[0, '', '``` aaa', 2]]],
  ];
  for (const [n, md, expected] of spec) {
    it(`CommonMark example ${n}`, () => assert.deepEqual(blocks(md), expected));
  }

  it('reports 0-based lines with CRLF and CR line ends, and the info string\'s first word', () => {
    const md = '# T\r\n\r\n```python title="x.py"\r\nprint(1)\r\nprint(2)\r\n```\r\n\r~~~sh\rls\r~~~\r';
    assert.deepEqual(blocks(md), [[2, 'python', 'print(1)\nprint(2)', 5], [7, 'sh', 'ls', 9]]);
    assert.equal(findFencedBlocks(md)[0]!.contentStart, 3);
  });

  it('removes the fence\'s indentation and reports the removed width for position mapping', () => {
    const [b] = findFencedBlocks('  ```py\n  x = 1\n    y\n```');
    assert.deepEqual(b!.lines, ['x = 1', '  y']);
    assert.equal(b!.strip, 2);
  });

  it('a tab in the indentation reaches column 4: the line neither opens nor closes a fence', () => {
    assert.deepEqual(blocks('\t```py\nx\n\t```'), []);
    assert.deepEqual(blocks('```py\nx\n\t```\n```'), [[0, 'py', 'x\n\t```', 3]]);
  });

  describe('containers (markdown-it, documented in fences.ts)', () => {
    it('a block in a block quote ends where the quote ends, and the quote prefix is removed', () => {
      const [b, ...more] = findFencedBlocks('> text\n>\n> ```sh\n> echo hi\n>     two\n> ```\nafter');
      assert.equal(more.length, 0);
      assert.deepEqual([b!.fenceLine, b!.lines, b!.closeLine, b!.strip], [2, ['echo hi', '    two'], 5, 2]);
      // A line outside the quote ends the block (fenced code is never a lazy continuation).
      assert.deepEqual(blocks('> ```py\n> x\ny\n> ```'), [[0, 'py', 'x', -1], [3, '', '', -1]]);
    });

    it('a block in a list item: on the marker line, or at the item\'s content column, also nested', () => {
      assert.deepEqual(blocks('- ```py\n  x = 1\n  ```\n- b'), [[0, 'py', 'x = 1', 2]]);
      assert.deepEqual(blocks('1. Run:\n\n   ```sh\n   echo hi\n\n   echo two\n   ```\n2. Next'), [[2, 'sh', 'echo hi\n\necho two', 6]]);
      const nested = findFencedBlocks('- a\n  - b\n    ```js\n    console.log(1)\n    ```');
      assert.deepEqual(nested.map((b) => [b.fenceLine, b.lines, b.strip]), [[2, ['console.log(1)'], 4]]);
      assert.deepEqual(blocks('> - ```sh\n>   echo hi\n>   ```'), [[0, 'sh', 'echo hi', 2]]);
    });

    it('a line indented less than the item\'s content column ends the item and its block', () => {
      assert.deepEqual(blocks('- a\n  ```py\n  x\nnot in the item\n```py\ny\n```'), [[1, 'py', 'x', -1], [4, 'py', 'y', 6]]);
    });

    it('four spaces outside a list item are an indented code block, not a fence', () => {
      assert.deepEqual(blocks('text\n\n    ```py\n    x\n    ```'), []);
      // After the list ended, the same lines are an indented code block again.
      assert.deepEqual(blocks('- a\n\nb\n\n    ```py\n    x\n    ```'), []);
    });

    it('a thematic break is not a list item', () => {
      assert.deepEqual(blocks('* * *\n  ```py\n  x\n  ```'), [[1, 'py', 'x', 3]]);
    });
  });

  describe('where the preview shows a code block (markdown-it, issue 21)', () => {
    it('a fence inside an HTML block is HTML, not a block; after the HTML block ends it is a block again', () => {
      assert.deepEqual(blocks('<div>\n```py\nx = 1\n```\n</div>'), []);
      assert.deepEqual(blocks('<pre>\n\n```sh\nls\n```\n</pre>'), []);
      assert.deepEqual(blocks('<!--\n```py\nx\n```\n-->'), []);
      // A <div> block ends at a blank line (CommonMark 4.6, type 6).
      assert.deepEqual(blocks('<div>\n\n```py\nx = 1\n```\n</div>'), [[2, 'py', 'x = 1', 4]]);
    });

    it('an indented code block has no info string and is not reported, even when it holds fence lines', () => {
      assert.deepEqual(blocks('para\n\n    x = 1\n    ```py\n    y\n    ```'), []);
    });

    it('a fence inside a list item: content column, nested items and a loose list', () => {
      assert.deepEqual(blocks('1. step\n\n   ```py\n   print(1)\n   ```\n\n2. next'), [[2, 'py', 'print(1)', 4]]);
      const [b] = findFencedBlocks('* a\n\n  ```js\n  x\n    y\n  ```');
      assert.deepEqual([b!.fenceLine, b!.lines, b!.strip, b!.closeLine], [2, ['x', '  y'], 2, 5]);
    });

    it('tildes: info after a tilde fence may hold backticks, and a backtick line does not close it', () => {
      assert.deepEqual(blocks('~~~ py `x`\nprint(1)\n```\n~~~'), [[0, 'py', 'print(1)\n```', 3]]);
    });

    it('an unclosed fence runs to the end of the document, or of its block quote or list item', () => {
      assert.deepEqual(blocks('text\n\n```py\nx\ny\n'), [[2, 'py', 'x\ny', -1]]);
      assert.deepEqual(blocks('- ```py\n  x\n\nafter'), [[0, 'py', 'x\n', -1]]);
    });

    it('CRLF line ends give the same blocks, lines and widths as LF', () => {
      const lf = '> ```py\n> a\n>   b\n> ```\n\n- ~~~sh\n  ls\n  ~~~\n';
      const crlf = lf.replace(/\n/g, '\r\n');
      assert.deepEqual(findFencedBlocks(crlf), findFencedBlocks(lf));
      assert.deepEqual(blocks(crlf), [[0, 'py', 'a\n  b', 3], [5, 'sh', 'ls', 7]]);
    });

    it('a NUL character in a block comes back as U+FFFD (CommonMark 2.3, as the preview shows it)', () => {
      assert.deepEqual(blocks('```sh\necho a\0b\n```'), [[0, 'sh', 'echo a\uFFFDb', 2]]);
    });

    it('the info word is the preview\'s language: backslash escapes and entities resolved', () => {
      assert.deepEqual(blocks('```p\\_y\nx\n```').map((b) => b[1]), ['p_y']);
      assert.deepEqual(blocks('```&#112;y\nx\n```').map((b) => b[1]), ['py']);
    });
  });

  it('finds exactly the fences of the full markdown-it parser the preview runs (5,000 generated documents)', function () {
    this.timeout(30_000);
    // fences.ts runs markdown-it's block parser alone, with its own host object (options and
    // link checks): every fence token it sees must be the full parser's, line map,
    // info and content included. Documents are lines drawn from a fixed alphabet of block starts
    // that interact with fences (containers, HTML, references with refused links, tables,
    // headings, tabs, entities, CR/CRLF, NUL), from a seeded generator so a failure repeats.
    const full = new MarkdownIt('default', { html: true });
    full.core.ruler.enableOnly(['normalize', 'block']);
    // [fenceLine, info word, content lines, closeLine or -1] from the full parser's fence tokens.
    const fullFences = (md: string) =>
      full.parse(md, {}).filter((t) => t.type === 'fence').map((t) => {
        const lines = t.content === '' ? [] : t.content.replace(/\n$/, '').split('\n');
        const [start, end] = t.map!;
        return [start, full.utils.unescapeAll(t.info).trim().split(/\s+/, 1)[0], lines, end - start - 1 > lines.length ? end - 1 : -1];
      });
    // A refused link makes a reference definition paragraph text, which `</pre>` continues, so the
    // fence after it is a block; an accepted one lets `</pre>` open an HTML block that hides it.
    assert.deepEqual(fullFences('[c]: javascript:x\n</pre>\n~~~ sh\nx\n'), [[2, 'sh', ['x'], -1]]);
    assert.deepEqual(fullFences('[c]: <http://x>\n</pre>\n~~~ sh\nx\n'), []);
    for (const md of ['[c]: javascript:x\n</pre>\n~~~ sh\nx\n', '[c]: <http://x>\n</pre>\n~~~ sh\nx\n']) {
      assert.deepEqual(findFencedBlocks(md).map((f) => [f.fenceLine, f.info, f.lines, f.closeLine ?? -1]), fullFences(md), md);
    }
    const alphabet = [
      '```', '```py', '~~~', '~~~ sh', '````', ' ```', '    ```', '\t```', '```&#112;y', '```\\py', '``` a`b',
      '> ```', '> ', '>', '- ```', '- ', '  ```', '1. ```', '   ```', '- - ```', '> - ```',
      '<div>', '</div>', '<pre>', '</pre>', '<!--', '-->', '[a]: javascript:x', '[b]: <http://x> "t', '"',
      '[c]: <  javascript:x>', '[d]: JavaScript:x', '[e]: data:image/png;x', '[f]: data:text/html,x', '[g]: //ä.com/x', '[h]: http://ä.com',
      '| a | b |', '| - | - |', '---', '===', '# h', 'text', 'x = 1', '', '', '\0', 'a\tb',
    ];
    let seed = 26;
    const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n);
    const ends = ['\n', '\n', '\n', '\r\n', '\r'];
    for (let i = 0; i < 5000; i++) {
      const lines = Array.from({ length: 1 + next(14) }, () => alphabet[next(alphabet.length)]!);
      const md = lines.map((l) => l + ends[next(ends.length)]!).join('').slice(0, next(3) === 0 ? -1 : undefined);
      assert.deepEqual(findFencedBlocks(md).map((f) => [f.fenceLine, f.info, f.lines, f.closeLine ?? -1]), fullFences(md), JSON.stringify(md));
    }
  });

  it('hostile input (2 MB): nesting past markdown-it\'s maxNesting, huge fences, many openers', function () {
    // No time is asserted (speed belongs to the bench): the mocha timeout only stops a hang.
    // markdown-it keeps its block pass linear and tests pathological input upstream.
    this.timeout(60_000);
    const shape = (md: string) => findFencedBlocks(md).map((b) => [b.fenceLine, b.info, b.lines.length, b.closeLine ?? -1, b.strip]);
    // Deep container nesting followed by many blank lines: past 100 levels markdown-it (and so
    // the preview) stops reading the document.
    assert.deepEqual(shape('> '.repeat(100_000) + '```\n' + '\n'.repeat(200_000)), []);
    assert.deepEqual(shape('- '.repeat(100_000) + '\n' + '\n'.repeat(200_000)), []);
    assert.deepEqual(shape('- - - - '.repeat(125_000) + 'x\n' + '```' + '`'.repeat(500_000) + '\n' + ' '.repeat(500_000) + '\n'), []);
    // 50 levels are followed, and their prefixes removed.
    assert.deepEqual(shape('> '.repeat(50) + '```py\n' + '> '.repeat(50) + 'x\n'), [[0, 'py', 1, -1, 100]]);
    // Many unclosed openers, long fences and near-closing lines.
    assert.deepEqual(shape('```\n' + '`'.repeat(1_000_000) + 'x\n' + '~~~ '.repeat(250_000)), [[0, '', 2, -1, 0]]);
    assert.deepEqual(shape('````x\n'.repeat(200_000)), [[0, 'x', 199_999, -1, 0]]);
  });
});

describe('Markdown fence languages (unit)', () => {
  const builtins = resolveProfiles([]);

  it('maps the documented aliases to the built-in profiles through their languages', () => {
    const profileOf = (info: string) => blockProfile(builtins, info)?.chosen.name;
    for (const info of ['py', 'python', 'python3', 'Python', '{python}', '{.python .numberLines}']) assert.equal(profileOf(info.split(' ')[0]!), 'python', info);
    for (const info of ['js', 'javascript', 'node', 'mjs', 'cjs']) assert.equal(profileOf(info), 'node', info);
    for (const info of ['sh', 'shell', 'shellscript']) assert.equal(profileOf(info), 'shell', info);
    // Issue 23: every built-in language and its usual aliases.
    const rows: readonly (readonly [string, readonly string[]])[] = [
      ['bash', ['bash']], ['c', ['c']], ['cpp', ['cpp', 'c++', 'cc', 'cxx']], ['go', ['go', 'golang']],
      ['ruby', ['ruby', 'rb']], ['php', ['php']], ['perl', ['perl', 'pl']],
      ['typescript', ['typescript', 'ts', 'mts', 'cts']], ['rust', ['rust', 'rs']], ['java', ['java']], ['r', ['r', 'R', '{r}', '{r,']],
    ];
    for (const [profile, infos] of rows) for (const info of infos) assert.equal(profileOf(info), profile, info);
    assert.equal(blockProfile(builtins, 'mjs')?.language.extension, '.mjs');
    assert.equal(blockProfile(builtins, 'mts')?.language.extension, '.mts', 'node picks the module type of a .mts block by its extension');
  });

  it('blocks of an unknown or unrunnable language, or without an info word, get no profile', () => {
    for (const info of ['', 'text', 'console', 'zsh', 'json', 'swift', 'csharp', 'kotlin', 'constructor', '__proto__', 'toString']) {
      assert.equal(blockProfile(builtins, info), undefined, info);
    }
  });

  it('a language listed by a user or workspace profile maps, by alias or as written; the highest layer wins', () => {
    const set = resolveProfiles([
      { source: 'user', value: { ruby: { image: 'ruby:3', command: ['ruby', '${file}'], languages: ['ruby'], extensions: ['.rb'] } } },
      { source: 'workspace', value: { deno: { image: 'denoland/deno', command: ['deno', 'run', '${file}'], languages: ['typescript', 'javascript'], extensions: ['.ts'] } } },
    ]);
    assert.equal(blockProfile(set, 'rb')?.chosen.name, 'ruby');
    assert.equal(blockProfile(set, 'ruby')?.chosen.name, 'ruby');
    assert.equal(blockProfile(set, 'ts')?.chosen.name, 'deno');
    assert.equal(blockProfile(set, 'js')?.chosen.name, 'deno');
  });

  it('chooses the profile a file of the same language would run with (profileResolution.ts pickProfile)', () => {
    const set = resolveProfiles([
      { source: 'user', value: { py2: { image: 'python:2', command: ['python', '${file}'], languages: ['python'] } } },
      { source: 'workspace', value: { zz: { image: 'x:1', command: ['sh', '${file}'], languages: ['shellscript', 'python'] } } },
    ]);
    for (const [info, languageId] of [['py', 'python'], ['sh', 'shellscript'], ['js', 'javascript']] as const) {
      assert.equal(blockProfile(set, info)?.chosen, pickProfile(set, { languageId }), info);
    }
    assert.equal(blockProfile(set, 'py')?.chosen.name, 'zz');
  });

  it('never falls back to another profile for a language no valid profile lists', () => {
    const set = resolveProfiles([{ source: 'user', value: { python: { languages: [] } } }]);
    assert.equal(blockProfile(set, 'py'), undefined);
    assert.ok(Object.keys(BUILTIN_PROFILES).includes('python'));
  });

  it('normalises fence names and every alias names a lower-case key', () => {
    assert.equal(fenceName('{r,'), 'r');
    assert.equal(fenceName('{.Python}'), 'python');
    assert.deepEqual(fenceLanguage('PY'), { languageId: 'python' });
    for (const key of Object.keys(FENCE_ALIASES)) assert.equal(key, key.toLowerCase());
  });
});
