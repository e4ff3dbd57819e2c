import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyEngineFailure } from '../../src/core/engine/failures';
import { contextDir, defaultDockerHost, dockerConfigDir, endpointSocketPath, namedPipePath, resolveEndpoint } from '../../src/core/engine/endpoint';
import { dockerMissing } from '../../src/core/engine/cli';
import { engineProduct, type EngineProduct, startEngineFix, welcomeHint } from '../../src/core/engine/engineHints';
import { signalFromExitCode } from '../../src/core/run/rules';
import type { DockerOptions } from '../../src/core/engine/contracts';
import { localizedPackageJson } from './localizedPackage';
import { interruptSignals } from '../../src/cli/signals';

describe('engines on Windows and macOS clients (unit)', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  /** A DOCKER_CONFIG with `contexts` (name → host) and a current context. */
  const config = (contexts: Record<string, string>, current?: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-platform-engine-'));
    dirs.push(dir);
    for (const [name, host] of Object.entries(contexts)) {
      mkdirSync(join(dir, 'contexts', 'meta', contextDir(name)), { recursive: true });
      writeFileSync(join(dir, 'contexts', 'meta', contextDir(name), 'meta.json'), JSON.stringify({ Name: name, Endpoints: { docker: { Host: host } } }));
    }
    if (current) writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentContext: current }));
    return dir;
  };
  const opts = (dir: string, over: Partial<DockerOptions> = {}): DockerOptions => ({ env: { DOCKER_HOST: '', DOCKER_CONTEXT: '', DOCKER_CONFIG: dir }, ...over });

  it('reads npipe:// hosts as named pipes local to a Windows client, reached directly like a unix socket', () => {
    assert.equal(namedPipePath('npipe:////./pipe/docker_engine'), '\\\\.\\pipe\\docker_engine');
    assert.equal(namedPipePath('npipe:////./pipe/dockerDesktopLinuxEngine'), '\\\\.\\pipe\\dockerDesktopLinuxEngine');
    assert.equal(namedPipePath('npipe://\\\\.\\pipe\\podman-machine-default'), '\\\\.\\pipe\\podman-machine-default');
    assert.equal(namedPipePath('npipe:////./pipe/../x/y'), undefined);
    assert.equal(namedPipePath('tcp://h:2375'), undefined);
    assert.equal(endpointSocketPath('npipe:////./pipe/docker_engine', 'win32'), '\\\\.\\pipe\\docker_engine');
    assert.equal(endpointSocketPath('npipe:////./pipe/docker_engine', 'linux'), undefined, 'not a pipe off Windows: the CLI (dial-stdio) decides');
    assert.equal(endpointSocketPath('unix:///Users/me/.docker/run/docker.sock', 'darwin'), '/Users/me/.docker/run/docker.sock');
  });

  it('resolves the platform default and Docker Desktop\'s desktop-linux context on Windows and macOS', () => {
    assert.equal(defaultDockerHost('win32'), 'npipe:////./pipe/docker_engine');
    assert.equal(defaultDockerHost('darwin'), 'unix:///var/run/docker.sock');
    const none = config({});
    assert.deepEqual(resolveEndpoint(opts(none), 'win32'), { host: 'npipe:////./pipe/docker_engine', source: 'default', socketPath: '\\\\.\\pipe\\docker_engine' });
    const win = config({ 'desktop-linux': 'npipe:////./pipe/dockerDesktopLinuxEngine' }, 'desktop-linux');
    assert.deepEqual(resolveEndpoint(opts(win), 'win32'), {
      host: 'npipe:////./pipe/dockerDesktopLinuxEngine', source: 'config-context', context: 'desktop-linux', socketPath: '\\\\.\\pipe\\dockerDesktopLinuxEngine',
    });
    const mac = config({ 'desktop-linux': 'unix:///Users/me/.docker/run/docker.sock' }, 'desktop-linux');
    assert.deepEqual(resolveEndpoint(opts(mac), 'darwin'), {
      host: 'unix:///Users/me/.docker/run/docker.sock', source: 'config-context', context: 'desktop-linux', socketPath: '/Users/me/.docker/run/docker.sock',
    });
  });

  it('finds the docker config where the CLI does: %USERPROFILE% on Windows (not a Git Bash HOME), $HOME elsewhere', () => {
    assert.equal(dockerConfigDir({ HOME: '/c/Users/me', USERPROFILE: 'C:\\Users\\me' }, 'win32'), 'C:\\Users\\me\\.docker');
    assert.equal(dockerConfigDir({ HOME: '/Users/me', USERPROFILE: 'x' }, 'darwin'), '/Users/me/.docker');
    assert.equal(dockerConfigDir({ DOCKER_CONFIG: 'D:\\cfg', USERPROFILE: 'C:\\Users\\me' }, 'win32'), 'D:\\cfg');
  });

  it('names the engine product from its context or socket, and the platform\'s default', () => {
    const cases: Array<[Parameters<typeof engineProduct>[0], NodeJS.Platform, EngineProduct]> = [
      [{ explicit: false }, 'darwin', 'docker-desktop'],
      [{ explicit: false }, 'win32', 'docker-desktop'],
      [{ explicit: false }, 'linux', 'service'],
      [{ context: 'desktop-linux', host: 'npipe:////./pipe/dockerDesktopLinuxEngine', explicit: true }, 'win32', 'docker-desktop'],
      [{ context: 'desktop-linux', host: 'unix:///Users/me/.docker/run/docker.sock', explicit: true }, 'darwin', 'docker-desktop'],
      [{ host: 'npipe:////./pipe/docker_engine', explicit: true }, 'win32', 'docker-desktop'],
      [{ context: 'colima', explicit: true }, 'darwin', 'colima'],
      [{ host: 'unix:///Users/me/.colima/work/docker.sock', explicit: true }, 'darwin', 'colima'],
      [{ context: 'rancher-desktop', host: 'unix:///Users/me/.rd/docker.sock', explicit: true }, 'darwin', 'rancher-desktop'],
      [{ host: 'npipe:////./pipe/podman-machine-default', explicit: true }, 'win32', 'podman-machine'],
      [{ context: 'orbstack', explicit: true }, 'darwin', 'orbstack'],
      [{ host: 'ssh://me@build', explicit: true }, 'darwin', 'other'],
      [{ host: 'unix:///run/user/1000/docker.sock', explicit: true }, 'linux', 'other'],
    ];
    for (const [names, platform, product] of cases) assert.equal(engineProduct(names, platform), product, JSON.stringify([names, platform]));
    assert.match(startEngineFix('docker-desktop', 'darwin')!, /Start Docker Desktop/);
    assert.match(startEngineFix('service', 'linux')!, /systemctl start docker/);
    assert.match(startEngineFix('podman-machine', 'win32')!, /podman machine start/);
    assert.equal(startEngineFix('other', 'linux'), undefined);
  });

  it('an unreachable engine\'s fix names the platform\'s way to start it', () => {
    const dir = config({});
    const down = 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';
    const fix = (o: DockerOptions, platform: NodeJS.Platform, stderr = down) => classifyEngineFailure(stderr, 'reach the engine', undefined, o, platform);
    assert.match(fix(opts(dir), 'darwin').fix, /^Start Docker Desktop/);
    assert.match(fix(opts(dir), 'win32', 'error during connect: open //./pipe/docker_engine: The system cannot find the file specified.').fix, /^Start Docker Desktop/);
    assert.match(fix(opts(dir), 'linux').fix, /sudo systemctl start docker/);
    const colima = fix(opts(dir, { context: 'colima' }), 'darwin');
    assert.match(colima.message, /context "colima" is not reachable/);
    assert.match(colima.fix, /^Start Colima \("colima start".*\("docker --context colima info" tells when it answers\), then try again\.$/);
    assert.match(fix(opts(dir, { host: 'unix:///nowhere.sock' }), 'darwin').fix, /^Check that this engine is running/);
    const denied = fix(opts(dir), 'win32', 'error during connect: open //./pipe/docker_engine: Access is denied.');
    assert.equal(denied.code, 'permission-denied');
    assert.match(denied.fix, /docker-users/);
    assert.match(fix(opts(dir), 'linux', 'permission denied while trying to connect to the Docker daemon socket').fix, /"docker" group/);
  });

  it('a missing docker CLI\'s fix names the platform\'s install', () => {
    assert.match(dockerMissing({}, 'ENOENT', 'win32').fix, /Docker Desktop.*docker\.exe/);
    assert.match(dockerMissing({}, 'ENOENT', 'darwin').fix, /Docker Desktop/);
    assert.match(dockerMissing({}, 'ENOENT', 'linux').fix, /docker\.io/);
  });

  it('the welcome view has one fixed text for each hint the engine check can set, and one when none is set', () => {
    const pkg = localizedPackageJson() as { contributes: { viewsWelcome: Array<{ when: string; contents: string }> } };
    const welcome = pkg.contributes.viewsWelcome;
    const products: EngineProduct[] = ['docker-desktop', 'colima', 'rancher-desktop', 'podman-machine', 'orbstack', 'service', 'other'];
    const hints = [welcomeHint('docker-missing', 'service'), welcomeHint('permission-denied', 'service'), ...products.map((p) => welcomeHint('daemon-unreachable', p))];
    for (const hint of hints) {
      const shown = welcome.filter((w) => w.when === `sandboxRunner.engineProblem && sandboxRunner.engineHint == '${hint}'`);
      assert.equal(shown.length, 1, hint);
    }
    assert.equal(welcome.filter((w) => w.when === 'sandboxRunner.engineProblem && !sandboxRunner.engineHint').length, 1);
    assert.match(welcome.find((w) => w.when.endsWith("'docker-desktop'"))!.contents, /Start Docker Desktop/);
    assert.match(welcome.find((w) => w.when.endsWith("'service'"))!.contents, /systemctl start docker/);
  });
});

describe('the CLI on Windows (unit)', () => {
  it('listens for the signals each OS delivers: SIGBREAK and no SIGTERM on Windows', () => {
    assert.deepEqual(interruptSignals('win32'), ['SIGINT', 'SIGBREAK', 'SIGHUP']);
    assert.deepEqual(interruptSignals('linux'), ['SIGINT', 'SIGTERM', 'SIGHUP']);
    assert.deepEqual(interruptSignals('darwin'), ['SIGINT', 'SIGTERM', 'SIGHUP']);
  });

  it('reads a container\'s 128+N status with Linux\'s signal numbers whatever the client OS (macOS: 7 is SIGEMT, Windows: SIGABRT is 22)', () => {
    assert.equal(signalFromExitCode(134), 'SIGABRT');
    assert.equal(signalFromExitCode(135), 'SIGBUS');
    assert.equal(signalFromExitCode(137), 'SIGKILL');
    assert.equal(signalFromExitCode(138), 'SIGUSR1');
    assert.equal(signalFromExitCode(153), 'SIGXFSZ');
    assert.equal(signalFromExitCode(159), 'SIGSYS');
    assert.equal(signalFromExitCode(150), 'SIGTTOU');
    assert.equal(signalFromExitCode(160), null);
    assert.equal(signalFromExitCode(128), null);
    assert.equal(signalFromExitCode(null), null);
  });
});
