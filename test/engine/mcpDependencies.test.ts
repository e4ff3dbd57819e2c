/**
 * `sandbox-run --mcp` and an agent's `dependencies` (issue 22), driven by the MCP SDK's stdio
 * client against the real engine: without `--allow-dependencies` a call that declares packages is
 * refused before any container starts, with a sentence naming the flag; with it the packages are
 * installed from the suite's own index (test/support/pipIndex.ts, on an `--internal` network this
 * suite creates and removes) and the code runs with them; a javascript call's packages come from
 * the npm registry of test/support/npmRegistry.ts (its own `--internal` network) the same way.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { dependencySetKey } from '../../src/core/deps/cacheKey';
import { installEnvironment } from '../../src/core/deps/declared';
import { LABELS } from '../../src/core/ownership/labels';
import { LANGUAGE_IMAGES } from '../support/images';
import { startNpmRegistry, type NpmRegistry } from '../support/npmRegistry';
import { PIP_INDEX_SCRIPT, PIP_INDEX_URL } from '../support/pipIndex';
import { makeWorkspace } from '../support/workspace';
import { requireEngine as requireTestEngine, TEST_ENGINE } from '../support/engine';
import { CLI, cliEnv, containers, engineCli, IMAGES, registryEngine } from './helpers';

const suffix = `${process.pid}-${Date.now().toString(36)}`;
const NET = `sandbox-runner-test-mcpdeps-${suffix}`;
const REGISTRY = `sandbox-runner-test-mcpreg-${suffix}`;
const CODE = 'import tinyhello\nprint(tinyhello.greet())\n';

function text(r: unknown): string {
  const part = (r as CallToolResult).content[0];
  assert.ok(part && part.type === 'text', `expected a text part, got ${JSON.stringify(r)}`);
  return part.text;
}

describe('sandbox-run --mcp with dependencies (engine)', function () {
  this.timeout(240_000);
  let ws = '';
  let npm: NpmRegistry | undefined;

  before(async () => {
    await requireTestEngine(TEST_ENGINE, [LANGUAGE_IMAGES.pythonPip, LANGUAGE_IMAGES.nodeNpm, IMAGES.python]);
    ws = await makeWorkspace('sr-mcpdeps-', `{ "sandboxRunner.profiles": { "python": { "image": "${LANGUAGE_IMAGES.pythonPip}" }, "node": { "image": "${LANGUAGE_IMAGES.nodeNpm}" } } }`);
    npm = await startNpmRegistry(registryEngine, `mcp-${suffix}`, IMAGES.python);
    await engineCli(['network', 'create', '--internal', NET], { stdin: 'ignore' });
    await engineCli(['run', '-d', '--rm', '--name', REGISTRY, '--network', NET, '--network-alias', 'registry', '--pull', 'never', IMAGES.python, 'python3', '-c', PIP_INDEX_SCRIPT], { stdin: 'ignore' });
    for (let i = 0; i < 100 && !String((await engineCli(['logs', REGISTRY], { stdin: 'ignore', reject: false })).stdout).includes('ready'); i++) await new Promise((r) => setTimeout(r, 200));
  });

  after(async () => {
    await engineCli(['rm', '-f', REGISTRY], { stdin: 'ignore', reject: false });
    const imageId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.pythonPip], { stdin: 'ignore' })).stdout).trim();
    const key = dependencySetKey({ imageId, manager: 'pip', specs: ['tinyhello'], installEnv: installEnvironment({ pipIndexUrl: '', npmRegistry: '' }, { ...process.env, PIP_INDEX_URL, PIP_TRUSTED_HOST: 'registry' }) });
    const volumes = String((await engineCli(['volume', 'ls', '-q', '--filter', `label=sandbox-runner.deps-key=${key}`], { stdin: 'ignore' })).stdout).split('\n').filter(Boolean);
    const nodeId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.nodeNpm], { stdin: 'ignore' })).stdout).trim();
    const nodeKey = npm ? dependencySetKey({ imageId: nodeId, manager: 'npm', specs: ['tinyuse@^2'], installEnv: installEnvironment({ pipIndexUrl: '', npmRegistry: '' }, { ...process.env, npm_config_registry: npm.url }) }) : undefined;
    if (nodeKey) volumes.push(...String((await engineCli(['volume', 'ls', '-q', '--filter', `label=sandbox-runner.deps-key=${nodeKey}`], { stdin: 'ignore' })).stdout).split('\n').filter(Boolean));
    if (volumes.length) await engineCli(['volume', 'rm', '-f', ...volumes], { stdin: 'ignore', reject: false });
    await npm?.stop();
    await engineCli(['network', 'rm', NET], { stdin: 'ignore', reject: false });
    if (ws) await rm(ws, { recursive: true, force: true });
  });

  async function connect(extra: string[]): Promise<{ client: Client; pid: number; stderr: () => string }> {
    const env = { ...(process.env as Record<string, string>), ...cliEnv(), PIP_INDEX_URL, PIP_TRUSTED_HOST: 'registry', npm_config_registry: npm!.url };
    const transport = new StdioClientTransport({ command: 'node', args: [CLI, '--mcp', '--workspace', ws, ...extra], env, stderr: 'pipe' });
    let err = '';
    transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const client = new Client({ name: 'sandbox-runner-engine-test', version: '1.0.0' });
    await client.connect(transport);
    assert.ok(transport.pid, 'the server process has no pid');
    return { client, pid: transport.pid, stderr: () => err };
  }

  it('without --allow-dependencies refuses the "dependencies" input and a PEP 723 block before any container starts, naming the flag', async () => {
    const { client, pid } = await connect([]);
    try {
      for (const args of [
        { code: CODE, language: 'python', dependencies: ['tinyhello'] },
        { code: `# /// script\n# dependencies = ["tinyhello"]\n# ///\n${CODE}`, language: 'python' },
      ]) {
        const r = await client.callTool({ name: 'run_in_sandbox', arguments: args });
        assert.equal(r.isError, true, JSON.stringify(r));
        assert.match(text(r), /^Not run: this call declares dependencies \("tinyhello"\), and this MCP server installs packages only when the user starts it with --allow-dependencies\. Rewrite the code/);
      }
      const bad = await client.callTool({ name: 'run_in_sandbox', arguments: { code: CODE, language: 'python', dependencies: ['x @ https://registry:8000/x.whl'] } });
      assert.match(text(bad), /^Not run: Dependency "x @ https:\/\/registry:8000\/x\.whl" in the "dependencies" input /);
      assert.deepEqual(await containers(`label=${LABELS.ownerPid}=${pid}`), [], 'a refused call started a container');
    } finally {
      await client.close();
    }
  });

  it('with --allow-dependencies installs the input\'s packages on --install-network and runs the code with them, without network', async () => {
    const { client, stderr } = await connect(['--allow-dependencies', '--install-network', NET]);
    try {
      const r = await client.callTool({ name: 'run_in_sandbox', arguments: { code: `${CODE}import os\nprint(os.environ.get("PIP_INDEX_URL"))\n`, language: 'python', dependencies: ['tinyhello'] } });
      const s = r.structuredContent as { outcome: string; exitCode: number; stdout: { text: string }; network: string };
      assert.deepEqual([s.outcome, s.exitCode], ['exited', 0], text(r));
      assert.equal(s.stdout.text, 'hello from tinyhello\nNone\n');
      assert.equal(s.network, 'none');
      assert.match(stderr(), new RegExp(`dependencies installed on network ${NET}: "tinyhello"`));
      const again = await client.callTool({ name: 'run_in_sandbox', arguments: { code: CODE, language: 'python', dependencies: ['tinyhello'] } });
      assert.equal((again.structuredContent as { exitCode: number }).exitCode, 0, text(again));
      assert.match(stderr(), /dependencies from the cache: "tinyhello"/);
    } finally {
      await client.close();
    }
  });

  it('javascript: refused without --allow-dependencies; with it the npm packages install and require() and import() resolve them', async () => {
    const JS = "const { shout } = require('tinyuse');\nconsole.log(shout('hi'), String(process.env.npm_config_registry));\n";
    const refused = await connect([]);
    try {
      const r = await refused.client.callTool({ name: 'run_in_sandbox', arguments: { code: JS, language: 'javascript', dependencies: ['tinyuse@^2'] } });
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.match(text(r), /^Not run: this call declares dependencies \("tinyuse@\^2"\), and this MCP server installs packages only when the user starts it with --allow-dependencies\./);
      assert.deepEqual(await containers(`label=${LABELS.ownerPid}=${refused.pid}`), [], 'a refused call started a container');
    } finally {
      await refused.client.close();
    }
    const { client, stderr } = await connect(['--allow-dependencies', '--install-network', npm!.network]);
    try {
      const r = await client.callTool({ name: 'run_in_sandbox', arguments: { code: JS, language: 'javascript', dependencies: ['tinyuse@^2'] } });
      const s = r.structuredContent as { outcome: string; exitCode: number; stdout: { text: string }; network: string };
      assert.deepEqual([s.outcome, s.exitCode], ['exited', 0], text(r));
      assert.equal(s.stdout.text, '.....HI! undefined\n');
      assert.equal(s.network, 'none');
      assert.match(stderr(), new RegExp(`dependencies installed on network ${npm!.network}: "tinyuse@\\^2"`));
      // import() resolves the ESM way (no NODE_PATH), from a CommonJS snippet file.
      const esm = "import('tinyuse').then(({ kind }) => console.log(kind, require('fs').readdirSync('/node_modules').filter((n) => !n.startsWith('.')).sort().join(',')));\n";
      const again = await client.callTool({ name: 'run_in_sandbox', arguments: { code: esm, language: 'javascript', dependencies: ['tinyuse@^2'] } });
      assert.equal((again.structuredContent as { stdout: { text: string } }).stdout.text, 'esm tinyleft,tinyuse\n', text(again));
      assert.match(stderr(), /dependencies from the cache: "tinyuse@\^2"/);
    } finally {
      await client.close();
    }
  });

  it('refuses --mcp --dependencies as a usage error naming --allow-dependencies', async () => {
    const { execa } = await import('execa');
    const r = await execa('node', [CLI, '--mcp', '--dependencies', '--workspace', ws], { reject: false, stdin: 'ignore', env: cliEnv() });
    assert.equal(r.exitCode, 2);
    assert.match(r.stderr, /--mcp cannot be combined with --dependencies: use --allow-dependencies/);
    assert.equal(r.stdout, '');
  });
});
