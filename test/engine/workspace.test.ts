/**
 * Files beside the snippet (issue 12) on a real engine: a `workspace: "ro"` profile mounts the
 * document's folder read-only, a file run executes the file at its mirrored path with its folder
 * as the working directory, a selection run finds siblings through the profile's modulePathEnv,
 * `.git` and the user's globs are hidden at any depth, and `${fileDirname}` works in a mount
 * source. On Podman (which cannot pin a mount source, argv.ts `refusePodmanMounts`) every such
 * run is refused with that reason, and nothing runs.
 */
import assert from 'node:assert/strict';
import { chmod, link, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { CLI, ENGINE_KIND, engineSeesClientFiles, IMAGES, noLeftoversAfterEach, productContainers, project, pythonProfile, requireEngine, run, TEST_PATH } from './helpers';

const wsProfile = (overrides: Record<string, unknown> = {}) =>
  pythonProfile({ workspace: 'ro', modulePathEnv: 'PYTHONPATH', env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' }, ...overrides });

const MAIN = [
  'import os, sys',
  'from helper import greet',
  'print(greet("w"))',
  'print(open("data.txt").read().strip())',
  'print("cwd", os.getcwd())',
  'print("file", __file__)',
  '',
].join('\n');

describe('workspace folder beside the snippet (engine)', function () {
  this.timeout(90_000);
  before(requireEngine);
  const roots: string[] = [];
  noLeftoversAfterEach();
  after(async () => {
    for (const r of roots) await rm(r, { recursive: true, force: true });
  });

  async function makeProject(): Promise<string> {
    const root = await project({
      'pkg/main.py': MAIN,
      'pkg/helper.py': 'def greet(n):\n    return "hello " + n\n',
      'pkg/data.txt': 'data beside the file\n',
      'visible.txt': 'visible\n',
      '.env': 'SECRET=top\n',
      'pkg/deep/.env.local': 'SECRET=deep\n',
      'pkg/deep/server.pem': '-----BEGIN KEY-----\n',
      '.git/config': '[core]\n',
      'pkg/deep/sub/.git/HEAD': 'ref: x\n',
      '.ssh/id_rsa': 'key\n',
    });
    roots.push(root);
    return root;
  }

  /**
   * On an engine that cannot see this machine's files (engine 2, a remote host), every workspace
   * mount is refused by the visibility probe: asserts that refusal instead and returns true.
   */
  async function refusedByEngine(): Promise<boolean> {
    if (await engineSeesClientFiles()) return false;
    const root = await makeProject();
    const r = await run(wsProfile(), 'print(1)\n', { paths: { workspaceFolder: root } });
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.match(r.result.message, /The workspace folder \S+ \(sandboxRunner\.profiles\.test\.workspace: "ro"\) is refused because the Docker engine of host "[^"]+" does not see it/);
    assert.equal(r.stdout, '');
    console.log('      this engine cannot see the client\'s files: the workspace run was refused, as asserted');
    return true;
  }

  if (ENGINE_KIND === 'podman') {
    it('is refused on Podman, naming why (it cannot pin the workspace folder), and nothing runs', async () => {
      const root = await makeProject();
      const r = await run(wsProfile(), MAIN, {
        sourceFileName: join(root, 'pkg/main.py'),
        paths: { workspaceFolder: root, fileDirname: join(root, 'pkg'), file: join(root, 'pkg/main.py') },
      });
      assert.equal(r.result.outcome, 'failed-to-start');
      assert.equal(r.result.error?.code, 'invalid-mount');
      assert.match(r.result.message, /Podman cannot pin/);
      assert.match(r.result.message, /\/workspace\/sr-ws-proj-/);
      assert.equal(r.stdout, '');
    });
    return;
  }

  it('a file run imports a sibling and reads a relative data file, from its mirrored path and folder', async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const name = root.split('/').pop()!;
    const r = await run(wsProfile(), MAIN, {
      sourceFileName: join(root, 'pkg/main.py'),
      paths: { workspaceFolder: root, fileDirname: join(root, 'pkg'), file: join(root, 'pkg/main.py') },
    });
    assert.equal(r.stderr, '');
    assert.equal(r.result.exitCode, 0, r.result.message);
    assert.equal(r.stdout, `hello w\ndata beside the file\ncwd /workspace/${name}/pkg\nfile /workspace/${name}/pkg/main.py\n`);
    assert.match(r.notice, new RegExp(`workspace .*${name} mounted read-only at /workspace/${name}; 6 entries masked`));
  });

  it('a selection run keeps the snippet path, runs in the file\'s folder and imports a sibling through PYTHONPATH', async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const name = root.split('/').pop()!;
    const code = 'import os, sys\nfrom helper import greet\nprint(greet("sel"))\nprint(open("data.txt").read().strip())\nprint(os.getcwd(), __file__, os.environ["PYTHONPATH"])\n';
    const r = await run(wsProfile(), code, {
      sourceFileName: join(root, 'pkg/main.py'),
      paths: { workspaceFolder: root, fileDirname: join(root, 'pkg') },
    });
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, `hello sel\ndata beside the file\n/workspace/${name}/pkg /sandbox/main.py /workspace/${name}/pkg\n`);
  });

  it('without a workspace mount the same selection fails with ModuleNotFoundError (the control)', async () => {
    const root = await makeProject();
    const r = await run(pythonProfile(), 'from helper import greet\n', {
      sourceFileName: join(root, 'pkg/main.py'),
      paths: { workspaceFolder: root, fileDirname: join(root, 'pkg') },
    });
    assert.equal(r.result.exitCode, 1);
    assert.match(r.stderr, /ModuleNotFoundError: No module named 'helper'/);
  });

  it('hides .git, .env* , *.pem and .ssh at any depth while other files stay visible, and the mount is read-only', async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const name = root.split('/').pop()!;
    // World-writable on the host: only the read-only mount can refuse the write (EROFS, 30), not permissions (EACCES, 13).
    await writeFile(join(root, 'pkg/open.txt'), 'x');
    await chmod(join(root, 'pkg/open.txt'), 0o666);
    const probe = [
      'import os',
      `w = "/workspace/${name}"`,
      'for p in [".git", "pkg/deep/sub/.git", ".ssh"]:',
      '    print(p, sorted(os.listdir(os.path.join(w, p))))',
      'for p in [".env", "pkg/deep/.env.local", "pkg/deep/server.pem"]:',
      '    print(p, repr(open(os.path.join(w, p)).read()))',
      'print(open(os.path.join(w, "visible.txt")).read().strip(), open(os.path.join(w, "pkg/helper.py")).read().count("greet"))',
      'for p in ["new.txt", ".git/x", "pkg/open.txt"]:',
      '    try:',
      '        open(os.path.join(w, p), "a").write("x")',
      '        print(p, "WRITABLE")',
      '    except OSError as e:',
      '        print(p, e.errno)',
      '',
    ].join('\n');
    const r = await run(wsProfile(), probe, { paths: { workspaceFolder: root, fileDirname: root } });
    assert.equal(r.stderr, '');
    assert.equal(
      r.stdout,
      [
        '.git []', 'pkg/deep/sub/.git []', '.ssh []',
        ".env ''", "pkg/deep/.env.local ''", "pkg/deep/server.pem ''",
        'visible 1',
        'new.txt 30', '.git/x 30', 'pkg/open.txt 30', '',
      ].join('\n'),
    );
  });

  it('symlinks: one to a host file outside the folder resolves inside the container (not found); a matching one is masked where it leads', async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const name = root.split('/').pop()!;
    const outside = await project({ 'canary.txt': 'HOST-CANARY\n' });
    roots.push(outside);
    await writeFile(join(root, 'pkg/real.txt'), 'REAL-SECRET\n', { mode: 0o644 });
    await symlink(join(outside, 'canary.txt'), join(root, 'to-canary'));
    await symlink('pkg/real.txt', join(root, '.env.link'));
    const probe = [
      'import os',
      `w = "/workspace/${name}"`,
      'print(os.readlink(os.path.join(w, "to-canary")) == os.readlink(os.path.join(w, "to-canary")), os.path.islink(os.path.join(w, "to-canary")))',
      'for p in ["to-canary", ".env.link", "pkg/real.txt"]:',
      '    try:',
      '        print(p, repr(open(os.path.join(w, p)).read()))',
      '    except OSError as e:',
      '        print(p, e.errno)',
      '',
    ].join('\n');
    const r = await run(wsProfile(), probe, { paths: { workspaceFolder: root } });
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, "True True\nto-canary 2\n.env.link ''\npkg/real.txt ''\n");
  });

  it('masks as a user means them: .ENV, ID_RSA, server.PEM and a hard link to .env read nothing; a symlink to the link neither', async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const name = root.split('/').pop()!;
    await writeFile(join(root, '.ENV'), 'SECRET=upper\n');
    await writeFile(join(root, 'pkg/ID_RSA'), 'KEY-UPPER\n');
    await writeFile(join(root, 'pkg/server.PEM'), 'PEM-UPPER\n');
    await link(join(root, '.env'), join(root, 'pkg/notes.txt'));
    await symlink('pkg/notes.txt', join(root, 'readme-link'));
    const probe = [
      'import os',
      `w = "/workspace/${name}"`,
      'for p in [".ENV", "pkg/ID_RSA", "pkg/server.PEM", "pkg/notes.txt", "readme-link", "visible.txt"]:',
      '    print(p, repr(open(os.path.join(w, p)).read()))',
      '',
    ].join('\n');
    const r = await run(wsProfile(), probe, { paths: { workspaceFolder: root } });
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, [".ENV ''", "pkg/ID_RSA ''", "pkg/server.PEM ''", "pkg/notes.txt ''", "readme-link ''", "visible.txt 'visible\\n'", ''].join('\n'));
  });

  it('an engine that cannot see the folder refuses the run, naming the workspace key and the engine (visibility probe)', async function () {
    if (await engineSeesClientFiles()) {
      // This engine sees the client's files: the refusal is proved with DOCKER_HOST set to engine 2 (test:engine:remote).
      const root = await makeProject();
      const r = await run(wsProfile(), 'print(1)\n', { paths: { workspaceFolder: root } });
      assert.equal(r.stdout, '1\n');
      return;
    }
    const root = await makeProject();
    const r = await run(wsProfile(), 'print(1)\n', { paths: { workspaceFolder: root } });
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.match(r.result.message, /The workspace folder \S+ \(sandboxRunner\.profiles\.test\.workspace: "ro"\) is refused because the Docker engine of host "[^"]+" does not see it/);
    assert.equal(r.stdout, '');
  });

  it('a mount source with ${fileDirname} mounts the file\'s folder (resolved per run, then checked and pinned)', async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const profile = pythonProfile({ mounts: [{ source: '${fileDirname}', target: '/beside' }] });
    const r = await run(profile, 'import os\nprint(sorted(os.listdir("/beside")))\n', {
      sourceFileName: join(root, 'pkg/main.py'),
      paths: { fileDirname: join(root, 'pkg') },
    });
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, "['data.txt', 'deep', 'helper.py', 'main.py']\n");
    const none = await run(profile, 'print(1)\n');
    assert.equal(none.result.outcome, 'failed-to-start');
    assert.match(none.result.message, /sandboxRunner\.profiles\.test\.mounts\.0 names \$\{fileDirname\}, but this run has no file folder/);
  });

  it(`takes the cold path even on the warm path (${TEST_PATH}): a warm container starts before the file is known`, async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const r = await run(wsProfile(), 'print("ok")\n', { paths: { workspaceFolder: root } });
    assert.equal(r.stdout, 'ok\n');
    assert.match(r.notice, /mounted read-only/);
  });

  it('the CLI\'s --workspace runs FILE from its mirrored path; from workspace settings it needs --allow-loosening', async () => {
    if (await refusedByEngine()) return;
    const root = await makeProject();
    const name = root.split('/').pop()!;
    await mkdir(join(root, '.vscode'));
    await writeFile(join(root, '.vscode/settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { python: { image: IMAGES.python, workspace: 'ro' } } }), { mode: 0o644 });
    const refused = await execa('node', [CLI, '--workspace', root, join(root, 'pkg/main.py')], { reject: false, stdin: 'ignore' });
    assert.equal(refused.exitCode, 2, String(refused.stderr));
    assert.match(String(refused.stderr), /sandboxRunner\.profiles\.python\.workspace: workspace: none → ro/);
    const child = execa('node', [CLI, '--workspace', root, '--allow-loosening', '-q', join(root, 'pkg/main.py')], { reject: false, stdin: 'ignore' });
    const r = await child;
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.equal(String(r.stdout), `hello w\ndata beside the file\ncwd /workspace/${name}/pkg\nfile /workspace/${name}/pkg/main.py`);
    assert.match(String(r.stderr), /mounted read-only at \/workspace\/.*; 6 entries masked/);
    assert.deepEqual(await productContainers(child.pid!), [], 'the CLI left a container behind');
  });
});
