/**
 * Reads profiles from VS Code settings as separate layers (user, then workspace), so the core
 * merges and validates them. In an untrusted workspace the workspace layer is ignored: a cloned
 * repository's `.vscode/settings.json` must not choose what runs or loosen anything.
 */
import * as vscode from 'vscode';
import { resolveProfiles, type ProfileLayer, type ProfileSet } from '../core';

/** The extension's settings section. */
export const SECTION = 'sandboxRunner';

/** The merged, validated profiles for the current window. */
export function currentProfiles(): ProfileSet {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<unknown>('profiles');
  const layers: ProfileLayer[] = [{ source: 'user', value: inspected?.globalValue }];
  if (vscode.workspace.isTrusted) {
    layers.push({ source: 'workspace', value: inspected?.workspaceValue });
    layers.push({ source: 'workspace', value: inspected?.workspaceFolderValue });
  }
  return resolveProfiles(layers);
}

/** The docker CLI path from user (machine) settings only; workspace values are ignored. */
export function dockerPath(): string | undefined {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<string>('dockerPath');
  return inspected?.globalValue || undefined;
}
