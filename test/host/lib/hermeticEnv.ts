/** The environment of one hermetic host run (server and browser), built from the run's folders. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RunDirs } from './runDirs';
import { toolsDir } from './tools';

/**
 * The environment of the server and the browser: the caller's, with HOME, XDG and TMPDIR moved into
 * the run's folder (code-server, VS Code and Chromium write there), the tools' Node 24 first on
 * PATH, no extension gallery, and none of a surrounding VS Code's variables. The Docker engine's
 * settings (DOCKER_HOST, DOCKER_CONTEXT, the CLI config folder) still reach the extension host.
 */
export function hermeticEnv(dirs: RunDirs): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('VSCODE_') || key.startsWith('ELECTRON_') || key === 'CODE_SERVER_PARENT_PID') delete env[key];
  }
  const realDockerConfig = process.env.DOCKER_CONFIG || join(process.env.HOME || homedir(), '.docker');
  if (existsSync(realDockerConfig)) env.DOCKER_CONFIG = realDockerConfig;
  Object.assign(env, {
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: join(dirs.root, 'xdg', 'config'),
    XDG_CACHE_HOME: join(dirs.root, 'xdg', 'cache'),
    XDG_DATA_HOME: join(dirs.root, 'xdg', 'data'),
    XDG_STATE_HOME: join(dirs.root, 'xdg', 'state'),
    XDG_RUNTIME_DIR: join(dirs.root, 'xdg', 'runtime'),
    PATH: `${join(toolsDir(), 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    // No gallery: nothing looks extensions up (the machine is offline anyway).
    EXTENSIONS_GALLERY: '{}',
  });
  return env;
}
