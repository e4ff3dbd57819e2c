import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWorkspaceSettings } from '../../src/cli/workspaceSettings';

describe('workspace settings file (unit)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sr-ws-'));
    await mkdir(join(dir, '.vscode'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const write = (text: string) => writeFile(join(dir, '.vscode', 'settings.json'), text);

  it('reads JSONC with comments and trailing commas, dotted spelling', async () => {
    await write('{\n // a comment\n "sandboxRunner.profiles": { "py": { "image": "i", }, },\n}');
    const s = await readWorkspaceSettings(dir);
    assert.deepEqual(s.profiles, { py: { image: 'i' } });
  });

  it('reads the nested spelling alike, and merges both spellings', async () => {
    await write('{ "sandboxRunner": { "profiles": { "a": { "image": "n" }, "b": { "image": "n" } } }, "sandboxRunner.profiles": { "a": { "image": "d" } } }');
    const s = await readWorkspaceSettings(dir);
    assert.deepEqual(s.profiles, { a: { image: 'd' }, b: { image: 'n' } });
  });

  it('reports a missing file as not found and a broken one with its line', async () => {
    await rm(join(dir, '.vscode', 'settings.json'), { force: true });
    assert.equal((await readWorkspaceSettings(dir)).found, false);
    await write('{\n "a": 1,\n "b" 2\n}');
    await assert.rejects(readWorkspaceSettings(dir), /settings\.json:3: /);
  });

  it('refuses a settings path that is not a regular file, or is too large', async () => {
    await rm(join(dir, '.vscode', 'settings.json'), { force: true });
    await symlink('/dev/zero', join(dir, '.vscode', 'settings.json'));
    await assert.rejects(readWorkspaceSettings(dir), /is not a regular file/);
    await rm(join(dir, '.vscode', 'settings.json'));
    await write(' '.repeat(1024 * 1024 + 1));
    await assert.rejects(readWorkspaceSettings(dir), /larger than 1048576 bytes/);
  });
});
