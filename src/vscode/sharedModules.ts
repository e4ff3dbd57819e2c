/**
 * Modules the activation bundle (dist/extension.js) already holds and the lazy bundles
 * (dist/engine.js, …) use too. The lazy bundles take them from the loaded activation bundle
 * instead of carrying a second copy (esbuild.config.mjs resolves each path listed here to
 * `require('./extension.js').__shared[path]`): about 60 KB less JavaScript in all, one instance of
 * each (a `SandboxError` is the same class on both sides), and no state split between copies.
 * Keys are repository paths, read by esbuild.config.mjs; the values are the modules' namespaces
 * (all of each module's exports are kept in the activation bundle). A module is listed only where
 * sharing is smaller than the copies esbuild would tree-shake into each bundle (measured with the
 * bench's bundle row), or where one instance matters (errors, leases, l10n's configuration).
 */
import * as argv from '../core/container/argv';
import * as endpoint from '../core/engine/endpoint';
import * as engineTarget from '../core/engine/engineTarget';
import * as errors from '../core/errors';
import * as hostPath from '../core/hostPath';
import * as launcher from '../core/container/launcher';
import * as defaults from '../core/profiles/defaults';
import * as dependencySpecs from '../core/profiles/dependencySpecs';
import * as limits from '../core/profiles/limits';
import * as pathVariables from '../core/profiles/pathVariables';
import * as profile from '../core/profiles/profileSchema';
import * as profiles from '../core/profiles/profileResolution';
import * as runStart from '../core/admission/runStart';
import * as terminalText from '../core/output/terminalText';
import * as consent from './consent';
import * as failures from './failures';
import * as settings from './settings';

/**
 * Repository path or package name → module namespace (see the file comment). Modules that activation itself does not
 * use are getters that `require` them: esbuild then evaluates them (and the Node built-ins they
 * load, such as node:http) on the lazy bundle's first use, not when this bundle loads.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const SHARED: Readonly<Record<string, unknown>> = {
  'src/core/container/argv.ts': argv,
  'src/core/engine/endpoint.ts': endpoint,
  'src/core/engine/engineTarget.ts': engineTarget,
  'src/core/errors.ts': errors,
  'src/core/hostPath.ts': hostPath,
  'src/core/container/launcher.ts': launcher,
  'src/core/profiles/defaults.ts': defaults,
  'src/core/profiles/dependencySpecs.ts': dependencySpecs,
  'src/core/profiles/limits.ts': limits,
  get 'src/core/ownership/ownerLease.ts'() {
    return require('../core/ownership/ownerLease');
  },
  'src/core/profiles/pathVariables.ts': pathVariables,
  get 'src/core/engine/procLiveness.ts'() {
    return require('../core/engine/procLiveness');
  },
  get 'src/core/admission/programArgs.ts'() {
    return require('../core/admission/programArgs');
  },
  'src/core/profiles/profileSchema.ts': profile,
  'src/core/profiles/profileResolution.ts': profiles,
  get 'src/core/stateDir.ts'() {
    return require('../core/stateDir');
  },
  'src/core/admission/runStart.ts': runStart,
  'src/core/output/terminalText.ts': terminalText,
  'src/vscode/consent.ts': consent,
  'src/vscode/failures.ts': failures,
  'src/vscode/settings.ts': settings,
  // Packages: one copy, and one instance (activate() configures @vscode/l10n's translations).
  get '@vscode/l10n'() {
    return require('@vscode/l10n');
  },
  get 'strip-ansi'() {
    return require('strip-ansi');
  },
};
