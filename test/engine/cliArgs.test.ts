/**
 * `sandbox-run FILE -- ARGS…` and `--profile-json JSON` (issue 12) on a real engine: the words
 * after `--` are the program's argv as given, never through a shell; an inline profile runs as the
 * command line says (validated by the profile schema, problems named by key) without the
 * workspace-loosening refusal, which still holds for the workspace's own profiles.
 */
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGES, pythonProfile, requireEngine, runCli } from './helpers';
import { makeWorkspace } from '../support/workspace';
import { HOSTILE_ARGS } from '../unit/hostileArgs';

const PRINT_ARGV = 'import json, sys\nprint(json.dumps(sys.argv[1:]))\n';

describe('sandbox-run program arguments and --profile-json (engine)', function () {
  this.timeout(60_000);
  let ws: string;
  before(async () => {
    await requireEngine();
    ws = await makeWorkspace('sr-cli-args-', {
      'sandboxRunner.profiles': {
        python: { image: IMAGES.python },
        big: { image: IMAGES.python, command: ['python3', '${file}'], extensions: ['.big'], limits: { memoryMiB: 1024 } },
      },
    });
    await writeFile(join(ws, 'argv.py'), PRINT_ARGV);
  });
  after(() => rm(ws, { recursive: true, force: true }));

  const cli = (args: string[], input?: string) => runCli(ws, args, input !== undefined ? { input } : {});

  it('FILE -- ARGS: sys.argv[1:] is exactly the words after --, hostile ones included', async () => {
    const r = await cli(['-q', join(ws, 'argv.py'), '--', ...HOSTILE_ARGS]);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), HOSTILE_ARGS);
  });

  it('options before -- still apply, and words after -- that look like options are the program\'s', async () => {
    const r = await cli(['-p', 'python', '-q', join(ws, 'argv.py'), '--', '-p', 'shell', '--help', '--']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), ['-p', 'shell', '--help', '--']);
  });

  it('too many words after --, or a FILE after --, is a usage error naming the rule, and nothing runs', async () => {
    const many = await cli(['-q', join(ws, 'argv.py'), '--', ...Array(257).fill('x')]);
    assert.equal(many.exitCode, 2);
    assert.match(many.stderr, /257 program arguments were given; a run takes at most 256/);
    assert.equal(many.stdout, '');
    const noFile = await cli(['--', join(ws, 'argv.py')]);
    assert.equal(noFile.exitCode, 2);
    assert.match(noFile.stderr, /give exactly one FILE \(or - for standard input\) before --/);
    // `python main.py a b` habit: words after FILE without `--` are a usage error that says where they go.
    const noTerminator = await cli([join(ws, 'argv.py'), 'a', 'b c']);
    assert.equal(noTerminator.exitCode, 2);
    assert.equal(noTerminator.stdout, '');
    assert.match(noTerminator.stderr, /program arguments go after --: sandbox-run \[options\] FILE -- a 'b c'$/m);
    // `sandbox-run main.py -v`: an unknown option may be the program's; say where it goes, in our words.
    const unknown = await cli([join(ws, 'argv.py'), '-v']);
    assert.equal(unknown.exitCode, 2);
    assert.match(unknown.stderr, /^sandbox-run: unknown option -v; if it is for the program, put it after --: sandbox-run \[options\] FILE -- -v\. Run "sandbox-run --help" for usage\.$/m);
  });

  it('--profile-json runs code from stdin with exactly that profile, with arguments, and names it in the summary', async () => {
    const profile = pythonProfile({ env: { PYTHONUNBUFFERED: '1', GREETING: 'from the inline profile' } });
    const r = await cli(['--profile', 'copied', '--profile-json', JSON.stringify(profile), '-', '--', 'a b', ''], PRINT_ARGV + 'import os\nprint(os.environ["GREETING"])\n');
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout, '["a b", ""]\nfrom the inline profile');
    assert.match(r.stderr, /\[profile copied, image sandbox-runner-test\/python:2, network off/);
  });

  it('an invalid --profile-json is refused with each problem named by its key, and nothing runs', async () => {
    const bad = await cli(['--profile-json', JSON.stringify({ image: IMAGES.python, command: ['python3'], limits: { pids: 0 }, extra: 1 }), join(ws, 'argv.py')]);
    assert.equal(bad.exitCode, 2);
    assert.match(bad.stderr, /--profile-json\.command: must be a non-empty list/);
    assert.match(bad.stderr, /--profile-json\.limits\.pids: /);
    assert.match(bad.stderr, /--profile-json\.extra: is not a known setting/);
    assert.match(bad.stderr, /the --profile-json profile is invalid \(above\); nothing ran/);
    const notJson = await cli(['--profile-json', '{image:', join(ws, 'argv.py')]);
    assert.equal(notJson.exitCode, 2);
    assert.match(notJson.stderr, /--profile-json: is not valid JSON/);
  });

  it('-q keeps the reason a run could not start (only the summary of a run that ran is left out)', async () => {
    const absent = pythonProfile({ image: 'sandbox-runner-test/absent-image:0' });
    const r = await cli(['-q', '--profile-json', JSON.stringify(absent), join(ws, 'argv.py')]);
    assert.equal(r.exitCode, 125);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^sandbox-run: The image "sandbox-runner-test\/absent-image:0" is not present on the Docker engine .*runs never pull/m);
    assert.doesNotMatch(r.stderr, /\[profile /, 'the summary\'s bracket stays out with -q');
    const ran = await cli(['-q', join(ws, 'argv.py')]);
    assert.equal(ran.exitCode, 0, ran.stderr);
    assert.equal(ran.stderr, '');
  });

  it('a loosened profile on the command line needs no --allow-loosening; the same profile from the workspace is still refused', async () => {
    await writeFile(join(ws, 'x.big'), 'print("ran")\n');
    const workspace = await cli(['-q', join(ws, 'x.big')]);
    assert.equal(workspace.exitCode, 2, workspace.stderr);
    assert.match(workspace.stderr, /loosens the sandbox .*--allow-loosening/);
    const inline = pythonProfile({ limits: { memoryMiB: 1024 } });
    const r = await cli(['-q', '--profile-json', JSON.stringify(inline), join(ws, 'x.big')]);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout, 'ran');
  });
});
