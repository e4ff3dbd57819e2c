/** `cold_cli_exit_ms` (information): `node dist/cli.js` (beside the bundle) of the shell case, spawn → exit (node start-up, the run, removal), vs raw `run --rm`. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { CASES, rawCold } from './cold';
import { interleave, noFigure, ratioRow, type Ctx, type Figures } from './harness';

export async function cli(ctx: Ctx): Promise<Figures> {
  const [cliJs, c] = [resolve(ctx.bundle, '..', 'cli.js'), CASES[0]!];
  const metric = `cold CLI exit ${c.label} (ms)`;
  if (!existsSync(cliJs)) {
    ctx.rows.push(noFigure(metric, '(info)', 'INFO', `(${cliJs} missing)`));
    return {};
  }
  const ws = mkdtempSync(join(tmpdir(), 'sandbox-runner-bench-cli-'));
  const { image, command, extensions } = c.profile;
  const file = join(ws, `snippet${extensions[0] ?? '.txt'}`);
  mkdirSync(join(ws, '.vscode'));
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { [c.profileName]: { image, command, extensions } } }));
  writeFileSync(file, c.code);
  const runCli = async () => {
    const t0 = performance.now();
    const r = await execa(process.execPath, [cliJs, '-w', ws, '-p', c.profileName, '-q', '--allow-loosening', file], { reject: false, stdin: 'ignore' });
    const ms = performance.now() - t0;
    if (r.exitCode !== 0 || r.stdout !== c.prints.trimEnd()) throw new Error(`cli ${c.label}: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${String(r.stderr).trim()}`);
    return { ms };
  };
  try {
    const p = await interleave(`cli exit ${c.label}`, { raw: () => rawCold(c).then(({ ms }) => ({ ms })), cli: runCli }, ctx);
    ctx.rows.push(ratioRow(metric, 'info', p.cli.ms, p.raw.ms, 'run --rm', '(node dist/cli.js spawn → exit: node start-up, the run, and container removal)'));
    return { cold_cli_exit_ms: p.cli.ms.median };
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
