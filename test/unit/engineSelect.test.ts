import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ENGINE_FLAGS, engineFromFlags, engineSummary } from '../../src/cli/engineArgs';
import { ownLine } from '../../src/cli/terminalOutput';
import { classifyEngineFailure } from '../../src/core/engine/failures';
import { commandFor, engineOptions, engineTarget, engineText } from '../../src/core/engine/engineTarget';
import { describeEngine, type EngineIdentity, parseEngineVersion, parseRuntime } from '../../src/core/engine/engine';
import { type EngineView, firstTarFile, mountAccess, probeEngineView } from '../../src/core/mounts/mountProbe';
import { isSandboxError } from '../../src/core/errors';
import { resolveMounts } from '../../src/core/mounts/mounts';
import type { DockerOptions } from '../../src/core/engine/contracts';
import { engineSettingsFrom } from '../../src/vscode/engineChoice';
import { ProgramOutput } from '../../src/vscode/programOutput';
import { profileOf } from '../support/profiles';

/** Options whose CLI environment has no DOCKER_HOST/DOCKER_CONTEXT and no docker config file (the "default" context), plus `extra`. */
const clean = (opts: DockerOptions = {}, extra: Record<string, string> = {}): DockerOptions => ({
  ...opts, env: { DOCKER_CONFIG: '/nonexistent-docker-config', DOCKER_HOST: '', DOCKER_CONTEXT: '', ...extra },
});

/** Engine strings as a hostile engine (or a hostile context name) could send them. */
const HOSTILE = '\x1b]0;PWNED\x07Docker\nEngine [x](command:evil) $(alert) \u202etxt\u202c <b>bold</b>';

describe('engine choice and naming (unit)', () => {
  it('passes the choice as options (docker.ts maps them to DOCKER_CONTEXT / DOCKER_HOST)', () => {
    assert.deepEqual(engineOptions({ context: 'colima' }), { context: 'colima' });
    assert.deepEqual(engineOptions({ host: 'ssh://me@build', dockerPath: '/usr/bin/docker' }), { dockerPath: '/usr/bin/docker', host: 'ssh://me@build' });
    assert.deepEqual(engineOptions({}), {});
  });

  it('names the engine as the docker CLI chooses it: options, DOCKER_HOST, DOCKER_CONTEXT, then "default"', () => {
    // A context that does not exist is still named (the CLI then refuses it with its own words).
    assert.deepEqual(engineTarget(clean(engineOptions({ context: 'colima' }), { DOCKER_HOST: 'tcp://x:1' })), { kind: 'context', name: 'colima', explicit: true });
    assert.deepEqual(engineTarget(clean(engineOptions({ context: 'default' }), { DOCKER_HOST: 'tcp://x:1' })), { kind: 'context', name: 'default', explicit: true });
    assert.deepEqual(engineTarget(clean({}, { DOCKER_HOST: 'unix:///run/e2.sock', DOCKER_CONTEXT: 'c' })), { kind: 'host', name: 'unix:///run/e2.sock', explicit: true });
    assert.deepEqual(engineTarget(clean({}, { DOCKER_CONTEXT: 'rancher-desktop' })), { kind: 'context', name: 'rancher-desktop', explicit: true });
    assert.deepEqual(engineTarget(clean()), { kind: 'context', name: 'default', explicit: false });
    // A chosen host wins over an inherited DOCKER_CONTEXT and over a chosen context.
    assert.deepEqual(engineTarget(clean(engineOptions({ host: 'ssh://b', context: 'colima' }), { DOCKER_CONTEXT: 'colima' })).name, 'ssh://b');
  });

  it('says on which engine an image is missing, with the pull command for that engine', () => {
    const stderr = 'Error response from daemon: No such image: x:1';
    const colima = classifyEngineFailure(stderr, 'create the container', 'x:1', clean(engineOptions({ context: 'colima' })));
    assert.equal(colima.code, 'image-missing');
    assert.equal(colima.message, 'The image "x:1" is not present on the Docker engine of context "colima", and runs never pull implicitly.');
    assert.equal(colima.fix, 'Pull it once with "docker --context colima pull x:1" and run again.');
    const host = classifyEngineFailure(stderr, 'create the container', 'x:1', clean(engineOptions({ host: 'ssh://me@build' })));
    assert.match(host.message, /not present on the Docker engine of host "ssh:\/\/me@build"/);
    assert.match(host.fix, /"docker --host ssh:\/\/me@build pull x:1"/);
    assert.equal(commandFor(clean({ dockerPath: 'podman' }), ['pull', 'x:1']), 'podman pull x:1');
  });

  it('drops the CLI\'s usage hint from an engine failure\'s detail (it suggests a typing mistake)', () => {
    const stderr = 'docker: Error response from daemon: No such image: x:1\n\nRun \'docker run --help\' for more information\nSee \'podman run --help\'\n';
    const e = classifyEngineFailure(stderr, 'create the container', 'x:1');
    assert.equal(e.detail, 'docker: Error response from daemon: No such image: x:1');
  });

  it('reduces engine-reported text to letters, digits and a few marks: no escape, markup, codicon or bidi control survives', () => {
    const clean = engineText(HOSTILE);
    assert.doesNotMatch(clean, /[\x00-\x1f\x7f-\x9f\u202a-\u202e]|\]\(|\$\(|<|>|\[|\n/);
    assert.match(clean, /Docker\?Engine/);
    assert.equal(engineText('x'.repeat(500)).length, 80);
  });

  it('reads the default runtime from Docker\'s and Podman\'s info', () => {
    assert.equal(parseRuntime('{"DefaultRuntime":"runc"}'), 'runc');
    assert.equal(parseRuntime({ host: { ociRuntime: { name: 'crun' } } }), 'crun');
    assert.equal(parseRuntime('garbage'), '');
  });

  it('names Podman as Podman on this machine, never by a docker context it does not use', () => {
    const id: EngineIdentity = { target: { kind: 'context', name: 'default', explicit: false }, name: 'Podman Engine', version: '4.3.1', runtime: 'crun' };
    assert.equal(describeEngine(id), 'Podman on this machine · Podman Engine 4.3.1 · runtime crun');
  });

  it('a hostile engine cannot put escapes, line breaks or markup into the identity, the CLI summary or the output header', () => {
    // As engineIdentity builds it: docker.ts parseEngineVersion (raw), then engineText on each field.
    const parsed = parseEngineVersion({ Platform: { Name: HOSTILE }, Version: HOSTILE }, '', 'api');
    const id: EngineIdentity = {
      target: { kind: 'context', name: HOSTILE, explicit: true }, name: engineText(parsed.name), version: engineText(parsed.version),
      runtime: parseRuntime(JSON.stringify({ DefaultRuntime: HOSTILE })),
    };
    const line = describeEngine(id);
    assert.doesNotMatch(line, /[\x00-\x1f\x7f-\x9f\u202a-\u202e]|\]\(|\$\(|</, line);
    // CLI summary: one line, also to a terminal and to a pipe.
    const summary = engineSummary({}, id);
    for (const isTTY of [true, false]) {
      const written = ownLine(`Exited with code 0 in 5 ms. [profile p, image i, network off, ${summary}]`, { isTTY });
      assert.equal(written.split('\n').length, 2, written);
      assert.doesNotMatch(written, /\x1b|\u202e/);
    }
    // Output header: the engine line is one line with nothing the channel would interpret.
    const appends: string[] = [];
    const out = new ProgramOutput({ append: (t: string) => appends.push(t), show: () => undefined } as never);
    const frame = out.begin('a.py', 'python', 'user', profileOf(), line);
    frame.end({ outcome: 'exited', exitCode: 0, signal: null, durationMs: 1, message: 'm', containerName: 'c', stdout: { bytesKept: 0, truncated: false }, stderr: { bytesKept: 0, truncated: false } });
    const text = out.text();
    const engineLines = text.split('\n').filter((l) => l.startsWith('  engine '));
    assert.equal(engineLines.length, 1, text);
    assert.match(engineLines[0]!, /^ {2}engine context "\?\?0\?PWNED\?Docker\?Engine \?x\?\(command:evil\) \?\(alert\)/);
    assert.doesNotMatch(text, /\x1b|\u202e|\]\(/);
  });

  it('the output header names the engine at the start when known, else just before the footer', () => {
    const appends: string[] = [];
    const out = new ProgramOutput({ append: (t: string) => appends.push(t), show: () => undefined } as never);
    const profile = profileOf();
    const done = { outcome: 'exited', exitCode: 0, signal: null, durationMs: 1, message: 'm', containerName: 'c', stdout: { bytesKept: 0, truncated: false }, stderr: { bytesKept: 0, truncated: false } } as const;
    out.begin('a', 'p', 'user', profile, 'context "default" · Docker Engine 20.10 · runtime runc').end(done, 'ignored');
    const late = out.begin('b', 'p', 'user', profile);
    late.sink('stdout', Buffer.from('out\n'));
    late.end(done, 'host "ssh://b" · Podman 4.3.1');
    const text = out.text();
    assert.match(text, /▶ a\n.*\n.*\n {2}engine context "default" · Docker Engine 20\.10 · runtime runc\n■/);
    assert.match(text, /▶ b\n.*\n.*\nout\n {2}engine host "ssh:\/\/b" · Podman 4\.3\.1\n■/);
    assert.doesNotMatch(text, /ignored/);
  });
});

describe('engine settings scope (unit)', () => {
  it('reads dockerHost, dockerContext and dockerPath from user settings only; workspace values are ignored and reported', () => {
    const s = engineSettingsFrom((key) => ({
      dockerPath: { workspaceValue: '/tmp/evil-docker' },
      dockerContext: { workspaceFolderValue: 'evil' },
      dockerHost: { globalValue: 'ssh://me@build', workspaceValue: 'tcp://attacker:2375' },
    })[key]);
    assert.deepEqual(s.choice, { host: 'ssh://me@build' });
    assert.deepEqual(s.problems, [
      'sandboxRunner.dockerPath in workspace settings is ignored (user settings only)',
      'sandboxRunner.dockerContext in workspace settings is ignored (user settings only)',
      'sandboxRunner.dockerHost in workspace settings is ignored (user settings only)',
    ]);
    const onlyWorkspace = engineSettingsFrom((key) => (key === 'dockerHost' ? { workspaceValue: 'tcp://attacker:2375' } : undefined));
    assert.deepEqual(onlyWorkspace.choice, {}, 'a workspace dockerHost alone chooses nothing');
  });

  it('reports an invalid value and a context beside a host (the context is used)', () => {
    const s = engineSettingsFrom((key) => ({ dockerContext: { globalValue: 'my ctx' }, dockerHost: { globalValue: 'build-host' }, dockerPath: undefined })[key]);
    assert.equal(s.choice.host, 'build-host', 'an invalid host is still used: docker refuses it rather than running elsewhere');
    assert.equal(s.choice.context, undefined);
    assert.equal(s.problems.length, 3, s.problems.join('\n'));
    assert.match(s.problems.join('\n'), /dockerContext is not a docker context name[\s\S]*dockerHost is not an engine address[\s\S]*both set: the host is used/);
  });
});

describe('sandbox-run engine flags (unit)', () => {
  const parse = (args: string[]) => parseArgs({ args, allowPositionals: true, options: ENGINE_FLAGS }).values;

  it('--context NAME and --docker-path PATH choose the engine; nothing: the environment decides', () => {
    assert.deepEqual(engineFromFlags(parse(['--context', 'colima', 'a.py'])), { context: 'colima' });
    assert.deepEqual(engineFromFlags(parse(['--docker-path', '/opt/podman/bin/podman'])), { dockerPath: '/opt/podman/bin/podman' });
    assert.deepEqual(engineFromFlags(parse(['--context=default', '--docker-path=docker'])), { dockerPath: 'docker', context: 'default' });
    assert.deepEqual(engineFromFlags(parse(['a.py'])), {});
  });

  it('refuses a context name the docker CLI would refuse and an empty docker path', () => {
    assert.match((engineFromFlags(parse(['--context', 'bad name'])) as { error: string }).error, /--context "bad name" is not a docker context name/);
    assert.match((engineFromFlags(parse(['--context=-x'])) as { error: string }).error, /not a docker context name/);
    assert.match((engineFromFlags(parse(['--docker-path', ''])) as { error: string }).error, /--docker-path needs/);
  });

  it('the summary names the engine even before its identity is known', () => {
    assert.equal(engineSummary(clean(engineOptions({ context: 'colima' })), undefined), 'engine context "colima"');
  });
});

describe('which mounts an engine can see (unit)', () => {
  it('decides: pinned on a local engine that sees the file, by path on a sharing engine, refused otherwise', () => {
    const table: Array<[EngineView, string]> = [
      [{ sees: 'yes', local: true }, 'pinned'],
      [{ sees: 'yes', local: false }, 'by-path'],
      [{ sees: 'unchecked', local: true, why: 'x' }, 'pinned'],
      [{ sees: 'unchecked', local: false, why: 'the probe file could not be written into it (EACCES)' }, 'refused'],
      [{ sees: 'no', local: true, why: 'w' }, 'refused'],
      [{ sees: 'no', local: false, why: 'w' }, 'refused'],
    ];
    for (const [view, kind] of table) assert.equal(mountAccess(view).kind, kind, JSON.stringify(view));
    const refused = mountAccess({ sees: 'unchecked', local: false, why: 'the probe file could not be written into it (EACCES)' });
    assert.match((refused as { why: string }).why, /EACCES.*cannot be checked/);
  });

  describe('resolveMounts with the engine\'s answer', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sr-engine-mounts-'));
      await mkdir(join(dir, 'project'));
    });
    after(() => rm(dir, { recursive: true, force: true }));
    const profile = () => profileOf({ mounts: [{ source: join(dir, 'project'), target: '/data' }] });

    it('refuses a mount the engine does not see, naming the engine and why', async () => {
      const probe = async () => ({ sees: 'no' as const, local: false, why: 'the probe file written there was not found at that path on the engine' });
      await assert.rejects(
        resolveMounts({ name: 'p', profile: profile() }, [], { docker: engineOptions({ host: 'ssh://me@build' }), probe }),
        (e: unknown) => isSandboxError(e) && e.code === 'invalid-mount' &&
          e.message === `The bind mount sandboxRunner.profiles.p.mounts.0 (${join(dir, 'project')}) is refused because the Docker engine of host "ssh://me@build" does not see it: the probe file written there was not found at that path on the engine.` &&
          /Docker Desktop, Colima and Rancher Desktop share your home directory/.test(e.fix),
      );
    });

    it('refuses a workspace folder the engine does not see, naming the workspace key and the way out ("none", not a mount to remove)', async () => {
      const probe = async () => ({ sees: 'no' as const, local: false, why: 'the probe file written there was not found at that path on the engine' });
      const plain = profileOf();
      await assert.rejects(
        resolveMounts({ name: 'p', profile: plain }, [], { docker: engineOptions({ host: 'ssh://me@build' }), probe }, { source: join(dir, 'project'), target: '/workspace/project' }),
        (e: unknown) => isSandboxError(e) && e.code === 'invalid-mount' &&
          e.message === `The workspace folder ${join(dir, 'project')} (sandboxRunner.profiles.p.workspace: "ro") is refused because the Docker engine of host "ssh://me@build" does not see it: the probe file written there was not found at that path on the engine.` &&
          /share your home directory\), run on a local engine, or set sandboxRunner\.profiles\.p\.workspace to "none"\.$/.test(e.fix),
      );
    });

    it('mounts by path (no pin) on an engine that sees the file but not this process', async () => {
      const pins = await resolveMounts({ name: 'p', profile: profile() }, [], { docker: engineOptions({ context: 'colima' }), probe: async () => ({ sees: 'yes' as const, local: false }) });
      try {
        assert.deepEqual(pins.mounts, [{ source: join(dir, 'project'), target: '/data', readOnly: true }]);
      } finally {
        await pins.dispose();
      }
    });
  });

  it('reads the first regular file of a tar archive, skipping PAX headers, and refuses links', async () => {
    const d = await mkdtemp(join(tmpdir(), 'sr-tar-'));
    try {
      await writeFile(join(d, 'nonce'), 'abc\n');
      const plain = execFileSync('tar', ['-cf', '-', '-C', d, 'nonce']);
      assert.equal(firstTarFile(plain)?.toString(), 'abc\n');
      const pax = execFileSync('tar', ['--format=pax', '--pax-option=comment=hello', '-cf', '-', '-C', d, 'nonce']);
      assert.equal(firstTarFile(pax)?.toString(), 'abc\n');
      execFileSync('ln', ['-s', 'nonce', join(d, 'link')]);
      assert.equal(firstTarFile(execFileSync('tar', ['-cf', '-', '-C', d, 'link'])), undefined);
      assert.equal(firstTarFile(Buffer.alloc(100)), undefined);
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });

  describe('the probe against a fake engine reply (a docker CLI script; the real engines are in the engine suite)', () => {
    let d: string;
    before(async () => {
      d = await mkdtemp(join(tmpdir(), 'sr-fake-engine-'));
      await mkdir(join(d, 'root'));
      await mkdir(join(d, 'anchor'));
      await mkdir(join(d, 'elsewhere'));
    });
    after(() => rm(d, { recursive: true, force: true }));

    /** A docker CLI that creates and removes nothing and answers `cp` with `cpScript` (sh). */
    const fakeDocker = async (cpScript: string) => {
      const path = join(d, `docker-${Math.random().toString(16).slice(2)}`);
      await writeFile(path, `#!/bin/sh\ncase "$1" in\n  create) echo fakeid; exit 0;;\n  rm) exit 0;;\n  cp) ${cpScript};;\nesac\nexit 1\n`);
      await chmod(path, 0o755);
      return path;
    };
    const probe = async (dockerPath: string) => {
      const root = await open(join(d, 'root'), 'r');
      const anchor = await open(join(d, 'anchor'), 'r');
      try {
        return await probeEngineView({ dockerPath }, 'img', 'p', { root: join(d, 'root'), rootFd: root.fd, anchorFd: anchor.fd });
      } finally {
        await root.close();
        await anchor.close();
      }
    };

    it('a file of the same name with other bytes is a mismatch: refused, and the nonce files are removed', async () => {
      // The engine answers every read with a file of its own (another host's directory).
      await writeFile(join(d, 'elsewhere', 'x'), 'not the nonce\n');
      const view = await probe(await fakeDocker(`tar -cf - -C ${d}/elsewhere x; exit 0`));
      assert.deepEqual(view, { sees: 'no', local: false, why: 'the engine has a different file at that path (it sees another file system there)' });
      assert.equal(mountAccess(view).kind, 'refused');
      assert.deepEqual(await readdir(join(d, 'root')), [], 'the probe left its nonce file in the source root');
      assert.deepEqual(await readdir(join(d, 'anchor')), []);
    });

    it('a missing file is refused with the engine\'s words, filtered', async () => {
      const view = await probe(await fakeDocker(`printf 'Error: Could not find the file /probe/x in container fakeid\\033[2J\\n' >&2; exit 1`));
      assert.equal(view.sees, 'no');
      assert.match(view.why!, /^the probe file written there was not found at that path on the engine \(Could not find the file \/probe\/x in container fakeid\?\?2J\)$/);
    });
  });
});
