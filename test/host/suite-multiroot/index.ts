/**
 * Entry point of the (multiroot) suite, loaded by the extension host that runHostTests.ts
 * `--suite multiroot` starts: a fresh copy of test/host/fixtures/multiroot opened as a two-folder
 * workspace (multi.code-workspace: folders alpha and beta, each with its own profile settings),
 * Workspace Trust off (trusted). SANDBOX_RUNNER_HOST_GREP selects tests by title.
 */
import { runMochaSuite } from '../lib/mochaSuite';
import { IMAGES } from '../suite/helpers';

export function run(): Promise<void> {
  return runMochaSuite({ dir: __dirname, name: 'host (multiroot)', images: [IMAGES.python] });
}
