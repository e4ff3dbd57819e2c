/**
 * The notebook error output's stack (core session/notebookTraceback.ts) and the error message's
 * cell frames (frames.ts): only the kernel's cell frames become `Cell In[N], line L` headers (the
 * shape VS Code's error renderer links to the cell), every shape of the program's text that the
 * renderer would link or render as markup is made inert.
 */
import assert from 'node:assert/strict';
import { parseMessage } from '../../src/core/session/frames';
import { inertTraceback, notebookStack } from '../../src/core/session/notebookTraceback';

/** The renderer's cell-link line (stackTraceHelper at VS Code 1.139), to check what would link. */
const CELL_LINK = /^(?:\u001b\[[\d;]*m|\s)*Cell(?:\u001b\[[\d;]*m|\s)*In(?:\u001b\[[\d;]*m|\s)*\[(\d+)\](?:\u001b\[[\d;]*m|\s|,)+line (\d+)[^\n]*$/gm;
/** Its other shapes: a file frame with a line, an arrow with a number, an HTML anchor. */
const OTHER_LINKS = [/File\s+(?:\u001b\[.+?m)?(.+):(\d+)/, /-+>(?:\u001b\[[\d;]*m|\s)*\d/, /<a\s+(?:[^>]*?\s+)?href=/i, /Input\s+?(?:\u001b\[.+?m)In\s*\[/];

const links = (stack: string) => [...stack.matchAll(CELL_LINK)].map((m) => `${m[1]}:${m[2]}`);

describe('notebook tracebacks (unit)', () => {
  const traceback = [
    'Traceback (most recent call last):\n',
    '  File "<cell 2>", line 5, in <module>\n    parse("{")\n',
    '  File "<cell 1>", line 3, in parse\n    return json.loads(text)\n           ^^^^^^^^^^^^^^^^\n',
    '  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads\n    return _default_decoder.decode(s)\n',
    'json.decoder.JSONDecodeError: Expecting property name: line 1 column 2 (char 1)\n',
  ];

  it('links the cell frames the kernel named, at their cell and line, and no library frame', () => {
    const stack = notebookStack(traceback, [{ index: 1, cell: 2, line: 5 }, { index: 2, cell: 1, line: 3 }]);
    assert.deepEqual(links(stack), ['2:5', '1:3']);
    assert.ok(stack.startsWith('Traceback (most recent call last):\nCell In[2], line 5\n    parse("{")\nCell In[1], line 3\n    return json.loads(text)\n'), stack);
    assert.match(stack, /File "\/usr\/lib\/python3\.11\/json\/__init__\.py", line 346, in loads\n/, 'a library frame stays as Python wrote it');
    assert.ok(!stack.includes('<cell'), 'the cell frames\' own first lines are replaced');
    for (const re of OTHER_LINKS) assert.doesNotMatch(stack, re);
  });

  it('links nothing without cell frames, even when the program\'s text looks like one', () => {
    const forged = [
      'Traceback (most recent call last):\n',
      '  File "/x.py", line 1, in f\n    print("-->7 <a href=\'command:x\'>y</a>")\n',
      'ValueError: \nCell In[1], line 9\n  Cell \u001b[0mIn [2], line 3\nFile /etc/passwd:12\n----> 4 x\nInput \u001b[0mIn [3]\n',
    ];
    const stack = notebookStack(forged, []);
    assert.deepEqual(links(stack), []);
    for (const re of OTHER_LINKS) assert.doesNotMatch(stack, re);
    assert.equal(stack.replaceAll('\u200b', ''), forged.join(''), 'only zero-width spaces were added');
    assert.equal(inertTraceback('a plain line, in a cell\n'), 'a plain line, in a cell\n');
  });

  it('keeps the text of a cell frame\'s source line inert too', () => {
    const stack = notebookStack(['  File "<cell 3>", line 2, in <module>\n    s = "Cell In[1], line 1" # --> 5\n'], [{ index: 0, cell: 3, line: 2 }]);
    assert.deepEqual(links(stack), ['3:2']);
    assert.doesNotMatch(stack, /-+>\s*\d/);
  });

  it('accepts error messages only with well-formed cell frames', () => {
    const msg = (frames: unknown) => parseMessage(Buffer.from(JSON.stringify({ t: 'error', ename: 'E', evalue: 'v', traceback: ['a', 'b'], frames })));
    assert.deepEqual(msg([[0, 1, 2], [1, 3, 4]]), { t: 'error', ename: 'E', evalue: 'v', traceback: ['a', 'b'], frames: [{ index: 0, cell: 1, line: 2 }, { index: 1, cell: 3, line: 4 }] });
    assert.deepEqual(msg([]), { t: 'error', ename: 'E', evalue: 'v', traceback: ['a', 'b'], frames: [] });
    for (const bad of [undefined, [[2, 1, 1]], [[0, 0, 1]], [[0, 1, 0]], [[0, 1.5, 1]], [[0, '1', 1]], [[1, 1, 1], [0, 1, 1]], [[0, 1, 1], [0, 1, 1]], [[0, 1]], [[0, 1, 1, 1]], [{ index: 0, cell: 1, line: 1 }]]) {
      assert.equal(typeof msg(bad), 'string', JSON.stringify(bad));
    }
  });

  it('breaks exactly the "File …:N" shapes the old lookahead broke, in linear work on hostile text (issue 34)', () => {
    // The lookahead of before (quadratic: it read to the line's end at every "File").
    const ESC = '(?:\\u001b\\[[\\d;]*m|\\s)*';
    const old = new RegExp([`<(?=[aA]\\s)`, `F(?=ile\\s+(?:\\u001b\\[.+?m)?.+:\\d)`, `C(?=ell${ESC}In)`, `I(?=nput\\s)`, `-(?=>${ESC}\\d)`].join('|'), 'g');
    const parts = ['File', ' ', '\n', ':', '1', 'x', '\u001b[0m', '\t', 'File ', ':7'];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % parts.length;
    for (let n = 0; n < 4000; n++) {
      const text = Array.from({ length: 1 + (n % 12) }, () => parts[next()]).join('');
      assert.equal(inertTraceback(text), text.replace(old, (c) => c + '\u200b'), JSON.stringify(text));
    }
    // 1 MiB of "File " with no ":N": minutes with the lookahead; the mocha timeout is the hang guard.
    const hostile = 'File '.repeat(200_000) + 'x';
    assert.equal(inertTraceback(hostile), hostile);
    const linked = inertTraceback('File \t'.repeat(100_000) + 'x:1');
    assert.equal(linked.split('\u200b').length - 1, 100_000);
  });
});
