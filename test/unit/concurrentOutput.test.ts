import assert from 'node:assert/strict';
import type { RunResult } from '../../src/core/run/result';
import { RunLineIndex } from '../../src/vscode/linkTargets';
import { ProgramOutput, shortLabel, STDERR_PREFIX } from '../../src/vscode/programOutput';
import { profileOf } from '../support/profiles';

const profile = profileOf();
const result: RunResult = {
  outcome: 'exited', exitCode: 0, signal: null, durationMs: 1, message: 'm', containerName: 'c',
  stdout: { bytesKept: 0, truncated: false }, stderr: { bytesKept: 0, truncated: false },
};
const b = (t: string) => Buffer.from(t, 'utf8');

function channel() {
  const appends: string[] = [];
  return { appends, channel: { append: (t: string) => appends.push(t), show: () => undefined, clear: () => appends.splice(0) } as never };
}

describe('concurrent runs in the output channel, issue 12 (unit)', () => {
  it('a run alone writes untagged lines', () => {
    const out = new ProgramOutput(channel().channel);
    const a = out.begin('a.py', 'python', 'user', profile);
    a.sink('stdout', b('one\n'));
    a.end(result);
    assert.ok(out.text().includes('▶ a.py\n'), out.text());
    assert.ok(out.text().includes('\none\n■ exited'), out.text());
    assert.ok(!/\[a\.py#\d+\]/.test(out.text()), out.text());
  });

  it('two runs at once: every line carries its run\'s label, and an open line is never continued by the other run', () => {
    const out = new ProgramOutput(channel().channel);
    const a = out.begin('dir/a.py', 'python', 'user', profile);
    const s = out.begin('selection of dir/b.py (lines 10-14)', 'python', 'user', profile);
    a.sink('stdout', b('par'));
    s.sink('stdout', b('xyz\n'));
    a.sink('stdout', b('tial\n'));
    s.sink('stderr', b('oops\n'));
    a.end(result);
    s.end(result);
    const lines = out.text().split('\n');
    assert.ok(lines.includes('[a.py#1] par'), JSON.stringify(lines));
    assert.ok(lines.includes('[b.py:10#2] xyz'), JSON.stringify(lines));
    assert.ok(lines.includes('[a.py#1] tial'), JSON.stringify(lines));
    assert.ok(lines.includes(`[b.py:10#2] ${STDERR_PREFIX}oops`), JSON.stringify(lines));
    assert.ok(!lines.some((l) => /parxyz|xyztial/.test(l)), JSON.stringify(lines));
    // The second run's header is tagged (a run was in progress), and found where it was written.
    assert.equal(s.headerText, '[b.py:10#2] ▶ selection of dir/b.py (lines 10-14)');
    assert.equal(lines[s.headerLine], s.headerText);
    assert.equal(lines[a.headerLine], a.headerText);
    // Each run's own text is its own, untagged (its error site is read from it).
    assert.equal(s.text().includes('xyz\n') && s.text().includes(`${STDERR_PREFIX}oops\n`), true, s.text());
    assert.ok(!s.text().includes('tial') && !s.text().includes('[b.py'), s.text());
    // Source links still find each run's lines.
    const index = new RunLineIndex();
    const src = (u: string) => ({ documentUri: u, origin: { kind: 'file' } as never });
    index.add({ ...a, source: src('file:///a.py') });
    index.add({ ...s, source: src('file:///b.py') });
    const located = index.locate({ lineCount: lines.length, lineAt: (i) => lines[i]! }, out.lineCount);
    const owner = (marker: string) => located.filter((r) => r.ranges.some(([f, t]) => lines.slice(f, t).some((l) => l.includes(marker)))).map((r) => r.run.source.documentUri);
    assert.deepEqual(owner('tial'), ['file:///a.py']);
    assert.deepEqual(owner('oops'), ['file:///b.py']);
  });

  it('short labels: the file name, or the file name and first line of a selection', () => {
    assert.equal(shortLabel('src/pkg/main.py'), 'main.py');
    assert.equal(shortLabel('selection of src/x.sh (lines 3-9)'), 'x.sh:3');
    assert.equal(shortLabel('/Untitled-1'), 'Untitled-1');
    assert.equal(shortLabel('a-very-long-file-name-that-goes-on.py').length, 24);
  });

  it('clear() empties the channel and the API copy; a later run is found again by its links, also while the document lags', () => {
    const { channel: ch, appends } = channel();
    const out = new ProgramOutput(ch);
    const a = out.begin('a.py', 'python', 'user', profile);
    a.end(result);
    out.clear();
    assert.equal(out.text(), '');
    const c = out.begin('c.py', 'python', 'user', profile);
    c.sink('stdout', b('after\n'));
    c.end(result);
    assert.ok(appends.join('').includes('▶ c.py\n') && !appends.join('').includes('a.py'), appends.join(''));
    const lines = out.text().split('\n');
    const index = new RunLineIndex();
    index.add({ ...c, source: { documentUri: 'file:///c.py', origin: { kind: 'file' } as never } });
    const located = index.locate({ lineCount: lines.length, lineAt: (i) => lines[i]! }, out.lineCount, out.clearedAt);
    assert.equal(located.length, 1, JSON.stringify(lines));
    // The channel's document lags behind the last append (the footer not shown yet): the run is
    // found from the clear, where counting back from the end cannot find it.
    const lagging = [...lines.slice(0, -2), ''];
    const lagDoc = { lineCount: lagging.length, lineAt: (i: number) => lagging[i]! };
    assert.equal(index.locate(lagDoc, out.lineCount).length, 0);
    assert.equal(index.locate(lagDoc, out.lineCount, out.clearedAt).length, 1);
  });
});
