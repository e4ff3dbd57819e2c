import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import { makeWorkspace } from '../support/workspace';
import { CLI, IMAGES, productContainers, requireEngine, runCli, waitFor } from './helpers';

describe('sandbox-run CLI (engine)', function () {
  this.timeout(60_000);
  let ws: string;
  before(async () => {
    await requireEngine();
    ws = await makeWorkspace(
      'sr-cli-',
      `{
        // JSONC, as VS Code writes it
        "sandboxRunner.profiles": {
          "python": { "image": "${IMAGES.python}" },
          "bounded": { "image": "${IMAGES.python}", "command": ["python3", "\${file}"], "limits": { "outputBytes": 1024 } },
          "shell": { "image": "${IMAGES.busybox}", "limits": { "timeoutSeconds": 20 } },
          "broken": { "image": "x", "command": ["run"], "limits": { "pids": 0 } },
          "open": { "image": "${IMAGES.busybox}", "command": ["sh", "\${file}"], "network": "bridge" },
          "patient": { "image": "${IMAGES.python}", "command": ["python3", "\${file}"], "limits": { "interruptGraceSeconds": 60 } },
        },
      }`,
      { 'hello.py': 'import sys\nprint("hi from", sys.argv[0])\nsys.exit(5)\n', 'spaces $(touch pwned); name.sh': 'echo safe\n' },
    );
  });
  after(() => rm(ws, { recursive: true, force: true }));

  /** Runs `print(1)` as a.py with the CLI in a fresh workspace whose settings file is `settings`. */
  const runInOtherWorkspace = async (settings: string) => {
    const other = await makeWorkspace('sr-cli-other-', settings, { 'a.py': 'print(1)\n' });
    try {
      return await execa('node', [CLI, '--workspace', other, join(other, 'a.py')], { reject: false, stdin: 'ignore' });
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  };

  /** Runs the CLI to completion and checks it left no container behind. */
  const cli = (args: string[], input?: string, options: { encoding?: 'buffer' } = {}) => runCli(ws, args, { ...options, ...(input !== undefined ? { input } : {}) });

  it('picks the profile by extension, streams output and exits with the program status', async () => {
    const r = await cli([join(ws, 'hello.py')]);
    assert.equal(r.stdout, 'hi from /sandbox/main.py');
    assert.equal(r.exitCode, 5);
    assert.match(String(r.stderr), /sandbox-run: Exited with code 5 in \d+ ms\. \[profile python, image sandbox-runner-test\/python:2, network off, engine (context "default"|host "[^"]+") · (Docker Engine|Podman) \S+ · runtime \S+\]/);
  });

  it('reads code from standard input with --profile', async () => {
    const r = await cli(['--profile', 'shell', '-'], 'echo from stdin\n');
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, 'from stdin');
  });

  it('treats a file name with shell metacharacters as data', async () => {
    const r = await cli([join(ws, 'spaces $(touch pwned); name.sh')]);
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, 'safe');
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('exits 124 on timeout (--timeout overrides the profile)', async () => {
    const r = await cli(['--profile', 'shell', '--timeout', '1', '-'], 'sleep 30\n');
    assert.equal(r.exitCode, 124);
    assert.match(String(r.stderr), /Timed out after 1 s/);
  });

  it('Ctrl-C (SIGINT) interrupts the program, removes the container and exits 130', async () => {
    const child = execa('node', [CLI, '--workspace', ws, '--profile', 'shell', '-'], { reject: false, input: 'echo ready; sleep 60\n' });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('ready'), 20_000, 'the program to start');
    child.kill('SIGINT');
    const r = await child;
    assert.deepEqual(await productContainers(child.pid!), []);
    assert.equal(r.exitCode, 130);
    assert.match(String(r.stderr), /interrupting the program \(SIGINT\); the container is removed in 2 s/);
    assert.match(String(r.stderr), /Cancelled after \d+ ms; the program had exited with code 130 within the grace period after SIGINT; the container was removed/);
  });

  it('a second Ctrl-C removes the container at once, even when the program ignores SIGINT', async () => {
    const code = 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("ready", flush=True)\ntime.sleep(60)\n';
    // A 60 s grace (a loosening, hence --allow-loosening): only the forced removal ends it in time.
    const child = execa('node', [CLI, '--workspace', ws, '--profile', 'patient', '--allow-loosening', '-'], { reject: false, input: code });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('ready'), 20_000, 'the program to start');
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    const r = await child;
    assert.deepEqual(await productContainers(child.pid!), []);
    assert.equal(r.exitCode, 130);
    assert.match(String(r.stderr), /removing the container now/);
    assert.match(String(r.stderr), /Cancelled after \d+ ms; the container was removed/);
  });

  it('explains an invalid profile by setting key and exits 2 without running anything', async () => {
    const r = await cli(['--profile', 'broken', '-'], 'echo x\n');
    assert.equal(r.exitCode, 2);
    assert.match(String(r.stderr), /sandboxRunner\.profiles\.broken\.limits\.pids: must be a whole number from 8 to 4096/);
    assert.match(String(r.stderr), /sandboxRunner\.profiles\.broken\.command: must be a non-empty list/);
    assert.match(String(r.stderr), /profile "broken" is invalid/);
  });

  it('refuses a workspace profile that loosens the sandbox unless --allow-loosening is given', async () => {
    const refused = await cli(['--profile', 'open', '-'], 'echo ran\n');
    assert.equal(refused.exitCode, 2);
    assert.equal(refused.stdout, '');
    assert.match(String(refused.stderr), /sandboxRunner\.profiles\.open\.network: network: none → bridge/);
    assert.match(String(refused.stderr), /\+ --network bridge/);
    assert.match(String(refused.stderr), /pass --allow-loosening to run it/);
    const allowed = await cli(['--profile', 'open', '--allow-loosening', '-'], 'echo ran\n');
    assert.equal(allowed.exitCode, 0);
    assert.equal(allowed.stdout, 'ran');
    assert.match(String(allowed.stderr), /network on/);
  });

  it('a closed output pipe (| head -1) ends the run like SIGPIPE: exit 141, container removed, no crash', async () => {
    const child = execa('node', [CLI, '--workspace', ws, '--profile', 'shell', '-'], { reject: false, input: 'while true; do echo line; done\n', buffer: { stdout: false } });
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.stdout!.destroy();
    const r = await child;
    assert.equal(r.exitCode, 141, String(r.stderr));
    assert.doesNotMatch(String(r.stderr), /EPIPE|at .*\.js/);
    // stdout's reader went away, stderr did not: the summary still says what happened.
    assert.match(String(r.stderr), /the reader of the output went away \(e\.g\. \| head\), so the run was stopped/);
    assert.deepEqual(await productContainers(child.pid!), []);
  });

  it('runs the file\'s bytes as they are (no re-encoding of non-UTF-8 text)', async () => {
    const latin1 = Buffer.from('printf "%s" "caf\xe9" | od -An -tx1\n', 'latin1');
    await writeFile(join(ws, 'latin1.sh'), latin1);
    const r = await cli([join(ws, 'latin1.sh')]);
    assert.equal(r.exitCode, 0);
    assert.equal(String(r.stdout).trim(), '63 61 66 e9');
  });

  describe('piped output is the program\'s bytes', () => {
    const ALL_BYTES = Buffer.concat(Array.from({ length: 4 }, () => Buffer.from(Array.from({ length: 256 }, (_, i) => i))));

    it('`sandbox-run x.py > file` writes bytes(range(256))*4 byte for byte (1024 bytes)', async () => {
      await writeFile(join(ws, 'allbytes.py'), 'import sys\nfor _ in range(4):\n    sys.stdout.buffer.write(bytes(range(256)))\n');
      const outFile = join(ws, 'allbytes.bin');
      const child = execa('node', [CLI, '--workspace', ws, join(ws, 'allbytes.py')], { reject: false, cwd: ws, stdin: 'ignore', stdout: { file: outFile } });
      const r = await child;
      assert.deepEqual(await productContainers(child.pid!), []);
      assert.equal(r.exitCode, 0, String(r.stderr));
      const got = await readFile(outFile);
      assert.equal(got.length, 1024);
      assert.ok(got.equals(ALL_BYTES), 'the file differs from bytes(range(256))*4');
    });

    it('gzip data through a pipe decompresses to what the program compressed', async () => {
      const r = await cli(['--profile', 'shell', '-'], 'seq 1 50000 | gzip -c\n', { encoding: 'buffer' });
      assert.equal(r.exitCode, 0, Buffer.from(r.stderr as Uint8Array).toString());
      const expected = Array.from({ length: 50000 }, (_, i) => `${i + 1}\n`).join('');
      assert.equal(gunzipSync(r.stdout as Uint8Array).toString('latin1'), expected);
    });

    it('an output bound cuts the piped bytes at exactly N bytes, even inside a UTF-8 character', async () => {
      // 'a' then 2-byte characters: the 1024-byte bound falls after the first byte of one.
      const r = await cli(['--profile', 'bounded', '-'], 'import sys\nsys.stdout.buffer.write(b"a" + "\u00e9".encode() * 2000)\n', { encoding: 'buffer' });
      assert.equal(r.exitCode, 141, Buffer.from(r.stderr as Uint8Array).toString());
      const expected = Buffer.concat([Buffer.from('a'), Buffer.from('\u00e9'.repeat(2000))]).subarray(0, 1024);
      assert.equal((r.stdout as Uint8Array).length, 1024);
      assert.ok(Buffer.from(r.stdout as Uint8Array).equals(expected), 'the piped output is not the first 1024 bytes');
    });
  });

  it('runs a CRLF file with LF line endings, changing no other byte', async () => {
    await writeFile(join(ws, 'crlf.sh'), Buffer.from('cd /tmp\r\npwd\r\nprintf "%s" "caf\xe9" | od -An -tx1\r\n', 'latin1'));
    const r = await cli([join(ws, 'crlf.sh')]);
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.equal(String(r.stdout), '/tmp\n 63 61 66 e9');
  });

  it('-it (docker\'s habit) says -t is the timeout and -i alone passes input, and nothing runs', async () => {
    const r = await cli(['-it', 'ask.py'], '');
    assert.equal(r.exitCode, 2);
    assert.match(String(r.stderr), /-t \(--timeout\) takes a number of seconds, not "ask\.py"; for input, -i alone/);
  });

  it('refuses to fall back to the built-in when an invalid workspace profile lists the file\'s extension (it may have meant to tighten it)', async () => {
    const r = await runInOtherWorkspace('{"sandboxRunner.profiles": {"py3": {"image": "x", "command": ["python3", "${file}"], "extensions": [".py"], "limits": {"memoryMiB": 1}}}}');
    assert.equal(r.exitCode, 2);
    assert.match(String(r.stderr), /sandboxRunner\.profiles\.py3\.limits\.memoryMiB/);
    assert.match(String(r.stderr), /or of a profile meant for this file, are malformed/);
    assert.doesNotMatch(String(r.stdout), /\S/);
  });

  it('refuses to fall back to the built-in when the workspace entry for the chosen profile is malformed', async () => {
    const r = await runInOtherWorkspace('{"sandboxRunner.profiles": {"python": "x"}}');
    assert.equal(r.exitCode, 2);
    assert.match(String(r.stderr), /sandboxRunner\.profiles\.python: must be an object/);
    assert.match(String(r.stderr), /settings for profile "python", or of a profile meant for this file, are malformed/);
  });

  it('refuses a missing workspace folder and stray FILE arguments with exit 2', async () => {
    const r = await execa('node', [CLI, '--workspace', '/nonexistent-sr', '-p', 'shell', '-'], { reject: false, input: 'echo x\n' });
    assert.equal(r.exitCode, 2);
    assert.match(String(r.stderr), /is not a directory/);
    assert.equal((await cli(['--reap', 'a.py'])).exitCode, 2);
    assert.equal((await cli(['--list-profiles', 'a.py'])).exitCode, 2);
  });

  it('refuses unknown profiles, missing files and bad flags with exit 2', async () => {
    assert.equal((await cli(['--profile', 'nope', '-'], '')).exitCode, 2);
    assert.equal((await cli([join(ws, 'missing.py')])).exitCode, 2);
    assert.equal((await cli(['--bogus', 'x'])).exitCode, 2);
    // An existing file, so the profile choice is what refuses it (a missing one is "cannot read").
    await writeFile(join(ws, 'x.unknownext'), 'echo hi\n');
    const noProfile = await cli([join(ws, 'x.unknownext')]);
    assert.match(String(noProfile.stderr), /no valid profile runs "x\.unknownext"; the invalid profile\(s\) "broken" \(above\) may be meant for it/);
  });

  it('exits 125 with a one-sentence fix when the image is missing', async () => {
    const r = await runInOtherWorkspace('{"sandboxRunner.profiles":{"python":{"image":"sandbox-runner-test/absent:1"}}}');
    assert.equal(r.exitCode, 125);
    assert.match(String(r.stderr), /The image "sandbox-runner-test\/absent:1" is not present on the Docker engine of (context "default"|host "[^"]+"), and runs never pull implicitly\. Pull it once with "docker (--host \S+ )?pull sandbox-runner-test\/absent:1"/);
  });

  // Issue 8: on a terminal, the summary and "engine said" lines printed the snippet's stderr tail raw.
  it('on a terminal, keeps escape sequences of the snippet and of file names out of its own lines too', async () => {
    /** Runs the CLI on a pseudo-terminal (python's pty.spawn: argv, no shell); returns all it wrote and its exit status. */
    const onTerminal = async (args: string[]) => {
      const spawn = 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)';
      const r = await execa('python3', ['-c', spawn, 'node', CLI, '--workspace', ws, ...args], { reject: false, cwd: ws, stdin: 'ignore', stripFinalNewline: false });
      return { text: String(r.stdout), exitCode: r.exitCode };
    };
    const hostile = String.raw`\x1b]0;PWNED-TITLE\x07\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b[3J\x1bc`;
    await writeFile(
      join(ws, 'tini.py'),
      'import sys\n' +
        `sys.stderr.write("[FATAL tini (7)] exec python3 failed: No such file or directory ${hostile}[Repair](command:workbench.action.terminal.sendSequence)\\n")\n` +
        'sys.exit(127)\n',
    );
    const run = await onTerminal([join(ws, 'tini.py')]);
    assert.match(run.text, /sandbox-run: .*\[profile python, image sandbox-runner-test\/python:2, network off, engine [^\]]+\]/, run.text);
    assert.doesNotMatch(run.text, /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/, `a control character reached the terminal: ${JSON.stringify(run.text)}`);
    assert.match(run.text, /exec python3 failed/, 'the program\'s stderr is shown, filtered');

    const name = 'x\x1b]0;PWNED-TITLE\x07\x1b[2J.unknownext';
    await writeFile(join(ws, name), 'echo hi\n');
    const refused = await onTerminal([join(ws, name)]);
    assert.equal(refused.exitCode, 2);
    assert.match(refused.text, /sandbox-run: no valid profile runs "x\.unknownext"/, refused.text);
    assert.doesNotMatch(refused.text, /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/, JSON.stringify(refused.text));
  });
});
