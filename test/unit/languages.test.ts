import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_PROFILES } from '../../src/core/profiles/defaults';
import { buildCreateArgv, buildRunArgv, buildTtyCreateArgv, type ContainerSpec } from '../../src/core/container/argv';
import { COMPILE_LAUNCHER, LAUNCHER, PREAMBLE, PreambleReader, TTY_COMPILE_LAUNCHER, TTY_PREAMBLE } from '../../src/core/container/launcher';
import { routeLoosening } from '../../src/core/admission/loosening';
import { pickProfile, resolveProfiles } from '../../src/core/profiles/profileResolution';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { findErrorSite } from '../../src/core/source/errorSite';
import { shebangCandidates, shebangInterpreter } from '../../src/core/profiles/shebang';
import { findSourceRefs, rewriteSourceRefs, type SnippetOrigin } from '../../src/core/source/sourceRefs';

const origin = (ext: string, line = 0): SnippetOrigin => ({ source: `/home/ada/x${ext}`, line, column: 0, dedent: 0, snippetPath: `/sandbox/main${ext}` });

describe('languages: shebangs, compile step and compiler error sites (unit)', () => {
  it('activates on a document of every built-in profile\'s language (bash has no VS Code language id: its files are shellscript)', () => {
    const events = new Set<string>((JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { activationEvents: string[] }).activationEvents);
    const languages = Object.values(BUILTIN_PROFILES).flatMap((p) => p.languages ?? []).filter((l) => l !== 'bash');
    assert.deepEqual(languages.filter((l) => !events.has(`onLanguage:${l}`)), []);
  });

  it('reads the interpreter a shebang names, through env and its options', () => {
    const cases: readonly (readonly [string, string | undefined])[] = [
      ['#!/usr/bin/env bash\necho', 'bash'],
      ['#!/bin/bash -e\n', 'bash'],
      ['#! /usr/bin/python3 -u\n', 'python3'],
      ['#!/usr/bin/env -S PYTHONWARNINGS=x python3.12 -u\n', 'python3.12'],
      ['\uFEFF#!/usr/bin/perl\n', 'perl'],
      ['#!/usr/bin/env\n', undefined],
      ['# not a shebang\n', undefined],
      ['echo hi\n', undefined],
      ['#!/usr/bin/$(rm -rf ~)\n', undefined],
      [`#!/${'x'.repeat(400)}`, undefined],
    ];
    for (const [code, want] of cases) assert.equal(shebangInterpreter(code), want, code);
    assert.equal(shebangInterpreter(Buffer.from('#!/usr/bin/env ruby\n')), 'ruby');
    assert.deepEqual(shebangCandidates('python3.12'), ['python3.12', 'python3', 'python']);
  });

  it('a shebang picks the profile before the language id and the extension', () => {
    const set = resolveProfiles([]);
    assert.equal(pickProfile(set, { languageId: 'shellscript', fileName: 'a.sh', shebang: 'bash' })?.name, 'bash');
    assert.equal(pickProfile(set, { languageId: 'shellscript', fileName: 'a.sh', shebang: 'python3' })?.name, 'python');
    assert.equal(pickProfile(set, { languageId: 'shellscript', fileName: 'a.sh', shebang: 'python3.12' })?.name, 'python');
    assert.equal(pickProfile(set, { languageId: 'shellscript', fileName: 'a.sh', shebang: 'fish' })?.name, 'shell');
    assert.equal(pickProfile(set, { name: 'shell', shebang: 'bash' })?.name, 'shell', 'a name wins');
    const ws = resolveProfiles([{ source: 'workspace', value: { mine: { image: 'x', command: ['bash', '${file}'], shebangs: ['bash'] } } }]);
    assert.equal(pickProfile(ws, { languageId: 'shellscript', shebang: 'bash' })?.name, 'mine', 'the highest layer first');
  });

  it('a workspace profile claiming a shebang into a looser profile is a re-routing that needs consent', () => {
    const layers = [{ source: 'workspace' as const, value: { grab: { image: 'x', command: ['python3', '${file}'], shebangs: ['python3'], network: 'bridge' } } }];
    const r = routeLoosening({ layers }, { languageId: 'python', fileName: '/w/a.py', shebang: 'python3' });
    assert.deepEqual(r?.loosenings.map((l) => l.description), ['workspace settings send this file to profile "grab" instead of "python"', 'network: none → bridge']);
    assert.equal(routeLoosening({ layers }, { languageId: 'python', fileName: '/w/a.py' }), undefined, 'without the shebang it does not route there');
  });

  it('refuses shebang names that are not interpreter names, and a compile step without ${file}', () => {
    for (const shebangs of [['a b'], ['-x'], [''], 'bash']) {
      assert.equal(ProfileSchema.safeParse({ image: 'i', command: ['${file}'], shebangs }).success, false, JSON.stringify(shebangs));
    }
    assert.equal(ProfileSchema.safeParse({ image: 'i', command: ['${out}'], compile: ['gcc', 'x.c'] }).success, false);
    assert.equal(ProfileSchema.safeParse({ image: 'i', command: ['${out}'], compile: [] }).success, false);
    assert.equal(ProfileSchema.safeParse({ image: 'i', command: ['${out}'], compile: ['gcc', '-o', '${out}', '${file}'] }).success, true);
  });

  it('passes the compile argv to the compile launcher as words after their count; never to the plain one', () => {
    const profile = ProfileSchema.parse({ image: 'gcc:14', command: ['${out}', '-v'], compile: ['gcc', '-o', '${out}', '${file}'], extensions: ['.c'] });
    const spec: ContainerSpec = { name: 'sandbox-runner-x', profile, labels: {}, snippetFileName: 'main.c', mounts: [] };
    const argv = buildRunArgv(spec);
    const at = argv.indexOf(COMPILE_LAUNCHER);
    assert.ok(at > 0);
    assert.deepEqual(argv.slice(at + 1), ['/sandbox/main.c', '4', 'gcc', '-o', '/sandbox/a.out', '/sandbox/main.c', '/sandbox/a.out', '-v']);
    assert.ok(buildTtyCreateArgv(spec).includes(TTY_COMPILE_LAUNCHER));
    const plain = { ...spec, profile: ProfileSchema.parse({ image: 'i', command: ['sh', '${file}'] }) };
    assert.ok(buildRunArgv(plain).includes(LAUNCHER));
    assert.throws(() => buildCreateArgv({ ...spec, snippetHostDir: '/tmp/x' }), /no "sh"/);
  });

  it('reads the compile step: compiler output passes, ready or compile-failed end it, markers split across chunks', () => {
    const r = new PreambleReader();
    const out: Buffer[] = [];
    const feed = (s: string) => out.push(r.push(Buffer.from(s, 'latin1')));
    feed('engine words' + PREAMBLE.waiting + PREAMBLE.compiling + 'main.c:3:5: warning: x\n');
    assert.equal(r.verdict, 'compiling');
    const ready = PREAMBLE.ready;
    feed('more\n' + ready.slice(0, 5));
    feed(ready.slice(5) + 'hello\n');
    feed('\x1e not a marker\n');
    assert.equal(r.verdict, 'ready');
    assert.equal(Buffer.concat(out).toString('latin1'), 'main.c:3:5: warning: x\nmore\nhello\n\x1e not a marker\n');

    const failed = new PreambleReader(TTY_PREAMBLE);
    const text = [TTY_PREAMBLE.waiting, TTY_PREAMBLE.compiling, 'err\r\n', TTY_PREAMBLE.compileFailed].join('');
    assert.equal(failed.push(Buffer.from(text, 'latin1')).toString('latin1'), 'err\r\n');
    assert.equal(failed.verdict, 'compile-failed');
  });

  it('finds the first compiler error in the snippet, skipping warnings, for gcc, go, rustc and javac', () => {
    const gcc = [
      '/sandbox/main.c: In function \'main\':',
      '/sandbox/main.c:2:7: warning: unused variable \'x\' [-Wunused-variable]',
      '/sandbox/main.c:3:10: error: \'y\' undeclared (first use in this function)',
      '    3 |   return y;',
      '/sandbox/main.c:4:1: error: expected \';\'',
    ];
    assert.deepEqual(findErrorSite(gcc, origin('.c', 10)), {
      ref: { start: 0, end: 20, kind: 'snippet', path: '/home/ada/x.c', line: 12, column: 9 },
      message: 'error: \'y\' undeclared (first use in this function)',
    });
    const go = ['# command-line-arguments', '/sandbox/main.go:4:7: undefined: y'];
    assert.equal(findErrorSite(go, origin('.go'))?.ref.line, 3);
    assert.equal(findErrorSite(go, origin('.go'))?.message, 'undefined: y');
    const rust = ['error[E0425]: cannot find value `y` in this scope', ' --> /sandbox/main.rs:2:13', '  |'];
    assert.deepEqual([findErrorSite(rust, origin('.rs'))?.ref.line, findErrorSite(rust, origin('.rs'))?.message], [1, 'error[E0425]: cannot find value `y` in this scope']);
    const java = ['/sandbox/main.java:3: error: cannot find symbol'];
    assert.equal(findErrorSite(java, origin('.java'))?.ref.line, 2);
  });

  it('a Rust panic is the site, not the compile step\'s warnings before it (rustc 1.63 and current forms)', () => {
    const warned = ['warning: unused variable: `unused`', ' --> /sandbox/main.rs:2:9', '  |', '/sandbox/main.rs:1:1: warning: x', 'start'];
    const old = [...warned, 'thread \'main\' panicked at \'boom\', /sandbox/main.rs:3:5'];
    assert.deepEqual([findErrorSite(old, origin('.rs', 4))?.ref.line, findErrorSite(old, origin('.rs', 4))?.message], [6, 'thread \'main\' panicked at \'boom\', /sandbox/main.rs:3:5']);
    const current = [...warned, 'thread \'main\' panicked at /sandbox/main.rs:3:5:', 'boom'];
    assert.equal(findErrorSite(current, origin('.rs'))?.ref.line, 2);
    assert.equal(findErrorSite(warned, origin('.rs')), undefined, 'warnings alone are no error site');
  });

  it('links perl, PHP, ruby and Go panic lines, and rewrites them for a terminal', () => {
    assert.equal(findSourceRefs('boom at /sandbox/main.pl line 12.', origin('.pl'))[0]?.line, 11);
    assert.equal(findSourceRefs('PHP Parse error:  syntax error in /sandbox/main.php on line 7', origin('.php'))[0]?.line, 6);
    assert.equal(findErrorSite(['/sandbox/main.rb:2:in \'f\': boom (RuntimeError)', '\tfrom /sandbox/main.rb:4:in \'<main>\''], origin('.rb'))?.ref.line, 1);
    const panic = ['panic: boom', '', 'goroutine 1 [running]:', 'main.main()', '\t/sandbox/main.go:4 +0x25', 'exit status 2'];
    assert.deepEqual([findErrorSite(panic, origin('.go'))?.ref.line, findErrorSite(panic, origin('.go'))?.message], [3, 'panic: boom']);
    assert.equal(rewriteSourceRefs('boom at /sandbox/main.pl line 2.', origin('.pl', 9)), 'boom at /home/ada/x.pl line 11.');
    assert.equal(rewriteSourceRefs('x in /sandbox/main.php on line 3', origin('.php', 9)), 'x in /home/ada/x.php on line 12');
  });

  it('links a Java stack frame of the snippet (base name only), never a frame of a named module or another file', () => {
    const trace = [
      'Exception in thread "main" java.lang.IllegalStateException: boom',
      '\tat Main.f(main.java:3)',
      '\tat Main.main(main.java:6)',
      '\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)',
      '\tat jdk.compiler/com.sun.tools.javac.launcher.Main.execute(Main.java:419)',
    ];
    assert.deepEqual(findErrorSite(trace, origin('.java', 10)), {
      ref: { start: 11, end: 22, kind: 'snippet', path: '/home/ada/x.java', line: 12 },
      message: 'Exception in thread "main" java.lang.IllegalStateException: boom',
    });
    assert.deepEqual(trace.map((l) => findSourceRefs(l, origin('.java')).length), [0, 1, 1, 0, 0]);
    for (const other of ['\tat Main.f(Main.java:3)', '\tat a/Main.f(main.java:3)', 'x at Main.f(main.java:3)', '\tat Main.f(main.java:0)', '\tat Main.f(main.java:3) x']) {
      assert.deepEqual(findSourceRefs(other, origin('.java')), [], other);
    }
    assert.equal(rewriteSourceRefs('\tat Main.f(main.java:3)', origin('.java', 9)), '\tat Main.f(/home/ada/x.java:12)');
  });
});
