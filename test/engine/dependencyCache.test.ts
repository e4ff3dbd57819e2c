/**
 * The dependency cache's upkeep (issue 22) against a real engine: least-recently-used pruning past
 * a size (each published set labelled with its installed size; the order from this user's record
 * of uses, cacheUse.ts), and the orphan sweep's removal of unpublished data volumes whose owner is
 * provably gone. Only this suite's sets and volumes are considered or removed (others may share
 * the engine). Installs come from the suite's own index (test/support/pipIndex.ts) on an
 * `--internal` network it creates and removes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { execa } from 'execa';
import { installDeclared, type DeclaredDependencies } from '../../src/core/deps/declared';
import { DEPS_DATA_LABEL, DEPS_KEY_LABEL, DEPS_KIB_LABEL, publishedSet } from '../../src/core/deps/install';
import { pruneOverCap } from '../../src/core/deps/prune';
import { isSandboxError } from '../../src/core/errors';
import { DEFAULT_DEPENDENCY_SETTINGS } from '../../src/core/profiles/dependencySettings';
import { LABELS, PRODUCT_LABEL } from '../../src/core/ownership/labels';
import { currentBootId, currentPidNamespace } from '../../src/core/engine/procLiveness';
import { localLeaseView, localProbe } from '../../src/core/ownership/liveness';
import { sweepUnpublishedSets } from '../../src/core/sweep/depVolumes';
import { LANGUAGE_IMAGES } from '../support/images';
import { PIP_INDEX_SCRIPT, PIP_INDEX_URL } from '../support/pipIndex';
import { requireEngine as requireTestEngine, TEST_ENGINE } from '../support/engine';
import { engineCli, engineDocker, IMAGES, noLeftoversAfterEach, pythonProfile } from './helpers';

const suffix = `${process.pid}-${Date.now().toString(36)}`;
const NET = `sandbox-runner-test-depcache-${suffix}`;
const REGISTRY = `sandbox-runner-test-depcachereg-${suffix}`;

/** A declaration of `specs` as the editor's would be. */
function declared(specs: string[]): DeclaredDependencies {
  return { manager: 'pip', specs, profileSpecs: [], untrustedSpecs: specs, where: 'the test' };
}

async function labelsOf(volume: string): Promise<Record<string, string> | undefined> {
  const r = await engineCli(['volume', 'inspect', '--format', '{{json .Labels}}', volume], { stdin: 'ignore', reject: false });
  return r.exitCode === 0 ? (JSON.parse(String(r.stdout)) as Record<string, string>) : undefined;
}

describe('dependency cache upkeep (engine)', function () {
  this.timeout(240_000);
  const docker = () => engineDocker() ?? {};
  const made: string[] = [];

  before(async () => {
    await requireTestEngine(TEST_ENGINE, [LANGUAGE_IMAGES.pythonPip, IMAGES.python]);
    await engineCli(['network', 'create', '--internal', NET], { stdin: 'ignore' });
    await engineCli(['run', '-d', '--rm', '--name', REGISTRY, '--network', NET, '--network-alias', 'registry', '--pull', 'never', IMAGES.python, 'python3', '-c', PIP_INDEX_SCRIPT], { stdin: 'ignore' });
    for (let i = 0; i < 100 && !String((await engineCli(['logs', REGISTRY], { stdin: 'ignore', reject: false })).stdout).includes('ready'); i++) await new Promise((r) => setTimeout(r, 200));
  });

  after(async () => {
    await engineCli(['rm', '-f', REGISTRY], { stdin: 'ignore', reject: false });
    if (made.length) await engineCli(['volume', 'rm', '-f', ...made], { stdin: 'ignore', reject: false });
    await engineCli(['network', 'rm', NET], { stdin: 'ignore', reject: false });
  });
  noLeftoversAfterEach();

  it('labels each set with its size and removes the least recently used past the cap, keeping a set used since', async () => {
    const settings = { ...DEFAULT_DEPENDENCY_SETTINGS, network: NET, cacheMaxMiB: 1048576 };
    const ctx = { docker: docker(), profileName: 'python', profile: pythonProfile({ image: LANGUAGE_IMAGES.pythonPip }), settings, installEnv: { PIP_INDEX_URL, PIP_TRUSTED_HOST: 'registry' } };
    // Two sets (another spec list is another set), A installed first, then B, then A used again.
    const a = await installDeclared(declared(['tinyhello']), ctx);
    const b = await installDeclared(declared(['tinyhello>=1']), ctx);
    for (const s of [a.set, b.set]) made.push(`sandbox-runner-deps-${s.key.slice(0, 32)}`, s.dataVolume);
    assert.deepEqual([a.set.installed, b.set.installed], [true, true]);
    await new Promise((r) => setTimeout(r, 20));
    const again = await installDeclared(declared(['tinyhello']), ctx);
    assert.equal(again.set.installed, false);
    const kib = Number((await labelsOf(`sandbox-runner-deps-${b.set.key.slice(0, 32)}`))?.[DEPS_KIB_LABEL]);
    assert.ok(kib > 0, `the published set carries its size in KiB (${kib})`);

    // Room for one set: B, the least recently used, goes (name and data volume); A stays.
    const report = await pruneOverCap(docker(), kib / 1024, new Set(), new Set([a.set.key, b.set.key]));
    assert.equal(report.removedSets, 1, JSON.stringify(report));
    assert.deepEqual(report.removed, [`sandbox-runner-deps-${b.set.key.slice(0, 32)}`, b.set.dataVolume]);
    assert.equal(await publishedSet(docker(), b.set.key), undefined);
    assert.equal((await publishedSet(docker(), a.set.key))?.dataVolume, a.set.dataVolume);
    // Under the cap nothing goes.
    assert.equal((await pruneOverCap(docker(), 1, new Set(), new Set([a.set.key]))).removedSets, 0);
  });

  it('checks requires-python against the image\'s Python the install recorded: a mismatch is refused naming both, a match passes', async () => {
    const settings = { ...DEFAULT_DEPENDENCY_SETTINGS, network: NET, cacheMaxMiB: 1048576 };
    const ctx = { docker: docker(), profileName: 'python', profile: pythonProfile({ image: LANGUAGE_IMAGES.pythonPip }), settings, installEnv: { PIP_INDEX_URL, PIP_TRUSTED_HOST: 'registry' } };
    const ok = await installDeclared({ ...declared(['tinyhello']), requiresPython: '>=3.8' }, ctx);
    made.push(`sandbox-runner-deps-${ok.set.key.slice(0, 32)}`, ok.set.dataVolume);
    assert.match(ok.set.pythonVersion ?? '', /^3\.\d+\.\d+$/);
    await assert.rejects(installDeclared({ ...declared(['tinyhello']), requiresPython: '>=99' }, ctx), (e: unknown) => {
      assert.ok(isSandboxError(e) && e.code === 'invalid-profile', String(e));
      assert.match(e.message, /^The script requires Python >=99, but profile "python" has Python 3\.\d+\.\d+: .* Nothing ran\.$/);
      return true;
    });
  });

  it('the orphan sweep removes an unpublished data volume of a dead owner, and keeps a live owner\'s and a published one', async () => {
    const child = execa('true');
    await child;
    const dead = child.pid!;
    const owner = (pid: number, start: string) => ({
      [PRODUCT_LABEL]: '1', [LABELS.ownerPid]: String(pid), [LABELS.ownerPidNamespace]: currentPidNamespace(), [LABELS.ownerStart]: start,
      [LABELS.ownerBoot]: currentBootId(), [LABELS.host]: hostname(), [LABELS.runId]: randomUUID(), [LABELS.profile]: 'python',
    });
    const key = 'f'.repeat(48) + suffix.replace(/[^0-9a-f]/g, '0').padEnd(16, '0').slice(0, 16);
    const create = async (name: string, labels: Record<string, string>) => {
      made.push(name);
      await engineCli(['volume', 'create', ...Object.entries({ ...labels, [DEPS_KEY_LABEL]: key }).flatMap(([k, v]) => ['--label', `${k}=${v}`]), name], { stdin: 'ignore' });
    };
    const orphan = `sandbox-runner-test-deps-orphan-${suffix}`;
    const live = `sandbox-runner-test-deps-live-${suffix}`;
    const publishedData = `sandbox-runner-test-deps-published-${suffix}`;
    await create(orphan, owner(dead, '12345'));
    await create(live, owner(process.pid, localProbe().selfStart));
    await create(publishedData, owner(dead, '12345'));
    await create(`sandbox-runner-test-deps-name-${suffix}`, { [PRODUCT_LABEL]: '1', [DEPS_DATA_LABEL]: publishedData });

    const young = await sweepUnpublishedSets(docker(), localProbe(), localLeaseView());
    assert.ok(!young.removed.includes(orphan), 'a volume younger than the bound was removed');
    const report = await sweepUnpublishedSets(docker(), localProbe(), localLeaseView(), 0);
    // Gone (by this sweep, or by another client's sweep of the same engine).
    assert.equal(await labelsOf(orphan), undefined, `the orphan is still there: ${JSON.stringify(report)}`);
    assert.ok(!report.removed.includes(live) && !report.removed.includes(publishedData), JSON.stringify(report));
    assert.match(report.kept.find((k) => k.name === live)?.reason ?? '', /this process/);
    assert.ok(await labelsOf(publishedData), 'the published data volume is kept');
  });
});
