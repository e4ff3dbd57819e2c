/**
 * `cold_cli_exit_ms` (information): `node dist/cli.js -w WS -p bench-shell -q FILE` (the build
 * beside the measured bundle) spawn → exit, which includes node's start-up and the container's
 * removal, interleaved with the same raw `docker run --rm`. The workspace's
 * .vscode/settings.json defines the shell case's profile.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { CASES, deliveryFor, rawCold, type Case } from './cold';
import { interleave, type Ctx, type Figures } from './harness';
import { ratioRow } from './targets';

/** A workspace folder defining `c`'s profile, with `c`'s code in a snippet file. */
function workspace(c: Case): { ws: string; file: string } {
  const ws = mkdtempSync(join(tmpdir(), 'sandbox-runner-bench-cli-'));
  mkdirSync(join(ws, '.vscode'));
  const { image, command, extensions } = c.profile;
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { [c.profileName]: { image, command, extensions } } }));
  const file = join(ws, `snippet${extensions[0] ?? '.txt'}`);
  writeFileSync(file, c.code);
  return { ws, file };
}

export async function cli(ctx: Ctx): Promise<Figures> {
  const cliJs = resolve(ctx.bundle, '..', 'cli.js');
  const c = CASES[0]!;
  const metric = `cold CLI exit ${c.label} (ms)`;
  if (!existsSync(cliJs)) {
    ctx.rows.push({ metric, ours: '-', raw: '-', figure: 'n/a', target: '(info)', verdict: 'INFO', note: `(${cliJs} missing)` });
    return {};
  }
  const delivery = await deliveryFor(c);
  const { ws, file } = workspace(c);
  try {
    const runCli = async () => {
      const t0 = performance.now();
      const r = await execa(process.execPath, [cliJs, '-w', ws, '-p', c.profileName, '-q', '--allow-loosening', file], { reject: false, stdin: 'ignore' });
      const ms = performance.now() - t0;
      if (r.exitCode !== 0 || r.stdout !== c.prints.trimEnd()) throw new Error(`cli ${c.label}: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${String(r.stderr).trim()}`);
      return { ms };
    };
    const res = await interleave(`cli exit ${c.label}`, { raw: async () => ({ ms: (await rawCold(c, delivery)).ms }), cli: runCli }, ctx);
    ctx.rows.push(ratioRow(metric, 'info', res.cli.ms, res.raw.ms, 'run --rm', '(node dist/cli.js spawn → exit: node start-up, the run, and container removal)'));
    return { cold_cli_exit_ms: res.cli.ms.median };
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
