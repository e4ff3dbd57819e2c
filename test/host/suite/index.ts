/**
 * Entry point the extension host loads (`--extensionTestsPath`): runs every compiled `*.test.js`
 * next to this file with mocha, after checking the engine and the fixture workspace's test images
 * (see ../lib/mochaSuite.ts), then checks that no container it created is left (./leftovers.ts, a
 * root after-all hook). SANDBOX_RUNNER_HOST_GREP selects tests by title (mocha --grep).
 */
import { runMochaSuite } from '../lib/mochaSuite';
import { NOTEBOOK_IMAGE } from '../../support/images';
import { IMAGES } from './helpers';
import { noContainerLeft } from './leftovers';

export function run(): Promise<void> {
  return runMochaSuite({ dir: __dirname, name: 'host', images: [...Object.values(IMAGES), NOTEBOOK_IMAGE], afterAll: [noContainerLeft] });
}
