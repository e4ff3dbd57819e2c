import assert from 'node:assert/strict';
import { BoundedStream, decodingSink, type OutputSink, type OutputStream, Utf8Decoder } from '../../src/core/output/output';

/** A sink recording what it receives: program bytes per chunk, notices as text. */
function collect() {
  const parts: Array<[OutputStream, Buffer | string]> = [];
  const sink: OutputSink = (s, d) => {
    parts.push([s, typeof d === 'string' ? d : Buffer.from(d)]);
  };
  return { parts, sink, bytes: () => Buffer.concat(parts.map((p) => p[1]).filter((d): d is Buffer => typeof d !== 'string')) };
}

/** bytes(range(256)), the byte values a UTF-8 decoder would replace from 0x80 on. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe('bounded output (unit)', () => {
  it('keeps exactly the bound and reports the first overflow once', () => {
    const c = collect();
    const s = new BoundedStream('stdout', 10, c.sink);
    assert.equal(s.push(Buffer.from('12345')), false);
    assert.equal(s.push(Buffer.from('67890')), false);
    assert.equal(s.truncated, false);
    assert.equal(s.push(Buffer.from('X')), true);
    assert.equal(s.push(Buffer.from('more')), false);
    assert.equal(c.bytes().toString(), '1234567890');
    assert.equal(s.bytesKept, 10);
    assert.equal(s.bytesSeen, 15);
    assert.equal(s.truncated, true);
  });

  it('splits a chunk that crosses the bound', () => {
    const c = collect();
    const s = new BoundedStream('stderr', 4, c.sink);
    assert.equal(s.push(Buffer.from('abcdef')), true);
    assert.equal(c.bytes().toString(), 'abcd');
    assert.deepEqual(c.parts[0]?.[0], 'stderr');
  });

  it('passes every byte value through unchanged (bytes(range(256)) * 4 stays 1024 bytes)', () => {
    const c = collect();
    const s = new BoundedStream('stdout', 4096, c.sink);
    for (let i = 0; i < 4; i++) s.push(ALL_BYTES);
    assert.equal(c.bytes().length, 1024);
    assert.ok(c.bytes().equals(Buffer.concat([ALL_BYTES, ALL_BYTES, ALL_BYTES, ALL_BYTES])));
    assert.equal(s.bytesKept, 1024);
  });

  it('cuts at exactly the bound in bytes, also inside a UTF-8 character', () => {
    const c = collect();
    const s = new BoundedStream('stdout', 2, c.sink);
    assert.equal(s.push(Buffer.from('a世', 'utf8')), true); // 'a' + 3 bytes, bound cuts after 1 of them
    assert.ok(c.bytes().equals(Buffer.from([0x61, 0xe4])));
    assert.equal(s.bytesKept, 2);
  });
});

describe('output decoding for display (unit)', () => {
  it('decodes multi-byte characters split across chunks, byte by byte', () => {
    const text = 'héllo → 世界 🎉 done';
    const d = new Utf8Decoder();
    let out = '';
    for (const b of Buffer.from(text, 'utf8')) out += d.push(Uint8Array.of(b));
    out += d.end();
    assert.equal(out, text);
  });

  it('shows a character cut by the bound as one replacement character at the end', () => {
    const d = new Utf8Decoder();
    assert.equal(d.push(Buffer.from([0x61, 0xe4])), 'a');
    assert.equal(d.end(), '\uFFFD');
  });

  it('shows invalid UTF-8 as replacement characters without throwing', () => {
    const d = new Utf8Decoder();
    assert.equal(d.push(Uint8Array.of(0x66, 0xff, 0xfe, 0x6f)) + d.end(), 'f\uFFFD\uFFFDo');
  });

  it('decodingSink decodes each stream on its own and passes notices through', () => {
    const parts: Array<[OutputStream, string]> = [];
    const dec = decodingSink((s, t) => parts.push([s, t]));
    const euro = Buffer.from('€', 'utf8'); // 3 bytes
    dec.sink('stdout', euro.subarray(0, 1));
    dec.sink('stderr', Buffer.from('e'));
    dec.sink('stdout', euro.subarray(1));
    dec.sink('notice', 'note');
    dec.sink('stderr', euro.subarray(0, 2));
    dec.end();
    assert.deepEqual(parts, [['stderr', 'e'], ['stdout', '€'], ['notice', 'note'], ['stderr', '\uFFFD']]);
  });
});
