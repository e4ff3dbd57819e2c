/**
 * The built-in language profiles as shipped (issue 23): each built-in's command, compile step,
 * limits and env run unchanged; only `image` is replaced by a local test image with the same
 * toolchain (scripts/build-test-images.sh), as a user's settings would merge it key by key.
 * Per language: hello world with a program argument, a line read from standard input (live
 * input over a pipe, as `sandbox-run -i`), a non-zero exit, and a compile error
 * (compiled languages: outcome `compile-failed`, its error site at the right line of a file and
 * of a selection) or a runtime error linked to its line (interpreted ones).
 */
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BUILTIN_PROFILES } from '../../src/core/profiles/defaults';
import { ProfileSchema, type Profile } from '../../src/core/profiles/profileSchema';
import { dedent } from '../../src/core/source/dedent';
import { findErrorSite } from '../../src/core/source/errorSite';
import { findFencedBlocks } from '../../src/core/source/fences';
import { snippetOrigin } from '../../src/core/source/snippetOrigin';
import { findSourceRefs, type SnippetOrigin } from '../../src/core/source/sourceRefs';
import { LANGUAGE_IMAGES, LANGUAGE_SUITE_IMAGES } from '../support/images';
import { requireEngine as requireTestEngine, TEST_ENGINE } from '../support/engine';
import { engineCli, ENGINE_KIND, engineSeesClientFiles, noLeftoversAfterEach, run, waitFor } from './helpers';

/** A built-in profile with only its image replaced. */
function shipped(name: string, image: string): Profile {
  const builtin = BUILTIN_PROFILES[name];
  assert.ok(builtin, `no built-in profile "${name}"`);
  return ProfileSchema.parse({ ...builtin, image });
}

/** One language's cases: its snippets and the 1-based line each error is on. */
interface Language {
  readonly profile: string;
  readonly image: string;
  readonly ext: string;
  /** Prints `hello <first argument>`. */
  readonly hello: string;
  /** Exits with status 3. */
  readonly exit3: string;
  /** Reads one line from standard input and prints `hello <line>`. */
  readonly stdin: string;
  /**
   * Does not compile; the first error is on `line`. `inProcess`: the runtime compiles in the
   * program's own process (java's source launcher), so the run ends as its exit 1, not as the
   * compile step's `compile-failed`.
   */
  readonly compileError?: { readonly code: string; readonly line: number; readonly message: RegExp; readonly inProcess?: boolean };
  /** Fails at run time; the error names `line`. */
  readonly runtimeError?: { readonly code: string; readonly line: number; readonly message: RegExp };
  /** Fails at run time, and the runtime names no line (Rscript): the error shows, nothing is linked. */
  readonly lineless?: { readonly code: string; readonly message: RegExp };
}

const LANGUAGES: readonly Language[] = [
  {
    profile: 'bash', image: LANGUAGE_IMAGES.langs, ext: '.bash',
    hello: 'declare -a a=(hello "$1")\necho "${a[@]}"\n',
    exit3: 'exit 3\n',
    stdin: 'read -r who\necho "hello $who"\n',
    runtimeError: { code: 'echo start\nno_such_command_x\nexit 1\n', line: 2, message: /no_such_command_x: command not found/ },
  },
  {
    profile: 'c', image: LANGUAGE_IMAGES.langs, ext: '.c',
    hello: '#include <stdio.h>\nint main(int argc, char **argv) {\n  printf("hello %s\\n", argv[1]);\n  return 0;\n}\n',
    exit3: 'int main(void) { return 3; }\n',
    stdin: '#include <stdio.h>\nint main(void) {\n  char who[64];\n  if (scanf("%63s", who) != 1) return 1;\n  printf("hello %s\\n", who);\n  return 0;\n}\n',
    compileError: { code: 'int main(void) {\n  int x = 1;\n  return y;\n}\n', line: 3, message: /error: .y. undeclared/ },
  },
  {
    profile: 'cpp', image: LANGUAGE_IMAGES.langs, ext: '.cpp',
    hello: '#include <iostream>\nint main(int argc, char **argv) {\n  std::cout << "hello " << argv[1] << std::endl;\n}\n',
    exit3: '#include <cstdlib>\nint main() { std::exit(3); }\n',
    stdin: '#include <iostream>\n#include <string>\nint main() {\n  std::string who;\n  std::cin >> who;\n  std::cout << "hello " << who << std::endl;\n}\n',
    compileError: { code: '#include <string>\nint main() {\n  std::string s = 1.5;\n}\n', line: 3, message: /error: conversion from/ },
  },
  {
    profile: 'go', image: LANGUAGE_IMAGES.go, ext: '.go',
    hello: 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tfmt.Println("hello", os.Args[1])\n}\n',
    exit3: 'package main\n\nimport "os"\n\nfunc main() { os.Exit(3) }\n',
    stdin: 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar who string\n\tfmt.Scan(&who)\n\tfmt.Println("hello", who)\n}\n',
    compileError: { code: 'package main\n\nfunc main() {\n\tx := y\n}\n', line: 4, message: /undefined: y/ },
    runtimeError: { code: 'package main\n\nfunc main() {\n\tpanic("boom")\n}\n', line: 4, message: /^panic: boom/ },
  },
  {
    profile: 'rust', image: LANGUAGE_IMAGES.langs, ext: '.rs',
    hello: 'use std::env;\n\nfn main() {\n    let args: Vec<String> = env::args().collect();\n    println!("hello {}", args[1]);\n}\n',
    exit3: 'fn main() {\n    std::process::exit(3);\n}\n',
    stdin: 'use std::io::BufRead;\n\nfn main() {\n    let line = std::io::stdin().lock().lines().next().unwrap().unwrap();\n    println!("hello {}", line.trim());\n}\n',
    compileError: { code: 'fn main() {\n    let x = 1;\n    println!("{}", x + y);\n}\n', line: 3, message: /^error\[E0425\]: cannot find value `y`/ },
    // The unused variable's warning (a ` --> main.rs:2` line) comes first and is not the site.
    runtimeError: { code: 'fn main() {\n    let unused = 1;\n    panic!("boom");\n}\n', line: 3, message: /panicked at/ },
  },
  {
    profile: 'java', image: LANGUAGE_IMAGES.langs, ext: '.java',
    // The source launcher runs the first top-level class whatever its name (the file is main.java).
    hello: 'public class Hello {\n    public static void main(String[] args) {\n        System.out.println("hello " + args[0]);\n    }\n}\n',
    exit3: 'class Main {\n    public static void main(String[] args) {\n        System.exit(3);\n    }\n}\n',
    stdin: 'import java.util.Scanner;\n\nclass Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        System.out.println("hello " + in.nextLine());\n    }\n}\n',
    compileError: { code: 'class Main {\n    public static void main(String[] args) {\n        int x = y;\n    }\n}\n', line: 3, message: /error: cannot find symbol/, inProcess: true },
    // The stack frame names the file without its path: `at Main.f(main.java:3)`.
    runtimeError: { code: 'class Main {\n    static void f() {\n        throw new IllegalStateException("boom");\n    }\n    public static void main(String[] args) {\n        f();\n    }\n}\n', line: 3, message: /^Exception in thread "main" java\.lang\.IllegalStateException: boom$/ },
  },
  {
    profile: 'typescript', image: LANGUAGE_IMAGES.langs, ext: '.ts',
    // Types are stripped, never checked: the annotations and the `!` go, the code runs.
    hello: 'interface Who { name: string }\nconst who: Who = { name: process.argv[2]! };\nconsole.log(`hello ${who.name}`);\n',
    exit3: 'const code: number = 3;\nprocess.exit(code);\n',
    stdin: 'import { createInterface } from "node:readline";\nconst rl = createInterface({ input: process.stdin });\nrl.once("line", (who: string) => {\n  console.log(`hello ${who}`);\n  rl.close();\n});\n',
    runtimeError: { code: 'function f(n: number): never {\n  void n;\n  throw new Error("boom");\n}\nf(1);\n', line: 3, message: /^Error: boom/ },
  },
  {
    profile: 'ruby', image: LANGUAGE_IMAGES.langs, ext: '.rb',
    hello: 'puts "hello #{ARGV[0]}"\n',
    exit3: 'exit 3\n',
    stdin: 'who = $stdin.gets.chomp\nputs "hello #{who}"\n',
    runtimeError: { code: 'def f\n  raise "boom"\nend\nf\n', line: 2, message: /boom \(RuntimeError\)/ },
  },
  {
    profile: 'php', image: LANGUAGE_IMAGES.langs, ext: '.php',
    hello: '<?php\necho "hello " . $argv[1] . "\\n";\n',
    exit3: '<?php\nexit(3);\n',
    stdin: '<?php\n$who = trim(fgets(STDIN));\necho "hello $who\\n";\n',
    runtimeError: { code: '<?php\n\nthrow new Exception("boom");\n', line: 3, message: /Uncaught Exception: boom/ },
  },
  {
    profile: 'perl', image: LANGUAGE_IMAGES.langs, ext: '.pl',
    hello: 'use strict;\nprint "hello $ARGV[0]\\n";\n',
    exit3: 'exit 3;\n',
    stdin: 'my $who = <STDIN>;\nchomp $who;\nprint "hello $who\\n";\n',
    runtimeError: { code: 'use strict;\ndie "boom";\n', line: 2, message: /boom at / },
  },
  {
    profile: 'r', image: LANGUAGE_IMAGES.langs, ext: '.r',
    hello: 'args <- commandArgs(trailingOnly = TRUE)\ncat("hello ", args[1], "\\n", sep = "")\n',
    exit3: 'quit(status = 3)\n',
    stdin: 'who <- readLines(file("stdin"), n = 1)\ncat("hello ", who, "\\n", sep = "")\n',
    // Rscript runs without keep.source: `Error in f() : boom`, no line to link.
    lineless: { code: 'f <- function() {\n  stop("boom")\n}\nf()\n', message: /^Error in f\(\) : boom$/m },
  },
];

/**
 * `SANDBOX_RUNNER_TEST_LANGUAGES=lean` (the second engine's and Podman's runs, where CI time is
 * short): hello world for every language, the compile error of each compiled one and the runtime
 * error of one interpreted one (ruby); nothing else. Unset: every case.
 */
const LEAN = process.env.SANDBOX_RUNNER_TEST_LANGUAGES === 'lean';

/** The origin of a whole-file run of `/home/ada/main<ext>`, or of a selection starting at 0-based line `first`. */
function origin(ext: string, first = 0): SnippetOrigin {
  return { source: `/home/ada/main${ext}`, line: first, column: 0, dedent: 0, snippetPath: `/sandbox/main${ext}` };
}

function lines(r: { stdout: string; stderr: string }): string[] {
  return (r.stderr + r.stdout).split('\n');
}

describe('built-in language profiles as shipped (engine)', function () {
  this.timeout(180_000);
  before(() => requireTestEngine(TEST_ENGINE, LANGUAGE_SUITE_IMAGES));
  noLeftoversAfterEach();

  it('ships a profile, with an engine case here, for every language built in', () => {
    const tested = new Set(['python', 'node', 'shell', ...LANGUAGES.map((l) => l.profile)]);
    assert.deepEqual(Object.keys(BUILTIN_PROFILES).filter((n) => !tested.has(n)), []);
  });

  for (const lang of LANGUAGES) {
    describe(lang.profile, () => {
      it('runs hello world with a program argument', async () => {
        const r = await run(shipped(lang.profile, lang.image), lang.hello, { args: ['world'] });
        assert.equal(r.result.outcome, 'exited', r.stderr);
        assert.equal(r.result.exitCode, 0, r.stderr);
        assert.equal(r.stdout, 'hello world\n');
        if (ProfileSchema.parse(BUILTIN_PROFILES[lang.profile]).compile) assert.equal(r.result.phase, 'run');
      });

      if (!LEAN) it('reads its standard input (interactive input over a pipe)', async () => {
        const r = await run(shipped(lang.profile, lang.image), lang.stdin, { interactive: { input: Readable.from([Buffer.from('world\n')]) } });
        assert.equal(r.result.outcome, 'exited', r.stderr);
        assert.equal(r.result.exitCode, 0, r.stderr);
        assert.equal(r.stdout, 'hello world\n');
      });

      if (!LEAN) it('returns a non-zero exit as the program\'s own', async () => {
        const r = await run(shipped(lang.profile, lang.image), lang.exit3);
        assert.equal(r.result.outcome, 'exited', r.stderr);
        assert.equal(r.result.exitCode, 3);
      });

      const compile = lang.compileError;
      if (compile && !(LEAN && compile.inProcess)) {
        it(compile.inProcess ? 'links a compile error to its line in a file and a selection (the program\'s exit 1)' : 'ends a compile error as "compilation failed", linked to its line in a file and a selection', async () => {
          const r = await run(shipped(lang.profile, lang.image), compile.code);
          if (compile.inProcess) {
            assert.equal(r.result.outcome, 'exited', r.stderr);
            assert.equal(r.result.exitCode, 1);
          } else {
            assert.equal(r.result.outcome, 'compile-failed', r.stderr);
            assert.notEqual(r.result.exitCode, 0);
            assert.equal(r.result.phase, 'compile');
            assert.match(r.result.message, /^Compilation failed \(the compiler exited with code \d+\)/);
          }
          assert.equal(r.stdout, '', 'the compiler\'s output all goes to stderr');
          const site = findErrorSite(lines(r), origin(lang.ext));
          assert.ok(site, `no error site in: ${r.stderr}`);
          assert.equal(site.ref.line, compile.line - 1);
          assert.match(site.message, compile.message);
          const selected = findErrorSite(lines(r), origin(lang.ext, 40));
          assert.equal(selected?.ref.line, 40 + compile.line - 1);
        });
      }

      const runtime = lang.runtimeError;
      if (runtime && (!LEAN || lang.profile === 'ruby')) {
        it('links a runtime error to its line', async () => {
          const r = await run(shipped(lang.profile, lang.image), runtime.code);
          assert.equal(r.result.outcome, 'exited', r.stderr);
          assert.notEqual(r.result.exitCode, 0);
          const site = findErrorSite(lines(r), origin(lang.ext, 7));
          assert.ok(site, `no error site in: ${r.stderr}`);
          assert.equal(site.ref.line, 7 + runtime.line - 1);
          assert.match(site.message, runtime.message);
        });
      }

      const lineless = lang.lineless;
      if (lineless && !LEAN) {
        it('reports a runtime error that names no line, and links nothing', async () => {
          const r = await run(shipped(lang.profile, lang.image), lineless.code);
          assert.equal(r.result.outcome, 'exited', r.stderr);
          assert.notEqual(r.result.exitCode, 0);
          assert.match(r.stderr, lineless.message);
          assert.equal(findErrorSite(lines(r), origin(lang.ext, 7)), undefined);
        });
      }
    });
  }

  it('keeps the floor while compiling: the root is read-only and /tmp noexec; the program runs from /sandbox', async () => {
    const code = [
      '#include <stdio.h>',
      '#include <stdlib.h>',
      '#include <unistd.h>',
      'int main(void) {',
      '  FILE *f = fopen("/usr/x", "w");',
      '  printf("root %s\\n", f ? "writable" : "read-only");',
      '  char self[64] = {0};',
      '  readlink("/proc/self/exe", self, sizeof self - 1);',
      '  printf("%s\\n", self);',
      '  fflush(stdout);',
      '  return system("cp /proc/self/exe /tmp/x && /tmp/x 2>/dev/null; echo tmp exec $?; cp /sandbox/a.out $HOME/x && $HOME/x 2>/dev/null; echo home exec $?") == 0 ? 0 : 1;',
      '}',
    ].join('\n');
    const r = await run(shipped('c', LANGUAGE_IMAGES.langs), code);
    assert.equal(r.result.outcome, 'exited', r.stderr);
    assert.equal(r.stdout, 'root read-only\n/sandbox/a.out\ntmp exec 126\nhome exec 126\n');
  });

  if (!LEAN) it('a run stopped while compiling says so: phase "compile"', async () => {
    const profile = ProfileSchema.parse({ ...BUILTIN_PROFILES.c, image: LANGUAGE_IMAGES.langs, compile: ['sh', '-c', 'sleep 600', '${file}'] });
    const controller = new AbortController();
    let name = '';
    const pending = run(profile, 'int main(void) { return 0; }\n', { signal: controller.signal, onArgv: (argv) => (name ||= argv[argv.indexOf('--name') + 1]!) });
    // The compile step runs once a process whose whole command line is `sleep 600` shows in the
    // container (the compiler's output is passed on when it ends, so there is nothing to read
    // before). Not any line containing it: the launcher's own argv holds the compile words from
    // the container's start, before the code is sent, and a stop then has no phase yet.
    await waitFor(async () => {
      const top = await engineCli(['top', name, '-o', 'pid,args'], { reject: false });
      return top.exitCode === 0 && String(top.stdout).split('\n').some((l) => /^\s*\d+\s+sleep 600\s*$/.test(l));
    }, 60_000, 'the compile step to start');
    controller.abort();
    const r = await pending;
    assert.equal(r.result.outcome, 'cancelled');
    assert.equal(r.result.phase, 'compile', JSON.stringify(r));
  });

  if (!LEAN) it('keeps compiler output that imitates a launcher marker as output, never as a verdict', async () => {
    // gcc quotes the offending source line, RS byte included; the launcher strips RS from compiler output.
    const code = 'int main(void) {\n  return "\x1esandbox-runner:ready\\n" + ;\n}\n';
    const r = await run(shipped('c', LANGUAGE_IMAGES.langs), code);
    assert.equal(r.result.outcome, 'compile-failed', r.stderr);
    assert.ok(!r.stderr.includes('\x1e'));
    assert.match(r.stderr, /sandbox-runner:ready/);
  });
  if (!LEAN) describe('selections, Markdown blocks and workspace files: errors at the document\'s line', () => {
    /** Runs lines `from`..`to` (0-based, inclusive) of `doc` as the editor runs a selection: dedented, with its origin. */
    async function runSelection(name: string, doc: string, from: number, to: number) {
      const picked = dedent(doc.split('\n').slice(from, to + 1).join('\n') + '\n');
      const profile = shipped(name, LANGUAGE_IMAGES.langs);
      const r = await run(profile, picked.text, { sourceFileName: `/home/ada/notes${profile.extensions[0]}` });
      return { r, origin: snippetOrigin(profile, { source: '/home/ada/notes', sourceFileName: `/home/ada/notes${profile.extensions[0]}`, line: from, column: 0, dedent: picked.width }) };
    }

    /** Runs the Markdown block of `doc` fenced as `info`, as the CodeLens runs it. */
    async function runBlock(name: string, doc: string, info: string) {
      const block = findFencedBlocks(doc).find((b) => b.info === info);
      assert.ok(block, `no ${info} block`);
      const profile = shipped(name, name === 'go' ? LANGUAGE_IMAGES.go : LANGUAGE_IMAGES.langs);
      const r = await run(profile, block.lines.join('\n') + '\n', { sourceFileName: `/home/ada/README.md${profile.extensions[0]}` });
      return { r, origin: snippetOrigin(profile, { source: '/home/ada/README.md', sourceFileName: `/home/ada/README.md${profile.extensions[0]}`, line: block.contentStart, column: 0, dedent: block.strip }) };
    }

    it('C selection: the compile error at its document line and column (dedent counted)', async () => {
      const doc = ['// scratch', '#if 0', '    int main(void) {', '        int x = 1;', '        return y;', '    }', '#endif', ''].join('\n');
      const { r, origin: o } = await runSelection('c', doc, 2, 5);
      assert.equal(r.result.outcome, 'compile-failed', r.stderr);
      const site = findErrorSite(lines(r), o);
      assert.deepEqual([site?.ref.line, site?.ref.column], [4, 15], r.stderr);
    });

    it('Ruby selection: the runtime error at its document line', async () => {
      const doc = ['# notes', 'x = 1', '  def f', '    raise "boom"', '  end', '  f', ''].join('\n');
      const { r, origin: o } = await runSelection('ruby', doc, 2, 5);
      assert.equal(r.result.outcome, 'exited', r.stderr);
      assert.equal(findErrorSite(lines(r), o)?.ref.line, 3, r.stderr);
    });

    it('Go Markdown block in a list item: the compile error at its Markdown line', async () => {
      const doc = ['# Go', '', '1. Try:', '', '   ```go', '   package main', '', '   func main() {', '   \tx := y', '   }', '   ```', ''].join('\n');
      const { r, origin: o } = await runBlock('go', doc, 'go');
      assert.equal(r.result.outcome, 'compile-failed', r.stderr);
      const site = findErrorSite(lines(r), o);
      assert.equal(site?.ref.line, 8, r.stderr);
      assert.match(site?.message ?? '', /undefined: y/);
    });

    it('Perl Markdown block: the runtime error at its Markdown line', async () => {
      const doc = ['Some text.', '', '```perl', 'use strict;', 'print "start\\n";', 'die "boom";', '```', ''].join('\n');
      const { r, origin: o } = await runBlock('perl', doc, 'perl');
      assert.equal(r.result.outcome, 'exited', r.stderr);
      assert.equal(r.stdout, 'start\n');
      assert.equal(findErrorSite(lines(r), o)?.ref.line, 5, r.stderr);
    });

    it('a workspace run of a multi-file C program: its header is found, and an error in it leads to the header file', async () => {
      // Workspace runs are refused on Podman and on an engine that does not see this client's files (workspace.test.ts proves both).
      if (ENGINE_KIND === 'podman' || !(await engineSeesClientFiles())) return;
      const root = await mkdtemp(join(tmpdir(), 'sr-lang-ws-'));
      try {
        const main = '#include <stdio.h>\n#include "greet.h"\nint main(void) {\n  greet("world");\n  return 0;\n}\n';
        await writeFile(join(root, 'main.c'), main);
        await writeFile(join(root, 'greet.h'), 'static void greet(const char *who) {\n  printf("hello %s\\n", who);\n}\n');
        await execa('chmod', ['-R', 'a+rX', root]);
        await chmod(root, 0o755);
        const profile = ProfileSchema.parse({ ...BUILTIN_PROFILES.c, image: LANGUAGE_IMAGES.langs, workspace: 'ro' });
        const request = { sourceFileName: join(root, 'main.c'), paths: { workspaceFolder: root, fileDirname: root, file: join(root, 'main.c') } };
        const ok = await run(profile, main, request);
        assert.equal(ok.result.outcome, 'exited', ok.stderr);
        assert.equal(ok.stdout, 'hello world\n');

        await writeFile(join(root, 'greet.h'), 'static void greet(const char *who) {\n  printf("hello %s\\n", whom);\n}\n');
        const bad = await run(profile, main, request);
        assert.equal(bad.result.outcome, 'compile-failed', bad.stderr);
        const o = snippetOrigin(profile, { source: join(root, 'main.c'), sourceFileName: join(root, 'main.c') }, request.paths);
        const refs = lines(bad).flatMap((l) => findSourceRefs(l, o)).filter((ref) => ref.kind === 'mount');
        assert.equal(refs[0]?.path, join(root, 'greet.h'), bad.stderr);
        assert.equal(refs[0]?.line, 1);
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    });
  });
});
