/**
 * Modules of the engine bundle (dist/engine.js) that later lazy bundles (dist/deps.js,
 * dist/agent.js) use too: esbuild.config.mjs resolves each path listed here to
 * `require('./engine.js').__shared[path]` there, as sharedModules.ts does for dist/extension.js,
 * so execa and the engine calls exist once and keep one state (removals, leases, the engine cache).
 * Keys are repository paths or package names, read by esbuild.config.mjs; the values are the
 * modules' namespaces.
 */
import * as execa from 'execa';
import * as cli from '../core/engine/cli';
import * as containerOps from '../core/engine/containerOps';
import * as engineKind from '../core/engine/engineKind';
import * as podmanSpec from '../core/engine/podman/engineSpec';
import * as spawnEnv from '../core/engine/spawnEnv';
import * as labels from '../core/ownership/labels';
import * as frames from '../core/session/frames';
import * as session from '../core/session/session';
import * as sessionStart from '../core/session/start';

/** Repository path or package name → module namespace (see the file comment). */
export const SHARED: Readonly<Record<string, unknown>> = {
  'execa': execa,
  'src/core/engine/cli.ts': cli,
  'src/core/engine/containerOps.ts': containerOps,
  'src/core/engine/engineKind.ts': engineKind,
  'src/core/engine/podman/engineSpec.ts': podmanSpec,
  'src/core/engine/spawnEnv.ts': spawnEnv,
  'src/core/ownership/labels.ts': labels,
  'src/core/session/frames.ts': frames,
  'src/core/session/session.ts': session,
  'src/core/session/start.ts': sessionStart,
};
