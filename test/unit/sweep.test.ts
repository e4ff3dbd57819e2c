import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LABELS } from '../../src/core/ownership/labels';
import { notProductNamed } from '../../src/core/sweep/reaper';
import { ownerLiveness, type ProcessProbe } from '../../src/core/ownership/liveness';
import { removeStaleAnchors, removeStaleEngineDirs, removeStaleSnippetDir } from '../../src/core/sweep/hostDirs';
import { statStartTime, statState } from '../../src/core/engine/procLiveness';

/** A /proc/<pid>/stat line; `comm` may contain spaces and parentheses. */
const statLine = (pid: number, comm: string, state: string, start: number) =>
  `${pid} (${comm}) ${state} 1 ${pid} ${pid} 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 ${start} 1000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0`;

/** A machine with processes pid → [state, start]. */
function probe(procs: Record<number, [string, number]>, over: Partial<ProcessProbe> = {}): ProcessProbe {
  return {
    host: 'box',
    pidNamespace: 'pid:[4026531836]',
    bootId: 'boot-1',
    selfPid: 100,
    selfStart: '5000',
    exists: (pid) => (procs[pid] ? 'present' : 'absent'),
    stat: (pid) => (procs[pid] ? statLine(pid, 'node (x) y', procs[pid]![0], procs[pid]![1]) : undefined),
    ...over,
  };
}

const labels = (over: Record<string, string> = {}) => ({
  [LABELS.ownerPid]: '4242',
  [LABELS.host]: 'box',
  [LABELS.ownerPidNamespace]: 'pid:[4026531836]',
  [LABELS.ownerBoot]: 'boot-1',
  [LABELS.ownerStart]: '7777',
  ...over,
});

describe('orphan liveness (unit)', () => {
  it('parses start time and state after the last ")" of /proc/<pid>/stat', () => {
    const line = statLine(7, 'a) b (c', 'Z', 123456);
    assert.equal(statStartTime(line), '123456');
    assert.equal(statState(line), 'Z');
    assert.equal(statStartTime('garbage'), undefined);
  });

  it('dead only when provable: pid gone, zombie, or pid reused (other start time)', () => {
    assert.equal(ownerLiveness(labels(), probe({})).state, 'dead');
    assert.match(ownerLiveness(labels(), probe({})).reason, /pid 4242\) is gone/);
    assert.equal(ownerLiveness(labels(), probe({ 4242: ['Z', 7777] })).state, 'dead');
    const reused = ownerLiveness(labels(), probe({ 4242: ['S', 9999] }));
    assert.equal(reused.state, 'dead');
    assert.match(reused.reason, /started at tick 9999/);
    assert.equal(ownerLiveness(labels(), probe({ 4242: ['S', 7777] })).state, 'alive');
    assert.equal(ownerLiveness(labels(), probe({ 4242: ['R', 7777] })).state, 'alive');
  });

  it('never dead when liveness is unknown', () => {
    const p = probe({}); // every pid is gone: only the guards below keep these
    const cases: Record<string, Record<string, string>> = {
      'other host': { [LABELS.host]: 'other' },
      'no host label': { [LABELS.host]: '' },
      'other pid namespace': { [LABELS.ownerPidNamespace]: 'pid:[4026532000]' },
      'no pidns label': { [LABELS.ownerPidNamespace]: '' },
      'owner could not read its pidns': { [LABELS.ownerPidNamespace]: 'unknown' },
      'other boot': { [LABELS.ownerBoot]: 'boot-0' },
      'no pid label': { [LABELS.ownerPid]: '' },
      'malformed pid': { [LABELS.ownerPid]: '12a' },
      'pid 0': { [LABELS.ownerPid]: '0' },
      'negative pid': { [LABELS.ownerPid]: '-1' },
      'huge pid': { [LABELS.ownerPid]: '99999999999' },
    };
    for (const [what, over] of Object.entries(cases)) {
      assert.equal(ownerLiveness(labels(over), p).state, 'unknown', what);
    }
    assert.equal(ownerLiveness(labels(), probe({}, { pidNamespace: 'unknown' })).state, 'unknown', 'own /proc unreadable');
    assert.equal(ownerLiveness(labels(), probe({}, { bootId: 'unknown' })).state, 'unknown', 'own boot id unreadable');
    assert.equal(ownerLiveness(labels(), probe({}, { exists: () => 'unknown' })).state, 'unknown', 'kill(0) inconclusive');
    assert.equal(ownerLiveness(labels(), probe({ 4242: ['S', 7777] }, { stat: () => undefined })).state, 'unknown', 'stat unreadable');
  });

  it('without a start-time label, a live pid counts as alive and a missing one as dead', () => {
    assert.equal(ownerLiveness(labels({ [LABELS.ownerStart]: '' }), probe({ 4242: ['S', 1] })).state, 'alive');
    assert.equal(ownerLiveness(labels({ [LABELS.ownerStart]: '' }), probe({})).state, 'dead');
  });

  it('the client host is proven by the boot id, never by the host name alone (decision table)', () => {
    // Every owner pid here is gone: only the client-host proof decides.
    const gone = probe({});
    const rows: [string, Record<string, string>, Partial<ProcessProbe>, 'dead' | 'unknown'][] = [
      ['same host name, boot and pid namespace', {}, {}, 'dead'],
      // A container made by an older version, or by another client of a shared engine that is
      // also called "box" and runs in the initial pid namespace (same inode on every machine).
      ['no boot label, same host name and pid namespace', { [LABELS.ownerBoot]: '' }, {}, 'unknown'],
      ['boot label "unknown" (owner could not read it)', { [LABELS.ownerBoot]: 'unknown' }, {}, 'unknown'],
      ['another client: same host name and pidns, other boot id', { [LABELS.ownerBoot]: 'boot-2' }, {}, 'unknown'],
      ['another client: other host name, same boot id', { [LABELS.host]: 'laptop' }, {}, 'unknown'],
      ['same kernel, other pid namespace (a devcontainer and its host)', { [LABELS.ownerPidNamespace]: 'pid:[4026532999]' }, {}, 'unknown'],
      ['this client cannot read its boot id', {}, { bootId: 'unknown' }, 'unknown'],
      ['this client cannot read its pid namespace', {}, { pidNamespace: 'unknown' }, 'unknown'],
    ];
    for (const [what, over, probeOver, expected] of rows) {
      assert.equal(ownerLiveness(labels(over), { ...gone, ...probeOver }).state, expected, what);
    }
    assert.match(ownerLiveness(labels({ [LABELS.ownerBoot]: '' }), gone).reason, /owner-boot label is missing/);
  });

  it('recognises its own containers, and an earlier process that had our pid', () => {
    const p = probe({ 100: ['R', 5000] });
    assert.equal(ownerLiveness(labels({ [LABELS.ownerPid]: '100', [LABELS.ownerStart]: '5000' }), p).state, 'self');
    assert.equal(ownerLiveness(labels({ [LABELS.ownerPid]: '100', [LABELS.ownerStart]: '42' }), p).state, 'dead');
  });

  it('deletes a dead run\'s snippet directory only when it is exactly what writeSnippet makes', async () => {
    const tmp = await realpath(tmpdir());
    const made = await mkdtemp(join(tmp, 'sandbox-runner-'));
    await writeFile(join(made, 'main.py'), 'print(1)\n');
    assert.equal(removeStaleSnippetDir(made), true);
    assert.equal(existsSync(made), false);

    const extra = await mkdtemp(join(tmp, 'sandbox-runner-'));
    await writeFile(join(extra, 'main.py'), '');
    await writeFile(join(extra, 'notes.txt'), 'not ours');
    const nested = await mkdtemp(join(tmp, 'sr-reaper-unit-'));
    const deeper = join(nested, 'sandbox-runner-abcdef');
    await mkdir(deeper);
    const link = join(tmp, `sandbox-runner-${Math.random().toString(36).slice(2, 8).padEnd(6, 'x')}`);
    await symlink(nested, link);
    try {
      assert.equal(removeStaleSnippetDir(extra), false, 'holds a file writeSnippet never makes');
      assert.equal(removeStaleSnippetDir(deeper), false, 'not directly in the temp directory');
      assert.equal(removeStaleSnippetDir(link), false, 'a symlink');
      assert.equal(removeStaleSnippetDir('/etc'), false);
      assert.equal(removeStaleSnippetDir(join(tmp, 'sandbox-runner-')), false);
      assert.ok(existsSync(extra) && existsSync(deeper) && existsSync(nested));
    } finally {
      await rm(extra, { recursive: true, force: true });
      await rm(nested, { recursive: true, force: true });
      await rm(link, { force: true });
    }
  });
});

describe('product containers are told by their name, not their labels (unit)', () => {
  const id = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
  it('accepts exactly sandbox-runner-<run-id label> with a UUID run id', () => {
    assert.equal(notProductNamed({ name: `sandbox-runner-${id}`, labels: { [LABELS.runId]: id } }), undefined);
  });
  it('refuses other names, other run ids and run ids that are not UUIDs', () => {
    for (const [name, runId] of [
      ['othertool-db', id],
      [`sandbox-runner-${id}-x`, id],
      [`x-sandbox-runner-${id}`, id],
      [`sandbox-runner-${id}`, '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5c'],
      ['sandbox-runner-abc', 'abc'],
      ['sandbox-runner-', ''],
      [`sandbox-runner-${id.toUpperCase()}`, id.toUpperCase()],
    ]) {
      assert.ok(notProductNamed({ name: name!, labels: { [LABELS.runId]: runId! } }), name);
    }
    assert.ok(notProductNamed({ name: `sandbox-runner-${id}`, labels: {} }));
  });
});

describe('pin anchor sweep (unit)', () => {
  it('removes the anchor folders of dead owners only, and only when they hold nothing but anchor links', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'sr-anchors-')));
    try {
      const make = async (name: string, extra?: string) => {
        await mkdir(join(root, name));
        await symlink('/proc/1/fd/7', join(root, name, '0123456789abcdef0123456789abcdef'));
        if (extra) await writeFile(join(root, name, extra), 'x');
        return join(root, name);
      };
      const dead = await make('sandbox-runner-pin-4242-7777-AbC123');
      const reused = await make('sandbox-runner-pin-4343-7777-AbC123');
      const alive = await make('sandbox-runner-pin-4444-7777-AbC123');
      const foreign = await make('sandbox-runner-pin-4545-7777-AbC123', 'notes.txt');
      const other = await make('something-else');
      const removed = removeStaleAnchors(probe({ 4343: ['S', 9999], 4444: ['S', 7777] }), [root]);
      assert.deepEqual(removed, [dead, reused].sort());
      for (const kept of [alive, foreign, other]) assert.ok(existsSync(kept), kept);
      assert.ok(!existsSync(dead) && !existsSync(reused));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('engine work directory sweep (unit)', () => {
  it('removes the engine work folders of dead owners only, and only when they hold nothing but ours', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'sr-engine-dirs-')));
    try {
      const make = async (name: string, extra?: string) => {
        await mkdir(join(root, name, 'sandbox-runner-3f1c2a4e'), { recursive: true });
        await writeFile(join(root, name, 'sandbox-runner-3f1c2a4e', 'oom'), '');
        await writeFile(join(root, name, 'seccomp-0.json'), '{}');
        if (extra) await writeFile(join(root, name, extra), 'x');
        return join(root, name);
      };
      const dead = await make('sandbox-runner-engine-4242-7777-AbC123');
      const reused = await make('sandbox-runner-engine-4343-7777-AbC123');
      const alive = await make('sandbox-runner-engine-4444-7777-AbC123');
      const foreign = await make('sandbox-runner-engine-4545-7777-AbC123', 'notes.txt');
      const other = await make('sandbox-runner-pin-4242-7777-AbC123');
      const removed = removeStaleEngineDirs(probe({ 4343: ['S', 9999], 4444: ['S', 7777] }), root);
      assert.deepEqual(removed, [dead, reused].sort());
      for (const kept of [alive, foreign, other]) assert.ok(existsSync(kept), kept);
      assert.ok(!existsSync(dead) && !existsSync(reused));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
