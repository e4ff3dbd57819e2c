/**
 * Notebook output policy (issue 34, core session/notebookOutputPolicy.ts): which display types a
 * sandboxed cell may show, and stream and error text checked against VS Code 1.139's built-in
 * renderer's own link patterns (extensions/notebook-renderers renderer-out/index.js) after VS
 * Code's stream joining (notebookCommon `compressOutputItemStreams`): no link in any of them.
 */
import assert from 'node:assert/strict';
import { InertStream, forwardedMimes, inertWebText } from '../../src/core/session/notebookOutputPolicy';

const C = '\\u0000-\\u0020\\u007f-\\u009f';
const WEB = new RegExp('(?:[a-zA-Z][a-zA-Z0-9+.-]{2,}:\\/\\/|data:|www\\.)[^\\s' + C + '"]{2,}[^\\s' + C + '"\')}\\],:;.!?]', 'u');
const POSIX_PATH = /(?<=^|\s)((?:~|\.)?(?:\/[\w.-]*)+)/;
const WIN_PATH = /(?<=^|\s)(?:[a-zA-Z]:(?:(?:\\|\/)[\w.-]*)+)|(?<=^|\s)(?:(?:~|\.)(?:(?:\\|\/)[\w.-]*)+)/;

/** What VS Code makes of a stream output's items: the ESC[A join, backspaces, carriage returns. */
function joined(items: string[]): string {
  const s = [...items];
  for (let i = 1; i < s.length; i++) {
    if (s[i]!.startsWith('\u001b[A')) {
      const nl = s[i - 1]!.lastIndexOf('\n');
      if (nl >= 0) { s[i - 1] = s[i - 1]!.slice(0, nl); s[i] = s[i]!.slice(3); }
    }
  }
  let t = s.join('');
  let o = t;
  do { t = o; o = t.replace(/[^\n]\x08/gm, ''); } while (o.length < t.length);
  t = t.replace(/\r+\n/gm, '\n');
  while (t.search(/\r[^$]/g) > -1) {
    const base = t.match(/^(.*)\r+/m)![1]!;
    let ins = t.match(/\r+(.*)$/m)![1]!;
    ins += base.slice(ins.length);
    t = t.replace(/\r+.*$/m, '\r').replace(/^.*\r/m, ins);
  }
  return t;
}

/** The renderer's link candidates: ANSI spans (ESC[ … final byte), then lines. */
function pieces(text: string): string[] {
  return text.split(/\u001b\[[^ABCDHIJKfhmpsu]*[ABCDHIJKfhmpsu]/).flatMap((p) => p.split(/\r\n|\r|\n/));
}

function linksOf(chunks: string[]): string[] {
  const inert = new InertStream();
  const out = joined(chunks.map((c) => inert.push(c)));
  return pieces(out).filter((p) => WEB.test(p) || POSIX_PATH.test(p) || WIN_PATH.test(p));
}

describe('notebook output policy (unit)', () => {
  it('forwards only inert types by default; HTML, SVG and Markdown only with the opt-in', () => {
    assert.deepEqual([...forwardedMimes(false)].sort(), ['application/json', 'image/jpeg', 'image/png', 'text/plain']);
    for (const m of ['text/html', 'image/svg+xml', 'text/markdown']) {
      assert.ok(!forwardedMimes(false).includes(m as never), m);
      assert.ok(forwardedMimes(true).includes(m as never), m);
    }
  });

  const corpus: string[][] = [
    ['file:///etc/passwd'], ['/etc/hostname:1'], ['see /etc/passwd:3:4 now'], ['~/x'], ['./run.sh'],
    ['C:\\Windows\\x'], ['C:/x'], ['~\\x'], ['.\\x'], ['http://127.0.0.1:8/x'], ['HTTPS://A.B/cc'],
    ['data:text/html,<b>x</b>'], ['www.example.com'], ['\u001b[31m/etc/passwd\u001b[0m'],
    ['abcd/etc/passwd\rXYZ '], [' x\b/etc/passwd'], ['dat', 'a:xxyy'], ['ww', 'w.x.yy'], ['abc ', '/etc/passwd'],
    ['\u001b[3', '1m/etc/passwd'], ['foo \nbar', '\u001b[A/etc/passwd'], ['http:', '//host/x'], ['\u001b[', '\n\nm/etc/x'],
  ];
  for (const chunks of corpus) {
    it(`no link in ${JSON.stringify(chunks)}`, () => {
      assert.deepEqual(linksOf(chunks), []);
      assert.ok(chunks.join('').split(/\r\n?|\x08/).join('').length > 0);
    });
  }

  it('keeps the text readable: only zero-width spaces are added', () => {
    const s = new InertStream();
    assert.equal(s.push('open /etc/passwd and http://x.y/z\n').replace(/\u200b/g, ''), 'open /etc/passwd and http://x.y/z\n');
  });

  it('breaks web links in error text and keeps the cell header', () => {
    const t = inertWebText('Cell In[3], line 2\nValueError: file:///etc/passwd data:x,yy www.a.bc\n');
    assert.ok(t.startsWith('Cell In[3], line 2\n'));
    assert.deepEqual(pieces(t).filter((p) => WEB.test(p)), []);
  });
});
