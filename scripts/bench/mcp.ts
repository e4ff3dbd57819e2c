/** `mcp_warm_ratio`: a `tools/call` round trip of `print("ok")` through the official SDK client over stdio to `node dist/cli.js --mcp`
 * (beside the bundle), against a raw cold `docker run --rm`; before each call (untimed) the server's warm container for the profile is
 * waiting. `mcp_concurrent4_ratio` (information): 4 calls at once (4 clients, one server each, `--max-runs 4`) vs 4 raw at once, wall. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LABELS, WARM_LABEL } from '../../src/core/ownership/labels';
import { containerNames } from '../../test/support/engine';
import { sleep } from '../../test/support/deadlines';
import { CASES, rawCold } from './cold';
import { interleave, ratioRow, type Ctx, type Figures } from './harness';

type Server = { client: Client; pid: number; call: () => Promise<{ ms: number }>; warm: () => Promise<void> };

/** A server on `ws` with the SDK's stdio client; `call` checks the printed line. */
async function server(cliJs: string, ws: string): Promise<Server> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, '--mcp', '--workspace', ws], stderr: 'ignore' });
  const client = new Client({ name: 'sandbox-runner-bench', version: '1' });
  await client.connect(transport);
  const pid = transport.pid!;
  const call = async () => {
    const t0 = performance.now();
    const r = (await client.callTool({ name: 'run_in_sandbox', arguments: { code: 'print("ok")', profile: 'bench-python' } })) as { structuredContent?: { outcome?: string; stdout?: { text?: string } } };
    const ms = performance.now() - t0;
    if (r.structuredContent?.outcome !== 'exited' || r.structuredContent.stdout?.text !== 'ok\n') throw new Error(`mcp call: ${JSON.stringify(r).slice(0, 400)}`);
    return { ms };
  };
  // Untimed: until the server's warm container for the profile waits (at most 30 s; a run without one is simply cold).
  const warm = async () => {
    for (let i = 0; i < 300; i++) {
      const mine = new Set(await containerNames(`label=${LABELS.ownerPid}=${pid}`));
      if ((await containerNames(`label=${WARM_LABEL}`)).some((n) => mine.has(n))) return;
      await sleep(100);
    }
  };
  return { client, pid, call, warm };
}

export async function mcp(ctx: Ctx): Promise<Figures> {
  const [cliJs, c] = [resolve(ctx.bundle, '..', 'cli.js'), CASES[1]!];
  const ws = mkdtempSync(join(tmpdir(), 'sandbox-runner-bench-mcp-'));
  mkdirSync(join(ws, '.vscode'));
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { 'bench-python': { image: c.profile.image, command: c.profile.command, extensions: c.profile.extensions } } }));
  const servers: Server[] = [];
  try {
    const one = await server(cliJs, ws);
    servers.push(one);
    await one.call(); // untimed: the first call is cold and makes the warm container
    const p = await interleave('mcp tools/call', { raw: () => rawCold(c).then(({ ms }) => ({ ms })), mcp: async () => {
      await one.warm();
      return one.call();
    } }, ctx);
    ctx.rows.push(ratioRow(`mcp tools/call ${c.label} (ms, round trip)`, 'mcp_warm_ratio', p.mcp.ms, p.raw.ms, 'cold run --rm', '(SDK client over stdio → sandbox-run --mcp with its warm pool; the editor\'s language model tool runs through the editor\'s pool: the warm rows cover it)'));
    const four = await Promise.all([1, 2, 3].map(() => server(cliJs, ws)));
    servers.push(...four);
    await Promise.all(four.map((s) => s.call())); // untimed: each server's first call is cold
    const all = [one, ...four];
    const q = await interleave('mcp 4 agents at once', {
      raw: async () => {
        const t0 = performance.now();
        await Promise.all(all.map(() => rawCold(c)));
        return { ms: performance.now() - t0 };
      },
      mcp: async () => {
        await Promise.all(all.map((s) => s.warm()));
        const t0 = performance.now();
        await Promise.all(all.map((s) => s.call()));
        return { ms: performance.now() - t0 };
      },
    }, { ...ctx, runs: Math.min(ctx.runs, 5), warmup: Math.min(ctx.warmup, 1) });
    ctx.rows.push(ratioRow(`mcp 4 agents at once ${c.label} (ms, wall)`, 'info', q.mcp.ms, q.raw.ms, '4x cold run --rm', '(4 SDK clients, a server each, calling at once; each server\'s container warm)'));
    return { mcp_warm_ratio: p.mcp.ms.median / p.raw.ms.median, mcp_concurrent4_ratio: q.mcp.ms.median / q.raw.ms.median };
  } finally {
    await Promise.all(servers.map((s) => s.client.close().catch(() => undefined)));
    rmSync(ws, { recursive: true, force: true });
  }
}
