import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SnippetOrigin } from '../../src/core/source/sourceRefs';
import { insideMount, lineLinks, RunLineIndex, stderrLines, terminalLinkSpans, type RunSource } from '../../src/vscode/linkTargets';
import { findErrorSite } from '../../src/core/source/errorSite';
import { ProgramOutput } from '../../src/vscode/programOutput';
import { profileOf } from '../support/profiles';

const origin: SnippetOrigin = {
  source: '/home/ada/x.py', line: 9, column: 0, dedent: 4, snippetPath: '/sandbox/main.py', mounts: [{ target: '/data', source: '/home/ada/data' }],
};
const source: RunSource = { origin, documentUri: 'file:///home/ada/x.py' };

describe('editor link targets (unit)', () => {
  it('links snippet paths to the run\'s document and mount paths to the host file, nothing else', () => {
    const links = lineLinks('[stderr]   File "/sandbox/main.py", line 3, in <module> File "/data/a.py", line 2 command:x /etc/passwd:1', source);
    assert.deepEqual(links.map((l) => l.target), [
      { kind: 'snippet', documentUri: 'file:///home/ada/x.py', line: 11 },
      { kind: 'mount', path: '/home/ada/data/a.py', mountSource: '/home/ada/data', line: 1 },
    ]);
  });

  it('gives a terminal line its link spans (the pseudoterminal\'s TerminalLinkProvider)', () => {
    const line = '    at f (/sandbox/main.py:3:5)';
    const [span, ...more] = terminalLinkSpans(line, source);
    assert.equal(more.length, 0);
    assert.equal(line.slice(span!.startIndex, span!.startIndex + span!.length), '/sandbox/main.py:3:5');
    assert.deepEqual(span!.target, { kind: 'snippet', documentUri: 'file:///home/ada/x.py', line: 11, column: 8 });
    assert.deepEqual(terminalLinkSpans('plain text', source), []);
  });

  it('opens a mounted file only when it stays inside the mount through symlinks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-links-'));
    try {
      await mkdir(join(dir, 'mount'));
      await writeFile(join(dir, 'mount', 'a.py'), 'x\n');
      await writeFile(join(dir, 'secret'), 's\n');
      await symlink(join(dir, 'secret'), join(dir, 'mount', 'escape.py'));
      assert.equal(await insideMount(join(dir, 'mount', 'a.py'), join(dir, 'mount')), true);
      assert.equal(await insideMount(join(dir, 'mount', 'escape.py'), join(dir, 'mount')), false);
      assert.equal(await insideMount(join(dir, 'mount', 'missing.py'), join(dir, 'mount')), false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds a run\'s lines only where its header is, from the start or counted back from the end', () => {
    const index = new RunLineIndex();
    const run = { headerLine: 5, headerText: '▶ selection of x.py (lines 10-14)', lines: () => [[4, 8]] as const, source };
    index.add(run);
    const text = ['', 'old', '', '', '', run.headerText, 'out', 'err', '■ exited', ''];
    const doc = (lines: string[]) => ({ lineCount: lines.length, lineAt: (i: number) => lines[i]! });
    assert.deepEqual(index.locate(doc(text), 9).map((r) => r.ranges), [[[6, 9]]]);
    // the user cleared the channel before this run: the document holds its lines only
    assert.deepEqual(index.locate(doc(text.slice(4)), 9).map((r) => r.ranges), [[[2, 5]]]);
    // a program line that imitates the header elsewhere does not move the run
    assert.deepEqual(index.locate(doc(['', 'x', run.headerText, 'y']), 9), []);
  });
});

describe('output channel run lines (unit)', () => {
  it('names the channel line of each run\'s header and the run\'s text, across runs and outside lines', () => {
    const appends: string[] = [];
    const out = new ProgramOutput({ append: (t: string) => appends.push(t), show: () => undefined } as never);
    const profile = profileOf();
    const result = { outcome: 'exited', exitCode: 1, signal: null, durationMs: 1, message: 'm', containerName: 'c', stdout: { bytesKept: 0, truncated: false }, stderr: { bytesKept: 0, truncated: false } } as const;
    out.line('a refused run');
    const first = out.begin('first.py', 'python', 'user', profile);
    first.sink('stderr', Buffer.from('  File "/sandbox/main.py", line 1\nE: x\n'));
    first.end(result);
    const second = out.begin('second\x1b]0;t\x07.py', 'python', 'user', profile);
    second.sink('stdout', Buffer.from('partial'));
    const lines = out.text().split('\n');
    assert.equal(lines[first.headerLine], first.headerText);
    assert.equal(first.headerText, '▶ first.py');
    assert.equal(lines[second.headerLine], second.headerText);
    assert.equal(second.headerText, '▶ second.py');
    assert.equal(out.lineCount, lines.length - 1);
    assert.ok(first.text().includes('[stderr]   File "/sandbox/main.py", line 1\n[stderr] E: x\n'));
    assert.ok(!second.text().includes('first.py') && second.text().includes('partial'));
  });

  it('gives two runs in flight at once only the lines each wrote (their output interleaves)', () => {
    const out = new ProgramOutput({ append: () => undefined, show: () => undefined } as never);
    const profile = profileOf();
    const a = out.begin('a.py', 'python', 'user', profile);
    const b = out.begin('b.py', 'python', 'user', profile);
    a.sink('stderr', Buffer.from('  File "/sandbox/main.py", line 1 (a)\n'));
    b.sink('stderr', Buffer.from('  File "/sandbox/main.py", line 2 (b)\n'));
    a.sink('stderr', Buffer.from('  File "/sandbox/main.py", line 3 (a)\n'));
    const text = out.text().split('\n');
    const index = new RunLineIndex();
    const other: RunSource = { ...source, documentUri: 'file:///home/ada/b.py' };
    index.add({ ...a, source });
    index.add({ ...b, source: other });
    const doc = { lineCount: text.length, lineAt: (i: number) => text[i]! };
    const owner = (marker: string) => index.locate(doc, out.lineCount).filter((r) => r.ranges.some(([f, t]) => text.slice(f, t).some((l) => l.includes(marker))))
      .map((r) => r.run.source.documentUri);
    assert.deepEqual(owner('(a)'), ['file:///home/ada/x.py']);
    assert.deepEqual(owner('(b)'), ['file:///home/ada/b.py']);
  });

  it('reads the error site from stderr lines only: stdout flushed between the frames is not the exception line', () => {
    const text = '▶ x\n[stderr] Traceback (most recent call last):\n[stderr]   File "/sandbox/main.py", line 3, in <module>\nSRCMAP-UNTITLED\n[stderr] ValueError: three\n■ exited\n';
    const site = findErrorSite(stderrLines(text), origin);
    assert.deepEqual([site?.ref.line, site?.message], [11, 'ValueError: three']);
  });
});
