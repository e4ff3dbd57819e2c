import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRunArgv, type ContainerSpec } from '../../src/core/container/argv';
import { hostPathProblem, type HostPlatform, isAbsoluteHostPath, isHostPathInside, normalizeHostPath, sameHostPath } from '../../src/core/hostPath';
import { isSandboxError } from '../../src/core/errors';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { protectedReasonFor, protectedSystemPaths } from '../../src/core/mounts/protectedPaths';
import { realMountSource } from '../../src/core/admission/loosening';
import { resolveMounts } from '../../src/core/mounts/mounts';

/** Protected-path context for `platform` with no symlinks (the real file system is Linux here). */
function ctx(platform: HostPlatform, home: string, env: Record<string, string> = {}) {
  return { platform, home, env, forms: (p: string) => [p] };
}

describe('host paths on Windows, macOS and Linux (unit)', () => {
  it('tells absolute paths of each flavour: drive letters, UNC, \\\\?\\ long paths; not C:x, \\x or device paths', () => {
    const win: Array<[string, boolean]> = [
      ['C:\\Users\\me\\proj', true], ['c:/Users/me/proj', true], ['\\\\srv\\share\\proj', true], ['\\\\srv\\share', true],
      ['\\\\?\\C:\\Users\\me\\proj', true], ['\\\\?\\UNC\\srv\\share\\proj', true],
      ['C:proj', false], ['\\Users\\me', false], ['/Users/me', false], ['proj', false], ['\\\\.\\pipe\\docker_engine', false],
      ['\\\\?\\GLOBALROOT\\Device\\HarddiskVolume1', false], ['\\\\srv', false],
    ];
    for (const [p, abs] of win) assert.equal(isAbsoluteHostPath(p, 'win32'), abs, p);
    for (const platform of ['linux', 'darwin'] as const) {
      assert.equal(isAbsoluteHostPath('/Users/me', platform), true);
      assert.equal(isAbsoluteHostPath('C:\\Users\\me', platform), false);
    }
  });

  it('compares case-insensitively on win32 and darwin, case-sensitively on Linux; separators and \\\\?\\ prefixes do not matter on Windows', () => {
    assert.ok(sameHostPath('c:/users/ME/Proj/', 'C:\\Users\\me\\proj', 'win32'));
    assert.ok(sameHostPath('\\\\?\\C:\\Users\\me', 'C:\\Users\\me', 'win32'));
    assert.ok(sameHostPath('\\\\?\\UNC\\srv\\share\\x', '\\\\SRV\\share\\x', 'win32'));
    assert.ok(sameHostPath('/Users/Me/Proj', '/users/me/proj/', 'darwin'));
    assert.ok(sameHostPath('/Users/me/caf\u00e9', '/Users/me/cafe\u0301', 'darwin'), 'NFC and NFD spellings on APFS');
    assert.ok(!sameHostPath('/home/Me', '/home/me', 'linux'));
    assert.equal(normalizeHostPath('c:/Users//me/./x/', 'win32'), 'C:\\Users\\me\\x');
    assert.equal(normalizeHostPath('C:\\', 'win32'), 'C:\\');
    assert.equal(normalizeHostPath('/a//b/', 'linux'), '/a/b');
  });

  it('judges containment per flavour: drives never nest, a sibling with a common prefix is not inside', () => {
    assert.ok(isHostPathInside('C:\\Users\\me\\.ssh\\id_rsa', 'c:\\users\\ME\\.SSH', 'win32'));
    assert.ok(isHostPathInside('C:\\Windows\\System32', 'C:\\', 'win32'));
    assert.ok(!isHostPathInside('D:\\Windows', 'C:\\Windows', 'win32'));
    assert.ok(!isHostPathInside('C:\\Users\\meow', 'C:\\Users\\me', 'win32'));
    assert.ok(isHostPathInside('\\\\srv\\share\\a\\b', '\\\\srv\\share', 'win32'));
    assert.ok(!isHostPathInside('\\\\srv\\share2\\a', '\\\\srv\\share', 'win32'));
    assert.ok(isHostPathInside('/USERS/me/.ssh', '/Users/me/.ssh', 'darwin'));
    assert.ok(!isHostPathInside('/HOME/me/.ssh', '/home/me/.ssh', 'linux'));
    assert.ok(isHostPathInside('/anything', '/', 'linux'));
  });

  it('names what is wrong with a mount source for this platform (a Windows path on Linux is never resolved against the working directory)', () => {
    assert.match(hostPathProblem('C:\\Users\\me\\proj', 'linux')!, /Windows path, and this host is not Windows/);
    assert.match(hostPathProblem('C:\\Users\\me\\proj', 'darwin')!, /Windows path/);
    assert.match(hostPathProblem('/Users/me/proj', 'win32')!, /POSIX path, and this host is Windows/);
    assert.match(hostPathProblem('C:proj', 'win32')!, /not absolute/);
    assert.match(hostPathProblem('\\proj', 'win32')!, /not absolute/);
    assert.match(hostPathProblem('C:\\proj:secret', 'win32')!, /":" after its drive letter/);
    assert.match(hostPathProblem('\\\\.\\pipe\\docker_engine', 'win32')!, /device or pipe/);
    assert.match(hostPathProblem('C:\\a\\..\\Windows', 'win32')!, /\.\./);
    assert.match(hostPathProblem('C:\\a,dst=/etc', 'win32')!, /comma/);
    assert.equal(hostPathProblem('C:\\Users\\me\\proj', 'win32'), undefined);
    assert.equal(hostPathProblem('\\\\srv\\share\\proj', 'win32'), undefined);
    assert.equal(hostPathProblem('/Users/me/proj', 'darwin'), undefined);
  });

  it('profiles accept absolute host paths of either flavour (settings sync between machines) and refuse the rest', () => {
    const parse = (source: string) => ProfileSchema.safeParse({ image: 'i', command: ['${file}'], mounts: [{ source, target: '/data' }] }).success;
    for (const ok of ['/home/me/p', 'C:\\Users\\me\\p', 'c:/Users/me/p', '\\\\srv\\share\\p']) assert.ok(parse(ok), ok);
    for (const bad of ['C:p', 'C:\\a\\..\\b', '/a\\..\\b', '\\\\.\\pipe\\docker_engine', 'C:\\a,b', 'p']) assert.ok(!parse(bad), bad);
  });

  it('passes a Windows bind source to docker as one --mount field: the drive colon is kept, a comma is refused', () => {
    const spec = (source: string): ContainerSpec => ({
      name: 'sandbox-runner-r1', profile: ProfileSchema.parse({ image: 'i', command: ['${file}'] }), snippetHostDir: '/tmp/s',
      snippetFileName: 'main.py', labels: {}, mounts: [{ source, target: '/data', readOnly: true }],
    });
    const argv = buildRunArgv(spec('C:\\Users\\me\\proj'));
    assert.ok(argv.includes('type=bind,src=C:\\Users\\me\\proj,dst=/data,readonly'), argv.join(' '));
    assert.ok(buildRunArgv(spec('\\\\srv\\share\\proj')).includes('type=bind,src=\\\\srv\\share\\proj,dst=/data,readonly'));
    for (const bad of ['C:\\a,dst=/etc', 'C:\\a"b', '/srv/a,readonly=false']) {
      assert.throws(() => buildRunArgv(spec(bad)), (e: unknown) => isSandboxError(e) && /mount source/.test(e.message), bad);
    }
  });

  it('refuses a Windows mount source on Linux even when a directory of that name exists in the working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-winpath-'));
    const cwd = process.cwd();
    try {
      await mkdir(join(dir, 'C:\\proj'));
      process.chdir(dir);
      const profile = ProfileSchema.parse({ image: 'i', command: ['${file}'], mounts: [{ source: 'C:\\proj', target: '/data' }] });
      await assert.rejects(resolveMounts({ name: 'p', profile }, [], { probe: async () => ({ sees: 'yes', local: true }) }),
        (e: unknown) => isSandboxError(e) && e.code === 'invalid-mount' && /Windows path, and this host is not Windows/.test(e.message));
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('protected host paths per platform (unit)', () => {
  const winEnv = { SystemRoot: 'C:\\WINDOWS', ProgramData: 'C:\\ProgramData', APPDATA: 'C:\\Users\\me\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' };
  const win = ctx('win32', 'C:\\Users\\me', winEnv);
  const mac = ctx('darwin', '/Users/me');
  const linux = ctx('linux', '/home/me');
  const refused = (path: string, c: ReturnType<typeof ctx>, why: RegExp) => assert.match(protectedReasonFor(path, [], c) ?? 'allowed', why, `${c.platform} ${path}`);
  const allowed = (path: string, c: ReturnType<typeof ctx>) => assert.equal(protectedReasonFor(path, [], c), undefined, `${c.platform} ${path}`);

  it('Windows: home, credentials in any case, AppData, the Windows folder, drive roots, Docker data and pipes', () => {
    refused('C:\\Users\\me', win, /home directory itself/);
    refused('c:\\users\\ME\\', win, /home directory itself/);
    refused('C:\\Users', win, /contains your home directory/);
    for (const p of ['C:\\Users\\me\\.ssh', 'C:\\Users\\me\\.SSH\\id_ed25519', 'c:/users/me/.docker', 'C:\\Users\\me\\.aws', 'C:\\Users\\me\\.kube',
      'C:\\Users\\me\\.azure', 'C:\\Users\\me\\.config\\gcloud', 'C:\\Users\\me\\AppData\\Roaming\\Microsoft\\Protect', 'C:\\Users\\me\\AppData\\Local\\Docker']) {
      refused(p, win, /holds credentials/);
    }
    refused('C:\\Users\\me\\.cargo', win, /contains credentials in your home directory \(~\/\.cargo\/credentials/);
    refused('C:\\Windows\\System32', win, /inside C:\\WINDOWS/);
    refused('C:\\ProgramData\\Docker\\volumes', win, /ProgramData\\Docker/);
    refused('C:\\ProgramData', win, /contains C:\\ProgramData\\Docker/);
    refused('C:\\', win, /root directory of a drive/);
    refused('d:/', win, /root directory of a drive/);
    refused('\\\\.\\pipe\\docker_engine', win, /device or pipe/);
    refused('\\\\?\\C:\\Users\\me\\.ssh', win, /holds credentials/);
    allowed('C:\\Users\\me\\projects\\app', win);
    allowed('D:\\work\\app', win);
    allowed('\\\\srv\\share\\app', win);
    allowed('C:\\Users\\meow\\.ssh', ctx('win32', 'C:\\Users\\me', winEnv));
  });

  it('Windows: WSL distributions through \\\\wsl$ and \\\\wsl.localhost get the Linux rules; Docker Desktop\'s own distributions are refused', () => {
    refused('\\\\wsl$\\docker-desktop-data\\data\\docker', win, /Docker Desktop's own WSL distribution/);
    refused('\\\\wsl.localhost\\Ubuntu', win, /root directory/);
    refused('\\\\wsl$\\Ubuntu\\etc', win, /WSL distribution Ubuntu, it is or sits inside \/etc/);
    refused('\\\\wsl$\\Ubuntu\\var\\run\\docker.sock', win, /inside \/var\/run/);
    refused('\\\\wsl$\\Ubuntu\\home\\me\\.ssh', win, /holds credentials in a home directory/);
    refused('\\\\wsl$\\Ubuntu\\home\\me', win, /home directory itself/);
    refused('\\\\wsl$\\Ubuntu\\home', win, /contains the home directories/);
    refused('\\\\WSL.LOCALHOST\\Ubuntu\\root', win, /inside \/root/);
    allowed('\\\\wsl$\\Ubuntu\\home\\me\\project', win);
  });

  it('macOS: the data volume\'s firmlinked spelling (/System/Volumes/Data/…) is inside /System', () => {
    refused('/System/Volumes/Data/Users/me/.ssh', mac, /inside \/System/);
    refused('/System/Volumes/Data/private/etc', mac, /inside \/System/);
  });

  it('Windows: a redirected %APPDATA% and the default system folders without an environment', () => {
    const redirected = ctx('win32', 'C:\\Users\\me', { APPDATA: '\\\\fs\\profiles\\me\\AppData\\Roaming' });
    refused('\\\\FS\\profiles\\me\\AppData\\Roaming\\gh', redirected, /AppData\\Roaming/);
    refused('C:\\Windows', redirected, /C:\\Windows/);
    assert.ok(protectedSystemPaths('win32', {}).includes('\\\\.\\pipe\\docker_engine'));
  });

  it('macOS: credentials and keychains in any case, /private spellings, Docker Desktop, Colima, Rancher Desktop and Podman state', () => {
    for (const p of ['/Users/me/.ssh', '/users/ME/.SSH/id_rsa', '/Users/me/.docker/run/docker.sock', '/Users/me/.colima/default',
      '/Users/me/.rd/docker.sock', '/Users/me/.local/share/containers/podman/machine', '/Users/me/Library/Keychains',
      '/Users/me/Library/Group Containers/group.com.docker', '/Users/me/.config/gcloud']) {
      refused(p, mac, /holds credentials/);
    }
    refused('/Users/me/Library', mac, /contains credentials in your home directory \(~\/Library\/Keychains\)/);
    refused('/Users/me', mac, /home directory itself/);
    refused('/Users', mac, /contains your home directory/);
    for (const p of ['/var/run/docker.sock', '/private/var/run/docker.sock', '/private/etc', '/etc/hosts', '/System/Library', '/Library/Keychains', '/private/var/db/sudo']) {
      refused(p, mac, /inside/);
    }
    refused('/private/var', mac, /contains \/private\/var\/run/);
    refused('/', mac, /root directory/);
    allowed('/Users/me/code/app', mac);
    allowed('/Volumes/Data/app', mac);
    allowed('/private/var/folders/xy/T/app', mac);
  });

  it('Linux: unchanged system list, the new home entries, case-sensitive', () => {
    refused('/home/me/.local/share/containers/storage', linux, /holds credentials/);
    refused('/home/me/.local', linux, /contains credentials in your home directory \(~\/\.local\/share\/containers\)/);
    refused('/home/me/.azure', linux, /holds credentials/);
    refused('/run/user/1000/docker.sock', linux, /inside \/run/);
    refused('/home', linux, /contains your home directory/);
    allowed('/home/me/.SSH', linux);
    refused('/home/me/.SSH', ctx('darwin', '/home/me'), /holds credentials/);
    allowed('/home/me/project', linux);
  });
});

describe('loosening reports with paths of another OS (unit)', () => {
  it('never resolves a Windows mount source on Linux against the working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-winpath-loose-'));
    const cwd = process.cwd();
    try {
      await mkdir(join(dir, 'C:\\proj'));
      process.chdir(dir);
      assert.equal(realMountSource('C:\\proj'), 'C:\\proj');
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
