/**
 * Modules the activation bundle (dist/extension.js) already holds and the lazy bundles
 * (dist/engine.js, …) use too. The lazy bundles take them from the loaded activation bundle
 * instead of carrying a second copy (esbuild.config.mjs resolves each path listed here to
 * `require('./extension.js').__shared[path]`): about 60 KB less JavaScript in all, one instance of
 * each (a `SandboxError` is the same class on both sides), and no state split between copies.
 * Keys are repository paths, read by esbuild.config.mjs; the values are the modules' namespaces
 * (all of each module's exports are kept in the activation bundle).
 */
import * as argv from '../core/argv';
import * as dedent from '../core/dedent';
import * as defaults from '../core/defaults';
import * as endpoint from '../core/endpoint';
import * as engineApi from '../core/engineApi';
import * as engineTarget from '../core/engineTarget';
import * as errors from '../core/errors';
import * as hostPath from '../core/hostPath';
import * as labels from '../core/labels';
import * as launcher from '../core/launcher';
import * as layout from '../core/layout';
import * as limits from '../core/limits';
import * as loosening from '../core/loosening';
import * as ownerLease from '../core/ownerLease';
import * as pathVariables from '../core/pathVariables';
import * as procLiveness from '../core/procLiveness';
import * as profile from '../core/profileSchema';
import * as profiles from '../core/profileResolution';
import * as stateDir from '../core/stateDir';
import * as terminalText from '../core/terminalText';
import * as workspaceMount from '../core/workspaceMount';
import * as zod from '../core/zod';
import * as engineChoice from './engineChoice';
import * as failures from './failures';
import * as settings from './settings';

/** Repository path → module namespace (see the file comment). */
export const SHARED: Readonly<Record<string, unknown>> = {
  'src/core/argv.ts': argv,
  'src/core/dedent.ts': dedent,
  'src/core/defaults.ts': defaults,
  'src/core/endpoint.ts': endpoint,
  'src/core/engineApi.ts': engineApi,
  'src/core/engineTarget.ts': engineTarget,
  'src/core/errors.ts': errors,
  'src/core/hostPath.ts': hostPath,
  'src/core/labels.ts': labels,
  'src/core/launcher.ts': launcher,
  'src/core/layout.ts': layout,
  'src/core/limits.ts': limits,
  'src/core/loosening.ts': loosening,
  'src/core/ownerLease.ts': ownerLease,
  'src/core/pathVariables.ts': pathVariables,
  'src/core/procLiveness.ts': procLiveness,
  'src/core/profileSchema.ts': profile,
  'src/core/profileResolution.ts': profiles,
  'src/core/stateDir.ts': stateDir,
  'src/core/terminalText.ts': terminalText,
  'src/core/workspaceMount.ts': workspaceMount,
  'src/core/zod.ts': zod,
  'src/vscode/engineChoice.ts': engineChoice,
  'src/vscode/failures.ts': failures,
  'src/vscode/settings.ts': settings,
};
