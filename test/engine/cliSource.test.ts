import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { CLI, cliEnv, IMAGES, productContainers, requireEngine } from './helpers';
import { makeWorkspace } from '../support/workspace';

// Issue 11, "Errors that lead back to the source": what the CLI prints to a terminal names the
// host file and its real line; piped output stays the program's bytes.
describe('sandbox-run CLI source references (engine)', function () {
  this.timeout(60_000);
  let ws: string;
  let boom: string;
  before(async () => {
    await requireEngine();
    ws = await makeWorkspace('sr-cli-src-', `{ "sandboxRunner.profiles": {
        "python": { "image": "${IMAGES.python}" },
        "busybox-sh": { "image": "${IMAGES.busybox}", "command": ["sh", "\${file}"], "extensions": [".sh"] },
        "dash": { "image": "${IMAGES.python}", "command": ["sh", "\${file}"], "extensions": [".dash"] }
      } }`);
    boom = join(ws, 'boom.py');
    await writeFile(boom, 'print("start")\ndef f():\n    raise ValueError("line three")\nf()\n');
  });
  after(() => rm(ws, { recursive: true, force: true }));

  it('a traceback printed to a terminal names the host file and line 3; piped, it is unchanged', async () => {
    // A real pseudo-terminal: python's pty.spawn with an argv (no shell string), as sandboxRun.test.ts does.
    const spawn = 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)';
    const tty = await execa('python3', ['-c', spawn, 'node', CLI, '--workspace', ws, boom], {
      reject: false, cwd: ws, stdin: 'ignore', env: cliEnv(),
    });
    const text = String(tty.stdout);
    assert.ok(text.includes(`File "${boom}", line 3, in f`), text);
    assert.ok(text.includes(`File "${boom}", line 4, in <module>`), text);
    assert.ok(!text.includes('/sandbox/main.py'), text);
    assert.equal(tty.exitCode, 1, text);

    const piped = execa('node', [CLI, '--workspace', ws, '--quiet', boom], { reject: false, cwd: ws, stdin: 'ignore', env: cliEnv(), encoding: 'buffer', stripFinalNewline: false });
    const r = await piped;
    assert.deepEqual(await productContainers(piped.pid!), []);
    assert.equal(Buffer.from(r.stdout).toString('latin1'), 'start\n');
    const expected =
      'Traceback (most recent call last):\n' +
      '  File "/sandbox/main.py", line 4, in <module>\n' +
      '    f()\n' +
      '  File "/sandbox/main.py", line 3, in f\n' +
      '    raise ValueError("line three")\n' +
      'ValueError: line three\n';
    assert.equal(Buffer.from(r.stderr).toString('latin1'), expected);
  });

  it('a shell error on a terminal names the host file and line 3, as busybox sh and dash print it', async () => {
    const spawn = 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)';
    const script = 'echo one\n\nnosuchcommand\n';
    const cases = [
      // busybox: `/sandbox/main.sh: line 3: nosuchcommand: not found`
      { file: join(ws, 'err.sh'), profile: 'busybox-sh', shown: (f: string) => `${f}: line 3: nosuchcommand: not found` },
      // dash (Debian's /bin/sh): `/sandbox/main.dash: 3: nosuchcommand: not found`
      { file: join(ws, 'err.dash'), profile: 'dash', shown: (f: string) => `${f}: 3: nosuchcommand: not found` },
    ];
    for (const c of cases) {
      await writeFile(c.file, script);
      const tty = await execa('python3', ['-c', spawn, 'node', CLI, '--workspace', ws, '--profile', c.profile, c.file], {
        reject: false, cwd: ws, stdin: 'ignore', env: cliEnv(),
      });
      assert.ok(String(tty.stdout).includes(c.shown(c.file)), String(tty.stdout));
      const piped = await execa('node', [CLI, '--workspace', ws, '--quiet', '--profile', c.profile, c.file], { reject: false, cwd: ws, stdin: 'ignore', env: cliEnv() });
      assert.equal(piped.stderr, c.shown(`/sandbox/main${c.file.slice(c.file.lastIndexOf('.'))}`));
    }
  });
});
