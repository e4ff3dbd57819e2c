import assert from 'node:assert/strict';
import { dedent } from '../../src/core/source/dedent';
import { findErrorSite } from '../../src/core/source/errorSite';
import { findSourceRefs, mapPosition, rewriteSourceRefs, type SnippetOrigin } from '../../src/core/source/sourceRefs';

const file: SnippetOrigin = { source: '/home/ada/proj/x.py', line: 0, column: 0, dedent: 0, snippetPath: '/sandbox/main.py' };
const js: SnippetOrigin = { ...file, source: '/home/ada/proj/x.js', snippetPath: '/sandbox/main.js' };
const mjs: SnippetOrigin = { ...file, source: '/home/ada/proj/x.mjs', snippetPath: '/sandbox/main.mjs' };
const sh: SnippetOrigin = { ...file, source: '/home/ada/proj/x.sh', snippetPath: '/sandbox/main.sh' };

/** The matched text of each reference, with its mapped line (1-based) and column (1-based). */
function shown(text: string, origin: SnippetOrigin) {
  return findSourceRefs(text, origin).map((r) => ({
    text: text.slice(r.start, r.end), path: r.path, line: r.line + 1, ...(r.column === undefined ? {} : { column: r.column + 1 }),
  }));
}

describe('source references (unit)', () => {
  it('finds a Python traceback frame', () => {
    assert.deepEqual(shown('  File "/sandbox/main.py", line 3, in <module>', file), [
      { text: '/sandbox/main.py", line 3', path: '/home/ada/proj/x.py', line: 3 },
    ]);
    // stderr lines in the output channel carry a marker before them
    assert.equal(shown('[stderr]   File "/sandbox/main.py", line 12, in f', file)[0]?.line, 12);
  });

  it('finds Node stack frames: path:line:col, in parentheses, file:// URLs and the header line', () => {
    assert.deepEqual(shown('/sandbox/main.js:3:7', js), [{ text: '/sandbox/main.js:3:7', path: '/home/ada/proj/x.js', line: 3, column: 7 }]);
    assert.deepEqual(shown('    at f (/sandbox/main.js:3:7)', js), [{ text: '/sandbox/main.js:3:7', path: '/home/ada/proj/x.js', line: 3, column: 7 }]);
    assert.deepEqual(shown('    at file:///sandbox/main.mjs:3:7', mjs), [
      { text: 'file:///sandbox/main.mjs:3:7', path: '/home/ada/proj/x.mjs', line: 3, column: 7 },
    ]);
    assert.deepEqual(shown('/sandbox/main.js:3', js), [{ text: '/sandbox/main.js:3', path: '/home/ada/proj/x.js', line: 3 }]);
    assert.equal(shown('    at g (/sandbox/main.js:9:1) then at h (/sandbox/main.js:10:2)', js).length, 2);
  });

  it('finds sh errors as bash/busybox (`: line N:`) and dash (`: N: `) print them', () => {
    // Measured on the test images: busybox sh and dash (the Debian image's /bin/sh).
    assert.deepEqual(shown('/sandbox/main.sh: line 3: nosuchcmd: not found', sh), [
      { text: '/sandbox/main.sh: line 3:', path: '/home/ada/proj/x.sh', line: 3 },
    ]);
    assert.deepEqual(shown('/sandbox/main.sh: 3: nosuchcmd: not found', sh), [
      { text: '/sandbox/main.sh: 3: ', path: '/home/ada/proj/x.sh', line: 3 },
    ]);
    // `sh: line 3:` names no file (it comes from `sh -c` or a script read from stdin): not the snippet
    assert.deepEqual(shown('sh: line 3: x: not found', sh), []);
  });

  it('ignores other paths, paths inside words, longer names and line 0', () => {
    assert.deepEqual(shown('/usr/lib/python3.12/json/__init__.py:3', file), []);
    assert.deepEqual(shown('x/sandbox/main.py:3', file), []);
    assert.deepEqual(shown('/sandbox/main.pyc:3 /sandbox/main.py.bak:3', file), []);
    assert.deepEqual(shown('/sandbox/main.py:0', file), []);
    assert.deepEqual(shown('/sandbox/main.py is here', file), []);
    assert.deepEqual(shown('http://x/sandbox/main.py:3', file), []);
  });

  it('maps a selection run: first line, mid-line start column and dedent width', () => {
    // Lines 10-14 (0-based 9), selection starting at column 4 of its first line, 4 columns dedented.
    const sel: SnippetOrigin = { ...js, line: 9, column: 4, dedent: 4 };
    // line 1 of the snippet: column = selection column + dedent + V8 column - 1
    assert.deepEqual(mapPosition('/sandbox/main.js', 1, 2, sel), { kind: 'snippet', path: sel.source, line: 9, column: 9 });
    // a later line starts at the document's column 0, plus what dedent removed
    assert.deepEqual(mapPosition('/sandbox/main.js', 3, 7, sel), { kind: 'snippet', path: sel.source, line: 11, column: 10 });
    assert.deepEqual(mapPosition('/sandbox/main.js', 3, undefined, sel), { kind: 'snippet', path: sel.source, line: 11 });
    assert.equal(mapPosition('/sandbox/main.js', 0, 1, sel), undefined);
  });

  it('maps a file under a local mount to the host path, and refuses dot segments', () => {
    const mounted: SnippetOrigin = { ...file, mounts: [{ target: '/data', source: '/home/ada/data' }] };
    assert.deepEqual(shown('  File "/data/lib/util.py", line 5, in g', mounted), [
      { text: '/data/lib/util.py", line 5', path: '/home/ada/data/lib/util.py', line: 5 },
    ]);
    assert.deepEqual(shown('  File "/data/../etc/passwd", line 1', mounted), []);
    assert.deepEqual(shown('  File "/data/./x.py", line 1', mounted), []);
    assert.deepEqual(shown('  File "/data//x.py", line 1', mounted), []);
    assert.deepEqual(shown('  File "/datax/y.py", line 1', mounted), []);
    // without the mount (a remote engine), nothing maps
    assert.deepEqual(shown('  File "/data/lib/util.py", line 5', file), []);
    assert.deepEqual(shown('file:///data/a%2e%2e/x.py:1:1', mounted), []);
  });

  it('under a Windows mount source, refuses backslash segments and trailing dots (Windows splits and trims them)', () => {
    const win: SnippetOrigin = { ...file, mounts: [{ target: '/data', source: 'C:\\Users\\ada\\data' }] };
    assert.deepEqual(shown('  File "/data/lib/util.py", line 5', win).map((r) => r.path), ['C:\\Users\\ada\\data\\lib\\util.py']);
    assert.deepEqual(shown('  File "/data/..\\..\\secret.txt", line 1', win), []);
    assert.deepEqual(shown('  File "/data/x\\..\\..\\..\\y", line 1', win), []);
    assert.deepEqual(shown('  File "/data/.../x", line 1', win), []);
    assert.deepEqual(shown('  File "/data/sub./x", line 1', win), []);
    assert.equal(rewriteSourceRefs('  File "/data/..\\..\\secret.txt", line 1', win), '  File "/data/..\\..\\secret.txt", line 1');
    // on a POSIX mount source a backslash is an ordinary file name character
    const posixMounted: SnippetOrigin = { ...file, mounts: [{ target: '/data', source: '/home/ada/data' }] };
    assert.deepEqual(shown('  File "/data/a\\b.py", line 1', posixMounted).map((r) => r.path), ['/home/ada/data/a\\b.py']);
  });

  it('rewrites references for a terminal as the host path and real line, keeping the rest', () => {
    const sel: SnippetOrigin = { ...file, line: 9, dedent: 4 };
    assert.equal(rewriteSourceRefs('  File "/sandbox/main.py", line 3, in <module>', sel), '  File "/home/ada/proj/x.py", line 12, in <module>');
    assert.equal(rewriteSourceRefs('    at f (/sandbox/main.js:3:7)', { ...js, line: 9, dedent: 4 }), '    at f (/home/ada/proj/x.js:12:11)');
    assert.equal(rewriteSourceRefs('    at file:///sandbox/main.mjs:1:1', mjs), '    at /home/ada/proj/x.mjs:1:1');
    assert.equal(rewriteSourceRefs('/sandbox/main.sh: 3: x: not found', sh), '/home/ada/proj/x.sh: 3: x: not found');
    assert.equal(rewriteSourceRefs('/sandbox/main.sh: line 3: x', sh), '/home/ada/proj/x.sh: line 3: x');
    assert.equal(rewriteSourceRefs('no reference here', file), 'no reference here');
    // an untitled document has no host path: left as printed
    assert.equal(rewriteSourceRefs('/sandbox/main.py", line 3', { ...file, source: 'Untitled-1', untitled: true }), '/sandbox/main.py", line 3');
  });
});

describe('source reference matcher on hostile long lines (unit)', () => {
  const mounted: SnippetOrigin = { ...file, mounts: [{ target: '/data', source: '/home/ada/data' }] };
  // Linear, not quadratic. Before the fix `=/` repeated took 2 s per 40 KB, growing with the
  // square: a 1 MB line would take about 20 minutes, so finishing within the test's timeout
  // proves the point without a wall-clock bound (a line of 1 MB takes under 300 ms here, idle;
  // a bound in milliseconds failed on a loaded machine).
  const lines: Record<string, string> = {
    '`=/` repeated (every slash may start a path, none ends)': '=/'.repeat(500_000),
    'slashes only': '/'.repeat(1_000_000),
    '` /data/a` repeated': ' /data/a'.repeat(125_000),
    '`file://` repeated': 'file://'.repeat(140_000),
    'a traceback frame with a 1 MB path': `  File "=${'=/'.repeat(500_000)}", line 1`,
  };
  for (const [name, text] of Object.entries(lines)) {
    it(`finds, rewrites and reads the error site of a 1 MB line without quadratic time: ${name}`, function () {
      this.timeout(30_000);
      // The assertion is the timeout: mocha fails a test that has not returned in 30 s.
      findSourceRefs(text, mounted);
      rewriteSourceRefs(text, mounted);
      findErrorSite(['Traceback (most recent call last):', text, 'Error: x'], mounted);
    });
  }
  it('still finds a reference after a long run of slashes', () => {
    assert.deepEqual(shown(`${'=/'.repeat(1000)} /sandbox/main.py:4`, file).map((r) => r.line), [4]);
  });
});

describe('dedent (unit)', () => {
  it('removes the common leading whitespace, ignoring blank lines, and returns its width', () => {
    assert.deepEqual(dedent('    x = 1\n\n      y = 2\n    z()'), { text: 'x = 1\n\n  y = 2\nz()', width: 4 });
    assert.deepEqual(dedent('\tif a:\n\t\tb()'), { text: 'if a:\n\tb()', width: 1 });
    assert.deepEqual(dedent('x\n  y'), { text: 'x\n  y', width: 0 });
    // a tab and spaces share nothing
    assert.deepEqual(dedent('\tx\n    y'), { text: '\tx\n    y', width: 0 });
    // whitespace-only lines are left as they are, even shorter than the prefix
    assert.deepEqual(dedent('    a\n  \n    b'), { text: 'a\n  \nb', width: 4 });
  });

  it('keeps CRLF line ends, so line numbers and columns map the same', () => {
    const out = dedent('    a = 1\r\n\r\n    b = c\r\n');
    assert.deepEqual(out, { text: 'a = 1\r\n\r\nb = c\r\n', width: 4 });
    const origin: SnippetOrigin = { ...js, line: 20, dedent: out.width };
    assert.equal(findSourceRefs('/sandbox/main.js:3:5', origin)[0]?.line, 22);
    assert.equal(findSourceRefs('/sandbox/main.js:3:5', origin)[0]?.column, 8);
  });
});

describe('error site (unit)', () => {
  it('takes the innermost snippet frame of the last Python traceback and its exception line', () => {
    const lines = [
      'Traceback (most recent call last):',
      '  File "/sandbox/main.py", line 5, in <module>',
      '    f()',
      '  File "/sandbox/main.py", line 3, in f',
      '    1/0',
      '    ~^~',
      '  File "/usr/lib/python3.12/x.py", line 9, in g',
      'ZeroDivisionError: division by zero',
    ];
    const site = findErrorSite(lines, { ...file, line: 9 });
    assert.equal(site?.ref.line, 11);
    assert.equal(site?.message, 'ZeroDivisionError: division by zero');
  });

  it('takes the last report of a chained Python exception, and a SyntaxError without a header', () => {
    const chained = [
      'Traceback (most recent call last):', '  File "/sandbox/main.py", line 2, in <module>', 'KeyError: 1', '',
      'During handling of the above exception, another exception occurred:', '',
      'Traceback (most recent call last):', '  File "/sandbox/main.py", line 4, in <module>', 'ValueError: bad',
    ];
    assert.deepEqual([findErrorSite(chained, file)?.ref.line, findErrorSite(chained, file)?.message], [3, 'ValueError: bad']);
    const syntax = ['  File "/sandbox/main.py", line 2', '    x = (', '        ^', "SyntaxError: '(' was never closed"];
    assert.deepEqual([findErrorSite(syntax, file)?.ref.line, findErrorSite(syntax, file)?.message], [1, "SyntaxError: '(' was never closed"]);
  });

  it('takes the innermost snippet frame of a Node error, else the header line', () => {
    const lines = [
      '/sandbox/main.js:3', "  throw new Error('boom');", '  ^', '',
      'Error: boom', '    at f (/sandbox/main.js:3:9)', '    at Object.<anonymous> (/sandbox/main.js:5:1)', '    at Module._compile (node:internal/modules/cjs/loader:1358:14)',
      '', 'Node.js v20.11.0',
    ];
    const site = findErrorSite(lines, js);
    assert.deepEqual([site?.ref.line, site?.ref.column, site?.message], [2, 8, 'Error: boom']);
    const thrown = ['file:///sandbox/main.mjs:2', '  throw 1', '  ^', 'TypeError: x is not a function', '    at node:internal/x:1:1'];
    assert.deepEqual([findErrorSite(thrown, mjs)?.ref.line, findErrorSite(thrown, mjs)?.message], [1, 'TypeError: x is not a function']);
  });

  it('finds nothing in output without an error in the snippet', () => {
    assert.equal(findErrorSite(['hello', 'Error: not thrown'], js), undefined);
    assert.equal(findErrorSite(['Traceback (most recent call last):', '  File "/other.py", line 1', 'E: x'], file), undefined);
  });
});
