import assert from 'node:assert/strict';
import { BoundedStream, type OutputStream } from '../../src/core';

function collect() {
  const parts: Array<[OutputStream, string]> = [];
  return { parts, sink: (s: OutputStream, t: string) => parts.push([s, t]), text: () => parts.map((p) => p[1]).join('') };
}

describe('bounded output (unit)', () => {
  it('keeps exactly the bound and reports the first overflow once', () => {
    const c = collect();
    const s = new BoundedStream('stdout', 10, c.sink);
    assert.equal(s.push(Buffer.from('12345')), false);
    assert.equal(s.push(Buffer.from('67890')), false);
    assert.equal(s.truncated, false);
    assert.equal(s.push(Buffer.from('X')), true);
    assert.equal(s.push(Buffer.from('more')), false);
    s.end();
    assert.equal(c.text(), '1234567890');
    assert.equal(s.bytesKept, 10);
    assert.equal(s.bytesSeen, 15);
    assert.equal(s.truncated, true);
  });

  it('splits a chunk that crosses the bound', () => {
    const c = collect();
    const s = new BoundedStream('stderr', 4, c.sink);
    assert.equal(s.push(Buffer.from('abcdef')), true);
    assert.equal(c.text(), 'abcd');
    assert.deepEqual(c.parts[0]?.[0], 'stderr');
  });

  it('decodes multi-byte characters split across chunks, byte by byte', () => {
    const text = 'héllo → 世界 🎉 done';
    const bytes = Buffer.from(text, 'utf8');
    const c = collect();
    const s = new BoundedStream('stdout', 1024, c.sink);
    for (const b of bytes) s.push(Uint8Array.of(b));
    s.end();
    assert.equal(c.text(), text);
    assert.equal(s.bytesKept, bytes.length);
  });

  it('flushes a character cut by the bound as one replacement character', () => {
    const c = collect();
    const s = new BoundedStream('stdout', 2, c.sink);
    assert.equal(s.push(Buffer.from('a世', 'utf8')), true); // 'a' + 3 bytes, bound cuts after 1 of them
    s.end();
    assert.equal(c.text(), 'a\uFFFD');
    assert.equal(s.bytesKept, 2);
  });

  it('passes invalid UTF-8 through as replacement characters without throwing', () => {
    const c = collect();
    const s = new BoundedStream('stdout', 100, c.sink);
    s.push(Uint8Array.of(0x66, 0xff, 0xfe, 0x6f));
    s.end();
    assert.equal(c.text(), 'f\uFFFD\uFFFDo');
  });
});
