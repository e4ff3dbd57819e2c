/**
 * Run with Arguments and Copy as sandbox-run Command (issue 12) without an engine: the input
 * box's text split like a shell splits words and nothing more (operators and expansions refused),
 * and copied command lines that bash (and zsh, where installed) hand to the CLI word for word,
 * with the code on stdin exactly, whatever the code, arguments and profile hold.
 */
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { ProfileSchema } from '../../src/core';
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

  for (const shell of ['bash', 'zsh']) {
    const hostile = `import sys\nprint('$(id) \`id\` !! \\\\ ~')\n${HEREDOC_STEM}\n'EOF'\nEOF\n\tindented\n# no newline at the end`;
    it(`${shell}: a selection's command line hands the CLI every word as it was and the code on stdin exactly`, async function () {
      if ((await execa('sh', ['-c', `command -v ${shell}`], { reject: false })).exitCode !== 0) return this.skip();
      const line = cliCommandLine({ cli: ECHO_CLI, profileName: "my 'profile'", profile, code: hostile, args: HOSTILE_ARGS, docker: { host: 'unix:///tmp/a b.sock', context: 'ctx', dockerPath: '/opt/my docker' } });
      const r = await execa(shell, ['-c', line], { reject: false });
      assert.equal(r.exitCode, 0, r.stderr);
      const got = JSON.parse(r.stdout) as { argv: string[]; stdin: string; host: string };
      assert.deepEqual(got.argv, ['--docker-path', '/opt/my docker', '--context', 'ctx', '--profile', "my 'profile'", '--profile-json', JSON.stringify(profile), '-', '--', ...HOSTILE_ARGS]);
      assert.equal(got.stdin, hostile + '\n', 'the code arrives exactly, with a final newline added');
      assert.equal(got.host, 'unix:///tmp/a b.sock');
    });

    it(`${shell}: a file's command line names the file, with -i for an interactive run`, async function () {
      if ((await execa('sh', ['-c', `command -v ${shell}`], { reject: false })).exitCode !== 0) return this.skip();
      const line = cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile, file: '/w/my $(id) file.py', args: [], interactive: true });
      assert.ok(!line.includes('<<'));
      const r = await execa(shell, ['-c', line], { reject: false, input: '' });
      assert.deepEqual((JSON.parse(r.stdout) as { argv: string[] }).argv, ['--profile', 'python', '--profile-json', JSON.stringify(profile), '-i', '/w/my $(id) file.py']);
    });

    it(`${shell}: a run whose profile mounts the workspace (workspace "ro", a \${workspaceFolder} source) names that folder with --workspace, others do not`, async function () {
      if ((await execa('sh', ['-c', `command -v ${shell}`], { reject: false })).exitCode !== 0) return this.skip();
      const argv = async (p: typeof profile) => {
        const line = cliCommandLine({ cli: ECHO_CLI, profileName: 'python', profile: p, file: '/w/my proj/main.py', workspace: '/w/my proj', args: [] });
        return (JSON.parse((await execa(shell, ['-c', line], { input: '' })).stdout) as { argv: string[] }).argv;
      };
      const ro = ProfileSchema.parse({ ...profile, workspace: 'ro' });
      assert.deepEqual(await argv(ro), ['--workspace', '/w/my proj', '--profile', 'python', '--profile-json', JSON.stringify(ro), '/w/my proj/main.py']);
      const variable = ProfileSchema.parse({ ...profile, mounts: [{ source: '${workspaceFolder}/data', target: '/data' }] });
      assert.deepEqual((await argv(variable)).slice(0, 2), ['--workspace', '/w/my proj']);
      assert.deepEqual((await argv(profile)).slice(0, 1), ['--profile'], 'a profile that mounts nothing of the workspace needs no --workspace');
    });
  }
});
