/**
 * `sandboxRunner.notebooks.richOutput` (issue 34): the user's opt-in to HTML, SVG and Markdown
 * outputs of sandbox notebook kernels (core notebookOutputPolicy.ts says why they are off by
 * default). Read from user settings only (`inspect(...).globalValue`): a workspace, or a notebook
 * it ships, never turns it on. Notebook bundle only.
 */
import * as vscode from 'vscode';
import { SECTION } from './settings';

/** The setting's key below `sandboxRunner` (core settingsSchema.ts). */
export const RICH_OUTPUT_KEY = 'notebooks.richOutput';

/** True when the user's own settings turn rich notebook outputs on. */
export function richOutputOn(): boolean {
  return vscode.workspace.getConfiguration(SECTION).inspect<boolean>(RICH_OUTPUT_KEY)?.globalValue === true;
}
