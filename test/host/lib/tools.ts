/**
 * Where the host tests' tools are: the cache of scripts/host-tools.sh, the code-server launcher
 * and Chromium. Each path can be overridden by an environment variable; a missing tool throws
 * with the fix.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The tools cache of scripts/host-tools.sh (SANDBOX_RUNNER_TOOLS, default /var/cache/sandbox-runner-host). */
export function toolsDir(): string {
  return process.env.SANDBOX_RUNNER_TOOLS || '/var/cache/sandbox-runner-host';
}

/** The code-server launcher (a wrapper that runs it on Node 24). Throws with the fix when missing. */
export function codeServerPath(): string {
  const path = process.env.SANDBOX_RUNNER_CODE_SERVER || join(toolsDir(), 'bin', 'code-server');
  if (!existsSync(path)) {
    throw new Error(`code-server is not installed at ${path}; run "bash scripts/host-tools.sh" first (or set SANDBOX_RUNNER_CODE_SERVER).`);
  }
  return path;
}

/** The Chromium binary. Throws with the fix when missing. */
export function chromiumPath(): string {
  const path = process.env.SANDBOX_RUNNER_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`Chromium is not installed at ${path}; run "bash scripts/host-tools.sh" first (or set SANDBOX_RUNNER_CHROMIUM).`);
  return path;
}
