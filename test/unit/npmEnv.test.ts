/**
 * The nested npm of scripts/host-tools.sh (scripts/lib/npm.sh `npm_install`) starts from a clean
 * npm environment however the script was invoked. Under `npm run`, the outer npm exports
 * npm_config_user_agent ("npm/… node/v20…"), and code-server's postinstall refused to install on
 * the Node 24 host-tools puts first on PATH ("code-server currently requires node v24 … detected
 * node v20"). Here the outer `npm run` is simulated with canary values and a tiny local package
 * (a tarball, no registry) whose postinstall reports what it sees. Plain Node, npm and bash; ~2 s.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(__dirname, '../../..');
const CANARY = 'sr-outer-canary';

/** What the probe package's postinstall saw. */
interface Seen {
  readonly version: string;
  readonly execPath: string;
  readonly env: Record<string, string>;
}

describe('host-tools nested npm install (unit)', function () {
  this.timeout(60_000);
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'sr-npm-env-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a lifecycle script sees the Node first on PATH and no npm variable of an outer `npm run`', () => {
    // The probe package: its postinstall writes the Node version and environment it ran with.
    const seenFile = join(root, 'seen.json');
    const pkg = join(root, 'src', 'package');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'sr-env-probe', version: '1.0.0', scripts: { postinstall: 'node probe.js' } }));
    writeFileSync(
      join(pkg, 'probe.js'),
      `require('fs').writeFileSync(${JSON.stringify(seenFile)}, JSON.stringify({ version: process.version, execPath: process.execPath, env: process.env }));\n`,
    );
    const tarball = join(root, 'sr-env-probe-1.0.0.tgz');
    execFileSync('tar', ['-czf', tarball, '-C', join(root, 'src'), 'package']);
    // Stands in for $TOOLS/bin: the folder whose node the install must use (here this Node).
    const toolsBin = join(root, 'tools-bin');
    mkdirSync(toolsBin);
    symlinkSync(process.execPath, join(toolsBin, 'node'));
    const prefix = join(root, 'prefix');
    mkdirSync(prefix);
    writeFileSync(join(prefix, 'package.json'), '{"private":true}');

    // What an outer `npm run` (another npm on another Node) exports, each value marked.
    const outerNodeDir = join(root, `${CANARY}-node-bin`);
    const outerEnv: Record<string, string> = {
      npm_config_user_agent: `npm/10.9.9 node/v20.0.0-${CANARY} linux x64 workspaces/false`,
      npm_config_sr_canary: CANARY,
      NPM_CONFIG_SR_CANARY_UPPER: CANARY,
      npm_package_name: CANARY,
      npm_lifecycle_event: CANARY,
      npm_lifecycle_script: CANARY,
      npm_node_execpath: join(outerNodeDir, 'node'),
      npm_execpath: join(root, CANARY, 'npm-cli.js'),
      NODE: join(outerNodeDir, 'node'),
      INIT_CWD: join(root, CANARY),
      PATH: [outerNodeDir, join(root, CANARY, 'node_modules', '.bin'), join(root, CANARY, 'node-gyp-bin'), process.env.PATH].join(':'),
    };
    const script = 'source scripts/lib/npm.sh && npm_install "$1" PATH="$2:$(npm_clean_path)" npm_config_offline=true "$3"';
    execFileSync('bash', ['-c', script, 'npm-env-test', prefix, toolsBin, tarball], {
      cwd: repo,
      env: { ...process.env, ...outerEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });

    assert.ok(existsSync(seenFile), 'the probe package postinstall did not run');
    const seen = JSON.parse(readFileSync(seenFile, 'utf8')) as Seen;
    assert.equal(seen.version, process.version, 'the postinstall ran on another Node than the one first on PATH');
    // npm derives the agent from the Node it runs on; code-server's postinstall compares exactly this.
    const agent = /^npm\/\S+ node\/(v\S+) /.exec(seen.env.npm_config_user_agent ?? '');
    assert.equal(agent?.[1], seen.version, `npm_config_user_agent seen by the postinstall: ${seen.env.npm_config_user_agent}`);
    const leaked = Object.entries(seen.env)
      .filter(([, v]) => v.includes(CANARY))
      .map(([k, v]) => `${k}=${v}`);
    assert.deepEqual(leaked, [], 'variables of the outer npm reached the nested install');
    assert.equal(seen.env.npm_config_offline, 'true', 'a NAME=VALUE given to npm_install is set for npm');
  });
});
