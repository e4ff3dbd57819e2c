/**
 * Sessions (issue 24) on the real engine: the kernel protocol end to end. State across cells,
 * streams per cell, rich output, errors, a cell's time limit, interrupt, the output bound, an OOM
 * kill ending the session with the rule, forgery attempts that stay the cell's stream output, and
 * the container's removal at close, and a profile's workspace folder mounted read-only as a run's
 * (issue 24: through the run's own code). (The host process dying: mcp.test.ts, through the server.)
 */
import assert from 'node:assert/strict';
import { chmod, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Profile } from '../../src/core/profiles/profileSchema';
import { NO_INPUT, startSession, type CellEvent, type CellResult, type InputHandler, type InputRequest, type SandboxSession } from '../../src/core/session/session';
import type { InputAnswer } from '../../src/core/session/frames';
import { isSandboxError } from '../../src/core/errors';
import { containerExists, ENGINE_KIND, engineCli, engineDocker, engineSeesClientFiles, noLeftoversAfterEach, project, pythonProfile, requireEngine, shellProfile } from './helpers';

/** One cell's events, collected. */
interface Ran {
  readonly result: CellResult;
  readonly stdout: string;
  readonly stderr: string;
  readonly notices: string;
  readonly events: CellEvent[];
}

async function cell(s: SandboxSession, code: string, signal?: AbortSignal, onInput?: InputHandler): Promise<Ran> {
  const events: CellEvent[] = [];
  const result = await s.execute(code, (e) => events.push(e), { signal, onInput });
  const text = (kind: 'stdout' | 'stderr') => Buffer.concat(events.flatMap((e) => (e.kind === kind ? [e.bytes] : []))).toString('utf8');
  return { result, stdout: text('stdout'), stderr: text('stderr'), notices: events.flatMap((e) => (e.kind === 'notice' ? [e.text] : [])).join(''), events };
}

const docker = engineDocker();
const start = (limits: Record<string, unknown> = {}) =>
  startSession({ profileName: 'python', profile: pythonProfile({ languages: ['python'], limits: { timeoutSeconds: 20, ...limits } }), ...(docker ? { docker } : {}) });

describe('sandboxed sessions (engine)', function () {
  this.timeout(90_000);
  before(requireEngine);

  describe('one session for the ordinary cells', () => {
    let s: SandboxSession;
    before(async () => (s = await start()));
    after(async () => {
      await s?.close();
      assert.equal(await containerExists(s.containerName), false, 'the session\'s container was removed at close');
    });

    it('keeps state across cells and shows the last expression', async () => {
      const a = await cell(s, 'x = 41\nimport os\npid = os.getpid()');
      assert.equal(a.result.status, 'ok');
      assert.equal(a.result.executionCount, 1);
      const b = await cell(s, 'x + 1');
      assert.equal(b.result.status, 'ok');
      const display = b.events.find((e) => e.kind === 'display');
      assert.deepEqual(display, { kind: 'display', data: { 'text/plain': '42' } });
      const c = await cell(s, 'print(os.getpid() == pid)');
      assert.equal(c.stdout, 'True\n', 'the same process ran every cell');
    });

    it('streams stdout and stderr per cell, each cell getting only its own', async () => {
      const a = await cell(s, 'import sys\nprint("out1")\nprint("err1", file=sys.stderr)');
      const b = await cell(s, 'print("out2")');
      assert.equal(a.stdout, 'out1\n');
      assert.equal(a.stderr, 'err1\n');
      assert.equal(b.stdout, 'out2\n');
      assert.equal(b.stderr, '');
    });

    it('sends a rich MIME bundle from display() and _repr_*_ methods; other MIME types never arrive', async () => {
      const r = await cell(s, [
        'class Rich:',
        '    def _repr_html_(self): return "<b>bold</b>"',
        '    def _repr_json_(self): return {"a": [1, 2]}',
        '    def _repr_mimebundle_(self, **kw): return {"application/x-evil": "x"}',
        '    def __repr__(self): return "Rich()"',
        'display(Rich())',
      ].join('\n'));
      assert.equal(r.result.status, 'ok');
      const d = r.events.find((e) => e.kind === 'display');
      assert.ok(d && d.kind === 'display', JSON.stringify(r.events));
      assert.equal(d.data['text/html'], '<b>bold</b>');
      assert.equal(d.data['text/plain'], 'Rich()');
      assert.deepEqual(d.data['application/json'], { a: [1, 2] });
      assert.ok(!Object.hasOwn(d.data, 'application/x-evil'));
    });

    it('reports an exception as an error with the cell\'s traceback, and the session goes on', async () => {
      const r = await cell(s, 'def f():\n    return 1 / 0\nf()');
      assert.equal(r.result.status, 'error');
      const e = r.events.find((x) => x.kind === 'error');
      assert.ok(e && e.kind === 'error');
      assert.equal(e.ename, 'ZeroDivisionError');
      assert.match(e.traceback.join(''), /File "<cell \d+>", line 2, in f/);
      assert.doesNotMatch(e.traceback.join(''), /main\.py/, 'the kernel\'s own frames are not shown');
      assert.equal((await cell(s, 'print(x)')).stdout, '41\n');
    });

    it('names the traceback entries that are frames of a cell\'s own code, by cell and line; library and forged frames are not', async () => {
      const def = await cell(s, 'import json\n\ndef parse(text):\n    return json.loads(text)');
      const n = def.result.executionCount!;
      const r = await cell(s, 'y = 1\nparse("{")');
      const e = r.events.find((x) => x.kind === 'error');
      assert.ok(e && e.kind === 'error', JSON.stringify(r.events));
      assert.equal(e.ename, 'JSONDecodeError');
      const named = e.frames.map((f) => [f.cell, f.line, e.traceback[f.index]!.split('\n')[0]]);
      assert.deepEqual(named, [[n + 1, 2, `  File "<cell ${n + 1}>", line 2, in <module>`], [n, 4, `  File "<cell ${n}>", line 4, in parse`]]);
      assert.ok(e.traceback.some((t, i) => /json\/decoder\.py/.test(t) && !e.frames.some((f) => f.index === i)), 'library frames are there, not named');
      const forged = await cell(s, 'exec(compile("1/0", "<cell 1>", "exec"))');
      const fe = forged.events.find((x) => x.kind === 'error');
      assert.ok(fe && fe.kind === 'error');
      assert.deepEqual(fe.frames.map((f) => f.line), [1], 'only the cell\'s own frame, not the code compiled under a cell\'s name');
      assert.match(fe.traceback[fe.frames[0]!.index]!, /^  File "<cell \d+>", line 1, in <module>\n    exec\(compile/);
      const syntax = await cell(s, 'x = 1\nx = = 2');
      const se = syntax.events.find((x) => x.kind === 'error');
      assert.ok(se && se.kind === 'error' && se.ename === 'SyntaxError', JSON.stringify(syntax.events));
      assert.deepEqual(se.frames.map((f) => [f.cell, f.line]), [[syntax.result.executionCount, 2]]);
    });

    it('answers input() and getpass through the caller\'s handler, echoing the prompt (a password hidden)', async () => {
      const asked: InputRequest[] = [];
      const answers: InputAnswer[] = [{ value: 'Ada' }, { value: 's3cret' }];
      const r = await cell(s, 'name = input("Name? ")\nimport getpass\npw = getpass.getpass()\nprint("got", name, len(pw))', undefined, (q) => {
        asked.push(q);
        return Promise.resolve(answers.shift()!);
      });
      assert.equal(r.result.status, 'ok', JSON.stringify(r.events));
      assert.deepEqual(asked, [{ prompt: 'Name? ', password: false }, { prompt: 'Password: ', password: true }]);
      assert.equal(r.stdout, 'Name? Ada\nPassword: \u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\ngot Ada 6\n');
    });

    it('a cancelled question is KeyboardInterrupt; without a handler input() is EOFError; state survives', async () => {
      const cancelled = await cell(s, 'input("again? ")', undefined, () => Promise.resolve({ cancel: true }));
      assert.equal(cancelled.result.status, 'interrupted');
      assert.ok(cancelled.events.some((e) => e.kind === 'error' && e.ename === 'KeyboardInterrupt'));
      const none = await cell(s, 'input("who? ")');
      assert.equal(none.result.status, 'error');
      const e = none.events.find((x) => x.kind === 'error');
      assert.ok(e && e.kind === 'error');
      assert.deepEqual([e.ename, e.evalue], ['EOFError', NO_INPUT]);
      assert.equal((await cell(s, 'print(x)')).stdout, '41\n');
    });

    it('an interrupt while a question waits dismisses it (its signal aborts) and ends the cell', async () => {
      let aborted!: () => void;
      const dismissed = new Promise<void>((r) => (aborted = r));
      let asked!: () => void;
      const waiting = new Promise<void>((r) => (asked = r));
      const p = cell(s, 'input("slow? ")', undefined, (_q, signal) => {
        asked();
        return new Promise<InputAnswer>((resolve) => signal.addEventListener('abort', () => {
          aborted();
          resolve({ value: 'too late' });
        }));
      });
      await waiting;
      assert.equal(await s.interrupt(), true);
      await dismissed;
      const r = await p;
      assert.equal(r.result.status, 'interrupted');
      assert.ok(r.events.some((e) => e.kind === 'error' && e.ename === 'KeyboardInterrupt'));
      assert.doesNotMatch(r.stdout, /too late/);
      assert.equal((await cell(s, 'print(x)')).stdout, '41\n');
    });

    it('input-request bytes written on fd 1 and fd 2 are the cell\'s output and ask nothing', async () => {
      const asked: InputRequest[] = [];
      const fake = String.raw`b'\x00\x00\x00\x40m{"t":"input","n":1,"prompt":"forged","password":false}        '`;
      const r = await cell(s, `import os, sys\nF = ${fake}\nos.write(1, F)\nos.write(2, F)\nsys.stdout.buffer.write(F)\nsys.stdout.flush()\nprint("end")`, undefined, (q) => {
        asked.push(q);
        return Promise.resolve({ value: 'x' });
      });
      assert.equal(r.result.status, 'ok', JSON.stringify(r.events));
      assert.deepEqual(asked, []);
      assert.equal(r.stdout.split('forged').length, 3);
      assert.match(r.stdout, /end\n$/);
      assert.match(r.stderr, /"t":"input"/);
    });

    it('forgery attempts through print, os.write(1), os.write(2), a child process and a C call land as that cell\'s stream output only', async () => {
      const fake = String.raw`b'\x00\x00\x00\x2am{"t":"done","n":99,"status":"ok"}' + b'\x00\x00\x00\x05mhello'`;
      const r = await cell(s, [
        'import os, sys, subprocess, ctypes',
        `F = ${fake}`,
        'sys.stdout.buffer.write(F); sys.stdout.flush()',
        'os.write(1, F)',
        'os.write(2, F)',
        'subprocess.run(["python3", "-c", "import os,sys; os.write(1, bytes.fromhex(sys.argv[1]))", F.hex()])',
        'ctypes.CDLL(None).write(1, F, len(F))',
        'print("end")',
      ].join('\n'));
      assert.equal(r.result.status, 'ok', JSON.stringify(r));
      const forged = Buffer.from('\x00\x00\x00\x2am{"t":"done","n":99,"status":"ok"}\x00\x00\x00\x05mhello', 'latin1').toString('utf8');
      assert.equal(r.stdout, forged.repeat(4) + 'end\n');
      assert.equal(r.stderr, forged);
      assert.ok(!r.events.some((e) => e.kind === 'display' || e.kind === 'error'));
      assert.equal(s.end, undefined, 'the session is still up');
      assert.equal((await cell(s, 'x')).result.status, 'ok');
    });

    it('interrupts a running cell (SIGINT → KeyboardInterrupt); state survives', async () => {
      const ac = new AbortController();
      const events: CellEvent[] = [];
      let started!: () => void;
      const printed = new Promise<void>((r) => (started = r));
      const p = s.execute('import time\nprint("started", flush=True)\nwhile True: time.sleep(0.05)', (e) => {
        events.push(e);
        if (e.kind === 'stdout') started();
      }, { signal: ac.signal });
      await printed;
      ac.abort();
      const r = await p;
      assert.equal(r.status, 'interrupted');
      assert.ok(events.some((e) => e.kind === 'error' && e.ename === 'KeyboardInterrupt'));
      assert.equal((await cell(s, 'print(x)')).stdout, '41\n');
    });

    it('bounds a cell\'s output at limits.outputBytes: the cell is interrupted, the session goes on', async () => {
      const r = await cell(s, 'import sys\nwhile True: sys.stdout.write("y" * 65536)');
      assert.equal(r.result.status, 'output-limit');
      assert.equal(r.result.truncated, true);
      assert.equal(r.result.rule?.key, 'limits.outputBytes');
      assert.ok(r.result.outputBytes <= 1024 * 1024 && Buffer.byteLength(r.stdout) <= 1024 * 1024);
      assert.equal((await cell(s, 'print(x)')).stdout, '41\n');
    });

    it('a display larger than the bound is dropped, never held', async () => {
      const r = await cell(s, 'class Big:\n    def _repr_html_(self): return "z" * (3 * 1024 * 1024)\ndisplay(Big())\nprint("after")');
      assert.equal(r.result.status, 'output-limit');
      assert.ok(!r.events.some((e) => e.kind === 'display'));
    });
  });

  describe('one session per test', () => {
    noLeftoversAfterEach();

    it('code that finds the kernel\'s private descriptor sends only data: unknown MIME types are dropped, a malformed message ends the session', async () => {
      const s = await start();
      const find = 'import gc, json, os\nK = next(d for d in gc.get_objects() if isinstance(d, dict) and "P_OUT" in d and "send" in d)\n';
      const r = await cell(s, find + 'K["message"]({"t": "display", "data": {"text/plain": "forged", "application/x-evil": "x"}})');
      assert.equal(r.result.status, 'ok');
      const d = r.events.find((e) => e.kind === 'display');
      assert.deepEqual(d, { kind: 'display', data: { 'text/plain': 'forged' } });
      const bad = await cell(s, find + 'K["message"]({"t": "exec", "argv": ["sh"]})\nimport time\ntime.sleep(5)');
      assert.equal(bad.result.status, 'session-ended');
      assert.equal(bad.result.ended?.reason, 'protocol-error');
      assert.equal(await containerExists(s.containerName), false);
    });

    it('a cell over limits.timeoutSeconds is interrupted and says the rule; the session stays usable', async () => {
      const s = await start({ timeoutSeconds: 2 });
      try {
        await cell(s, 'y = 7');
        const r = await cell(s, 'import time\ntime.sleep(30)');
        assert.equal(r.result.status, 'timed-out');
        assert.equal(r.result.rule?.key, 'limits.timeoutSeconds');
        assert.match(r.notices, /limits\.timeoutSeconds \(2 s\)/);
        assert.equal((await cell(s, 'print(y)')).stdout, '7\n');
      } finally {
        await s.close();
      }
    });

    it('a cell that ignores SIGINT past its time limit ends the session, saying why, and the container is removed', async () => {
      const s = await start({ timeoutSeconds: 2, interruptGraceSeconds: 1 });
      const r = await cell(s, 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)');
      assert.equal(r.result.status, 'session-ended');
      assert.equal(r.result.ended?.reason, 'timed-out');
      assert.match(r.result.ended!.message, /interruptGraceSeconds \(1 s\)/);
      assert.equal((await cell(s, '1')).result.status, 'session-ended');
      assert.equal(await containerExists(s.containerName), false);
    });

    it('an OOM kill ends the session with the memory rule', async () => {
      const s = await start({ memoryMiB: 64 });
      const r = await cell(s, 'chunks = []\nwhile True: chunks.append(bytearray(8 * 1024 * 1024))');
      assert.equal(r.result.status, 'session-ended');
      assert.equal(r.result.ended?.reason, 'oom-killed', JSON.stringify(r.result));
      assert.equal(r.result.rule?.key, 'limits.memoryMiB');
      assert.equal((await s.ended).reason, 'oom-killed');
      assert.equal(await containerExists(s.containerName), false);
    });

    it('a crash of the kernel (os._exit) ends the session, saying so, and removes the container', async () => {
      const s = await start();
      const r = await cell(s, 'import os\nos._exit(3)');
      assert.equal(r.result.status, 'session-ended');
      assert.equal(r.result.ended?.reason, 'exited');
      assert.match(r.result.ended!.message, /kernel exited \(status 3\)/);
      assert.equal(await containerExists(s.containerName), false);
    });

    it('runs with the floor: no network, read-only root, non-root, and the container goes at close', async () => {
      const s = await start();
      const name = s.containerName;
      const inspect = String((await engineCli(['inspect', '--format', '{{.HostConfig.NetworkMode}} {{.HostConfig.ReadonlyRootfs}} {{.Config.User}}', name])).stdout).trim();
      assert.equal(inspect.split(' ')[0], 'none');
      assert.equal(inspect.split(' ')[1], 'true');
      const r = await cell(s, 'import os, socket\nprint(os.getuid() != 0)\ntry:\n    open("/x", "w")\nexcept OSError as e:\n    print(type(e).__name__)');
      assert.equal(r.stdout, 'True\nOSError\n');
      await s.close();
      assert.equal((await s.ended).reason, 'closed');
      assert.equal(await containerExists(name), false);
    });

    it('an idle session closes itself after its idle limit', async () => {
      const s = await startSession({ profileName: 'python', profile: pythonProfile({ languages: ['python'] }), idleMs: 1500, ...(docker ? { docker } : {}) });
      await cell(s, '1');
      const end = await s.ended;
      assert.equal(end.reason, 'idle');
      assert.equal(await containerExists(s.containerName), false);
    });

    it('refuses a profile that is not Python, starting nothing', async () => {
      await assert.rejects(
        startSession({ profileName: 'shell', profile: shellProfile(), ...(docker ? { docker } : {}) }),
        (e: unknown) => isSandboxError(e) && e.code === 'invalid-profile' && /"python"/.test(e.message),
      );
    });
  });

  describe('the workspace folder (the profile key "workspace")', () => {
    noLeftoversAfterEach();
    const roots: string[] = [];
    after(async () => {
      for (const r of roots) await rm(r, { recursive: true, force: true });
    });

    /** A folder with a notebook's folder `nb/` (a data file and a module beside it) and a `.git`. */
    async function notebookFolder(): Promise<string> {
      const root = await project({ 'nb/data.txt': 'beside the notebook\n', 'nb/helper.py': 'X = 7\n', '.git/config': '[core]\n' });
      roots.push(root);
      return root;
    }
    const wsProfile = (): Profile => pythonProfile({ languages: ['python'], workspace: 'ro', modulePathEnv: 'PYTHONPATH', limits: { timeoutSeconds: 20 } });
    const startIn = (root: string, profile: Profile, notices: string[] = []) => startSession({
      profileName: 'python', profile, paths: { workspaceFolder: root, fileDirname: join(root, 'nb') },
      onNotice: (t) => notices.push(t), ...(docker ? { docker } : {}),
    });
    const mountsOf = async (name: string) =>
      String((await engineCli(['inspect', '--format', '{{range .Mounts}}{{.Type}} {{.Destination}};{{end}}', name])).stdout).trim();

    it('"ro": a cell reads a file of the notebook\'s folder and imports a sibling, cannot write there, and .git is hidden', async () => {
      const root = await notebookFolder();
      await chmod(join(root, 'nb/data.txt'), 0o666); // writable by anyone: only the read-only mount stops the write
      const name = root.split('/').pop()!;
      if (ENGINE_KIND === 'podman' || !(await engineSeesClientFiles())) {
        // Podman cannot pin a mount source, and an engine that cannot see this machine's files
        // cannot mount it: the session is refused as such a run is (workspace.test.ts), starting nothing.
        await assert.rejects(startIn(root, wsProfile()), (e: unknown) => isSandboxError(e) && e.code === 'invalid-mount' && /Podman cannot pin|does not see it/.test(e.message));
        console.log('      this engine cannot mount the folder: the session was refused, as asserted');
        return;
      }
      const notices: string[] = [];
      const s = await startIn(root, wsProfile(), notices);
      try {
        assert.match(notices.join(''), new RegExp(`workspace \\S*${name} mounted read-only at /workspace/${name}; 1 entry masked`));
        // Pinned, the folder is a local-driver volume bound with "o=bind,ro" (mountValues.ts), so the
        // engine's RW flag says nothing: the cell's EROFS below is the read-only proof.
        const mounts = await mountsOf(s.containerName);
        assert.match(mounts, new RegExp(`(volume|bind) /workspace/${name};`), mounts);
        const r = await cell(s, [
          'import os, helper',
          'print(open("data.txt").read().strip())',
          'print(os.getcwd(), helper.X)',
          'try:',
          '    open("data.txt", "a").write("changed")',
          'except OSError as e:',
          '    print("write", e.errno)',
          'print("git", os.path.exists("../.git/config"))',
        ].join('\n'));
        assert.equal(r.stderr, '');
        assert.equal(r.result.status, 'ok');
        assert.equal(r.stdout, `beside the notebook\n/workspace/${name}/nb 7\nwrite 30\ngit False\n`, 'EROFS (30) on the write');
        assert.equal(await readFile(join(root, 'nb/data.txt'), 'utf8'), 'beside the notebook\n', 'the host file is unchanged');
      } finally {
        await s.close();
      }
    });

    it('without the key, nothing of the folder is mounted, even with the notebook\'s paths', async () => {
      const root = await notebookFolder();
      const notices: string[] = [];
      const s = await startIn(root, pythonProfile({ languages: ['python'], limits: { timeoutSeconds: 20 } }), notices);
      try {
        const mounts = await mountsOf(s.containerName);
        // (Podman binds its init at /run/sandbox-runner-init: the engine's own, not the folder.)
        assert.doesNotMatch(mounts, /(volume|bind) \/workspace/, mounts);
        assert.deepEqual(notices, []);
        const r = await cell(s, 'import os\nprint(os.getcwd(), os.listdir("/workspace"))');
        assert.equal(r.stdout, '/workspace []\n');
      } finally {
        await s.close();
      }
    });

    it('"ro" without a workspace folder is refused before anything starts, naming the key', async () => {
      await assert.rejects(
        startSession({ profileName: 'python', profile: wsProfile(), ...(docker ? { docker } : {}) }),
        (e: unknown) => isSandboxError(e) && e.code === 'invalid-mount' && /sandboxRunner\.profiles\.python\.workspace is "ro", but this run has no workspace folder/.test(e.message),
      );
    });
  });
});
