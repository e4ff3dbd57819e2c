/**
 * Warm start in the real extension host, in Restricted Mode: the user's sandboxRunner.warmStart
 * "all" (seeded by the runner) counts, the hostile workspace's "off" does not. A container is
 * prepared by the profile's first run, or on opening a python file after one (issue 12: not on a
 * tab switch); it waits for the python profile with exactly the floor; the next run takes it (its result names
 * that container) and a fresh one replaces it. That the window's warm containers are removed on
 * deactivate is checked by runHostTests.ts from outside, after the extension host has exited.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { IMAGES, containerExists, docker } from '../suite/helpers';
import { USER_PYTHON, WARM_LABEL, assertFakeDockerNeverRan, getApi, nonWarmContainers, openFile, probeLines, runActiveEditor, setUserProfiles, waitForWarm, warmContainers } from './helpers';

interface Inspected {
  Config: { User: string; Env: string[]; Image: string; Labels: Record<string, string> };
  HostConfig: {
    NetworkMode: string;
    ReadonlyRootfs: boolean;
    Privileged: boolean;
    CapDrop: string[] | null;
    CapAdd: string[] | null;
    SecurityOpt: string[] | null;
    Memory: number;
    MemorySwap: number;
    PidsLimit: number | null;
    Mounts?: { Type?: string; Source: string; Target: string; ReadOnly?: boolean }[] | null;
    Binds: string[] | null;
  };
}

/** Empties the warm pool: the user's warmStart "off" removes its containers, then "all" again (both user settings). */
async function resetPool(): Promise<void> {
  const config = () => vscode.workspace.getConfiguration('sandboxRunner');
  await config().update('warmStart', 'off', vscode.ConfigurationTarget.Global);
  const end = Date.now() + 20_000;
  while ((await warmContainers('python')).length > 0) {
    if (Date.now() > end) throw new Error('warm containers stayed after warmStart "off"');
    await new Promise((r) => setTimeout(r, 200));
  }
  await config().update('warmStart', 'all', vscode.ConfigurationTarget.Global);
  assert.equal(config().inspect('warmStart')?.globalValue, 'all');
}

async function inspect(name: string): Promise<Inspected> {
  const [info] = JSON.parse(await docker(['container', 'inspect', name])) as Inspected[];
  assert.ok(info, `docker inspect ${name} returned nothing`);
  return info;
}

describe('warm start in Restricted Mode (trust host)', function () {
  this.timeout(60_000);

  before(async function () {
    await setUserProfiles(USER_PYTHON);
    await getApi();
  });

  it('the user\'s warmStart "all" counts and the workspace\'s "off" does not; a tab switch prepares nothing, the first run of the python profile does', async function () {
    const inspected = vscode.workspace.getConfiguration('sandboxRunner').inspect('warmStart');
    assert.equal(inspected?.globalValue, 'all', 'the runner did not seed the user setting sandboxRunner.warmStart "all"');
    // Earlier suites ran python: start from an empty pool (turning warm start off removes its containers).
    await resetPool();
    // Issue 12: switching tabs prepares no warm container, even for a language run in this window.
    await openFile('notes.txt');
    await openFile('probe.py');
    await openFile('notes.txt');
    await openFile('probe.py');
    await new Promise((r) => setTimeout(r, 3_000));
    assert.deepEqual(await warmContainers('python'), [], 'switching tabs prepared a warm container');
    // The profile's run (cold) prepares the next run's container.
    const { result } = await runActiveEditor(await getApi());
    assert.equal(result.outcome, 'exited', result.message);
    const warm = await waitForWarm('python');
    assert.ok(warm.startsWith('sandbox-runner-'), warm);
    assert.notEqual(result.containerName, warm);
  });

  it('opening a file of a language run in this window prepares a warm container', async function () {
    await resetPool();
    const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, `opened-${Date.now()}.py`);
    await vscode.workspace.fs.writeFile(uri, Buffer.from('print("HOST-OPENED")\n'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
    const warm = await waitForWarm('python');
    assert.ok(warm.startsWith('sandbox-runner-'), warm);
  });

  it('the warm container has the floor and none of the workspace\'s loosenings', async function () {
    const name = await waitForWarm('python');
    const info = await inspect(name);
    const h = info.HostConfig;
    assert.equal(info.Config.Image, IMAGES.python, 'the warm container is not for the user python profile');
    assert.equal(info.Config.Labels[WARM_LABEL], '1');
    assert.equal(info.Config.Labels['sandbox-runner.owner-pid'], String(process.pid));
    assert.equal(h.NetworkMode, 'none', 'the warm container has a network');
    assert.equal(h.Privileged, false);
    assert.equal(h.ReadonlyRootfs, true);
    assert.deepEqual(h.CapDrop?.map((c) => c.toUpperCase().replace(/^CAP_/, '')), ['ALL']);
    assert.ok(!h.CapAdd?.length, `capabilities added: ${JSON.stringify(h.CapAdd)}`);
    assert.ok(h.SecurityOpt?.some((o) => /^no-new-privileges(:true|=true)?$/.test(o)), `no no-new-privileges: ${JSON.stringify(h.SecurityOpt)}`);
    assert.equal(h.Memory, 512 * 1024 * 1024);
    assert.equal(h.MemorySwap, 512 * 1024 * 1024);
    assert.equal(h.PidsLimit, 128);
    assert.equal(info.Config.User, '65534:65534');
    assert.ok(!info.Config.Env.some((e) => e.startsWith('HOSTILE_')), `the workspace's env reached the warm container: ${info.Config.Env.join(' ')}`);
    const sources = [...(h.Mounts ?? []).map((m) => m.Source), ...(h.Binds ?? [])];
    assert.ok(!sources.some((s) => s === '/etc' || s.startsWith('/etc/') || s.includes('hostile-workspace') || s === process.env.HOME), `workspace mounts reached the warm container: ${JSON.stringify(sources)}`);
    // Profile mounts reach a container as pinned volumes (no Source in HostConfig): none here.
    assert.deepEqual((h.Mounts ?? []).filter((m) => m.Type === 'volume'), [], 'a profile mount (pinned volume) reached the warm container');
  });

  it('the next run takes the warm container (its result names it) and a fresh one replaces it', async function () {
    const api = await getApi();
    await openFile('probe.py');
    const warm = await waitForWarm('python');
    const { result, text } = await runActiveEditor(api);
    assert.equal(result.outcome, 'exited', `${result.message}\n${text}`);
    assert.equal(result.containerName, warm, `the run did not use the warm container ${warm} (it ran in ${result.containerName})`);
    assert.match(text, /profile python \(user\)/, text);
    assert.equal(probeLines(text).get('net'), 'lo', `the warm run has a network:\n${text}`);
    assert.equal(await containerExists(warm), false, `the used warm container ${warm} was not removed after its run`);
    const next = await waitForWarm('python', 20_000, warm);
    assert.notEqual(next, warm, 'a warm container served a second run');
    assert.deepEqual(await nonWarmContainers(), [], 'the run left a container behind');
  });

  it('a second run in a row is warm too, each in its own container', async function () {
    const api = await getApi();
    const names: string[] = [];
    for (let i = 0; i < 2; i++) {
      const warm = await waitForWarm('python', 20_000, names[names.length - 1]);
      const { result, text } = await runActiveEditor(api);
      assert.equal(result.outcome, 'exited', `${result.message}\n${text}`);
      assert.equal(result.containerName, warm, `run ${i + 1} did not take the waiting warm container`);
      names.push(result.containerName);
    }
    assert.notEqual(names[0], names[1]);
    await waitForWarm('python', 20_000, names[1]);
  });

  it('a warm container removed behind the extension\'s back (docker rm) does not break the next run', async function () {
    const api = await getApi();
    const warm = await waitForWarm('python');
    await docker(['rm', '-f', '-v', warm]);
    const { result, text } = await runActiveEditor(api);
    assert.equal(result.outcome, 'exited', `the run after the warm container vanished failed: ${result.message}\n${text}`);
    assert.match(text, /PROBE done/, text);
    await waitForWarm('python', 20_000, warm);
    assert.deepEqual(await nonWarmContainers(), [], 'the run left a container behind');
  });

  it('the workspace\'s warmIdleSeconds (10 s) is ignored: a warm container still waits after 13 s idle', async function () {
    this.timeout(40_000);
    const warm = await waitForWarm('python');
    const startedAt = Date.parse((await docker(['container', 'inspect', '--format', '{{.State.StartedAt}}', warm])).trim());
    assert.ok(Number.isFinite(startedAt), `no start time for ${warm}`);
    const wait = startedAt + 13_000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    assert.ok((await warmContainers('python')).includes(warm), `the warm container ${warm} expired after ~10 s idle: the workspace's sandboxRunner.warmIdleSeconds took effect`);
  });

  after(function () {
    assertFakeDockerNeverRan('after the warm runs');
  });
});
