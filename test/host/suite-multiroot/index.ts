/**
 * Entry point of the (multiroot) suite, loaded by the extension host that runHostTests.ts
 * `--suite multiroot` starts: a fresh copy of test/host/fixtures/multiroot opened as a two-folder
 * workspace (multi.code-workspace: folders alpha and beta, each with its own profile settings),
 * Workspace Trust off (trusted). After all tests, no container this extension host created may be
 * left (../suite/leftovers.ts, a root after-all hook). SANDBOX_RUNNER_HOST_GREP selects tests by title.
 */
import { runMochaSuite } from '../lib/mochaSuite';
import { IMAGES } from '../suite/helpers';
import { noContainerLeft } from '../suite/leftovers';

export function run(): Promise<void> {
  return runMochaSuite({ dir: __dirname, name: 'host (multiroot)', images: [IMAGES.python], afterAll: [noContainerLeft] });
}
