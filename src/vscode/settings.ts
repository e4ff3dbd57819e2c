/**
 * Reads Sandbox Runner settings from VS Code as separate layers (user, then workspace), so the
 * core merges and validates them. In an untrusted workspace the workspace layer is ignored: a
 * cloned repository's `.vscode/settings.json` must not choose what runs. The engine settings
 * (`dockerPath`, which names an executable, `dockerContext` and `dockerHost`, which choose where
 * code goes), `warmStart` and `warmIdleSeconds` are read from user settings only.
 */
import * as vscode from 'vscode';
import type { DockerOptions, LooseningReport, ProfileIssue, ProfileLayer, ProfileQuery, ProfileSet, RouteSettings } from '../core';
import { limitsSchema } from '../core/profiles/limits';
import { parseDependencySettings } from '../core/profiles/dependencySettings';
import { profileLoosenings, routeLoosening } from '../core/admission/loosening';
import { resolveProfiles } from '../core/profiles/profileResolution';
import { engineSettingsFrom, engineSettingsOptions, type EngineSettings } from './engineChoice';

/** The extension's settings section. */
export const SECTION = 'sandboxRunner';

/** Global limit defaults that may be set in settings (key → the limit it defaults). */
const GLOBAL_LIMITS = ['timeoutSeconds', 'outputBytes'] as const;

/** Profiles plus problems with the global settings. */
export interface SettingsSnapshot extends ProfileSet {
  /** `sandboxRunner.defaultProfile`, used when no profile matches a document. */
  readonly defaultProfile: string | undefined;
  /** False in Restricted Mode: workspace profiles were ignored. */
  readonly trusted: boolean;
  /** The same settings by layer, for the run-start decision's consent check (core runStart.ts `decideRunStart`). */
  readonly route: RouteSettings;
  /**
   * What workspace settings loosen in the profile `name` (needs consent before it runs; core
   * `profileLoosenings`), undefined when nothing: computed for the profile asked about only, at the
   * first question about it (mount sources resolved through symlinks then), and kept with the snapshot.
   */
  looseningOf(name: string): LooseningReport | undefined;
  /**
   * What a run of `query` needs consent for because of workspace settings (core `routeLoosening`):
   * a loosened profile, or a document the workspace re-routed (languages, extensions,
   * `defaultProfile`) into a looser profile than it would use without the workspace. Undefined
   * when nothing. Reads the file system (mount sources through symlinks) at each call.
   */
  looseningFor(query: ProfileQuery): LooseningReport | undefined;
}

/**
 * Where settings are read for: a document's URI reads its own workspace folder's values (multi-root:
 * `getConfiguration(section, uri)`); undefined reads the window's (no folder values in multi-root).
 */
export type SettingsScope = vscode.Uri | undefined;

/** The user value, plus workspace values (the workspace's, then `scope`'s folder's) when the workspace is trusted, of one setting. */
function layered<T>(key: string, scope?: SettingsScope): { user: T | undefined; workspace: Array<T | undefined> } {
  const inspected = vscode.workspace.getConfiguration(SECTION, scope).inspect<T>(key);
  const trusted = vscode.workspace.isTrusted;
  return {
    user: inspected?.globalValue,
    workspace: trusted ? [inspected?.workspaceValue, inspected?.workspaceFolderValue] : [],
  };
}

/** The effective value of a plain setting for `scope`: workspace folder over workspace (if trusted) over user. */
function effective<T>(key: string, scope?: SettingsScope): T | undefined {
  const v = layered<T>(key, scope);
  return [...v.workspace].reverse().find((x) => x !== undefined) ?? v.user;
}

/** Validated global limit defaults from the given values, reporting bad ones. */
function limitDefaults(read: (key: string) => unknown, issues?: ProfileIssue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of GLOBAL_LIMITS) {
    const value = read(key);
    if (value === undefined) continue;
    const parsed = limitsSchema().shape[key].safeParse(value);
    if (parsed.success) out[key] = parsed.data;
    else issues?.push({ key: `${SECTION}.${key}`, message: parsed.error.issues[0]?.message ?? 'is invalid' });
  }
  return out;
}

/**
 * The merged, validated profiles and related settings for `scope` (a document's URI: its own
 * workspace folder's settings; undefined: the window's). Workspace trust is per window.
 */
export function currentSettings(scope?: SettingsScope): SettingsSnapshot {
  const profiles = layered<unknown>('profiles', scope);
  const layers: ProfileLayer[] = [
    { source: 'user', value: profiles.user },
    ...profiles.workspace.map((value) => ({ source: 'workspace' as const, value })),
  ];
  const issues: ProfileIssue[] = [];
  const effectiveDefaults = limitDefaults((k) => effective<unknown>(k, scope), issues);
  const userDefaults = limitDefaults((k) => layered<unknown>(k, scope).user);
  const set = resolveProfiles(layers, undefined, { limitDefaults: effectiveDefaults });
  const defaultProfile = effective<string>('defaultProfile', scope) || undefined;
  const route: RouteSettings = {
    layers,
    effectiveOptions: { limitDefaults: effectiveDefaults },
    baselineOptions: { limitDefaults: userDefaults },
    defaultProfile,
    baselineDefaultProfile: layered<string>('defaultProfile', scope).user || undefined,
  };
  return {
    ...set,
    issues: [...issues, ...set.issues],
    defaultProfile,
    trusted: vscode.workspace.isTrusted,
    route,
    looseningOf: profileLoosenings(layers, route.effectiveOptions, route.baselineOptions),
    looseningFor: (query) => routeLoosening(route, query),
  };
}

/**
 * Which profiles use warm start (`sandboxRunner.warmStart`), and the idle expiry in ms. Both are
 * user settings only (application-scoped): a workspace may not choose to keep containers of its
 * profiles started, nor for how long.
 */
export function warmStartSettings(): { mode: 'built-in' | 'all' | 'off'; idleMs: number } {
  const config = vscode.workspace.getConfiguration(SECTION);
  const mode = config.inspect<string>('warmStart')?.globalValue;
  const idle = config.inspect<number>('warmIdleSeconds')?.globalValue;
  return {
    mode: mode === 'all' || mode === 'off' ? mode : 'built-in',
    idleMs: (typeof idle === 'number' && idle >= 10 && idle <= 86400 ? idle : 300) * 1000,
  };
}

/** `sandboxRunner.preferRuntime` from user (machine) settings only (workspace values are never read); "" for none. */
export function preferRuntime(): string {
  const value = vscode.workspace.getConfiguration(SECTION).inspect<string>('preferRuntime')?.globalValue;
  return typeof value === 'string' ? value : '';
}

/** The docker CLI path from user (machine) settings only; workspace values are never read. */
export function dockerPath(): string {
  return engineSettings().choice.dockerPath || 'docker';
}

/**
 * The engine settings (`dockerPath`, `dockerContext`, `dockerHost`) from user (machine) settings
 * only, with the workspace values that were ignored and other problems (see ./engineChoice.ts).
 */
export function engineSettings(): EngineSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return engineSettingsFrom((key) => config.inspect(key));
}

/** The docker options every engine call of the extension uses: the engine chosen in user settings. */
export function dockerOptions(): DockerOptions {
  return engineSettingsOptions(engineSettings());
}

/**
 * The last settings snapshot for readers that run often (the profile tree, menu context keys,
 * warm-start preparation on every editor switch): recomputed only after `sandboxRunner` settings
 * or workspace trust change. A run itself reads fresh settings (`currentSettings`), since consent
 * must match what resolves on disk at that moment.
 */
export class SettingsCache implements vscode.Disposable {
  private snapshot: SettingsSnapshot | undefined;
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires after the settings (or trust) changed; `get()` then returns a new snapshot. */
  readonly onDidChange = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SECTION) && this.invalidate()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.invalidate()),
    ];
  }

  get(): SettingsSnapshot {
    return (this.snapshot ??= currentSettings());
  }

  private invalidate(): void {
    this.snapshot = undefined;
    this.emitter.fire();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.emitter.dispose();
  }
}

/**
 * `sandboxRunner.interactive` (issue 11): true when it is `always`, i.e. the Run commands give the
 * program a terminal for input (as "Run in Sandbox (Interactive)" does). Read like
 * `defaultProfile`: the workspace value when the workspace is trusted, else the user value. A
 * workspace may set it: it only changes where input and output go, not what the sandbox allows.
 */
export function interactiveSetting(scope?: SettingsScope): boolean {
  return effective<string>('interactive', scope) === 'always';
}

/** How the output channel behaves at a run (issue 12): read like `interactive`, for the run's document. */
export interface OutputSettings {
  /** `sandboxRunner.clearOutputBeforeRun`: clear the channel before the run's header. */
  readonly clear: boolean;
  /** `sandboxRunner.revealOutput`: when the channel is brought forward (never taking the keyboard focus). */
  readonly reveal: 'always' | 'onError' | 'never';
}

/** `sandboxRunner.clearOutputBeforeRun` and `sandboxRunner.revealOutput` for `scope` (unknown values: the defaults). */
export function outputSettings(scope?: SettingsScope): OutputSettings {
  const reveal = effective<string>('revealOutput', scope);
  return {
    clear: effective<unknown>('clearOutputBeforeRun', scope) === true,
    reveal: reveal === 'onError' || reveal === 'never' ? reveal : 'always',
  };
}

/**
 * The install settings of dependencies (issue 22, `sandboxRunner.dependencies.*`) from user
 * (machine) settings only: a workspace value is never read. A bad value is reported naming its
 * key (core dependencySettings.ts `parseDependencySettings`); the caller refuses the run that
 * needs an install.
 */
export function installSettings(): ReturnType<typeof parseDependencySettings> {
  const config = vscode.workspace.getConfiguration(SECTION);
  return parseDependencySettings((key) => config.inspect(`dependencies.${key}`)?.globalValue, (key) => `${SECTION}.dependencies.${key}`);
}
