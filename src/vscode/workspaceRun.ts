/**
 * The document paths a run passes to the core (issue 12, "Files beside the snippet"): the
 * document's workspace folder (`workspace.getWorkspaceFolder(uri)`, so each folder of a multi-root
 * window is its own), its file's folder, and, for a whole saved file without unsaved edits, the
 * file itself (it then runs from the workspace mount; a selection, unsaved edits or an untitled
 * document run the editor's text from the snippet path). Plus the user's mask globs
 * (`sandboxRunner.maskedFiles`, application scope: read from user settings only, never a workspace).
 */
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { RunRequest } from '../core';
import { SECTION } from './settings';

/** What {@link workspaceRunFor} needs of a run's target (commands.ts `Target`). */
export interface WorkspaceRunTarget {
  /** The document's URI (`Uri.toString()`). */
  readonly documentUri: string;
  readonly untitled: boolean;
  /** Set for a selection. */
  readonly where?: unknown;
}

/** The run request fields for the target's paths and masks (core `RunRequest.paths`, `maskGlobs`). */
export type WorkspaceRunFields = Pick<RunRequest, 'paths' | 'maskGlobs'>;

/**
 * The paths of `target`'s document: none for an untitled or non-`file:` document; `file` only
 * when the whole document runs and it has no unsaved edits (so the file on disk is the code).
 */
export function workspaceRunFor(target: WorkspaceRunTarget): WorkspaceRunFields {
  const masks = maskGlobs();
  const uri = vscode.Uri.parse(target.documentUri);
  if (target.untitled || uri.scheme !== 'file') return masks ? { maskGlobs: masks } : {};
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const dirty = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.documentUri)?.isDirty ?? false;
  const wholeSavedFile = target.where === undefined && !dirty;
  return {
    paths: {
      ...(folder?.uri.scheme === 'file' ? { workspaceFolder: folder.uri.fsPath } : {}),
      fileDirname: dirname(uri.fsPath),
      ...(wholeSavedFile ? { file: uri.fsPath } : {}),
    },
    ...(masks ? { maskGlobs: masks } : {}),
  };
}

/** `sandboxRunner.maskedFiles` from user settings (a list of non-empty strings), else undefined (the core default). */
function maskGlobs(): readonly string[] | undefined {
  const value = vscode.workspace.getConfiguration(SECTION).inspect<unknown>('maskedFiles')?.globalValue;
  return Array.isArray(value) && value.every((g) => typeof g === 'string' && g.length > 0 && g.length <= 256) ? (value as string[]) : undefined;
}
