/**
 * The mount probe as macOS and Windows clients run it (issue 15): there is no `/proc/self/fd` to
 * pin a directory with, so the probe has no anchor and the engine counts as not seeing this
 * process; a source the engine sees at the same path is then a by-path bind. Run on Linux against
 * the real engines with the anchor left out, as mounts.ts does on a client without /proc.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineOptions } from '../../src/core/engine/engineTarget';
import { mountAccess, probeEngineView } from '../../src/core/mounts/mountProbe';
import { IMAGES, requireEngine } from './helpers';

describe('the mount probe without /proc (macOS, Windows clients) (engine)', function () {
  this.timeout(120_000);
  let root: string;
  before(async () => {
    await requireEngine();
    root = await mkdtemp(join(tmpdir(), 'sr-noproc-'));
    await writeFile(join(root, 'f.txt'), 'x\n');
    await chmod(root, 0o755);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('without an anchor the local engine sees the file by path but not this process: a by-path bind, nothing left behind', async () => {
    const handle = await open(root, 'r');
    try {
      const view = await probeEngineView(engineOptions({ host: 'unix:///var/run/docker.sock' }), IMAGES.busybox, 'probe', { root, rootFd: handle.fd });
      assert.deepEqual(view, { sees: 'yes', local: false });
      assert.deepEqual(mountAccess(view), { kind: 'by-path' });
      assert.deepEqual(await readdir(root), ['f.txt'], 'the nonce file stayed in the source root');
    } finally {
      await handle.close();
    }
  });
});
