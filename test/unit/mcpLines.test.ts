/**
 * The MCP server's bounded line reader (src/cli/mcpLines.ts, issue 34): a JSON-RPC line over the
 * bound is dropped as it streams (never held whole) and reported once; the lines around it pass.
 */
import assert from 'node:assert/strict';
import { BoundedLines, MCP_MESSAGE_MAX, oversizeError } from '../../src/cli/mcpLines';

describe('MCP bounded lines (unit)', () => {
  it('passes whole lines, drops one over the bound with bounded memory, and goes on', () => {
    const dropped: number[] = [];
    const out: string[] = [];
    const lines = new BoundedLines((n) => dropped.push(n), 100);
    lines.on('data', (c: Buffer) => out.push(c.toString('utf8')));
    let most = 0;
    const feed = (s: string) => {
      // One byte at a time: the worst case for holding (and a line cut anywhere).
      for (const ch of Buffer.from(s)) {
        lines.write(Buffer.from([ch]));
        most = Math.max(most, lines.holding);
      }
    };
    feed('{"a":1}\n');
    feed(`{"big":"${'x'.repeat(1000)}"}\n`);
    feed('{"b":2}\n{"c"');
    feed(':3}\n');
    lines.write(Buffer.from(`${'y'.repeat(100)}\n${'z'.repeat(101)}\n{"d":4}\n`));
    lines.end('{"e":5}');
    assert.deepEqual(out, ['{"a":1}\n', '{"b":2}\n', '{"c":3}\n', `${'y'.repeat(100)}\n`, '{"d":4}\n', '{"e":5}']);
    assert.deepEqual(dropped, [1010, 101]);
    assert.ok(most <= 100, `held ${most} bytes of a line`);
  });

  it('answers a refused line as JSON-RPC: Invalid Request with a null id', () => {
    const e = oversizeError(12 * 1024 * 1024);
    assert.equal(e.id, null);
    assert.equal(e.error.code, -32600);
    assert.match(e.error.message, /^A message of more than 12582912 bytes was refused: the server reads JSON-RPC messages of at most 8388608 bytes \(8 MiB\)\./);
    assert.equal(MCP_MESSAGE_MAX, 8 * 1024 * 1024);
  });
});
