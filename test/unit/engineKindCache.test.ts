import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliKind, forgetCliKinds } from '../../src/core/engine/engineKind';
import { binaryIdentity, cachedKind, ENGINE_KIND_FILE, rememberKind } from '../../src/core/engine/engineKindCache';

/** A fake engine CLI in `dir`: prints `versionLine` for `--version` and appends a line to `dir/spawns` per call. */
function fakeCli(dir: string, name: string, versionLine: string, extra = ''): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\necho x >> '${join(dir, 'spawns')}'\necho '${versionLine}'\n${extra}`);
  chmodSync(file, 0o755);
  return file;
}
const spawns = (dir: string): number => (existsSync(join(dir, 'spawns')) ? readFileSync(join(dir, 'spawns'), 'utf8').split('\n').filter(Boolean).length : 0);

describe('engine kind cache across processes (unit)', function () {
  if (process.platform === 'win32') return;
  const dirs: string[] = [];
  const made = () => {
    const d = mkdtempSync(join(tmpdir(), 'sr-kind-'));
    dirs.push(d);
    return d;
  };
  const savedState = process.env.XDG_STATE_HOME;
  after(() => {
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
    if (savedState === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = savedState;
    forgetCliKinds();
  });

  it('identifies the binary a spawn would run: found on the given PATH, through symlinks, by real path, size and mtime', () => {
    const [bin, other] = [made(), made()];
    const real = fakeCli(bin, 'docker-real', 'Docker version 28.0.0, build x');
    symlinkSync(real, join(other, 'docker'));
    const id = binaryIdentity('docker', `/nonexistent-dir:${other}`);
    assert.ok(id?.startsWith(`${real}|`), `identity ${id} should name the symlink's target`);
    assert.equal(binaryIdentity(join(other, 'docker'), ''), id, 'an absolute dockerPath resolves to the same binary');
    writeFileSync(real, readFileSync(real, 'utf8') + '# upgraded\n');
    assert.notEqual(binaryIdentity('docker', other), id, 'a changed binary has a new identity');
    assert.equal(binaryIdentity('docker', '/nonexistent-dir'), undefined, 'not on PATH');
    assert.equal(binaryIdentity('./docker', other), undefined, 'relative to the spawn cwd: not cached');
    assert.equal(binaryIdentity(bin, ''), undefined, 'a directory is no binary');
  });

  it('remembers kinds per identity; a malformed file, a foreign value or a missing file is no entry', () => {
    const dir = made();
    assert.equal(cachedKind('/usr/bin/docker|1|2', dir), undefined);
    rememberKind('/usr/bin/docker|1|2', 'docker', dir);
    rememberKind('/usr/bin/podman|3|4', 'podman', dir);
    assert.equal(cachedKind('/usr/bin/docker|1|2', dir), 'docker');
    assert.equal(cachedKind('/usr/bin/podman|3|4', dir), 'podman');
    writeFileSync(join(dir, ENGINE_KIND_FILE), JSON.stringify({ a: 'docker', b: 'rm -rf /', c: 7 }));
    assert.equal(cachedKind('a', dir), 'docker');
    assert.equal(cachedKind('b', dir), undefined);
    assert.equal(cachedKind('c', dir), undefined);
    writeFileSync(join(dir, ENGINE_KIND_FILE), '{not json');
    assert.equal(cachedKind('a', dir), undefined);
    rememberKind('a', 'other', dir);
    assert.equal(cachedKind('a', dir), 'other', 'a malformed file is replaced');
    for (let i = 0; i < 40; i++) rememberKind(`bin${i}|1|1`, 'docker', dir);
    const kept = Object.keys(JSON.parse(readFileSync(join(dir, ENGINE_KIND_FILE), 'utf8')) as object);
    assert.equal(kept.length, 16, 'bounded');
    assert.equal(cachedKind('bin39|1|1', dir), 'docker', 'the newest entry is kept');
  });

  it('a new process spawns no `--version` for an unchanged CLI, and asks again once the CLI changed', async () => {
    const [bin, state] = [made(), made()];
    process.env.XDG_STATE_HOME = state;
    const cli = fakeCli(bin, 'podman', 'podman version 4.3.1');
    forgetCliKinds();
    assert.equal(await cliKind({ dockerPath: cli }), 'podman');
    assert.equal(spawns(bin), 1);
    assert.ok(existsSync(join(state, 'sandbox-runner', ENGINE_KIND_FILE)), 'written to the state directory');
    forgetCliKinds(); // as a new process
    assert.equal(await cliKind({ dockerPath: cli }), 'podman');
    assert.equal(spawns(bin), 1, 'answered from the file');
    fakeCli(bin, 'podman', 'Docker version 28.0.0, build abc', '# now a different CLI\n');
    forgetCliKinds();
    assert.equal(await cliKind({ dockerPath: cli }), 'docker', 'a replaced binary is asked again');
    assert.equal(spawns(bin), 2);
  });

  it('an unreadable state directory only costs the spawn', async () => {
    const [bin, state] = [made(), made()];
    writeFileSync(join(state, 'sandbox-runner'), 'a file where the folder should be');
    process.env.XDG_STATE_HOME = state;
    const cli = fakeCli(bin, 'docker', 'Docker version 28.0.0, build x');
    forgetCliKinds();
    assert.equal(await cliKind({ dockerPath: cli }), 'docker');
    forgetCliKinds();
    assert.equal(await cliKind({ dockerPath: cli }), 'docker');
    assert.equal(spawns(bin), 2);
  });
});
