/**
 * The "dependencies" bundle (dist/deps.js, issue 22): reading what a run declares (PEP 723 blocks,
 * the profile's and an agent's specs), the install consent's facts, the install itself in its own
 * container, the `requires-python` check, the missing-module Quick Fix and Clear Dependency Cache.
 * Activation does not load it, nor does a run that declares nothing: lazy.ts `deps()` requires it
 * when core `mayDeclareDependencies` says a run might declare some, or a dependencies command or
 * Quick Fix runs. Engine
 * code it needs comes from the engine bundle (engineShared.ts), which `deps()` loads first.
 */
export { pruneDependencySets } from '../core/deps/prune';
export { addDependencyEdit, distributionFor, missingModule } from '../core/deps/moduleFix';
export { declaredDependencies, installDeclared, installEnvironment, installFingerprint, installSource, shownSpecs } from '../core/deps/declared';
export { requiresPythonCheck } from '../core/deps/imagePython';
// The editor's side: consent and the install step of a run (runController.ts).
export { admitDependencies } from './dependencyRun';
// What the agent bundle (agentModule.ts) takes from this one (esbuild.config.mjs, LAZY_BUNDLES).
export { SHARED as __shared } from './depsShared';
