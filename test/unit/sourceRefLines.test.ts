import assert from 'node:assert/strict';
import { snippetOrigin } from '../../src/core/source/snippetOrigin';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { HOLD_MS, SourceRefLines } from '../../src/cli/sourceRefLines';

const profile = ProfileSchema.parse({ image: 'python:3.12-slim', command: ['python3', '${file}'], extensions: ['.py'] });
const origin = snippetOrigin(profile, { source: '/home/ada/x.py', sourceFileName: '/home/ada/x.py' });

describe('CLI source reference lines (unit)', () => {
  it('rewrites a reference split across chunks once its line is complete', () => {
    const out: string[] = [];
    const lines = new SourceRefLines(origin, (t) => out.push(t));
    lines.push('Traceback (most recent call last):\n  File "/sand');
    lines.push('box/main.py", line 3, in <module>\n');
    lines.end();
    assert.equal(out.join(''), 'Traceback (most recent call last):\n  File "/home/ada/x.py", line 3, in <module>\n');
    // the unfinished line was held from where the path could start, not from the line start
    assert.equal(out[0], 'Traceback (most recent call last):\n  File "');
  });

  it('writes a prompt at once, and releases a held tail unchanged after HOLD_MS', async () => {
    const out: string[] = [];
    const lines = new SourceRefLines(origin, (t) => out.push(t));
    lines.push('Name? ');
    assert.deepEqual(out, ['Name? ']);
    lines.push('/sandbox/main.py');
    assert.deepEqual(out, ['Name? ']);
    await new Promise((r) => setTimeout(r, HOLD_MS + 50));
    assert.deepEqual(out, ['Name? ', '/sandbox/main.py']);
    lines.end();
  });

  it('releases a held line within HOLD_MS even while the program keeps writing to it', async () => {
    const out: string[] = [];
    const lines = new SourceRefLines(origin, (t) => out.push(t));
    lines.push('/sandbox/main.py');
    // more of the same unfinished line every HOLD_MS / 2, for 4 x HOLD_MS
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, HOLD_MS / 2));
      lines.push(`/sandbox/main.py:${i} `);
    }
    assert.ok(out.join('').startsWith('/sandbox/main.py'), `shown so far: ${JSON.stringify(out)}`);
    lines.end();
  });

  it('names the snippet path as the profile names it (main + the source extension)', () => {
    assert.equal(origin.snippetPath, '/sandbox/main.py');
    assert.equal(snippetOrigin(profile, { source: 'Untitled-1', untitled: true }).snippetPath, '/sandbox/main.py');
  });

  it('a workspace run (issue 12): the file run from the mount is the snippet, the folder and resolved ${…} sources are mounts', () => {
    const ws = ProfileSchema.parse({ ...profile, workspace: 'ro', mounts: [{ source: '${fileDirname}/data', target: '/data' }] });
    const paths = { workspaceFolder: '/home/ada/proj', fileDirname: '/home/ada/proj/pkg', file: '/home/ada/proj/pkg/main.py' };
    const o = snippetOrigin(ws, { source: paths.file, sourceFileName: paths.file }, paths);
    assert.equal(o.snippetPath, '/workspace/proj/pkg/main.py');
    assert.deepEqual(o.mounts, [{ target: '/data', source: '/home/ada/proj/pkg/data' }, { target: '/workspace/proj', source: '/home/ada/proj' }]);
    // a selection (no `file`) keeps the snippet path; no paths: a ${…} source is no mount at all
    assert.equal(snippetOrigin(ws, { source: paths.file }, { ...paths, file: undefined }).snippetPath, '/sandbox/main.py');
    assert.deepEqual(snippetOrigin(ws, { source: paths.file }).mounts, []);
  });
});
