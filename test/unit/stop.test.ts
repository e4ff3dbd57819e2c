/**
 * StopController's rules (src/core/run/stop.ts): cancel and timeout interrupt first (SIGINT,
 * SIGTERM) and remove after the grace; the first stop wins; a forced cancel, an output overflow,
 * a program not running yet, or a zero grace remove at once; nothing applies once the program ended.
 * The engine is a recording stand-in CLI (`dockerPath`, control calls on the CLI): what is asserted
 * is which engine commands the controller issues, in order. Container behaviour itself is tested
 * against a real engine (test/engine/fidelity.test.ts, runner.test.ts).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContainerLease } from '../../src/core/container/lease';
import { awaitRemovals } from '../../src/core/container/removals';
import type { DockerOptions } from '../../src/core/engine/contracts';
import { StopController } from '../../src/core/run/stop';

/** A long grace, ms: a removal before it ends can only come from a rule, never from the timer. */
const LONG_GRACE_MS = 600_000;

describe('StopController (unit)', () => {
  let dir: string;
  let log: string;
  let opts: DockerOptions;
  let n = 0;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sr-stop-'));
    log = join(dir, 'calls.log');
    const cli = join(dir, 'docker');
    // Says it is Docker's CLI, records every other call, and succeeds.
    writeFileSync(cli, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "Docker version 28.2.2, build e6534b4"; exit 0; fi\necho "$*" >> "${log}"\n`);
    chmodSync(cli, 0o755);
    opts = { dockerPath: cli, controlTransport: 'cli' };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => writeFileSync(log, ''));

  /** The calls the stand-in CLI got for `name`, in order (e.g. "kill --signal SIGINT", "rm -f -v"). */
  const calls = (name: string) => readFileSync(log, 'utf8').split('\n').filter((l) => l.endsWith(` ${name}`)).map((l) => l.slice(0, -name.length - 1));

  /** Waits until `name` got `count` calls (the controller's calls run in the background). */
  async function untilCalls(name: string, count: number): Promise<string[]> {
    for (let i = 0; i < 500 && calls(name).length < count; i++) await new Promise((r) => setTimeout(r, 20));
    return calls(name);
  }

  /** A lease of a created container that ends only when its container is removed (or killed). */
  function lease(): ContainerLease & { killed: string[] } {
    const name = `sandbox-runner-stop-${++n}`;
    const killed: string[] = [];
    return {
      name, kind: 'cold', ended: false, waiting: Promise.resolve(true), exit: new Promise(() => undefined), killed,
      kill: (signal: NodeJS.Signals) => void killed.push(signal),
    } as unknown as ContainerLease & { killed: string[] };
  }

  it('cancel: SIGINT first, removal only after the grace (here: a forced cancel ends the wait)', async () => {
    const stop = new StopController(opts, LONG_GRACE_MS);
    const l = lease();
    stop.bind(l);
    stop.running = true;
    stop.stop('cancelled');
    assert.equal(stop.reason, 'cancelled');
    assert.deepEqual(await untilCalls(l.name, 1), ['kill --signal SIGINT']);
    assert.equal(stop.removing, false, 'removed before the grace ended');
    stop.force();
    assert.equal(stop.removing, true);
    await stop.removal;
    assert.deepEqual(calls(l.name), ['kill --signal SIGINT', 'rm -f -v']);
    assert.equal(stop.reason, 'cancelled', 'the forced cancel keeps the first reason');
    stop.end();
  });

  it('timeout: SIGTERM first, then removal when the grace ends', async () => {
    const stop = new StopController(opts, 50);
    const l = lease();
    stop.bind(l);
    stop.running = true;
    stop.stop('timed-out');
    assert.equal(stop.reason, 'timed-out');
    await untilCalls(l.name, 2);
    await stop.removal;
    assert.deepEqual(calls(l.name), ['kill --signal SIGTERM', 'rm -f -v']);
    stop.end();
  });

  it('the wall-clock limit is armed when the code was sent (started), not before, and once', async () => {
    const stop = new StopController(opts, LONG_GRACE_MS, 30);
    const l = lease();
    stop.bind(l);
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(stop.reason, undefined, 'the limit expired before the program started');
    stop.started();
    assert.equal(stop.running, true);
    stop.bind(l); // a cold retry after a warm lease: the clock keeps running, it does not restart
    stop.started();
    for (let i = 0; i < 100 && !stop.reason; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(stop.reason, 'timed-out');
    assert.deepEqual(await untilCalls(l.name, 1), ['kill --signal SIGTERM']);
    stop.force();
    await stop.removal;
    stop.end();
  });

  it('no limit fires after the program ended', async () => {
    const stop = new StopController(opts, LONG_GRACE_MS, 20);
    const l = lease();
    stop.bind(l);
    stop.started();
    stop.end();
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(stop.reason, undefined);
    assert.deepEqual(calls(l.name), []);
  });

  it('a second stop changes nothing: the first reason and its one signal stay', async () => {
    const stop = new StopController(opts, LONG_GRACE_MS);
    const l = lease();
    stop.bind(l);
    stop.running = true;
    stop.stop('timed-out');
    stop.stop('cancelled');
    stop.stop('output-limit');
    assert.equal(stop.reason, 'timed-out');
    assert.deepEqual(await untilCalls(l.name, 1), ['kill --signal SIGTERM']);
    assert.equal(stop.removing, false);
    stop.removeNow();
    await stop.removal;
    assert.deepEqual(calls(l.name), ['kill --signal SIGTERM', 'rm -f -v']);
    stop.end();
  });

  it('timeout and cancel remove at once when the program is not running yet, or the grace is 0', async () => {
    for (const [grace, running] of [[LONG_GRACE_MS, false], [0, true]] as const) {
      for (const reason of ['timed-out', 'cancelled'] as const) {
        const stop = new StopController(opts, grace);
        const l = lease();
        stop.bind(l);
        stop.running = running;
        stop.stop(reason);
        assert.equal(stop.removing, true, `${reason}, grace ${grace}, running ${running}`);
        await stop.removal;
        assert.deepEqual(calls(l.name), ['rm -f -v'], 'no interrupt');
        stop.end();
      }
    }
  });

  it('the output bound removes at once, without an interrupt', async () => {
    const stop = new StopController(opts, LONG_GRACE_MS);
    const l = lease();
    stop.bind(l);
    stop.running = true;
    stop.stop('output-limit');
    await stop.removal;
    assert.deepEqual(calls(l.name), ['rm -f -v']);
    stop.end();
  });

  it('a stop before the container is bound removes it as soon as it is bound', async () => {
    const stop = new StopController(opts, LONG_GRACE_MS);
    stop.stop('cancelled');
    assert.equal(stop.removal, undefined);
    const l = lease();
    stop.bind(l);
    await stop.removal;
    assert.deepEqual(calls(l.name), ['rm -f -v']);
    stop.end();
  });

  it('after the program ended, no stop applies', async () => {
    const stop = new StopController(opts, LONG_GRACE_MS);
    const l = lease();
    stop.bind(l);
    stop.running = true;
    stop.end();
    stop.stop('timed-out');
    stop.force();
    assert.equal(stop.reason, undefined);
    assert.equal(stop.removal, undefined);
    assert.deepEqual(await awaitRemovals(), []);
    assert.deepEqual(calls(l.name), []);
  });
});
