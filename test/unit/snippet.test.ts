import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crlfToLf, snippetCode, writeSnippet } from '../../src/core/source/snippet';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';

const b = (s: string, encoding: BufferEncoding = 'utf8') => Buffer.from(s, encoding);

describe('snippet line endings (unit)', () => {
  it('the default profile converts CRLF to LF; "keep" leaves the code as written', () => {
    assert.equal(ProfileSchema.parse({ image: 'i', command: ['${file}'] }).lineEndings, 'lf');
    assert.equal(snippetCode('cd /tmp\r\necho ok\r\n', 'lf'), 'cd /tmp\necho ok\n');
    assert.equal(snippetCode('cd /tmp\r\necho ok\r\n', 'keep'), 'cd /tmp\r\necho ok\r\n');
    const bytes = b('a\r\nb\r\n');
    assert.equal(snippetCode(bytes, 'keep'), bytes);
  });

  it('converts text: only CR directly before LF goes, a lone CR stays', () => {
    assert.equal(crlfToLf('a\r\nb\rc\r\r\nd\n\re\r'), 'a\nb\rc\r\nd\n\re\r');
    assert.equal(crlfToLf(''), '');
  });

  it('converts bytes without decoding: non-UTF-8 bytes stay exact', () => {
    const latin1 = b('# caf\xe9\r\nprint("\xff")\r\n\r\nend', 'latin1');
    const out = crlfToLf(latin1);
    assert.ok(Buffer.from(out).equals(b('# caf\xe9\nprint("\xff")\n\nend', 'latin1')), Buffer.from(out).toString('hex'));
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    assert.ok(Buffer.from(crlfToLf(all)).equals(all), 'bytes without a CRLF pair change');
  });

  it('handles CRLF at the very start and end, and CR-CR-LF, in bytes', () => {
    assert.ok(Buffer.from(crlfToLf(b('\r\nx\r\r\n'))).equals(b('\nx\r\n')));
    assert.ok(Buffer.from(crlfToLf(b('\r\n\r\n'))).equals(b('\n\n')));
  });

  it('returns the input itself when there is no CRLF (no copy)', () => {
    const bytes = b('plain\nlf\n');
    assert.equal(crlfToLf(bytes), bytes);
  });

  it('converts a view of a larger buffer by its own bytes only', () => {
    const big = b('XX\r\nab\r\ncdYY');
    const view = big.subarray(2, 10); // "\r\nab\r\ncd"
    assert.equal(Buffer.from(crlfToLf(view)).toString(), '\nab\ncd');
    assert.equal(big.toString(), 'XX\r\nab\r\ncdYY', 'the source buffer changed');
  });

  it('the written snippet file holds the converted bytes', async () => {
    const snippet = await writeSnippet(snippetCode(b('echo ok\r\n'), 'lf'), 'main.sh');
    try {
      assert.equal(await readFile(join(snippet.dir, snippet.fileName), 'utf8'), 'echo ok\n');
    } finally {
      await snippet.dispose();
    }
  });
});
