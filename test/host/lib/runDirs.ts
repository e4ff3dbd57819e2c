/**
 * The temp folders of one hermetic host run: user data, extensions, config, HOME, XDG and TMPDIR,
 * all inside one folder under the current TMPDIR, removed at the end unless kept for debugging.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Fresh folders for one run, all inside `root`. */
export interface RunDirs {
  readonly root: string;
  readonly userData: string;
  readonly extensions: string;
  readonly config: string;
  readonly home: string;
  readonly tmp: string;
  readonly serverLog: string;
}

/** Creates the folders of one run (`prefix`-… under the current TMPDIR) and code-server's config file. */
export function makeRunDirs(prefix: string): RunDirs {
  const root = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const d = {
    root,
    userData: join(root, 'user-data'),
    extensions: join(root, 'extensions'),
    config: join(root, 'config.yaml'),
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    serverLog: join(root, 'code-server.log'),
  };
  for (const dir of [d.userData, join(d.userData, 'User'), d.extensions, d.home, d.tmp]) mkdirSync(dir, { recursive: true });
  for (const x of ['config', 'cache', 'data', 'state']) mkdirSync(join(root, 'xdg', x), { recursive: true });
  mkdirSync(join(root, 'xdg', 'runtime'), { recursive: true, mode: 0o700 });
  // code-server reads bind address and auth from here; the command line repeats them anyway.
  writeFileSync(d.config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  return d;
}

/** Removes a run's folders unless SANDBOX_RUNNER_HOST_KEEP=1 (then says where they are). */
export function removeRunDirs(dirs: RunDirs): void {
  if (process.env.SANDBOX_RUNNER_HOST_KEEP === '1') {
    process.stderr.write(`host: kept ${dirs.root} (SANDBOX_RUNNER_HOST_KEEP=1)\n`);
    return;
  }
  rmSync(dirs.root, { recursive: true, force: true, maxRetries: 3 });
}
