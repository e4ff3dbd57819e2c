/**
 * Throw-away workspace folders for the suites that run the CLI or resolve settings: a fresh
 * directory under `os.tmpdir()` with a `.vscode/settings.json` and the files a test runs.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Makes a workspace folder: `<tmpdir>/<prefix>XXXXXX` with `.vscode/settings.json` (`settings` as
 * written when a string, e.g. JSONC; else as JSON) and `files` (relative path → content; parent
 * folders are made). The caller removes it (`rm(dir, { recursive: true, force: true })`).
 * @returns the folder's absolute path
 */
export async function makeWorkspace(prefix: string, settings: string | Record<string, unknown>, files: Readonly<Record<string, string>> = {}): Promise<string> {
  const ws = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(ws, '.vscode'));
  await writeFile(join(ws, '.vscode', 'settings.json'), typeof settings === 'string' ? settings : JSON.stringify(settings));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(ws, name)), { recursive: true });
    await writeFile(join(ws, name), content);
  }
  return ws;
}
