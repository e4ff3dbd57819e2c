/**
 * The "engine" bundle (dist/engine.js): everything that talks to the container engine (the
 * runner, the warm pool, the orphan sweep, the engine check) with execa and its dependencies.
 * Activation does not load it: {@link ./lazy} requires it on first use (the first run, the first
 * sweep 2 s after activation, the profile view's engine check, deactivate).
 *
 * Rule: this module is the ONLY way code in the activation bundle (src/extension.ts and what it
 * imports) reaches engine code at run time; type imports from '../core' are free. esbuild.config.mjs
 * fails the build when execa lands in dist/extension.js again.
 */
export { describeEngine, engineIdentity, engineRuntimes, knownEngineIdentity } from '../core/engine/engine';
export { withPreferredRuntime } from '../core/profiles/preferRuntime';
export { closeProcessLease } from '../core/ownership/ownerLease';
// deactivate's engine part (extension.ts): sessions, removals, leftovers, the owner lease.
export { shutdownEngine } from './engineShutdown';
export { reapOrphans, removeOwnContainers } from '../core/sweep/reaper';
export { awaitRemovals } from '../core/container/removals';
export { runInSandbox } from '../core/run/runner';
export { refusedResult } from '../core/run/outcome';
export { WarmPool } from '../core/run/warm';
// Source links (issue 11): the origin needs argv.ts, and the error site is needed only after a run.
export { findErrorSite } from '../core/source/errorSite';
export { snippetOrigin } from '../core/source/snippetOrigin';
export { SourceLinks } from './sourceLinks';
export { checkEngine } from './engineStatus';
// The interactive run's pseudoterminal and its TTY filter: only an interactive run needs them,
// and a run loads this bundle anyway (kept out of the activation bundle for its size).
export { InteractiveTerminal } from './interactiveTerminal';
// Issue 24: notebook sessions (notebookKernels.ts, in the notebook bundle): the session core talks to the engine.
export { closeAllSessions, startSession } from '../core/session/session';
export { checkSessionProfile } from '../core/session/start';
// What the dependencies and agent bundles take from this one (esbuild.config.mjs, LAZY_BUNDLES).
export { SHARED as __shared } from './engineShared';
