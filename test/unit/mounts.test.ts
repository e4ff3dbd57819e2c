import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSandboxError } from '../../src/core/errors';
import { mountTestHooks, protectedReason, resolveMounts } from '../../src/core/mounts/mounts';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';

describe('mount validation (unit)', () => {
  let dir: string;
  // Another live process (its /proc/<pid>/fd holds no anchor of ours).
  const other = spawn('sleep', ['60'], { stdio: 'ignore' });
  after(() => other.kill('SIGKILL'));
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sr-mounts-'));
    await mkdir(join(dir, 'project'));
    await writeFile(join(dir, 'project', 'data.txt'), 'x');
    await symlink('/etc', join(dir, 'etc-link'));
    await symlink(join(dir, 'project'), join(dir, 'project-link'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const profileWith = (mounts: unknown[]) => ProfileSchema.parse({ image: 'i', command: ['${file}'], mounts });
  /** A local engine that sees the client's files (the engine probe is tested in engineMounts.test.ts and the engine suite). */
  const local = { probe: async () => ({ sees: 'yes' as const, local: true }) };

  it('protects home entries where they lead: a symlinked home (/home -> /var/home) or ~/.ssh linked elsewhere', async () => {
    const saved = process.env.HOME;
    const root = await mkdtemp(join(tmpdir(), 'sr-home-'));
    try {
      await mkdir(join(root, 'real', '.ssh'), { recursive: true });
      await mkdir(join(root, 'keys'));
      await symlink(join(root, 'real'), join(root, 'link'));
      process.env.HOME = join(root, 'link');
      assert.match(protectedReason(join(root, 'real', '.ssh'))!, /credentials/, 'the home behind a symlink');
      assert.match(protectedReason(join(root, 'real'))!, /home directory/);
      process.env.HOME = join(root, 'real');
      await rm(join(root, 'real', '.ssh'), { recursive: true });
      await symlink(join(root, 'keys'), join(root, 'real', '.ssh'));
      assert.match(protectedReason(join(root, 'keys'))!, /credentials/, '~/.ssh linked elsewhere');
    } finally {
      process.env.HOME = saved;
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refuses a mount target above a path the sandbox mounts itself (HOME, the workdir)', async () => {
    for (const [target, workdir] of [['/home', undefined], ['/work', '/work/app']] as const) {
      const profile = ProfileSchema.parse({ image: 'i', command: ['${file}'], ...(workdir ? { workdir } : {}), mounts: [{ source: join(dir, 'project'), target, mode: 'rw' }] });
      await assert.rejects(resolveMounts({ name: 'p', profile }), (e: unknown) => isSandboxError(e) && /contains \/(home\/sandbox|work\/app)/.test(e.message));
    }
  });

  it('refuses protected host paths: being, containing or sitting inside them', () => {
    assert.match(protectedReason('/')!, /root directory/);
    assert.match(protectedReason('/etc')!, /\/etc/);
    assert.match(protectedReason('/etc/passwd')!, /\/etc/);
    assert.match(protectedReason('/var')!, /contains \/var\/run/);
    assert.match(protectedReason('/var/run/docker.sock')!, /docker\.sock|\/var\/run/);
    assert.match(protectedReason(homedir())!, /home directory/);
    assert.match(protectedReason(join(homedir(), '.ssh', 'id_rsa'))!, /credentials/);
    assert.match(protectedReason('/srv/state/x', ['/srv/state'])!, /\/srv\/state/);
    assert.equal(protectedReason(join(dir, 'project')), undefined);
  });

  it('refuses credential files and folders in the home directory, not their look-alikes', () => {
    // A home outside /root (itself protected), as on a workstation; homedir() reads $HOME.
    const saved = process.env.HOME;
    process.env.HOME = '/home/tester';
    try {
      assert.equal(homedir(), '/home/tester');
      for (const p of ['.config', '.config/gh', '.config/gh/hosts.yml', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.docker/config.json', '.ssh']) {
        assert.match(protectedReason(join('/home/tester', p)) ?? 'allowed', /credentials in your home directory/, p);
      }
      for (const p of ['.netrc-notes', '.configs', 'project', 'project/.npmrc', 'src/.config']) {
        assert.equal(protectedReason(join('/home/tester', p)), undefined, p);
      }
    } finally {
      if (saved === undefined) delete process.env.HOME;
      else process.env.HOME = saved;
    }
  });

  it('resolves symlinks before checking, so a link to /etc is refused', async () => {
    await assert.rejects(
      resolveMounts({ name: 'p', profile: profileWith([{ source: join(dir, 'etc-link'), target: '/data' }]) }),
      (e: unknown) => isSandboxError(e) && e.code === 'invalid-mount' && /resolves to \/etc/.test(e.message) && /mounts\.0/.test(e.message),
    );
  });

  it('accepts a project directory through a symlink, read-only unless rw, pinned by an open descriptor', async () => {
    let pinned: string[] = [];
    const pins = await resolveMounts({ name: 'p', profile: profileWith([
      { source: join(dir, 'project-link'), target: '/data' },
      { source: join(dir, 'project'), target: '/rw', mode: 'rw' },
    ]) }, [], local);
    try {
      assert.deepEqual(pins.mounts.map((m) => ({ source: m.source, target: m.target, readOnly: m.readOnly })), [
        { source: join(dir, 'project'), target: '/data', readOnly: true },
        { source: join(dir, 'project'), target: '/rw', readOnly: false },
      ]);
      const project = await stat(join(dir, 'project'));
      for (const m of pins.mounts) {
        // Through this process's anchor directory to the descriptor: the checked directory's inode.
        assert.match(m.pinned!, new RegExp(`^/proc/${process.pid}/fd/\\d+/[0-9a-f]{32}$`));
        assert.equal((await stat(m.pinned!)).ino, project.ino);
        // The same path under another process's pid leads nowhere: an engine that sees another
        // process under this pid cannot mount something else.
        await assert.rejects(stat(m.pinned!.replace(`/proc/${process.pid}/`, `/proc/${other.pid}/`)), /ENOENT|ENOTDIR/);
      }
      pinned = pins.mounts.map((m) => m.pinned!);
    } finally {
      await pins.dispose();
    }
    // Disposed: the descriptors are closed and the anchor directory is gone.
    for (const p of pinned) await assert.rejects(stat(p), /ENOENT|EBADF/);
  });

  it('checks what it pinned: a swap after realpath and before open is seen through the descriptor', async () => {
    // The path is what the open descriptor shows, so the check and the mount see one inode.
    await mkdir(join(dir, 'swap'));
    mountTestHooks.afterCheck = async (checked) => {
      assert.deepEqual(checked, [join(dir, 'swap')]);
      await rename(join(dir, 'swap'), join(dir, 'swap.orig'));
      await symlink('/etc', join(dir, 'swap'));
    };
    try {
      const checked = await stat(join(dir, 'swap'));
      const pins = await resolveMounts({ name: 'p', profile: profileWith([{ source: join(dir, 'swap'), target: '/data' }]) }, [], local);
      // After the swap the pinned path still leads to the checked directory, not to /etc.
      const seen = await stat(pins.mounts[0]!.pinned!);
      assert.equal(seen.ino, checked.ino);
      assert.notEqual(seen.ino, (await stat('/etc')).ino);
      await pins.dispose();
    } finally {
      mountTestHooks.afterCheck = undefined;
    }
  });

  it('refuses a single file (it cannot be pinned as a mount) and says to mount its directory', async () => {
    await assert.rejects(
      resolveMounts({ name: 'p', profile: profileWith([{ source: join(dir, 'project', 'data.txt'), target: '/in/data.txt', mode: 'rw' }]) }),
      (e: unknown) => isSandboxError(e) && e.code === 'invalid-mount' && /single file/.test(e.message) && /mount its directory/.test(e.message),
    );
  });

  it('refuses missing sources and reserved targets', async () => {
    await assert.rejects(resolveMounts({ name: 'p', profile: profileWith([{ source: join(dir, 'nope'), target: '/data' }]) }), /does not exist/);
    await assert.rejects(resolveMounts({ name: 'p', profile: profileWith([{ source: join(dir, 'project'), target: '/sandbox' }]) }), /reserved/);
    await assert.rejects(resolveMounts({ name: 'p', profile: profileWith([{ source: join(dir, 'project'), target: '/tmp/x' }]) }), /reserved/);
  });
});
