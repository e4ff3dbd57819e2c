/**
 * Run with Arguments and Copy as sandbox-run Command (issue 12) without an engine: the input
 * box's text split like a shell splits words and nothing more (operators and expansions refused),
 * and copied command lines that bash (and zsh; scripts/unit-tools.sh installs both) hand to the CLI word for word,
 * with the code on stdin exactly, whatever the code, arguments and profile hold.
 */
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { splitArgs } from '../../src/vscode/argsInput';
import { cliCommandLine, heredocDelimiter, HEREDOC_STEM } from '../../src/vscode/cliCommandLine';
import { HOSTILE_ARGS } from './hostileArgs';

/** A stand-in CLI: prints its argv, its stdin and DOCKER_HOST as JSON. */
const ECHO_CLI = [process.execPath, '-e', 'console.log(JSON.stringify({ argv: process.argv.slice(1), stdin: require("fs").readFileSync(0, "utf8"), host: process.env.DOCKER_HOST }))', '--'];

describe('Run with Arguments: splitting the input box (unit)', () => {
  it('splits words as a shell does: quotes, backslashes, empty quoted words, leading dashes, globs as written', () => {
    assert.deepEqual(splitArgs(`-n 3 "two words" 'it"s' a\\ b '' --x="1 2" *.txt ~`), { args: ['-n', '3', 'two words', 'it"s', 'a b', '', '--x=1 2', '*.txt', '~'] });
    assert.deepEqual(splitArgs(''), { args: [] });
    assert.deepEqual(splitArgs(`'$(id)' '\`id\`' ';' '|' '#x'`), { args: ['$(id)', '`id`', ';', '|', '#x'] });
  });

  it('refuses what only a shell would do, saying how to quote it', () => {
    const refused: [string, RegExp][] = [
      ['a | b', /"\|" is a shell operator, and no shell runs here: quote it/],
      ['a > out.txt', /">" is a shell operator/],
      ['a; rm -rf /', /";" is a shell operator/],
      ['a && b', /"&&" is a shell operator/],
      ['$(id)', /"\$" would start a shell expansion/],
      ['"$HOME"', /"\$" would start a shell expansion/],
      ['`id`', /"`" would start a shell expansion/],
      ['a #comment', /unquoted # starts a shell comment/],
      ['"open', /double quote is not closed/],
      ["it's", /single quote is not closed/],
      ['a\\', /ends with a backslash/],
      [Array(257).fill('x').join(' '), /257 program arguments were given/],
    ];
    for (const [text, message] of refused) {
      const r = splitArgs(text);
      assert.ok('error' in r && message.test(r.error), `${text}: ${JSON.stringify(r)}`);
    }
  });
});

describe('Copy as sandbox-run Command (unit)', function () {
  this.timeout(20_000);
  const profile = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], extensions: ['.py'], env: { QUOTE: `it's "x" $(id) \`id\` !! ~` } });

  it('chooses a here-document delimiter no line of the code equals', () => {
    assert.equal(heredocDelimiter('print(1)\n'), HEREDOC_STEM);
    assert.equal(heredocDelimiter(`a\n${HEREDOC_STEM}\n${HEREDOC_STEM}_1\n`), `${HEREDOC_STEM}_2`);
    assert.equal(heredocDelimiter(`${HEREDOC_STEM} \n\t${HEREDOC_STEM}`), HEREDOC_STEM, 'only an exactly equal line ends the body');
  });

  it('a CRLF line equal to the delimiter cannot end the here-document when pasted into a terminal (attack3)', async () => {
    // A terminal paste turns every CR, LF and CRLF into one line end (xterm.js sends \r?\n as \r;
    // readline and zle read a pasted \r as \n), so a line "SANDBOX_RUN_EOF\r" of a CRLF document
    // ends the here-document there and the code's next lines run on the host.
    const code = `print(1)\r\n${HEREDOC_STEM}\r\necho HOST-RAN\r\n`;
    assert.notEqual(heredocDelimiter(code), HEREDOC_STEM);
    assert.notEqual(heredocDelimiter(`x\r${HEREDOC_STEM}\ry`), HEREDOC_STEM, 'a lone CR is a line end too');
    const line = cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile, code, args: [] });
    const pasted = line.replace(/\r\n|\r/g, '\n');
    const r = await execa('bash', ['-s'], { input: pasted, reject: false });
    assert.ok(!r.stdout.split('\n').includes('HOST-RAN'), `the code ran on the host: ${r.stdout}`);
    assert.equal((JSON.parse(r.stdout) as { stdin: string }).stdin, code.replace(/\r\n/g, '\n'));
  });

  it('refuses to copy text a terminal would act on when pasted: control characters other than tab and line ends (attack3)', () => {
    for (const bad of ['\x1b[201~\x03', '\x03', '\x04', '\x1b]52;c;x\x07', '\x7f', '\x9b']) {
      assert.throws(() => cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile, code: `print(1)${bad}\n`, args: [] }), /control character/);
      assert.throws(() => cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile, file: `/w/a${bad}.py`, args: [] }), /control character/);
      assert.throws(() => cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile, file: '/w/a.py', args: [`x${bad}`] }), /control character/);
    }
    assert.doesNotThrow(() => cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile, code: 'a\tb\r\nc\n', args: [] }));
  });

  it('a profile that mounts the workspace names its folder with --workspace; without a known folder it is not copied (attack3)', async () => {
    // Without --workspace the CLI mounts the folder the line is pasted in (its default is ".").
    const ro = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], workspace: 'ro' });
    const line = cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile: ro, file: '/w/my proj/a.py', workspace: '/w/my proj', args: [] });
    const r = await execa('bash', ['-c', line], { reject: false, input: '' });
    assert.deepEqual((JSON.parse(r.stdout) as { argv: string[] }).argv.slice(0, 2), ['--workspace', '/w/my proj']);
    assert.throws(() => cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile: ro, file: '/w/a.py', args: [] }), /workspace folder/);
    const variable = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], mounts: [{ source: '${workspaceFolder}/data', target: '/data' }] });
    assert.throws(() => cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile: variable, code: 'print(1)', args: [] }), /workspace folder/);
  });

  for (const shell of ['bash', 'zsh']) {
    const hostile = `import sys\nprint('$(id) \`id\` !! \\\\ ~')\n${HEREDOC_STEM}\n'EOF'\nEOF\n\tindented\n# no newline at the end`;
    it(`${shell}: a selection's command line hands the CLI every word as it was and the code on stdin exactly`, async function () {
      // scripts/unit-tools.sh (npm run test:unit) installs zsh: without it this fails, never skips.
      assert.equal((await execa('sh', ['-c', `command -v ${shell}`], { reject: false })).exitCode, 0, `${shell} is not installed: run bash scripts/unit-tools.sh`);
      const line = cliCommandLine({ cli: ECHO_CLI, profileName: "my 'profile'", profile, code: hostile, args: HOSTILE_ARGS, docker: { host: 'unix:///tmp/a b.sock', context: 'ctx', dockerPath: '/opt/my docker' } });
      const r = await execa(shell, ['-c', line], { reject: false });
      assert.equal(r.exitCode, 0, r.stderr);
      const got = JSON.parse(r.stdout) as { argv: string[]; stdin: string; host: string };
      assert.deepEqual(got.argv, ['--docker-path', '/opt/my docker', '--context', 'ctx', '--profile', "my 'profile'", '--profile-json', JSON.stringify(profile), '-', '--', ...HOSTILE_ARGS]);
      assert.equal(got.stdin, hostile + '\n', 'the code arrives exactly, with a final newline added');
      assert.equal(got.host, 'unix:///tmp/a b.sock');
    });

    it(`${shell}: a file's command line names the file, with -i for an interactive run`, async function () {
      assert.equal((await execa('sh', ['-c', `command -v ${shell}`], { reject: false })).exitCode, 0, `${shell} is not installed: run bash scripts/unit-tools.sh`);
      const line = cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile, file: '/w/my $(id) file.py', args: [], interactive: true });
      assert.ok(!line.includes('<<'));
      const r = await execa(shell, ['-c', line], { reject: false, input: '' });
      assert.deepEqual((JSON.parse(r.stdout) as { argv: string[] }).argv, ['--profile', 'python', '--profile-json', JSON.stringify(profile), '-i', '/w/my $(id) file.py']);
    });

    it(`${shell}: a run whose profile mounts the workspace (workspace "ro", a \${workspaceFolder} source) names that folder with --workspace (so do the others: the CLI also reads that folder's settings)`, async function () {
      assert.equal((await execa('sh', ['-c', `command -v ${shell}`], { reject: false })).exitCode, 0, `${shell} is not installed: run bash scripts/unit-tools.sh`);
      const argv = async (p: typeof profile) => {
        const line = cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile: p, file: '/w/my proj/main.py', workspace: '/w/my proj', args: [] });
        return (JSON.parse((await execa(shell, ['-c', line], { input: '' })).stdout) as { argv: string[] }).argv;
      };
      const ro = ProfileSchema.parse({ ...profile, workspace: 'ro' });
      assert.deepEqual(await argv(ro), ['--workspace', '/w/my proj', '--profile', 'python', '--profile-json', JSON.stringify(ro), '/w/my proj/main.py']);
      const variable = ProfileSchema.parse({ ...profile, mounts: [{ source: '${workspaceFolder}/data', target: '/data' }] });
      assert.deepEqual((await argv(variable)).slice(0, 2), ['--workspace', '/w/my proj']);
      assert.deepEqual((await argv(profile)).slice(0, 2), ['--workspace', '/w/my proj']);
    });
  }
});
