/**
 * Runs in Restricted Mode use built-in and user profiles and user settings only: the hostile
 * workspace's python override (network bridge, rw mounts of /etc and the home folder, the
 * largest limits, extra docker keys), its own profiles, its defaultProfile, its global limits
 * and its dockerPath never take effect. Checked from the output header, the result, the
 * engine's containers, and from inside the container (probe.py).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { IMAGES, containerExists, docker, ownContainers } from '../suite/helpers';
import { BUILTIN_PYTHON_IMAGE, USER_PYTHON, assertFakeDockerNeverRan, getApi, nonWarmContainers, openFile, probeLines, runActiveEditor, runCommand, runsStartedBy, setUserProfiles } from './helpers';

/** The floor's limits line, as the header prints it (built-in defaults; nothing from the workspace). */
const DEFAULT_LIMITS = 'limits 512 MiB memory, 1 CPU, 128 processes, 30 s, 1048576 bytes per stream';

async function imagePresent(image: string): Promise<boolean> {
  return docker(['image', 'inspect', image]).then(
    () => true,
    () => false,
  );
}

describe('runs in Restricted Mode (trust host)', function () {
  this.timeout(60_000);
  after(async () => {
    // Later files expect the user python profile; a failed test here must not leave runs behind.
    await setUserProfiles(USER_PYTHON);
  });

  it('without a user profile, a python file runs with the BUILT-IN python profile (the workspace override is ignored)', async function () {
    await setUserProfiles(undefined);
    const api = await getApi();
    await openFile('notes.txt');
    await openFile('probe.py');
    const { value: { result, text }, started } = await runsStartedBy(api, () => runActiveEditor(api));
    assert.equal(started.length, 1, 'exactly one run started');
    assert.equal(started[0]!.profileName, 'python', 'the hostile workspace profile "hostile" (which sorts first and lists python) was picked');
    assert.match(text, /profile python \(built-in\) · image python:3\.12-slim · network off\n/, `header:\n${text}`);
    assert.ok(text.includes(DEFAULT_LIMITS), `the limits are not the built-in ones (the workspace raised them):\n${text}`);
    if (await imagePresent(BUILTIN_PYTHON_IMAGE)) {
      // A machine that pulled the real image: the run works, with the floor.
      assert.equal(result.outcome, 'exited', result.message);
      assert.equal(probeLines(text).get('net'), 'lo', text);
    } else {
      assert.equal(result.outcome, 'failed-to-start', result.message);
      assert.equal(result.error?.code, 'image-missing', JSON.stringify(result.error));
      assert.ok(result.message.includes(BUILTIN_PYTHON_IMAGE), `the error does not name ${BUILTIN_PYTHON_IMAGE}: ${result.message}`);
      assert.match(result.error.fix, /docker pull python:3\.12-slim/, `the fix does not say how to get the image: ${result.error.fix}`);
      assert.ok(text.includes(`failed · ${result.message}`), `the output does not show the failure:\n${text}`);
      assert.doesNotMatch(text, /PROBE/, 'the probe ran');
      // Nothing was created: not the run's container, nor a warm one (the image is missing).
      assert.equal(await containerExists(result.containerName), false, `container ${result.containerName} exists`);
      assert.deepEqual(await ownContainers(), [], 'the failed run left containers');
    }
    assertFakeDockerNeverRan('after a run with the built-in profile');
  });

  it('with a USER python profile (local test image), the run uses it and the floor holds inside the container', async function () {
    await setUserProfiles(USER_PYTHON);
    const api = await getApi();
    const python = api.profiles().find((p) => p.name === 'python');
    assert.equal(python?.source, 'user', `api.profiles() python: ${JSON.stringify(python)}`);
    assert.equal(python?.image, IMAGES.python);
    assert.equal(python?.network, 'none');
    await openFile('probe.py');
    const { result, text } = await runActiveEditor(api);
    assert.equal(result.outcome, 'exited', `${result.message}\n${text}`);
    assert.equal(result.exitCode, 0, text);
    assert.match(text, new RegExp(`profile python \\(user\\) · image ${IMAGES.python.replace(/[./]/g, '\\$&')} · network off\\n`), `header:\n${text}`);
    assert.ok(text.includes(DEFAULT_LIMITS), `the limits are not the built-in ones:\n${text}`);
    assert.match(text, /PROBE done/, `probe.py did not finish:\n${text}`);
    const probe = probeLines(text);
    assert.equal(probe.get('net'), 'lo', `the container has a network besides loopback (the workspace asked for bridge):\n${text}`);
    assert.equal(probe.get('uid'), '65534', 'the workspace\'s "user": "0:0" took effect');
    assert.equal(probe.get('env HOSTILE_DOTTED'), 'unset', 'the dotted workspace profile\'s env reached the container');
    assert.equal(probe.get('env HOSTILE_NESTED'), 'unset', 'the nested workspace profile\'s env reached the container');
    for (const path of ['/host-etc', '/host-home', '/hostile']) assert.equal(probe.get(`mount ${path}`), 'absent', `the workspace's mount ${path} is present:\n${text}`);
    assert.equal(probe.get('memory'), String(512 * 1024 * 1024), `memory limit is not the built-in 512 MiB:\n${text}`);
    assert.equal(probe.get('pids'), '128', `pids limit is not the built-in 128:\n${text}`);
    assert.deepEqual(await nonWarmContainers(), [], 'the run left its container');
    assertFakeDockerNeverRan('after a run with the user profile');
  });

  it('runWithProfile refuses the workspace-only profiles and says why', async function () {
    const api = await getApi();
    await openFile('probe.py');
    for (const name of ['hostile', 'privileged']) {
      const { value: { value, text }, started } = await runsStartedBy(api, () => runCommand(api, 'sandboxRunner.runWithProfile', name));
      assert.equal(value, undefined, `runWithProfile("${name}") returned ${JSON.stringify(value)}`);
      assert.deepEqual(started, [], `a run started with the workspace profile "${name}"`);
      assert.ok(
        text.includes(`No valid profile named "${name}". Workspace profiles are ignored in an untrusted workspace.`),
        `the output does not say why "${name}" did not run:\n${text}`,
      );
    }
    assertFakeDockerNeverRan('after runWithProfile');
  });

  it('the workspace\'s defaultProfile is ignored: a text file (no profile) does not run', async function () {
    const api = await getApi();
    await openFile('notes.txt');
    const { value: { value, text }, started } = await runsStartedBy(api, () => runCommand(api, 'sandboxRunner.run'));
    assert.equal(value, undefined, `a text file ran: ${JSON.stringify(value)}`);
    assert.deepEqual(started, [], `a run started for notes.txt: ${JSON.stringify(started)}`);
    assert.doesNotMatch(text, /HOSTILE-TEXT-RAN|profile hostile/, text);
  });

  it('refreshing the profiles view checks the engine with the user docker, never the workspace\'s', async function () {
    await getApi();
    await vscode.commands.executeCommand('sandboxRunner.refreshProfiles');
    assertFakeDockerNeverRan('after sandboxRunner.refreshProfiles');
  });
});

