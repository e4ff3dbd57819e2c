import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import {
  closeProcessLease,
  DEFAULT_LEASE_PERIOD_MS,
  hostIdIn,
  type LeaseFile,
  leaseLiveness,
  leasePathFor,
  leasePeriodMs,
  OwnerLease,
  readLeaseFile,
  removeOldLeaseFiles,
} from '../../src/core/ownership/ownerLease';
import { containerLiveness, type LeaseView, localLeaseView, type ProcessProbe } from '../../src/core/ownership/liveness';
import { LABELS } from '../../src/core/ownership/labels';
import { stateDirFor } from '../../src/core/stateDir';

const ID = '0123456789abcdef0123456789abcdef';
const HOST = 'fedcba9876543210fedcba9876543210';

/** Label values a container (or its image) could carry to point the sweep elsewhere. */
const HOSTILE_IDS = [
  '../../../etc/passwd', '/etc/passwd', '..\\..\\Windows\\System32\\config\\SAM', 'C:\\Users\\me\\x', '\\\\server\\share\\x',
  `${ID}/../../x`, `${ID}\n`, `${ID}.lease`, ID.toUpperCase(), `${ID}0`, ID.slice(1), '', ' ', '%2e%2e%2f', `../${ID}`,
];

describe('owner lease state directory (unit)', () => {
  it('lays out the state directory per platform, with each platform\'s path flavour', () => {
    assert.equal(stateDirFor({ platform: 'linux', env: {}, home: '/home/me' }), '/home/me/.local/state/sandbox-runner');
    assert.equal(stateDirFor({ platform: 'linux', env: { XDG_STATE_HOME: '/xdg/state' }, home: '/home/me' }), '/xdg/state/sandbox-runner');
    // A relative XDG value is ignored (XDG Base Directory Specification).
    assert.equal(stateDirFor({ platform: 'linux', env: { XDG_STATE_HOME: 'rel/state' }, home: '/home/me' }), '/home/me/.local/state/sandbox-runner');
    assert.equal(stateDirFor({ platform: 'freebsd', env: {}, home: '/usr/home/me' }), '/usr/home/me/.local/state/sandbox-runner');
    assert.equal(stateDirFor({ platform: 'darwin', env: { XDG_STATE_HOME: '/ignored' }, home: '/Users/Me' }), '/Users/Me/Library/Application Support/sandbox-runner');
    assert.equal(stateDirFor({ platform: 'win32', env: { LOCALAPPDATA: 'C:\\Users\\Me\\AppData\\Local' }, home: 'C:\\Users\\Me' }), 'C:\\Users\\Me\\AppData\\Local\\sandbox-runner');
    assert.equal(stateDirFor({ platform: 'win32', env: {}, home: 'C:\\Users\\Me' }), 'C:\\Users\\Me\\AppData\\Local\\sandbox-runner');
    assert.equal(stateDirFor({ platform: 'win32', env: { LOCALAPPDATA: 'relative\\dir' }, home: 'D:\\h' }), 'D:\\h\\AppData\\Local\\sandbox-runner');
    assert.equal(stateDirFor({ platform: 'win32', env: { LOCALAPPDATA: '\\\\srv\\profiles\\me' }, home: 'C:\\h' }), '\\\\srv\\profiles\\me\\sandbox-runner');
  });

  it('derives a lease path only from an id, inside the state directory, under both path flavours', () => {
    assert.equal(leasePathFor('/home/me/.local/state/sandbox-runner', ID, posix), `/home/me/.local/state/sandbox-runner/owners/${ID}.lease`);
    assert.equal(leasePathFor('C:\\Users\\Me\\AppData\\Local\\sandbox-runner', ID, win32), `C:\\Users\\Me\\AppData\\Local\\sandbox-runner\\owners\\${ID}.lease`);
    for (const flavour of [posix, win32]) {
      const dir = flavour === win32 ? 'C:\\state' : '/state';
      for (const bad of HOSTILE_IDS) assert.equal(leasePathFor(dir, bad, flavour), undefined, JSON.stringify(bad));
    }
  });

  it('takes the refresh period from the test-only variable only within 100 … 600 000 ms', () => {
    assert.equal(leasePeriodMs({}), DEFAULT_LEASE_PERIOD_MS);
    assert.equal(leasePeriodMs({ SANDBOX_RUNNER_LEASE_PERIOD_MS: '500' }), 500);
    for (const bad of ['99', '600001', '1.5', 'abc', '-1', '']) assert.equal(leasePeriodMs({ SANDBOX_RUNNER_LEASE_PERIOD_MS: bad }), DEFAULT_LEASE_PERIOD_MS, bad);
  });
});

describe('owner lease liveness (unit)', () => {
  const now = 1_000_000_000;
  const file = (ageMs: number, periodMs = 10_000): LeaseFile => ({ kind: 'file', mtimeMs: now - ageMs, periodMs });

  it('decides dead, alive or unknown from the lease file alone', () => {
    const rows: [string, LeaseFile, boolean, 'dead' | 'alive' | 'unknown', RegExp][] = [
      ['missing file', { kind: 'missing' }, true, 'dead', /lease is gone/],
      ['missing file, sweeper just woke', { kind: 'missing' }, false, 'dead', /lease is gone/],
      ['fresh', file(2_000), true, 'alive', /refreshed 2000 ms ago/],
      ['exactly 6 periods old', file(60_000), true, 'alive', /refreshed 60000 ms ago/],
      ['past 6 periods', file(60_001), true, 'dead', /60001 ms ago \(more than 6 refresh periods of 10000 ms\)/],
      ['past 6 periods, sweeper just woke', file(60_001), false, 'unknown', /this process was just suspended/],
      ['the owner\'s own short period', file(3_100, 500), true, 'dead', /periods of 500 ms/],
      ['mtime in the future (clock step)', file(-5_000), true, 'alive', /refreshed 0 ms ago/],
      ['unreadable', { kind: 'unreadable', why: 'EACCES' }, true, 'unknown', /cannot be read \(EACCES\)/],
    ];
    for (const [name, f, trusted, state, reason] of rows) {
      const r = leaseLiveness(f, now, trusted);
      assert.equal(r.state, state, name);
      assert.match(r.reason, reason, name);
    }
  });

  it('reads a lease file without following links, with the owner\'s period', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-lease-read-'));
    try {
      await writeFile(join(dir, 'a.lease'), '{"pid":1,"periodMs":500}\n');
      await writeFile(join(dir, 'b.lease'), 'not json');
      await writeFile(join(dir, 'c.lease'), '{"periodMs":5}');
      await symlink(join(dir, 'a.lease'), join(dir, 'link.lease'));
      await mkdir(join(dir, 'd.lease'));
      assert.deepEqual({ ...readLeaseFile(join(dir, 'a.lease')), mtimeMs: 0 }, { kind: 'file', mtimeMs: 0, periodMs: 500 });
      assert.equal((readLeaseFile(join(dir, 'b.lease')) as { periodMs: number }).periodMs, DEFAULT_LEASE_PERIOD_MS);
      assert.equal((readLeaseFile(join(dir, 'c.lease')) as { periodMs: number }).periodMs, DEFAULT_LEASE_PERIOD_MS, 'a period below 100 ms is not believed');
      assert.deepEqual(readLeaseFile(join(dir, 'link.lease')), { kind: 'unreadable', why: 'not a regular file' });
      assert.deepEqual(readLeaseFile(join(dir, 'd.lease')), { kind: 'unreadable', why: 'not a regular file' });
      assert.deepEqual(readLeaseFile(join(dir, 'none.lease')), { kind: 'missing' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps one host id per state directory, created once, replacing a malformed one', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'sr-hostid-')), 'state');
    try {
      const id = hostIdIn(dir);
      assert.match(id, /^[0-9a-f]{32}$/);
      assert.equal(hostIdIn(dir), id);
      assert.equal(readFileSync(join(dir, 'host-id'), 'utf8'), `${id}\n`);
      await writeFile(join(dir, 'host-id'), '../../etc\n');
      const fresh = hostIdIn(dir);
      assert.match(fresh, /^[0-9a-f]{32}$/);
      assert.notEqual(fresh, id);
      assert.equal(hostIdIn(dir), fresh);
    } finally {
      await rm(join(dir, '..'), { recursive: true, force: true });
    }
  });

  it('a lease file is created, refreshed by its timer, recreated when deleted, and removed on close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-lease-'));
    const lease = new OwnerLease(dir, HOST, 100);
    try {
      assert.match(lease.id, /^[0-9a-f]{32}$/);
      assert.equal(lease.path, join(dir, 'owners', `${lease.id}.lease`));
      assert.equal(JSON.parse(readFileSync(lease.path, 'utf8')).periodMs, 100);
      const old = new Date(Date.now() - 3_600_000);
      await utimes(lease.path, old, old);
      await new Promise((r) => setTimeout(r, 350));
      assert.ok(Date.now() - statSync(lease.path).mtimeMs < 1_000, 'the timer refreshed the mtime');
      await rm(lease.path);
      await new Promise((r) => setTimeout(r, 350));
      assert.ok(lstatSync(lease.path).isFile(), 'a deleted lease of a live owner is written again');
    } finally {
      lease.close();
    }
    assert.equal(existsSync(lease.path), false);
    lease.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('deletes only this module\'s lease files untouched for a day, and nothing right after a suspend', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-lease-gc-'));
    try {
      await mkdir(join(dir, 'owners'));
      const day = 24 * 60 * 60 * 1000;
      const made: Record<string, number> = {
        [`${ID}.lease`]: day + 60_000, [`${'b'.repeat(32)}.lease`]: day - 60_000, [`${'c'.repeat(32)}.lease.0123456789ab.tmp`]: day + 60_000,
        'notes.txt': day * 9, [`${ID.toUpperCase()}.lease`]: day * 9,
      };
      for (const [name, age] of Object.entries(made)) {
        await writeFile(join(dir, 'owners', name), '{}');
        const at = new Date(Date.now() - age);
        await utimes(join(dir, 'owners', name), at, at);
      }
      await symlink('/etc/hostname', join(dir, 'owners', `${'d'.repeat(32)}.lease`));
      assert.deepEqual(removeOldLeaseFiles(dir, Date.now(), false), [], 'a sweeper that just woke deletes nothing');
      assert.deepEqual(removeOldLeaseFiles(dir, Date.now(), true), [`${ID}.lease`, `${'c'.repeat(32)}.lease.0123456789ab.tmp`]);
      for (const kept of [`${'b'.repeat(32)}.lease`, 'notes.txt', `${ID.toUpperCase()}.lease`, `${'d'.repeat(32)}.lease`]) assert.ok(lstatSync(join(dir, 'owners', kept)), kept);
      assert.deepEqual(removeOldLeaseFiles(join(dir, 'none'), Date.now(), true), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a sweeper does not judge staleness while its own ticks are late, nor for two periods after a gap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-lease-clock-'));
    let t = 1_000_000;
    const lease = new OwnerLease(dir, HOST, 10_000, () => t);
    try {
      assert.equal(lease.clockTrusted(), true, 'a fresh process has no gap');
      t += 10_000;
      lease.tick();
      assert.equal(lease.clockTrusted(), true);
      t += 30_001; // suspended: the next tick is late by more than 3 periods
      assert.equal(lease.clockTrusted(), false, 'a tick overdue by more than 3 periods');
      lease.tick();
      assert.equal(lease.clockTrusted(), false, 'just woke');
      t += 10_000;
      lease.tick();
      assert.equal(lease.clockTrusted(), false);
      t += 10_000;
      lease.tick();
      assert.equal(lease.clockTrusted(), true, 'two periods after the gap');
    } finally {
      lease.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A machine without /proc (macOS, Windows, or SANDBOX_RUNNER_NO_PROC=1). */
const noProc: ProcessProbe = { host: 'box', pidNamespace: 'unknown', bootId: 'unknown', selfPid: 100, selfStart: 'unknown', exists: () => 'unknown', stat: () => undefined };
/** A Linux machine with /proc where pid 4242 is `pid4242`. */
const withProc = (pid4242: 'gone' | 'alive' | 'reused'): ProcessProbe => ({
  host: 'box', pidNamespace: 'pid:[1]', bootId: 'boot-1', selfPid: 100, selfStart: '5000',
  exists: (pid) => (pid === 4242 && pid4242 !== 'gone' ? 'present' : 'absent'),
  stat: (pid) => (pid === 4242 && pid4242 !== 'gone' ? `4242 (node) S ${'0 '.repeat(18)}${pid4242 === 'alive' ? 7777 : 9999} 1 1` : undefined),
});

describe('container liveness from leases and /proc (unit)', () => {
  const now = 1_000_000_000;
  /** A view of host HOST whose lease files are `files` by id; records what it read. */
  const view = (files: Record<string, LeaseFile>, over: Partial<LeaseView> = {}) => {
    const reads: string[] = [];
    const v: LeaseView = {
      hostId: HOST, selfLeaseId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', nowMs: now, clockTrusted: true,
      read: (id) => (reads.push(id), files[id] ?? { kind: 'missing' }),
      ...over,
    };
    return { v, reads };
  };
  const labels = (over: Record<string, string | undefined> = {}) => ({
    [LABELS.ownerPid]: '4242', [LABELS.host]: 'box', [LABELS.ownerPidNamespace]: 'pid:[1]', [LABELS.ownerBoot]: 'boot-1', [LABELS.ownerStart]: '7777',
    [LABELS.ownerLease]: ID, [LABELS.clientHost]: HOST, ...over,
  });
  const fresh: LeaseFile = { kind: 'file', mtimeMs: now - 1_000, periodMs: 10_000 };
  const stale: LeaseFile = { kind: 'file', mtimeMs: now - 600_000, periodMs: 10_000 };

  it('without /proc the lease alone decides, on this client host only', () => {
    const rows: [string, Record<string, LeaseFile>, Record<string, string | undefined>, Partial<LeaseView>, string, RegExp][] = [
      ['lease missing', {}, {}, {}, 'dead', /lease is gone/],
      ['lease stale', { [ID]: stale }, {}, {}, 'dead', /more than 6 refresh periods/],
      ['lease fresh', { [ID]: fresh }, {}, {}, 'alive', /refreshed 1000 ms ago/],
      ['lease stale, sweeper just woke', { [ID]: stale }, {}, { clockTrusted: false }, 'unknown', /just suspended/],
      ['another client host', {}, { [LABELS.clientHost]: 'b'.repeat(32) }, {}, 'unknown', /another client host \(host id b{32}\)/],
      ['this client has no host id', {}, {}, { hostId: undefined }, 'unknown', /host id cannot be read/],
      ['this process\'s own lease', {}, { [LABELS.ownerLease]: 'a'.repeat(32) }, {}, 'self', /belongs to this process/],
      ['lease label without host label', {}, { [LABELS.clientHost]: undefined }, {}, 'unknown', /client-host label is missing/],
      ['host label without lease label', {}, { [LABELS.ownerLease]: undefined }, {}, 'unknown', /owner-lease label is missing/],
      ['no lease labels: the /proc rule, unknown here', {}, { [LABELS.ownerLease]: undefined, [LABELS.clientHost]: undefined }, {}, 'unknown', /pid namespace/],
    ];
    for (const [name, files, over, viewOver, state, reason] of rows) {
      const r = containerLiveness(labels(over), noProc, view(files, viewOver).v);
      assert.equal(r.state, state, name);
      assert.match(r.reason, reason, name);
    }
  });

  it('with /proc a dead or reused pid is dead at once and a live owner is alive, whatever the lease says', () => {
    const rows: [string, ProcessProbe, LeaseFile, string, RegExp][] = [
      ['pid gone, lease fresh', withProc('gone'), fresh, 'dead', /pid 4242\) is gone/],
      ['pid reused, lease fresh', withProc('reused'), fresh, 'dead', /tick 9999/],
      ['pid alive, lease stale', withProc('alive'), stale, 'alive', /still running/],
      ['pid alive, lease missing', withProc('alive'), { kind: 'missing' }, 'alive', /still running/],
      ['other pid namespace: the lease decides', { ...withProc('alive'), pidNamespace: 'pid:[2]' }, stale, 'dead', /more than 6 refresh periods/],
      ['other boot: the lease decides', { ...withProc('gone'), bootId: 'boot-2' }, fresh, 'alive', /refreshed/],
    ];
    for (const [name, probe, file, state, reason] of rows) {
      const r = containerLiveness(labels(), probe, view({ [ID]: file }).v);
      assert.equal(r.state, state, name);
      assert.match(r.reason, reason, name);
    }
    // Another client host stays even when this machine's /proc says the pid is gone.
    assert.equal(containerLiveness(labels({ [LABELS.clientHost]: 'c'.repeat(32) }), withProc('gone'), view({}).v).state, 'unknown');
  });

  it('a hostile lease or host label never makes the sweep read a file (stat or delete) outside its state directory', () => {
    for (const bad of HOSTILE_IDS) {
      for (const key of [LABELS.ownerLease, LABELS.clientHost]) {
        const { v, reads } = view({});
        const r = containerLiveness(labels({ [key]: bad }), noProc, v);
        assert.equal(r.state, 'unknown', `${key}=${JSON.stringify(bad)}`);
        assert.deepEqual(reads, [], `${key}=${JSON.stringify(bad)} was read`);
      }
    }
  });

  it('the local view reads leases only inside its own state directory, and a stale file outside is never judged', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sr-lease-view-'));
    const saved = process.env.XDG_STATE_HOME;
    try {
      process.env.XDG_STATE_HOME = join(root, 'state');
      closeProcessLease();
      // A stale "lease" outside the state directory that a traversal would find.
      await writeFile(join(root, 'outside.lease'), '{}');
      const old = new Date(Date.now() - 3_600_000);
      await utimes(join(root, 'outside.lease'), old, old);
      const v = localLeaseView();
      assert.match(v.hostId ?? '', /^[0-9a-f]{32}$/);
      assert.ok(v.selfLeaseId && existsSync(join(root, 'state', 'sandbox-runner', 'owners', `${v.selfLeaseId}.lease`)), 'this process holds a lease in the state directory');
      for (const bad of ['../../outside', '../outside', join(root, 'outside'), ...HOSTILE_IDS]) {
        assert.equal(v.read(bad).kind, 'unreadable', bad);
        assert.equal(containerLiveness(labels({ [LABELS.ownerLease]: bad, [LABELS.clientHost]: v.hostId }), noProc, v).state, 'unknown', bad);
      }
      assert.equal(v.read(ID).kind, 'missing');
      assert.ok(existsSync(join(root, 'outside.lease')));
    } finally {
      closeProcessLease();
      if (saved === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = saved;
      await rm(root, { recursive: true, force: true });
    }
  });
});
