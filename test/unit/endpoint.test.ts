import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseVersionFlag } from '../../src/core/engine/engineKind';
import { cliEnvironment, spawnOptions } from '../../src/core/engine/spawnEnv';
import { contextDir, describeEndpoint, resolveEndpoint } from '../../src/core/engine/endpoint';
import { negotiateApiVersion } from '../../src/core/engine/engineApi';
import { parseEngineVersion } from '../../src/core/engine/engine';
import type { DockerOptions } from '../../src/core/engine/contracts';

/** A DOCKER_CONFIG folder with contexts name → host and an optional currentContext. */
function configDir(contexts: Record<string, string>, current?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sr-endpoint-'));
  for (const [name, host] of Object.entries(contexts)) writeContext(dir, name, host);
  if (current !== undefined) writeFileSync(join(dir, 'config.json'), JSON.stringify({ auths: {}, currentContext: current }));
  return dir;
}

/** A context as `docker context create NAME --docker host=HOST` writes it (CLI 28, checked here). */
function writeContext(dir: string, name: string, host: string): string {
  const meta = join(dir, 'contexts', 'meta', contextDir(name));
  mkdirSync(meta, { recursive: true });
  const file = join(meta, 'meta.json');
  writeFileSync(file, JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } }));
  return file;
}

describe('engine endpoint resolution (unit)', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  /** Options whose environment is only `env` for the engine variables (the test runner's are masked). */
  const opts = (dir: string, env: Record<string, string> = {}, over: Partial<DockerOptions> = {}): DockerOptions => ({
    env: { DOCKER_HOST: '', DOCKER_CONTEXT: '', DOCKER_CONFIG: dir, ...env },
    ...over,
  });

  it('names the context folder sha256(name), as the docker CLI does', () => {
    // `docker context create xx` made contexts/meta/5dde8968…/meta.json on this machine.
    assert.equal(contextDir('xx'), '5dde896887f6754c9b15bfe3a441ae4806df2fde94001311e08bf110622e0bbe');
    assert.equal(contextDir('bad'), createHash('sha256').update('bad').digest('hex'));
  });

  it('follows the docker CLI precedence: host > context > DOCKER_HOST > DOCKER_CONTEXT > currentContext > default', () => {
    const dir = configDir({ opt: 'ssh://me@opt', env: 'tcp://env:2376', cur: 'unix:///run/cur.sock' }, 'cur');
    dirs.push(dir);
    const all = { DOCKER_HOST: 'unix:///run/envhost.sock', DOCKER_CONTEXT: 'env' };
    const r = (env: Record<string, string>, over: Partial<DockerOptions> = {}) => resolveEndpoint(opts(dir, env, over));
    assert.deepEqual(r(all, { host: 'tcp://h:1', context: 'opt' }), { host: 'tcp://h:1', source: 'option-host', socketPath: undefined });
    assert.deepEqual(r(all, { context: 'opt' }), { host: 'ssh://me@opt', source: 'option-context', socketPath: undefined, context: 'opt' });
    assert.deepEqual(r(all), { host: 'unix:///run/envhost.sock', source: 'env-host', socketPath: '/run/envhost.sock' });
    assert.deepEqual(r({ DOCKER_CONTEXT: 'env' }), { host: 'tcp://env:2376', source: 'env-context', socketPath: undefined, context: 'env' });
    assert.deepEqual(r({}), { host: 'unix:///run/cur.sock', source: 'config-context', socketPath: '/run/cur.sock', context: 'cur' });
    const none = configDir({});
    dirs.push(none);
    assert.deepEqual(resolveEndpoint(opts(none)), { host: 'unix:///var/run/docker.sock', source: 'default', socketPath: '/var/run/docker.sock' });
  });

  it('treats "default" as the built-in context and a missing context as unresolved (the CLI reports it)', () => {
    const dir = configDir({ other: 'ssh://x' }, 'gone');
    dirs.push(dir);
    assert.equal(resolveEndpoint(opts(dir)), undefined, 'currentContext names a context that does not exist');
    assert.equal(resolveEndpoint(opts(dir, { DOCKER_CONTEXT: 'nope' })), undefined);
    assert.equal(resolveEndpoint(opts(dir, {}, { context: 'default' }))?.host, 'unix:///var/run/docker.sock');
    assert.equal(resolveEndpoint(opts(dir, { DOCKER_CONTEXT: 'default' }))?.source, 'env-context');
    // An empty variable is unset for the CLI: currentContext decides.
    assert.equal(resolveEndpoint(opts(dir, { DOCKER_CONTEXT: 'other' }))?.host, 'ssh://x');
    assert.equal(describeEndpoint(resolveEndpoint(opts(dir, { DOCKER_CONTEXT: 'other' }))), 'context "other" (ssh://x)');
  });

  it('sees `docker context use` and a changed context without a restart, and is cheap after the first call', () => {
    const dir = configDir({ a: 'unix:///run/a.sock', b: 'unix:///run/b.sock' }, 'a');
    dirs.push(dir);
    const o = opts(dir);
    assert.equal(resolveEndpoint(o)?.host, 'unix:///run/a.sock');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentContext: 'b' }));
    utimesSync(join(dir, 'config.json'), new Date(), new Date(Date.now() + 5000));
    assert.equal(resolveEndpoint(o)?.host, 'unix:///run/b.sock');
    const meta = writeContext(dir, 'b', 'ssh://moved');
    utimesSync(meta, new Date(), new Date(Date.now() + 9000));
    assert.equal(resolveEndpoint(o)?.host, 'ssh://moved');
    // A context created after a failed lookup is found.
    const later = configDir({}, 'late');
    dirs.push(later);
    assert.equal(resolveEndpoint(opts(later)), undefined);
    utimesSync(writeContext(later, 'late', 'tcp://late:2376'), new Date(), new Date(Date.now() + 5000));
    assert.equal(resolveEndpoint(opts(later))?.host, 'tcp://late:2376');
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) resolveEndpoint(o);
    const perCallMs = Number(process.hrtime.bigint() - t0) / 1e6 / 1000;
    assert.ok(perCallMs < 0.5, `a cached resolution took ${perCallMs} ms`);
  });

  it('hands host and context to the docker CLI as DOCKER_HOST / DOCKER_CONTEXT, explicit ones winning', () => {
    const base = { env: { DOCKER_HOST: 'unix:///inherited.sock', DOCKER_CONTEXT: 'inherited' } };
    const env = (o: DockerOptions) => (spawnOptions(o) as { env?: Record<string, string | undefined> }).env ?? {};
    assert.deepEqual(
      [env({ ...base, host: 'ssh://h' }).DOCKER_HOST, 'DOCKER_CONTEXT' in env({ ...base, host: 'ssh://h' }), env({ ...base, host: 'ssh://h' }).DOCKER_CONTEXT],
      ['ssh://h', true, undefined],
    );
    const ctx = env({ ...base, context: 'c' });
    assert.equal(ctx.DOCKER_CONTEXT, 'c');
    assert.ok('DOCKER_HOST' in ctx && ctx.DOCKER_HOST === undefined, 'an inherited DOCKER_HOST would beat the explicit context');
    assert.equal(cliEnvironment({ ...base, context: 'c' }).DOCKER_HOST, undefined);
    assert.equal(env(base).DOCKER_HOST, 'unix:///inherited.sock');
    // The --env unset rule still applies beside them.
    assert.ok('HTTP_PROXY' in env({ context: 'c' }) === false);
    const withArgs = spawnOptions({ context: 'c' }, ['create', '--env', 'HTTP_PROXY', 'img']) as { env: Record<string, unknown> };
    assert.ok('HTTP_PROXY' in withArgs.env && withArgs.env.HTTP_PROXY === undefined);
  });
});

describe('engine identification (unit)', () => {
  it('tells Podman from Docker by the version output, a docker → podman wrapper included', () => {
    // The wrapper's "Emulate Docker CLI using podman" notice goes to stderr; the detector reads stdout.
    assert.equal(parseVersionFlag('Docker version 28.2.2, build e6534b4\n'), 'docker');
    assert.equal(parseVersionFlag('podman version 4.3.1\n'), 'podman');
    assert.equal(parseVersionFlag('nerdctl version 1.7.0\n'), undefined);
  });

  it('negotiates the API version from the engine\'s Api-Version header', () => {
    assert.equal(negotiateApiVersion('1.41'), '1.41');
    assert.equal(negotiateApiVersion('1.51'), '1.47');
    assert.equal(negotiateApiVersion(undefined), '1.41');
    assert.equal(negotiateApiVersion('garbage'), '1.41');
  });

  it('names the engine from /version: Docker, Docker Desktop, Podman\'s compat API and Podman\'s CLI', () => {
    const docker = parseEngineVersion({ Platform: { Name: '' }, Version: '20.10.24', ApiVersion: '1.41', Os: 'linux', Arch: 'amd64' }, 'e', 'api');
    assert.deepEqual([docker.name, docker.version, docker.apiVersion, docker.os, docker.arch], ['Docker Engine', '20.10.24', '1.41', 'linux', 'amd64']);
    assert.equal(parseEngineVersion({ Platform: { Name: 'Docker Desktop 4.37.1 (178610)' }, Version: '27.4.0' }, 'e', 'api').name, 'Docker Desktop 4.37.1 (178610)');
    const compat = parseEngineVersion({ Platform: { Name: 'linux/amd64/debian-12' }, Components: [{ Name: 'Podman Engine', Version: '4.3.1' }], Version: '4.3.1' }, 'e', 'api');
    assert.deepEqual([compat.name, compat.version], ['Podman Engine', '4.3.1']);
    const cli = parseEngineVersion({ APIVersion: '4.3.1', Version: '4.3.1', OsArch: 'linux/amd64' }, 'e', 'cli', true);
    assert.deepEqual([cli.name, cli.os, cli.arch], ['Podman Engine', 'linux', 'amd64']);
  });
});
