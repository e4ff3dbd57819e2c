import assert from 'node:assert/strict';
import { dependencyListProblem, npmSpecProblem } from '../../src/core/profiles/dependencySpecs';
import { dependencySetKey } from '../../src/core/deps/cacheKey';
import { NODE_RUN_MOUNT, nodeRunMount, NPM_INSTALL_FLAGS, npmCiArgv, npmInstallArgv, npmInstallFailure, npmInstallScript } from '../../src/core/deps/npm';
import { NPM_GLOBALCONFIG, NPM_USERCONFIG } from '../../src/core/deps/installer';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { buildInstallArgv, buildRunArgv } from '../../src/core/container/argv';
import { missingPackageHint } from '../../src/cli/dependencies';
import { declaredDependencies, isNodeProfile } from '../../src/core/deps/declared';
import { withoutFencedBlocks } from '../../src/core/source/fences';
import { missingNodePackage } from '../../src/core/deps/nodeHint';
import { findLockfileFolder, lockfileProblem, readNpmLockfile } from '../../src/core/deps/lockfile';
import { npmCiScript } from '../../src/core/deps/npm';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('npm dependencies (unit)', () => {
  const profile = ProfileSchema.parse({ image: 'img:1', command: ['node', '${file}'], languages: ['javascript'], extensions: ['.js', '.mjs'] });

  it('refuses npm URL, path, Git, GitHub, alias, file:, archive and option specs, naming the entry', () => {
    for (const spec of [
      'https://registry.test/x/-/x-1.0.0.tgz', 'git+https://example.test/x.git', 'git://example.test/x', 'github:user/repo', 'user/repo',
      'npm:lodash@4', 'x@npm:lodash', 'file:../x', 'x@file:../x', './x', '../x', '/abs/x', '~/x', 'x.tgz', 'x@x-1.0.0.tgz', 'x.tar.gz',
      '-g', '--registry=http://evil.test', 'x@', 'X', 'x@1.0.0#sha', 'link:../x', 'x@git+ssh://h/r',
    ]) {
      assert.ok(npmSpecProblem(spec), spec);
      assert.match(dependencyListProblem([spec], 'npm', 'sandboxRunner.profiles.node.dependencies') ?? '', /^Dependency ".*" in sandboxRunner\.profiles\.node\.dependencies .*: write a registry name/, spec);
    }
    for (const spec of ['lodash', 'lodash@4.17.21', 'lodash@^4.17', '@scope/pkg@latest', 'a.b-c_d@>=1 <2', 'x@1.x || 2.x']) assert.equal(npmSpecProblem(spec), undefined, spec);
  });

  it('the install script is constant text: the installer\'s command (its environment, npm, its options, -- and the specs) only as positional parameters, scripts ignored, the marker written last', () => {
    const script = npmInstallScript('/var/tmp');
    assert.match(script, /^env -i PATH="\$PATH" "\$@"$/m, 'nothing of the container\'s environment but PATH reaches npm');
    assert.deepEqual(script.split('\n').slice(-2), [': > /var/tmp/.complete', 'echo "sandbox-runner-set-kib=$kib"'], 'the marker is the last write; then only the size for the label');
    assert.ok(script.indexOf('rm -rf /var/tmp/.npm-cache /var/tmp/.no-scripts') < script.indexOf('du -sk'), 'the cache and the script shell are not published nor counted');
    assert.ok(script.indexOf('.script-ran ]; then') > script.indexOf('env -i'), 'a package script npm started is checked after the install');
    const cmd = npmInstallArgv('/var/tmp', { npm_config_registry: 'http://registry:8000/npm/', HTTPS_PROXY: 'http://p:3128', PIP_INDEX_URL: 'http://x/' }, ['lodash@^4', '@scope/x']);
    const npmAt = cmd.indexOf('npm');
    assert.deepEqual(cmd.slice(0, npmAt).map((a) => a.split('=')[0]).sort(), ['HOME', 'HTTPS_PROXY', 'LC_ALL', 'TMPDIR', 'XDG_CACHE_HOME'], 'the whole environment: the product\'s and the proxy');
    for (const flag of [...NPM_INSTALL_FLAGS, '--registry=http://registry:8000/npm/', `--userconfig=${NPM_USERCONFIG}`, `--globalconfig=${NPM_GLOBALCONFIG}`, '--script-shell=/var/tmp/.no-scripts']) assert.ok(cmd.includes(flag), flag);
    assert.deepEqual(cmd.slice(npmAt, npmAt + 2), ['npm', 'install']);
    assert.deepEqual(cmd.slice(-3), ['--', 'lodash@^4', '@scope/x']);
    const argv = buildInstallArgv(
      { name: 'sandbox-runner-x', profile, snippetFileName: 'main', mounts: [{ source: 'v', volume: 'v', target: '/var/tmp', readOnly: false }], labels: {}, network: 'net' },
      ['sh', '-c', script, 'sh', '1024', ...cmd],
    );
    assert.deepEqual(argv.slice(-(5 + cmd.length)), ['img:1', '-c', script, 'sh', '1024', ...cmd]);
    assert.ok(!argv.some((a, i) => argv[i - 1] === '--env' && /npm_config|NODE_OPTIONS/i.test(a)), 'no npm variable in the container');
  });

  it('a run mounts the set read-only at /node_modules, an ancestor of the program, with no registry variable', () => {
    const mount = nodeRunMount({ dataVolume: 'sandbox-runner-deps-abc-1234' });
    assert.deepEqual(mount, { dataVolume: 'sandbox-runner-deps-abc-1234', target: NODE_RUN_MOUNT, env: {} });
    const argv = buildRunArgv({ name: 'sandbox-runner-x', profile, snippetFileName: 'main.mjs', mounts: [{ source: mount.dataVolume, volume: mount.dataVolume, target: mount.target, readOnly: true }], labels: {} });
    assert.ok(argv.includes('type=volume,src=sandbox-runner-deps-abc-1234,dst=/node_modules,volume-nocopy,readonly'), argv.join(' '));
    assert.ok(!argv.some((a) => /npm_config|NPM_CONFIG/i.test(a)));
  });

  it('the set key changes with the manager and the registry URL', () => {
    const base = { imageId: 'sha256:1', manager: 'npm' as const, specs: ['lodash'], installEnv: { npm_config_registry: 'http://a/' } };
    assert.notEqual(dependencySetKey(base), dependencySetKey({ ...base, installEnv: { npm_config_registry: 'http://b/' } }));
    assert.notEqual(dependencySetKey(base), dependencySetKey({ ...base, manager: 'pip' }));
    assert.equal(dependencySetKey(base), dependencySetKey({ ...base, specs: [' lodash', 'lodash'] }));
  });

  it('node profiles are recognised by language or command; failures say what to change', () => {
    assert.ok(isNodeProfile(profile));
    assert.ok(isNodeProfile({ ...profile, languages: [], command: ['/usr/local/bin/node', '${file}'] }));
    assert.ok(!isNodeProfile({ ...profile, languages: ['python'], command: ['python3', '${file}'] }));
    assert.match(npmInstallFailure('the test', 'node', 127).message, /^The image of profile "node" has no npm/);
    assert.match(npmInstallFailure('the test', 'node', 1).message, /^npm could not install the dependencies from the test \(exit 1; .*nothing was published/);
  });

  it('an agent\'s input on a node profile is an npm set; a profile neither python nor node is refused naming the kinds', () => {
    const d = declaredDependencies('node', profile, "require('tinyleft')", ['tinyleft@^1']);
    assert.deepEqual([d?.manager, d?.specs, d?.untrustedSpecs, d?.where], ['npm', ['tinyleft@^1'], ['tinyleft@^1'], 'the "dependencies" input']);
    const shell = ProfileSchema.parse({ image: 'img:1', command: ['sh', '${file}'], languages: ['shellscript'], extensions: ['.sh'] });
    assert.equal(declaredDependencies('sh', shell, 'echo hi'), undefined);
    assert.throws(() => declaredDependencies('sh', shell, 'echo hi', ['jq']), (e: Error) => e.message === 'Profile "sh" declares dependencies ("jq"), but only python (pip) and node (npm) profiles install them, so nothing ran.');
  });

  it('the set key reads a registry URL with and without its trailing slash as one registry', () => {
    const base = { imageId: 'sha256:1', manager: 'npm' as const, specs: ['lodash'], installEnv: { npm_config_registry: 'http://r:8000/npm' } };
    assert.equal(dependencySetKey(base), dependencySetKey({ ...base, installEnv: { npm_config_registry: 'http://r:8000/npm/' } }));
    assert.equal(dependencySetKey(base), dependencySetKey({ ...base, installEnv: { npm_config_registry: ' http://r:8000/npm// ' } }));
    assert.notEqual(dependencySetKey(base), dependencySetKey({ ...base, installEnv: { npm_config_registry: 'http://r:8000/npm/x' } }));
  });

  it('a whole Markdown document declares no "# /// script" block that sits inside a fence', () => {
    const python = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], languages: ['python'], extensions: ['.py'] });
    const block = '# /// script\n# dependencies = ["tinyhello"]\n# ///\nimport tinyhello\n';
    const doc = `# Title\n\n\`\`\`python\n${block}\`\`\`\n\n~~~py\n${block}~~~\n`;
    assert.equal(declaredDependencies('python', python, withoutFencedBlocks(doc)), undefined);
    assert.equal(withoutFencedBlocks(doc).split('\n').length, doc.split('\n').length);
    assert.deepEqual(declaredDependencies('python', python, withoutFencedBlocks(`Intro\n${block}`))?.specs, ['tinyhello']);
    assert.throws(() => declaredDependencies('python', python, doc), /has 2 "# \/\/\/ script" blocks/, 'without the filter the fenced blocks are read');
  });

  describe('workspace lockfile', () => {
    const pkg = (resolved: unknown, extra: Record<string, unknown> = {}) => ({ lockfileVersion: 3, packages: { '': { name: 'app' }, 'node_modules/x': { version: '1.0.0', resolved, integrity: 'sha512-AAAA', ...extra } } });

    it('accepts registry tarballs with integrity (and bundled packages); refuses links, Git, file:, no integrity, old versions', () => {
      assert.equal(lockfileProblem(pkg('https://registry.npmjs.org/x/-/x-1.0.0.tgz')), undefined);
      assert.equal(lockfileProblem({ lockfileVersion: 2, packages: { 'node_modules/a/node_modules/@s/b': { inBundle: true } } }), undefined);
      assert.match(lockfileProblem(pkg('git+ssh://git@github.com/u/x.git#abc')) ?? '', /^lists "node_modules\/x" from "git\+ssh:.*not a registry tarball$/);
      assert.match(lockfileProblem(pkg('file:../x')) ?? '', /not a registry tarball/);
      assert.match(lockfileProblem(pkg(undefined)) ?? '', /without a "resolved" URL/);
      assert.match(lockfileProblem(pkg('https://r/x.tgz', { integrity: undefined })) ?? '', /without an "integrity" hash/);
      assert.match(lockfileProblem({ lockfileVersion: 3, packages: { 'node_modules/x': { link: true, resolved: 'lib/x' } } }) ?? '', /linked folder/);
      assert.match(lockfileProblem({ lockfileVersion: 3, packages: { 'lib/x': { version: '1.0.0' } } }) ?? '', /linked folder or workspace/);
      assert.match(lockfileProblem({ lockfileVersion: 1, dependencies: {} }) ?? '', /version 2 or 3/);
    });

    it('finds the nearest folder with both files up to the workspace folder; reads them checked', async () => {
      const ws = await mkdtemp(join(tmpdir(), 'sr-lock-'));
      try {
        await mkdir(join(ws, 'app', 'src'), { recursive: true });
        await writeFile(join(ws, 'app', 'src', 'main.js'), '');
        assert.equal(await findLockfileFolder(join(ws, 'app', 'src', 'main.js'), ws), undefined);
        await writeFile(join(ws, 'package.json'), '{}');
        await writeFile(join(ws, 'package-lock.json'), JSON.stringify(pkg('https://r/x.tgz')));
        assert.equal(await findLockfileFolder(join(ws, 'app', 'src', 'main.js'), ws), ws);
        await writeFile(join(ws, 'app', 'package.json'), '{}');
        assert.equal(await findLockfileFolder(join(ws, 'app', 'src', 'main.js'), ws), ws, 'package.json alone is not enough');
        await writeFile(join(ws, 'app', 'package-lock.json'), JSON.stringify(pkg('https://r/y.tgz')));
        assert.equal(await findLockfileFolder(join(ws, 'app', 'src', 'main.js'), ws), join(ws, 'app'));
        assert.equal(await findLockfileFolder(join(tmpdir(), 'elsewhere.js'), ws), undefined);
        const a = await readNpmLockfile(join(ws, 'app'));
        const b = await readNpmLockfile(ws);
        assert.equal(a.packages, 1);
        assert.match(a.keySpec, /^package-lock\.json sha256:[0-9a-f]{64}$/);
        assert.notEqual(a.keySpec, b.keySpec);
        await writeFile(join(ws, 'app', 'package-lock.json'), JSON.stringify(pkg('git+https://h/r.git')));
        await assert.rejects(readNpmLockfile(join(ws, 'app')), /package-lock\.json lists "node_modules\/x" from "git\+https:.*so nothing was installed and nothing ran\./);
        await rm(join(ws, 'app', 'package-lock.json'));
        await symlink(join(ws, 'package-lock.json'), join(ws, 'app', 'package-lock.json'));
        await assert.rejects(readNpmLockfile(join(ws, 'app')), /is not a regular file/);
        await writeFile(join(ws, 'package.json'), 'x'.repeat(65 * 1024));
        await assert.rejects(readNpmLockfile(ws), /package\.json is 66560 bytes, more than the 65536/);
      } finally {
        await rm(ws, { recursive: true, force: true });
      }
    });

    it('npm ci reads package.json from $2 and the lockfile from stdin, never from the script text', () => {
      const script = npmCiScript('/var/tmp');
      assert.match(script, /^printf '%s' "\$2" > "\$p\/package\.json"$/m);
      assert.match(script, /^cat > "\$p\/package-lock\.json"$/m);
      assert.match(script, /^env -i PATH="\$PATH" "\$@"$/m);
      const cmd = npmCiArgv('/var/tmp', {});
      assert.deepEqual(cmd.slice(cmd.indexOf('npm'), cmd.indexOf('npm') + 2), ['npm', 'ci']);
      assert.ok(cmd.includes('--ignore-scripts') && cmd.includes(`--userconfig=${NPM_USERCONFIG}`) && !cmd.includes('--'));
      const argv = buildInstallArgv({ name: 'sandbox-runner-x', profile, snippetFileName: 'main', mounts: [], labels: {}, network: 'net' }, ['sh', '-c', script, 'sh', '1', '{}'], { stdin: true });
      assert.deepEqual(argv.slice(0, 3), ['run', '--sig-proxy=false', '--interactive']);
    });
  });

  describe('missing package hint', () => {
    it('reads the package from require and import errors; never a path, a built-in or a bad name', () => {
      assert.equal(missingNodePackage("Error: Cannot find module 'lodash'\nRequire stack:\n- /sandbox/main.js"), 'lodash');
      assert.equal(missingNodePackage("Error [ERR_MODULE_NOT_FOUND]: Cannot find package '@scope/pkg' imported from /sandbox/main.mjs"), '@scope/pkg');
      assert.equal(missingNodePackage("Cannot find module 'lodash/fp/map'"), 'lodash');
      assert.equal(missingNodePackage("Cannot find module 'a'\nCannot find module 'b'"), 'b');
      for (const t of ["Cannot find module './util'", "Cannot find module '/workspace/x/main.mjs'", "Cannot find module 'node:nope'", "Cannot find module 'Bad Name'", "Cannot find module '\u001b[31mx'", 'no error here']) {
        assert.equal(missingNodePackage(t), undefined, t);
      }
    });

    it('the CLI hint forwards all output, reads only stderr, and skips packages the profile lists and non-node profiles', () => {
      const seen: string[] = [];
      const h = missingPackageHint('node', { ...profile, dependencies: ['tinyleft@^1'] }, (stream, data) => seen.push(`${stream}:${typeof data === 'string' ? data : Buffer.from(data).toString()}`));
      h.sink('stdout', Buffer.from("Cannot find module 'fromstdout'\n"));
      assert.equal(h.hint(), undefined, 'stdout is not read');
      h.sink('stderr', Buffer.from("Error: Cannot find module 'tinyleft'\n"));
      assert.equal(h.hint(), undefined, 'already listed');
      h.sink('stderr', Buffer.from("Error: Cannot find module 'axios'\n"));
      assert.equal(h.hint(), 'hint: the program could not load the package "axios"; to install it, add "axios" to sandboxRunner.profiles.node.dependencies and run with --dependencies.');
      assert.equal(seen.length, 3);
      const py = missingPackageHint('python', { ...profile, languages: ['python'], command: ['python3', '${file}'] }, () => undefined);
      py.sink('stderr', Buffer.from("Cannot find module 'axios'"));
      assert.equal(py.hint(), undefined);
    });
  });
});
