import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { noLeftoversAfterEach, pythonProfile, requireEngine, run, shellProfile } from './helpers';

/** bytes(range(256)) * 4: every byte value, most of them invalid as UTF-8. */
const ALL_BYTES_X4 = Buffer.concat(Array.from({ length: 4 }, () => Buffer.from(Array.from({ length: 256 }, (_, i) => i))));

describe('program bytes and line endings (engine)', function () {
  this.timeout(60_000);
  before(requireEngine);
  noLeftoversAfterEach();

  describe('the output sink gets the program\'s bytes', () => {
    it('bytes(range(256)) * 4 arrive as 1024 bytes, byte for byte', async () => {
      const r = await run(pythonProfile(), 'import sys\nfor _ in range(4):\n    sys.stdout.buffer.write(bytes(range(256)))\n');
      assert.equal(r.result.outcome, 'exited', r.result.message + r.stderr);
      assert.equal(r.result.stdout.bytesKept, 1024);
      assert.equal(r.bytes.stdout.length, 1024);
      assert.ok(r.bytes.stdout.equals(ALL_BYTES_X4), 'the bytes differ from bytes(range(256))*4');
    });

    it('gzip data decompresses to what the program compressed (stdout and stderr)', async () => {
      const r = await run(shellProfile(), 'seq 1 20000 | gzip -c; seq 1 300 | gzip -c >&2\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      const lines = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join('');
      assert.equal(gunzipSync(r.bytes.stdout).toString('latin1'), lines(20000));
      assert.equal(gunzipSync(r.bytes.stderr).toString('latin1'), lines(300));
    });

    it('the output bound cuts at exactly N bytes, inside a UTF-8 character', async () => {
      const r = await run(pythonProfile({ limits: { outputBytes: 1024 } }), 'import sys\nsys.stdout.buffer.write(b"a" + "\\u00e9".encode() * 2000)\n');
      assert.equal(r.result.outcome, 'output-limit', r.result.message);
      assert.equal(r.result.stdout.bytesKept, 1024);
      assert.ok(r.bytes.stdout.equals(Buffer.from('a' + '\u00e9'.repeat(2000)).subarray(0, 1024)), 'not the first 1024 bytes');
      assert.ok(r.stdout.endsWith('\u00e9\uFFFD'), 'decoded for display, the cut character is one U+FFFD');
    });
  });

  describe('CRLF line endings', () => {
    const SH = 'cd /tmp\r\npwd\r\necho ok\r\n';

    it('a shell script saved with CRLF runs as it reads (cd /tmp works, no \\r in the output)', async () => {
      const r = await run(shellProfile(), SH);
      assert.equal(r.result.exitCode, 0, r.stderr);
      assert.equal(r.stdout, '/tmp\nok\n');
      assert.equal(r.stderr, '');
    });

    it('with lineEndings "keep" the shell sees the \\r', async () => {
      const r = await run(shellProfile({ lineEndings: 'keep' }), SH);
      assert.match(r.stderr, /can't cd to \/tmp\r/);
      assert.ok(r.stdout.includes('ok\r\n'), JSON.stringify(r.stdout));
    });

    const PY = 'import sys\r\nsrc = open(sys.argv[0], "rb").read()\r\nprint(src.count(b"\\r"), src.count(b"\\n"))\r\n';

    it('a Python script saved with CRLF runs with LF line endings', async () => {
      const r = await run(pythonProfile(), PY);
      assert.equal(r.result.exitCode, 0, r.stderr);
      assert.equal(r.stdout, '0 3\n');
    });

    it('with lineEndings "keep" the Python script runs byte for byte', async () => {
      const r = await run(pythonProfile({ lineEndings: 'keep' }), PY);
      assert.equal(r.result.exitCode, 0, r.stderr);
      assert.equal(r.stdout, '3 3\n');
    });
  });
});
