/**
 * Container listing with hostile label values (security review "attack2"): a label value is any
 * string the engine accepts, line breaks and tabs included (measured: Docker 20.10 and Podman 4.3
 * store `a\nb\tc` as it is). The CLI listing (`docker ps --format`, used without the Engine API:
 * Podman, `controlTransport: 'cli'`) printed values raw, one container per line and one value per
 * tab, so such a value forged whole extra "containers" with labels of its choosing for the
 * orphan sweep. Values are now printed as JSON strings.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { LABELS } from '../../src/core/ownership/labels';
import { listContainers } from '../../src/core/engine/containerOps';
import type { DockerOptions } from '../../src/core/engine/contracts';
import { engineCli, engineDocker, requireEngine } from './helpers';

const SUITE = 'sandbox-runner-test.attack2-labels';

describe('container listing with hostile label values (engine)', function () {
  this.timeout(60_000);
  const names: string[] = [];
  before(requireEngine);
  after(async () => {
    if (names.length) await engineCli(['rm', '-f', ...names], { reject: false });
  });

  const transports: Record<string, DockerOptions> = { cli: { ...engineDocker(), controlTransport: 'cli' }, default: { ...engineDocker() } };
  for (const [transport, opts] of Object.entries(transports)) {
    it(`${transport}: a value with a line break and tabs stays one value of one container (engine)`, async () => {
      const name = `sr-attack2-${randomUUID().slice(0, 8)}`;
      const forged = `sandbox-runner-${randomUUID()}`;
      const value = `1\n${forged}\t4242\tforged-host\t"q"\\`;
      names.push(name);
      await engineCli(['create', '--name', name, '--label', `${SUITE}=1`, '--label', `${LABELS.ownerPid}=${value}`, 'sandbox-runner-test/busybox:1', 'true']);
      const listed = await listContainers(opts, [`${SUITE}=1`], [LABELS.ownerPid, LABELS.host]);
      const mine = listed.filter((c) => c.name === name || c.name === forged || c.name.includes('\t'));
      assert.deepEqual(mine.map((c) => ({ name: c.name, pid: c.labels[LABELS.ownerPid], host: c.labels[LABELS.host] })), [{ name, pid: value, host: '' }]);
    });
  }
});
