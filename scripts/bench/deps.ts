/**
 * Dependencies (issue 22): `deps_install_s` (information) and `deps_cached_ratio`. Self-contained:
 * it starts the engine suites' npm registry (test/support/npmRegistry.ts: packages packed on the
 * host, served on an `--internal` network it creates) and removes it, the set's volumes and the
 * network at the end.
 * - `deps_install_s`: one install of `tinyuse@^2` + `tinymark` (3 packages) into a new set, through
 *   the core installer (its own container, on the registry's network), to the set published.
 * - `deps_cached_ratio`: with the registry removed, a cold node run that requires the cached set
 *   through the runner, against raw `docker run --rm` of the runner's own argv for that run (same
 *   floor, the same volume mounted read-only at /node_modules, a fresh name), interleaved.
 */
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { encodeFrame } from '../../src/core/container/launcher';
import { dependencyVolumeName } from '../../src/core/deps/cacheKey';
import { ensureDependencySet, type InstalledSet } from '../../src/core/deps/install';
import { nodeRunMount } from '../../src/core/deps/npm';
import { CONTAINER_NAME_PREFIX, newContainerName } from '../../src/core/layout';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { LANGUAGE_IMAGES, TEST_IMAGES } from '../../test/support/images';
import { startNpmRegistry } from '../../test/support/npmRegistry';
import { coreRun, type Case } from './cold';
import { rawTimed } from './docker';
import { interleave, log, num, ratioRow, type Ctx, type Figures } from './harness';

const SPECS = ['tinyuse@^2', 'tinymark'];
const CASE: Case = {
  label: 'node require() of a cached 3-package set',
  profileName: 'bench-node-deps',
  profile: ProfileSchema.parse({ image: LANGUAGE_IMAGES.nodeNpm, command: ['node', '${file}'], languages: ['javascript'], extensions: ['.js'], limits: { memoryMiB: 512 } }),
  code: "console.log(require('tinyuse').shout('ok'));\n",
  prints: '.....OK!\n',
};

/** `docker ARGS` on the default engine → stdout (`lenient`: a failure is not thrown). */
const engine = (args: string[], lenient = false): Promise<string> => execa('docker', args, { stdin: 'ignore', reject: !lenient }).then((r) => String(r.stdout));

/** The raw side: the runner's argv for this run as `run --rm`, its run id replaced by a fresh one. */
function rawArgv(ours: readonly string[]): string[] {
  const oldId = ours[ours.indexOf('--name') + 1]!.slice(CONTAINER_NAME_PREFIX.length);
  const { runId } = newContainerName();
  return ['run', '--rm', ...ours.slice(1).map((a) => a.replaceAll(oldId, runId))];
}

export async function deps(ctx: Ctx): Promise<Figures> {
  const id = `bench-${process.pid}-${Date.now().toString(36)}`;
  const registry = await startNpmRegistry(engine, id, TEST_IMAGES.python);
  let set: InstalledSet | undefined;
  try {
    let installS: number;
    try {
      const t0 = performance.now();
      set = await ensureDependencySet({
        docker: {}, profile: CASE.profile, profileName: CASE.profileName, manager: 'npm', specs: SPECS, where: 'the benchmark',
        network: registry.network, registryEnv: { npm_config_registry: registry.url }, timeoutMs: 120_000, maxSetMiB: 64,
      });
      installS = (performance.now() - t0) / 1000;
      if (!set.installed) throw new Error('deps: the set was already cached (its registry URL should be new)');
    } finally {
      // The cached runs never need the registry: it is gone before they start.
      await registry.stop();
    }
    ctx.rows.push({ metric: `deps install (s): ${SPECS.join(' + ')}, 3 packages, local registry`, ours: installS.toFixed(2), raw: '-', figure: `${installS.toFixed(2)} s`, target: '(info)', verdict: 'INFO' });
    const dependencySet = nodeRunMount(set);
    let ours: readonly string[] = [];
    await coreRun(CASE, { dependencySet, onArgv: (a) => (ours = ours.length ? ours : a) });
    if (!ours.some((a) => a.includes(set!.dataVolume))) throw new Error('deps: the runner\'s argv does not mount the set');
    const input = encodeFrame(CASE.code);
    const p = await interleave(`deps cached ${CASE.label}`, {
      raw: () => rawTimed(rawArgv(ours), `raw ${CASE.label}`, { input }).then(({ ms }) => ({ ms })),
      core: () => coreRun(CASE, { dependencySet }).then(({ ms }) => ({ ms })),
    }, ctx);
    ctx.rows.push(ratioRow(`cold ${CASE.label} (ms, to result)`, 'deps_cached_ratio', p.core.ms, p.raw.ms, 'run --rm, same argv and read-only set volume'));
    return { deps_cached_ratio: p.core.ms.median / p.raw.ms.median, deps_install_s: num(installS, 2) };
  } finally {
    if (set) {
      const volumes = (await engine(['volume', 'ls', '-q', '--filter', `name=${dependencyVolumeName(set.key)}`], true)).split('\n').filter(Boolean);
      if (volumes.length) await engine(['volume', 'rm', '-f', ...volumes], true);
      log(`deps: removed the set's ${volumes.length} volumes`);
    }
  }
}
