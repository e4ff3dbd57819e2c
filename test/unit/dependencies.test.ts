import assert from 'node:assert/strict';
import { dependencyListProblem, MAX_DEPENDENCIES, normaliseSpecs, npmSpecProblem, pythonSpecProblem } from '../../src/core/profiles/dependencySpecs';
import { readScriptMetadata, scanMetadataBlocks, SCRIPT_BLOCK_MAX, SCRIPT_SCAN_MAX } from '../../src/core/deps/pep723';
import { requiresPythonProblem, satisfiesRequiresPython } from '../../src/core/deps/requiresPython';
import { declaredDependencies, requiresPythonOnly } from '../../src/core/deps/declared';
import { mayDeclareDependencies } from '../../src/core/admission/mayDeclare';
import { dependencySetKey, dependencyVolumeName } from '../../src/core/deps/cacheKey';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { compareToBaseline, looseningFingerprint } from '../../src/core/admission/loosening';
import { buildInstallArgv, buildRunArgv } from '../../src/core/container/argv';
import { installerEnvAssignments, PIP_REPORT, PIP_WHEELS_ONLY_CHECK, pipInstallerArgv } from '../../src/core/deps/installer';
import { isSandboxError } from '../../src/core/errors';

describe('dependency specs (unit)', () => {
  it('accepts PEP 508 names with extras, specifiers and markers', () => {
    for (const s of [
      'requests', 'requests>=2.31', 'requests[socks,security]>=2.8.1,==2.8.*', 'Django ~= 5.0', 'zope.interface',
      'numpy<2; python_version >= "3.10"', 'pkg (>=1.0, <2)', 'a_b-c.d===1.0', 'rich!=13.0.*', 'pywin32; sys_platform == "win32"',
    ]) assert.equal(pythonSpecProblem(s), undefined, s);
  });

  it('refuses URLs, paths, VCS, file:, options and archives, each with its reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['pkg @ https://example.test/pkg.whl', /URL|direct reference/],
      ['pkg@https://x.test/p.whl', /URL|direct reference/],
      ['https://example.test/pkg-1.0-py3-none-any.whl', /URL/],
      ['git+https://example.test/repo.git', /URL or VCS/],
      ['git+ssh://git@example.test/repo', /URL or VCS/],
      ['hg+http://x.test/r', /URL or VCS/],
      ['./local/pkg', /path/], ['../pkg', /path/], ['/abs/pkg', /path/], ['~/pkg', /path/], ['C:\\pkg', /path/], ['.', /path/],
      ['file:///tmp/pkg', /file:/], ['file:pkg', /file:/],
      ['-r requirements.txt', /starts with "-"/], ['--index-url=http://evil', /starts with "-"/], ['-e .', /starts with "-"/],
      ['pkg-1.0-py3-none-any.whl', /archive/], ['pkg.tar.gz', /archive/],
      // pip's whole archive list (issue 34: the last three passed before), any case.
      ...['.zip', '.tar.bz2', '.tbz', '.tgz', '.tar', '.tar.xz', '.txz', '.tlz', '.tar.lz', '.tar.lzma', '.TLZ', '.Tar.Lzma'].map((ext): [string, RegExp] => [`pkg-1.0${ext}`, /archive/]),
      ['x'.repeat(201), /longer than 200/],
      ['pkg\n--extra-index-url http://evil', /control character/],
      ['', /empty/],
      ['pkg; os.system("x") @ y', /marker/],
      ['pkg $(id)', /version part/],
      ['pkg[a b]', /extras/],
    ];
    for (const [spec, why] of cases) {
      const p = pythonSpecProblem(spec);
      assert.ok(p && why.test(p), `${JSON.stringify(spec)} → ${p}`);
    }
  });

  it('accepts npm registry names with a version, range or tag; refuses the rest', () => {
    for (const s of ['lodash', 'lodash@4.17.21', 'lodash@^4.17', '@scope/name', '@scope/name@latest', 'axios@>=1.6 <2', 'left-pad@1.x || 2.x', 'react@next']) {
      assert.equal(npmSpecProblem(s), undefined, s);
    }
    for (const s of [
      'github:user/repo', 'user/repo', 'git+https://example.test/r.git', 'https://example.test/p.tgz', 'file:../p', './p', '/p',
      'alias@npm:lodash', 'Lodash', '-D', '--registry=http://evil', 'lodash@', 'lodash@1.0#x', 'link:../x', 'workspace:*',
    ]) assert.ok(npmSpecProblem(s), s);
  });

  it('names the bad entry, the place and what to write in one sentence', () => {
    const m = dependencyListProblem(['rich', 'pkg @ https://x.test/p.whl'], 'pip', 'sandboxRunner.profiles.python.dependencies');
    assert.match(m!, /^Dependency "pkg @ https:\/\/x\.test\/p\.whl" in sandboxRunner\.profiles\.python\.dependencies is a .*: write .*"requests>=2\.31"\.$/);
    assert.equal((m!.match(/\. /g) ?? []).length, 0);
    assert.equal(dependencyListProblem(['rich', 'requests'], 'pip', 'x'), undefined);
    const many = dependencyListProblem(Array.from({ length: MAX_DEPENDENCIES + 1 }, (_, i) => `p${i}`), 'pip', 'the list');
    assert.match(many!, /the list lists 65 dependencies; at most 64/);
    assert.equal(dependencyListProblem(Array.from({ length: MAX_DEPENDENCIES }, (_, i) => `p${i}`), 'pip', 'x'), undefined);
    assert.match(dependencyListProblem(['lodash', 'user/repo'], 'npm', 'y')!, /^Dependency "user\/repo" in y is a URL, Git/);
  });

  it('normalises spec lists so equal sets compare equal', () => {
    assert.deepEqual(normaliseSpecs(['Requests >= 2.31', 'rich', 'requests>=2.31', 'Zope_Interface'], 'pip'), ['requests>=2.31', 'rich', 'zope-interface']);
    assert.deepEqual(normaliseSpecs(['numpy<2 ;  python_version >= "3.10"'], 'pip'), ['numpy<2; python_version >= "3.10"']);
    assert.deepEqual(normaliseSpecs(['lodash@^4', ' axios '], 'npm'), ['axios', 'lodash@^4']);
    // npm names are case-sensitive data and are not rewritten.
    assert.deepEqual(normaliseSpecs(['a.b'], 'npm'), ['a.b']);
  });
});

describe('PEP 723 script metadata (unit)', () => {
  const script = (body: string) => `#!/usr/bin/env python3\n${body}\nimport rich\nprint("hi")\n`;

  it('reads dependencies and requires-python from the block', () => {
    const r = readScriptMetadata(script('# /// script\n# requires-python = ">=3.11"\n# dependencies = [\n#   "requests<3",\n#   "rich",\n# ]\n# ///'));
    assert.deepEqual(r, { kind: 'ok', metadata: { dependencies: ['requests<3', 'rich'], requiresPython: '>=3.11' } });
  });

  it('reads a CRLF file the same, ignores [tool] tables and other block types', () => {
    const crlf = '# /// script\r\n# dependencies = ["rich"]\r\n#\r\n# [tool.x]\r\n# y = 1\r\n# ///\r\nprint(1)\r\n';
    assert.deepEqual(readScriptMetadata(crlf), { kind: 'ok', metadata: { dependencies: ['rich'] } });
    assert.deepEqual(readScriptMetadata('# /// pyproject\n# x = 1\n# ///\n'), { kind: 'none' });
    assert.deepEqual(readScriptMetadata('print("# /// script")\n'), { kind: 'none' });
    assert.deepEqual(readScriptMetadata('# /// script\n# ///\n'), { kind: 'none' }, 'no content line is no block (the reference regex)');
    assert.deepEqual(readScriptMetadata('# /// script\n# requires-python = ">=3"\n# ///\n'), { kind: 'ok', metadata: { dependencies: [], requiresPython: '>=3' } });
  });

  it('the block ends at the last "# ///" of the comment run (the reference regex is greedy)', () => {
    const r = readScriptMetadata('# /// script\n# dependencies = ["a"]\n# ///\n# x = 1\n# ///\n');
    // "# ///" inside is TOML content then, which does not parse: refused, never half-read.
    assert.equal(r.kind, 'invalid');
  });

  it('finds exactly the blocks of the specification\'s reference regex, line by line (a fuzzed corpus)', () => {
    // The reference regex (packaging.python.org) in JavaScript form: equal to Python's on text of
    // \n-ended lines without \r, U+2028 or U+2029, which is all this corpus holds.
    const reference = /^# \/\/\/ ([a-zA-Z0-9-]+)$\n((?:^#(?:| .*)$\n)+)^# \/\/\/$/gm;
    const kinds = ['# /// script', '# /// a-1', '# ///', '#', '# x = 1', '# ', '#x', 'x', '', '  # ///', '# ///  ', '# /// script x'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % kinds.length;
    for (let n = 0; n < 3000; n++) {
      const code = Array.from({ length: 1 + (n % 9) }, () => kinds[next()]).join('\n') + (n % 2 ? '\n' : '');
      const want = [...code.matchAll(reference)].map((m) => ({ type: m[1], lines: m[2]!.split('\n').slice(0, -1) }));
      assert.deepEqual(scanMetadataBlocks(code), want, JSON.stringify(code));
      assert.deepEqual(scanMetadataBlocks(code.replace(/\n/g, '\r\n')), want, 'CRLF reads as LF (universal newlines)');
    }
  });

  it('scans hostile text in linear work: each line examined at most twice (issue 34: the regex took 36 s on 256 KiB)', () => {
    const size = 256 * 1024;
    const fill = (unit: string, tail = '') => unit.repeat(Math.ceil(size / unit.length)) + tail;
    const hostile = [
      fill('# /// x\n'), // every line an opener, no closer: the reported case
      fill('# /// script\n'),
      `# /// script\n${fill('#\n')}`, // one opener, a long run, no closer
      fill('# /// a\n# \n'),
      fill('# /// a\n# ///\r\n#\r'), // closers too early, CR and CRLF
      `# /// script\n# ${' '.repeat(size)}\n`, // one long content line
      fill('# /// x\n', '# ///\n'), // a closer at the very end: one block of everything
    ];
    for (const code of hostile) {
      const lines = code.split(/\r\n|\r|\n/).length;
      let work = 0;
      scanMetadataBlocks(code, () => work++);
      assert.ok(work <= 2 * lines, `${work} line visits for ${lines} lines`);
      const r = readScriptMetadata(code); // the whole read finishes (the mocha timeout is the hang guard)
      assert.notEqual(r.kind, 'ok');
    }
  });

  it('refuses code and blocks past their documented bounds before parsing, in one sentence', () => {
    const big = readScriptMetadata(`# /// script\n# dependencies = []\n# ///\n${'x'.repeat(SCRIPT_SCAN_MAX)}`);
    assert.match((big as { message: string }).message, /^The code is \d+ KiB, over the 4096 KiB read for a "# \/\/\/ script" block \(PEP 723\)/);
    assert.deepEqual(readScriptMetadata(`print(1)\n${'x'.repeat(SCRIPT_SCAN_MAX)}`), { kind: 'none' }, 'long code without an opener is no block');
    const long = readScriptMetadata(`# /// script\n${`# a = 1\n`.repeat(SCRIPT_BLOCK_MAX / 4)}# ///\n`);
    assert.match((long as { message: string }).message, /block is \d+ KiB, over the 64 KiB it may hold/);
  });

  it('refuses two blocks, bad TOML, wrong types and bad specs with one sentence each', () => {
    const two = readScriptMetadata('# /// script\n# dependencies = []\n# ///\nx = 1\n# /// script\n# dependencies = []\n# ///\n');
    assert.match((two as { message: string }).message, /has 2 "# \/\/\/ script" blocks; PEP 723 allows one/);
    const bad = readScriptMetadata('# /// script\n# dependencies = [\n# ///\n');
    assert.match((bad as { message: string }).message, /^The script's "# \/\/\/ script" block is not valid TOML \(.*\): fix it/);
    const notList = readScriptMetadata('# /// script\n# dependencies = "rich"\n# ///\n');
    assert.match((notList as { message: string }).message, /must be a list of strings/);
    const rp = readScriptMetadata('# /// script\n# requires-python = 3.11\n# ///\n');
    assert.match((rp as { message: string }).message, /"requires-python" .* must be a string/);
    const url = readScriptMetadata('# /// script\n# dependencies = ["x @ https://evil.test/x.whl"]\n# ///\n');
    assert.match((url as { message: string }).message, /^Dependency "x @ https:.*" in the script's "# \/\/\/ script" block is a/);
  });
});

describe('which runs load the dependencies code (unit)', () => {
  const python = ProfileSchema.parse({ image: 'i', command: ['python3', '${file}'], languages: ['python'] });
  /** What the dependencies code does with a run: undefined, or what it declares / refuses. */
  const acted = (profile: typeof python, code: string, agent: string[] = []) => {
    try {
      return declaredDependencies('p', profile, code, agent) ?? requiresPythonOnly(profile, code, agent);
    } catch (e) {
      return isSandboxError(e) ? e.message : String(e);
    }
  };

  it('a run the check passes by would have declared nothing (seeded generated sources)', () => {
    // Lines that make, break or imitate a PEP 723 block; a seeded generator mixes them.
    const parts = ['# /// script', '# ///', '# dependencies = ["rich"]', '# requires-python = ">=3"', '#', '# /// pyproject', 'print("# /// script")',
      '#  /// script', '# /// script ', '#/// script', '# /// Script', 'x = 1', '', '# dependencies = [', '# ]', '\t# /// script', '# /// script\r'];
    let seed = 26;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    let skipped = 0;
    let declaring = 0;
    for (let n = 0; n < 4000; n++) {
      const lines = Array.from({ length: 1 + (next() % 7) }, () => parts[next() % parts.length]!);
      const code = lines.join(next() % 3 === 0 ? '\r\n' : '\n') + (next() % 2 ? '\n' : '');
      const result = acted(python, code);
      if (!mayDeclareDependencies(python, code)) {
        skipped++;
        assert.equal(result, undefined, `skipped, but the dependencies code acts on ${JSON.stringify(code)}: ${JSON.stringify(result)}`);
      } else if (result !== undefined) declaring++;
    }
    // Not vacuous: both kinds occur.
    assert.ok(skipped > 500 && declaring > 20, `${skipped} skipped, ${declaring} declaring`);
  });

  it('a profile\'s or an agent\'s dependencies always load it, and plain code does not', () => {
    const withDeps = ProfileSchema.parse({ image: 'i', command: ['python3', '${file}'], languages: ['python'], dependencies: ['rich'] });
    assert.equal(mayDeclareDependencies(withDeps, 'print(1)'), true);
    assert.equal(mayDeclareDependencies(python, 'print(1)', ['rich']), true);
    assert.equal(mayDeclareDependencies(python, 'import rich\nprint(1)\n'), false);
    const shell = ProfileSchema.parse({ image: 'i', command: ['sh', '${file}'], dependencies: ['rich'] });
    assert.equal(mayDeclareDependencies(shell, 'echo'), true, 'refused there (not a python or node profile), with its sentence');
    assert.match(String(acted(shell, 'echo')), /only python \(pip\) and node \(npm\) profiles install them/);
  });
});

describe('requires-python (unit)', () => {
  it('is checked on its own only for a python run that declares no dependencies', () => {
    const py = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], languages: ['python'] });
    const code = (deps: string) => `# /// script\n# requires-python = ">=3.11"\n${deps}# ///\nprint(1)\n`;
    assert.equal(requiresPythonOnly(py, code('')), '>=3.11');
    assert.equal(requiresPythonOnly(py, code('# dependencies = []\n')), '>=3.11');
    assert.equal(requiresPythonOnly(py, code('# dependencies = ["rich"]\n')), undefined, 'the install checks it');
    assert.equal(requiresPythonOnly(py, code(''), ['rich']), undefined, 'the install checks it');
    assert.equal(requiresPythonOnly({ ...py, dependencies: ['rich'] }, code('')), undefined, 'the install checks it');
    assert.equal(requiresPythonOnly(py, 'print(1)\n'), undefined);
    assert.equal(requiresPythonOnly(ProfileSchema.parse({ image: 'img:1', command: ['node', '${file}'], languages: ['javascript'] }), code('')), undefined);
  });

  it('compares release numbers the PEP 440 way', () => {
    const t: Array<[string, string, boolean]> = [
      ['3.11.2', '>=3.11', true], ['3.11.2', '>=3.12', false], ['3.11.2', '<3.13,>=3.9', true], ['3.11.2', '==3.11.*', true],
      ['3.11.2', '==3.1.*', false], ['3.11.2', '!=3.11.*', false], ['3.11.2', '~=3.10', true], ['3.11.2', '~=3.10.1', false],
      ['3.11.2', '==3.11', false], ['3.11.0', '==3.11', true], ['3.11.2', '>3.11', true], ['3.11.0', '>3.11', false], ['3.11.2', '<=3.11.2', true],
    ];
    for (const [v, s, want] of t) assert.equal(satisfiesRequiresPython(v, s), want, `${v} ${s}`);
    for (const s of ['>=3.11a1', 'latest', '', '>=3.11,', '~=3', '>=3.*']) assert.equal(satisfiesRequiresPython('3.11.2', s), undefined, s);
  });

  it('refuses a mismatch naming the profile and both versions', () => {
    assert.equal(requiresPythonProblem('>=3.10', '3.11.2', 'python'), undefined);
    assert.equal(
      requiresPythonProblem('>=3.12', '3.11.2', 'python'),
      'The script requires Python >=3.12, but profile "python" has Python 3.11.2: pick a profile whose image has a matching Python, or change requires-python.',
    );
    assert.match(requiresPythonProblem('>=3.12b1', '3.11.2', 'python')!, /is not a list of version clauses/);
  });
});

describe('dependency set key (unit)', () => {
  const id = { imageId: 'sha256:aaa', manager: 'pip' as const, specs: ['rich', 'requests>=2'], installEnv: { PIP_INDEX_URL: 'http://index.test/simple' } };

  it('is the same for the same set written differently', () => {
    assert.equal(dependencySetKey(id), dependencySetKey({ ...id, specs: ['Requests >= 2', 'rich', 'rich'] }));
    assert.match(dependencySetKey(id), /^[0-9a-f]{64}$/);
  });

  it('changes with the image, the manager, a spec, the index and everything else the installer sees (issue 34)', () => {
    const k = dependencySetKey(id);
    const env = id.installEnv;
    for (const other of [
      { ...id, imageId: 'sha256:bbb' }, { ...id, manager: 'npm' as const }, { ...id, specs: ['rich', 'requests>=3'] },
      { ...id, installEnv: { PIP_INDEX_URL: 'http://other.test/simple' } }, { ...id, installEnv: {} },
      { ...id, installEnv: { ...env, PIP_TRUSTED_HOST: 'index.test' } }, { ...id, installEnv: { ...env, PIP_EXTRA_INDEX_URL: 'http://x.test/simple' } },
      { ...id, installEnv: { ...env, HTTPS_PROXY: 'http://proxy.test:3128' } }, { ...id, installEnv: { ...env, no_proxy: 'index.test' } },
    ]) assert.notEqual(dependencySetKey(other), k, JSON.stringify(other));
    // Written differently, the same configuration: trailing slashes, order of words; another manager's variable.
    assert.equal(dependencySetKey({ ...id, installEnv: { PIP_INDEX_URL: 'http://index.test/simple/', npm_config_registry: 'http://r.test/' } }), k);
    const hosts = { ...env, PIP_TRUSTED_HOST: 'a b' };
    assert.equal(dependencySetKey({ ...id, installEnv: { ...env, PIP_TRUSTED_HOST: ' b  a ' } }), dependencySetKey({ ...id, installEnv: hosts }));
  });

  it('names a labelled-product volume from the key', () => {
    assert.match(dependencyVolumeName(dependencySetKey(id)), /^sandbox-runner-deps-[0-9a-f]{32}$/);
  });
});

describe('profile key dependencies (unit)', () => {
  it('defaults to none, accepts python and node specs, refuses URLs, options and long lists', () => {
    assert.deepEqual(ProfileSchema.parse({ image: 'i', command: ['${file}'] }).dependencies, []);
    assert.deepEqual(ProfileSchema.parse({ image: 'i', command: ['${file}'], dependencies: ['requests>=2.31', 'lodash@^4'] }).dependencies, ['requests>=2.31', 'lodash@^4']);
    for (const bad of [['x @ https://e.test/x.whl'], ['-r', 'req.txt'], ['git+https://e.test/r'], ['./p'], Array.from({ length: 65 }, (_, i) => `p${i}`), 'rich', [1]]) {
      const r = ProfileSchema.safeParse({ image: 'i', command: ['${file}'], dependencies: bad });
      assert.equal(r.success, false, JSON.stringify(bad));
      assert.match(r.error!.issues[0]!.message, /must be a list of at most 64 requirement strings by name/);
    }
  });

  it('from workspace settings, a package the user did not list is a loosening (and changes the fingerprint)', () => {
    const user = ProfileSchema.parse({ image: 'i', command: ['${file}'], dependencies: ['rich'] });
    const same = compareToBaseline('py', ProfileSchema.parse({ image: 'i', command: ['${file}'], dependencies: ['rich'] }), user);
    assert.deepEqual(same.loosenings, []);
    const fewer = compareToBaseline('py', ProfileSchema.parse({ image: 'i', command: ['${file}'] }), user);
    assert.deepEqual(fewer.loosenings, [], 'dropping a package tightens');
    const more = compareToBaseline('py', ProfileSchema.parse({ image: 'i', command: ['${file}'], dependencies: ['rich', 'requests<3'] }), user);
    assert.deepEqual(more.loosenings, [{ key: 'sandboxRunner.profiles.py.dependencies', description: 'dependencies: installs "requests<3" (network only while installing)' }]);
    const other = compareToBaseline('py', ProfileSchema.parse({ image: 'i', command: ['${file}'], dependencies: ['rich', 'numpy'] }), user);
    assert.notEqual(looseningFingerprint(more), looseningFingerprint(other));
  });
});

describe('install container argv (unit)', () => {
  const profile = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], env: { A: '1' } });
  const spec = { name: 'sandbox-runner-x', profile, snippetFileName: 'main', labels: {}, network: 'mirror-net', mounts: [{ source: 'sandbox-runner-deps-ab', volume: 'sandbox-runner-deps-ab', target: '/var/tmp', readOnly: false }] };
  const specs = ['rich', 'x; python_version >= "3"'];

  it('keeps the whole floor, swaps only the network, mounts the set volume writable, and passes specs as argv items', () => {
    const argv = buildInstallArgv({ ...spec, profile: { ...profile, env: { ...profile.env, PIP_INDEX_URL: 'http://m/simple/' } } }, ['sh', '-c', 'SCRIPT', 'sh', '1024', ...specs]);
    const run = buildRunArgv({ name: 'sandbox-runner-x', profile, snippetFileName: 'main', mounts: [], labels: {} });
    for (const floor of ['--read-only', '--cap-drop', 'no-new-privileges', '--init', '--pids-limit', '--memory', '--user']) assert.ok(argv.includes(floor), floor);
    assert.equal(argv[argv.indexOf('--user') + 1], run[run.indexOf('--user') + 1]);
    assert.equal(argv[argv.indexOf('--network') + 1], 'mirror-net');
    assert.ok(argv.includes('type=volume,src=sandbox-runner-deps-ab,dst=/var/tmp'));
    assert.ok(argv.includes('PIP_INDEX_URL=http://m/simple/') && argv.includes('A=1'));
    assert.deepEqual(argv.slice(argv.indexOf('--entrypoint')), ['--entrypoint', 'sh', '--', 'img:1', '-c', 'SCRIPT', 'sh', '1024', ...specs]);
    assert.ok(!run.some((a) => a.startsWith('PIP_')), 'the run argv has no registry variable');
  });

  it('pip\'s installer (issue 34): isolated Python and pip, no configuration file, wheels only with a report, index and trust as options, the environment the product\'s and the proxies only', () => {
    const env = { PIP_INDEX_URL: 'http://m/simple/', PIP_EXTRA_INDEX_URL: 'http://e1/simple http://e2/simple', PIP_TRUSTED_HOST: 'm e1', https_proxy: 'http://u:p w@proxy:3128', npm_config_registry: 'http://r/' };
    const cmd = pipInstallerArgv('/var/tmp/set', env);
    for (const flag of ['-I', '--isolated', '--only-binary=:all:', `--report=${PIP_REPORT}`, '--target=/var/tmp/set', '--index-url=http://m/simple/', '--extra-index-url=http://e1/simple', '--extra-index-url=http://e2/simple', '--trusted-host=m', '--trusted-host=e1']) {
      assert.ok(cmd.includes(flag), flag);
    }
    assert.deepEqual(cmd.slice(0, 5), ['python3', '-I', '-m', 'pip', 'install']);
    assert.equal(cmd.at(-1), '--', 'the specs follow --');
    // A value is never an option of its own, whatever it is.
    assert.ok(pipInstallerArgv('/s', { PIP_INDEX_URL: '--no-binary=:all:' }).includes('--index-url=--no-binary=:all:'));
    const assigned = installerEnvAssignments('pip', { ...env, PIP_REQUIREMENT: 'http://evil/r.txt', NODE_OPTIONS: '--require x' } as Record<string, string>);
    assert.deepEqual(assigned.map((a) => a.split('=')[0]).sort(), ['HOME', 'LC_ALL', 'PIP_CONFIG_FILE', 'PYTHONNOUSERSITE', 'TMPDIR', 'XDG_CACHE_HOME', 'https_proxy']);
    assert.ok(assigned.includes('PIP_CONFIG_FILE=/dev/null') && assigned.includes('https_proxy=http://u:p w@proxy:3128'));
    assert.match(PIP_WHEELS_ONLY_CHECK, /archive_info/);
    assert.ok(!PIP_WHEELS_ONLY_CHECK.includes("'"), 'the check sits inside single quotes of the constant script');
  });

  it('refuses a network name or volume that would break docker syntax', () => {
    for (const bad of [{ network: 'a,b' }, { network: '-x' }, { mounts: [{ source: 'v', volume: 'v,readonly=false', target: '/var/tmp', readOnly: false }] }, { mounts: [{ source: 'v', volume: 'v', target: '/a:b', readOnly: true }] }]) {
      assert.throws(() => buildInstallArgv({ ...spec, ...bad }, ['sh']), (e: unknown) => isSandboxError(e) && e.code === 'invalid-profile', JSON.stringify(bad));
    }
  });

  it('a read-only set mount never copies the image into the volume', () => {
    const argv = buildRunArgv({ name: 'sandbox-runner-x', profile, snippetFileName: 'main', mounts: [{ source: 'v1', volume: 'v1', target: '/opt/sandbox-deps', readOnly: true }], labels: {} });
    assert.ok(argv.includes('type=volume,src=v1,dst=/opt/sandbox-deps,volume-nocopy,readonly'));
  });
});
