/**
 * The core's public API for the layers over it: exactly the symbols the extension (src/vscode,
 * src/extension.ts) and the CLI (src/cli) import from `../core`, types as `export type`. Nothing
 * else goes here: core modules, tests and scripts import the module that defines a symbol, so an
 * import says what it uses. The extension takes only types from here (eslint.config.mjs); its values
 * come from the defining module so the activation bundle stays small. No `vscode` under src/core.
 */
export type { DockerOptions } from './engine/contracts';
export { describeEngine, engineIdentity } from './engine/engine';
export type { EngineIdentity } from './engine/engine';
export { contextNameProblem, engineOptions, engineTarget, targetText } from './engine/engineTarget';
export type { EngineChoice } from './engine/engineTarget';
export { isSandboxError } from './errors';
export type { SandboxErrorCode } from './errors';
export type { ErrorSite } from './source/errorSite';
export type { InteractiveIo, TtySize } from './interactive';
export { closeProcessLease } from './ownership/ownerLease';
export { MiB, PROFILES_SETTING, SETTINGS_SECTION } from './layout';
export type { SettingKey } from './layout';
export { LIMIT_RANGES, rangeMessage } from './profiles/limits';
export { routeLoosening } from './admission/loosening';
export type { LooseningReport, RouteSettings } from './admission/loosening';
export { Utf8Decoder } from './output/output';
export type { OutputSink, ProgramStream } from './output/output';
export type { RunPaths } from './profiles/pathVariables';
export { ProfileSchema } from './profiles/profileSchema';
export type { Profile } from './profiles/profileSchema';
export { isPlainObject, resolveProfiles, toProfileIssues } from './profiles/profileResolution';
export type { ProfileIssue, ProfileLayer, ProfileQuery, ProfileSet, ProfileSource, ResolvedProfile } from './profiles/profileResolution';
export { checkProgramArgs, MAX_PROGRAM_ARGS, MAX_PROGRAM_ARGS_BYTES } from './admission/programArgs';
export { reapOrphans } from './sweep/reaper';
export { awaitRemovals } from './container/removals';
export type { RunOutcome, RunResult } from './run/result';
export { runInSandbox } from './run/runner';
export type { RunRequest } from './run/request';
export { snippetOrigin } from './source/snippetOrigin';
export { rewriteSourceRefs } from './source/sourceRefs';
export type { SnippetOrigin } from './source/sourceRefs';
export { TerminalTextFilter } from './output/terminalText';
export { WarmPool } from './run/warm';
