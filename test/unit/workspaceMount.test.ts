import assert from 'node:assert/strict';
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRunArgv } from '../../src/core/container/argv';
import { containerFolderName, mirroredPath, planWorkspaceRun, workspaceTarget } from '../../src/core/mounts/workspaceMount';
import { type Profile, ProfileSchema } from '../../src/core/profiles/profileSchema';
import { resolvePathVariables, substitutePathVariable, usesPathVariables } from '../../src/core/profiles/pathVariables';
import { resolveProfiles } from '../../src/core/profiles/profileResolution';
import { routeLoosening } from '../../src/core/admission/loosening';
import { containerProblems } from '../../src/core/admission/precheck';
import { findMasked, maskMatcher } from '../../src/core/mounts/workspaceMask';

const py = (over: Record<string, unknown> = {}): Profile =>
  ProfileSchema.parse({ image: 'python:3.12-slim', command: ['python3', '${file}'], env: { PYTHONUNBUFFERED: '1' }, modulePathEnv: 'PYTHONPATH', ...over });

describe('mount source variables (unit)', () => {
  it('substitutes ${workspaceFolder} and ${fileDirname} with the host flavour, POSIX and Windows', () => {
    assert.equal(substitutePathVariable('${workspaceFolder}', { workspaceFolder: '/home/me/proj' }, 'linux'), '/home/me/proj');
    assert.equal(substitutePathVariable('${workspaceFolder}/data', { workspaceFolder: '/home/me/proj/' }, 'linux'), '/home/me/proj/data');
    assert.equal(substitutePathVariable('${fileDirname}/a/b', { fileDirname: '/p/src' }, 'linux'), '/p/src/a/b');
    assert.equal(substitutePathVariable('${workspaceFolder}/data', { workspaceFolder: 'C:\\Users\\me\\proj' }, 'win32'), 'C:\\Users\\me\\proj\\data');
    assert.equal(substitutePathVariable('${workspaceFolder}\\data', { workspaceFolder: '\\\\server\\share\\proj' }, 'win32'), '\\\\server\\share\\proj\\data');
    assert.equal(substitutePathVariable('${fileDirname}', { fileDirname: 'C:\\' }, 'win32'), 'C:\\');
    assert.equal(substitutePathVariable('/abs/path', {}, 'linux'), '/abs/path');
    assert.equal(substitutePathVariable('${workspaceFolder}', {}, 'linux'), undefined);
    // Not a variable use: refused by the host path check later, never substituted.
    assert.equal(substitutePathVariable('${workspaceFolderX}', { workspaceFolder: '/p' }, 'linux'), '${workspaceFolderX}');
  });

  it('the schema accepts a leading variable, and refuses ".." after it and variables elsewhere', () => {
    for (const source of ['${workspaceFolder}', '${workspaceFolder}/data', '${fileDirname}\\x']) {
      assert.ok(ProfileSchema.safeParse({ image: 'x', command: ['${file}'], mounts: [{ source, target: '/d' }] }).success, source);
    }
    for (const source of ['${workspaceFolder}/../etc', '${workspaceFolder}\\..\\x', 'data/${workspaceFolder}', '${HOME}/x', '${workspaceFolder},x']) {
      assert.ok(!ProfileSchema.safeParse({ image: 'x', command: ['${file}'], mounts: [{ source, target: '/d' }] }).success, source);
    }
  });

  it('resolves a profile\'s mounts per run, and refuses a run without the path in one sentence naming the key', () => {
    const p = py({ mounts: [{ source: '/fixed', target: '/f' }, { source: '${fileDirname}/lib', target: '/lib2' }] });
    assert.ok(usesPathVariables(p));
    assert.deepEqual(resolvePathVariables('py', p, { fileDirname: '/w/src' }, 'linux').mounts.map((m) => m.source), ['/fixed', '/w/src/lib']);
    assert.throws(
      () => resolvePathVariables('py', p, { workspaceFolder: '/w' }, 'linux'),
      (e: Error) => /^The bind mount sandboxRunner\.profiles\.py\.mounts\.1 names \$\{fileDirname\}, but this run has no file folder .*, so nothing ran\.$/.test(e.message),
    );
    assert.equal(resolvePathVariables('py', py(), {}, 'linux').mounts.length, 0);
  });
});

describe('workspace mount plan (unit)', () => {
  it('names the target after the folder, reduced to safe characters', () => {
    assert.equal(workspaceTarget('/home/me/my proj,v2:x', 'linux'), '/workspace/my_proj_v2_x');
    assert.equal(workspaceTarget('C:\\Users\\me\\Projekt Grüße', 'win32'), '/workspace/Projekt_Gr__e');
    assert.equal(containerFolderName('/', 'linux'), 'folder');
    assert.equal(containerFolderName('C:\\', 'win32'), 'folder');
  });

  it('mirrors paths inside the folder only (case-insensitively on Windows)', () => {
    assert.equal(mirroredPath('/w/p/src/a.py', '/w/p', '/workspace/p', 'linux'), '/workspace/p/src/a.py');
    assert.equal(mirroredPath('/w/p', '/w/p', '/workspace/p', 'linux'), '/workspace/p');
    assert.equal(mirroredPath('/w/other/a.py', '/w/p', '/workspace/p', 'linux'), undefined);
    assert.equal(mirroredPath('/w/p2/a.py', '/w/p', '/workspace/p', 'linux'), undefined);
    assert.equal(mirroredPath('c:\\users\\ME\\proj\\src\\a.py', 'C:\\Users\\me\\proj', '/workspace/proj', 'win32'), '/workspace/proj/src/a.py');
    assert.equal(mirroredPath('D:\\proj\\a.py', 'C:\\proj', '/workspace/proj', 'win32'), undefined);
    assert.equal(mirroredPath('/w/p/bad\nname/a.py', '/w/p', '/workspace/p', 'linux'), undefined);
  });

  it('a file run gets its mirrored path and folder; a selection the folder and the module path', () => {
    const file = planWorkspaceRun({ name: 'py', profile: py() }, { workspaceFolder: '/w/proj', fileDirname: '/w/proj/pkg', file: '/w/proj/pkg/main.py' }, 'linux');
    assert.deepEqual(file, { target: '/workspace/proj', programFile: '/workspace/proj/pkg/main.py', workdir: '/workspace/proj/pkg', env: {} });
    const sel = planWorkspaceRun({ name: 'py', profile: py({ env: { PYTHONPATH: '/opt/lib' } }) }, { workspaceFolder: '/w/proj', fileDirname: '/w/proj/pkg' }, 'linux');
    assert.deepEqual(sel, { target: '/workspace/proj', workdir: '/workspace/proj/pkg', env: { PYTHONPATH: '/workspace/proj/pkg:/opt/lib' } });
    const noKey = planWorkspaceRun({ name: 'py', profile: py({ modulePathEnv: undefined }) }, { workspaceFolder: '/w/proj', fileDirname: '/w/proj/pkg' }, 'linux');
    assert.deepEqual(noKey.env, {});
    const outside = planWorkspaceRun({ name: 'py', profile: py() }, { workspaceFolder: '/w/proj', fileDirname: '/elsewhere', file: '/elsewhere/a.py' }, 'linux');
    assert.deepEqual(outside, { target: '/workspace/proj', env: {} });
  });

  it('refuses a target that collides with the profile\'s workdir or mounts', () => {
    assert.throws(() => planWorkspaceRun({ name: 'py', profile: py({ workdir: '/workspace/proj' }) }, { workspaceFolder: '/w/proj' }, 'linux'), /sandboxRunner\.profiles\.py\.workspace.*workdir/);
    assert.throws(() => planWorkspaceRun({ name: 'py', profile: py({ mounts: [{ source: '/d', target: '/workspace' }] }) }, { workspaceFolder: '/w/proj' }, 'linux'), /mount at \/workspace overlaps/);
    assert.throws(() => planWorkspaceRun({ name: 'py', profile: py({ mounts: [{ source: '/d', target: '/workspace/proj/x' }] }) }, { workspaceFolder: '/w/proj' }, 'linux'), /overlaps/);
    assert.doesNotThrow(() => planWorkspaceRun({ name: 'py', profile: py({ mounts: [{ source: '/d', target: '/data' }] }) }, { workspaceFolder: '/w/proj' }, 'linux'));
  });
});

describe('workspace masks (unit)', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sr-mask-'));
    for (const f of ['.env', 'a/.env.prod', 'a/b/c/key.pem', 'a/id_rsa', 'ok.txt', 'a/ok.py', '.git/HEAD', 'a/b/.git/HEAD', '.ssh/config', 'config/x.key', 'other/x.key', 'a/real.env']) {
      await mkdir(join(root, f, '..'), { recursive: true });
      await writeFile(join(root, f), 'x');
    }
    await symlink('real.env', join(root, 'a/.env.link'));
    await symlink('/etc/passwd', join(root, '.env.outside'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('matches names and relative paths with dot files included', () => {
    const m = maskMatcher(['.env*', '*.pem', 'config/*.key']);
    assert.ok(m('.git') && m('a/.git') && m('.env') && m('a/b/.env.local') && m('a/k.pem') && m('config/x.key'));
    assert.ok(!m('env') && !m('a/ok.py') && !m('other/x.key') && !m('.gitignore'));
  });

  it('finds every match at any depth, does not enter masked folders, masks a link where it leads inside the folder', async () => {
    const found = await findMasked(root, ['.env*', '*.pem', 'id_*', '.ssh', '.aws', 'config/*.key']);
    const byPath = Object.fromEntries(found.map((f) => [f.path, f.kind]));
    assert.deepEqual(byPath, {
      '.env': 'file', '.git': 'dir', '.ssh': 'dir', 'a/.env.prod': 'file', 'a/id_rsa': 'file', 'a/b/.git': 'dir',
      'a/real.env': 'file', 'config/x.key': 'file', 'a/b/c/key.pem': 'file',
    });
  });

  it('refuses a folder past the walk bound rather than run it partly unmasked', async () => {
    await assert.rejects(findMasked(root, [], 5), /more than 5 files and folders.*nothing ran/);
  });
});

describe('workspace masks as a user means them: any case, hard links (unit)', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sr-mask-case-'));
    for (const f of ['.ENV', 'a/.Env.Local', 'a/ID_RSA', 'a/server.PEM', '.GIT/HEAD', '.SSH/config', 'ok.txt', 'a/secret-source']) {
      await mkdir(join(root, f, '..'), { recursive: true });
      await writeFile(join(root, f), 'x');
    }
    await link(join(root, '.ENV'), join(root, 'notes.txt'));
    await link(join(root, 'a/secret-source'), join(root, 'a/copy.txt'));
    await symlink('notes.txt', join(root, 'to-notes'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('matches masks whatever the case, on every platform', () => {
    const m = maskMatcher(['.env*', '*.pem', 'id_*', '.ssh', 'config/*.key']);
    assert.ok(m('.ENV') && m('a/.Env.Local') && m('ID_RSA') && m('server.PEM') && m('.GIT') && m('.Ssh') && m('CONFIG/X.KEY'));
    assert.ok(!m('env') && !m('ok.txt'));
  });

  it('masks mixed-case secrets and every hard-linked file (to a masked file or not); a symlink leads to a masked path', async () => {
    const found = await findMasked(root, ['.env*', '*.pem', 'id_*', '.ssh']);
    const byPath = Object.fromEntries(found.map((f) => [f.path, f.kind]));
    assert.deepEqual(byPath, {
      '.ENV': 'file', '.GIT': 'dir', '.SSH': 'dir', 'notes.txt': 'file',
      'a/.Env.Local': 'file', 'a/ID_RSA': 'file', 'a/server.PEM': 'file', 'a/copy.txt': 'file', 'a/secret-source': 'file',
    });
  });
});

describe('workspace mounts in the argv and the pre-code checks (unit)', () => {
  const mounts = [
    { source: '/w/proj', target: '/workspace/proj', readOnly: true, pinned: `/proc/1/fd/3/${'a'.repeat(32)}` },
    { source: '/dev/null', target: '/workspace/proj/.git', readOnly: true, mask: 'dir' as const },
    { source: '/dev/null', target: '/workspace/proj/.env', readOnly: true, mask: 'file' as const },
  ];
  const spec = { name: 'sandbox-runner-x', profile: py(), snippetFileName: 'main.py', mounts, labels: {}, workdir: '/workspace/proj/pkg', programFile: '/workspace/proj/pkg/main.py' };

  it('masks a folder with an empty read-only tmpfs and a file with /dev/null, and runs the mirrored file in its folder', () => {
    const argv = buildRunArgv(spec);
    assert.ok(argv.includes('type=tmpfs,dst=/workspace/proj/.git,readonly,tmpfs-size=4096'));
    assert.ok(argv.includes('type=bind,src=/dev/null,dst=/workspace/proj/.env,readonly'));
    assert.equal(argv[argv.indexOf('--workdir') + 1], '/workspace/proj/pkg');
    assert.deepEqual(argv.slice(-2), ['python3', '/workspace/proj/pkg/main.py']);
    // The profile's own workdir keeps its tmpfs.
    assert.ok(argv.some((a) => a.startsWith('/workspace:rw,exec')));
  });

  it('refuses a mask path with "=" or "," and a workdir with a line break (defence in depth)', () => {
    assert.throws(() => buildRunArgv({ ...spec, mounts: [{ ...mounts[1]!, target: '/workspace/proj/a=b' }] }), /mount target/);
    assert.throws(() => buildRunArgv({ ...spec, mounts: [{ ...mounts[1]!, target: '/workspace/proj/a,b' }] }), /mount target/);
    assert.throws(() => buildRunArgv({ ...spec, workdir: '/workspace/a\nb' }), /working directory/);
  });

  it('the pre-code checks refuse a mask that is not an empty tmpfs or /dev/null', () => {
    const container = {
      Mounts: [
        { Type: 'volume', Destination: '/workspace/proj', RW: true },
        { Type: 'bind', Source: '/w/proj/.git', Destination: '/workspace/proj/.git', RW: false },
        { Type: 'bind', Source: '/etc/passwd', Destination: '/workspace/proj/.env', RW: false },
      ],
    };
    const texts = containerProblems(container as never, {} as never, { profile: py(), mounts }).map((p) => p.text);
    assert.ok(texts.includes('the mask at /workspace/proj/.git is a bind, not an empty tmpfs'), texts.join('\n'));
    assert.ok(texts.includes('the mask at /workspace/proj/.env is not /dev/null'));
  });
});

describe('workspace consent (unit)', () => {
  const paths = { workspaceFolder: '/w/proj', fileDirname: '/w/proj/pkg' };
  it('workspace: "ro" from workspace settings is a loosening; from user settings it is not', () => {
    const fromWs = routeLoosening({ layers: [{ source: 'workspace', value: { python: { workspace: 'ro' } } }] }, { name: 'python', paths });
    assert.deepEqual(fromWs?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.python.workspace']);
    assert.ok(fromWs?.addedArgs.includes('--mount type=bind,src=/w/proj,dst=/workspace/proj,readonly'), fromWs?.addedArgs.join('\n'));
    const fromUser = routeLoosening({ layers: [{ source: 'user', value: { python: { workspace: 'ro' } } }] }, { name: 'python', paths });
    assert.equal(fromUser, undefined);
  });

  it('a workspace that swaps the image of a user profile with workspace: "ro" needs consent (the grant goes with the program)', () => {
    const user = { source: 'user' as const, value: { python: { workspace: 'ro' } } };
    const swap = routeLoosening({ layers: [user, { source: 'workspace', value: { python: { image: 'evil/python:1' } } }] }, { name: 'python', paths });
    assert.deepEqual(swap?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.python.image']);
  });

  it('compares variable mounts by the run\'s resolved paths', () => {
    const user = { source: 'user' as const, value: { python: { mounts: [{ source: '${fileDirname}', target: '/d' }] } } };
    const sameByPath = { source: 'workspace' as const, value: { python: { mounts: [{ source: '/w/proj/pkg', target: '/d' }] } } };
    assert.equal(routeLoosening({ layers: [user, sameByPath] }, { name: 'python', paths }), undefined);
    const other = routeLoosening({ layers: [user, sameByPath] }, { name: 'python', paths: { fileDirname: '/w/elsewhere' } });
    assert.match(other?.loosenings[0]?.description ?? '', /new ro bind mount of host path \/w\/proj\/pkg at \/d/);
    // Resolution uses the same profiles; an unknown variable is compared as written (and the run refuses it).
    assert.equal(resolveProfiles([user]).issues.length, 0);
  });
});
