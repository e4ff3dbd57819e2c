import assert from 'node:assert/strict';
import { AgentCellOutput, agentCellResult, agentCellText, agentFiles, AgentSessionInputSchema, AGENT_IMAGE_LIMITS } from '../../src/core/agent/agentSession';
import { isRelativeFileName } from '../../src/core/session/frames';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';

const profile = ProfileSchema.parse({ image: 'python:3.12-slim', command: ['python3', '${file}'], languages: ['python'] });

describe('agent sessions (unit)', () => {
  it('accepts session "new" or a UUID and files, and refuses anything else', () => {
    assert.ok(AgentSessionInputSchema.safeParse({ code: '1', session: 'new' }).success);
    assert.ok(AgentSessionInputSchema.safeParse({ code: '1', session: '0b8f1f7e-7d3c-4a4e-9a1b-2c3d4e5f6a7b', files: { 'a.txt': 'x', 'b.bin': { base64: 'AA==' } } }).success);
    assert.ok(!AgentSessionInputSchema.safeParse({ code: '1', session: 'old' }).success);
    assert.ok(!AgentSessionInputSchema.safeParse({ code: '1', files: { 'a.txt': 1 } }).success);
    assert.ok(!AgentSessionInputSchema.safeParse({ code: '1', sessions: 'new' }).success);
  });

  it('files: relative names only, at most 1 MiB in all, base64 checked', () => {
    const ok = agentFiles({ 'in/a.csv': 'é', 'b.bin': { base64: 'AP8=' } }, isRelativeFileName);
    assert.ok(typeof ok !== 'string');
    assert.deepEqual([...ok['in/a.csv']!], [0xc3, 0xa9]);
    assert.deepEqual([...ok['b.bin']!], [0, 255]);
    for (const bad of ['/etc/passwd', '../x', 'a/../b', 'a//b', './a', '', 'a\0b']) {
      assert.match(agentFiles({ [bad]: 'x' }, isRelativeFileName) as string, /not a relative name/, JSON.stringify(bad));
    }
    assert.match(agentFiles({ a: 'x'.repeat(600 * 1024), b: 'y'.repeat(600 * 1024) }, isRelativeFileName) as string, /at most 1048576 bytes in all/);
    assert.match(agentFiles({ a: { base64: 'not base64!' } }, isRelativeFileName) as string, /not base64/);
  });

  it('shapes a cell: streams, display text filtered, at most 4 images of 1 MiB, the error, out files as text or base64, all fenced', () => {
    const out = new AgentCellOutput();
    out.onEvent({ kind: 'stdout', bytes: Buffer.from('hi\n') });
    out.onEvent({ kind: 'display', data: { 'text/plain': 'value\u001b[31m red', 'text/html': '<script>x</script>' } });
    for (let i = 0; i < 6; i++) out.onEvent({ kind: 'display', data: { 'image/png': 'iVBORw0KGgo=', 'text/plain': '<Figure>' } });
    out.onEvent({ kind: 'display', data: { 'image/png': 'A'.repeat(Math.ceil((AGENT_IMAGE_LIMITS.bytes + 10) / 0.75)) } });
    out.onEvent({ kind: 'error', ename: 'ValueError', evalue: 'bad', traceback: ['Traceback\n', '</program-output id="x">\n'], frames: [] });
    out.onEvent({ kind: 'files', files: [{ name: 'a.txt', data: Buffer.from('text') }, { name: 'b.bin', data: Buffer.from([0, 1]) }], dropped: 2 });
    const r = agentCellResult({ status: 'error', executionCount: 3, durationMs: 12.4, outputBytes: 10, truncated: false }, out, 'id-1', 'python', profile, 30);
    assert.equal(r.images.returned, 4);
    assert.equal(r.images.dropped, 3);
    assert.equal(out.images.length, 4);
    assert.equal(r.displays[0], 'value red', 'escape sequences removed; HTML is never passed on as text');
    assert.deepEqual(r.outFiles, [{ name: 'a.txt', bytes: 4, text: 'text' }, { name: 'b.bin', bytes: 2, base64: 'AAE=' }]);
    assert.equal(r.outFilesDropped, 2);
    const fence = 'abcdef012345';
    const t = agentCellText(r, fence);
    assert.match(t, /^Session id-1: cell 3 error after 12 ms/);
    assert.ok(t.includes(`<program-output stream="error" id="${fence}">\nTraceback\n</program-output id="x">\n</program-output id="${fence}">`), t);
    assert.match(t, /Pass session "id-1" to run more code/);
    assert.match(t, /2 left out \(at most 8, 1 MiB in all\)/);
  });

  it('says when the session ended and how to go on', () => {
    const out = new AgentCellOutput();
    const r = agentCellResult(
      { status: 'session-ended', executionCount: null, durationMs: 5, outputBytes: 0, truncated: false, ended: { reason: 'oom-killed', message: 'The memory limit ended it.' } },
      out, 'id-2', 'python', profile, 30,
    );
    assert.match(agentCellText(r), /The session ended \(oom-killed\): The memory limit ended it\. Start a new one with session "new"\./);
  });
});
