/**
 * Markdown code-block lenses (issue 12), the part loaded at activation: a CodeLensProvider for
 * Markdown documents that forwards to the Markdown bundle (lazy.ts `markdown()`) on the first
 * request, so activation registers it without loading the fence scanner. The lenses follow
 * `sandboxRunner.markdownCodeLens` (read for the document's own folder) and the profiles'
 * `languages` (the settings cache), and refresh when either changes.
 */
import * as vscode from 'vscode';
import type { SettingKey } from '../core/layout';
import { markdown } from './lazy';
import { SECTION, type SettingsCache } from './settings';

/** The setting that turns the lenses off: `sandboxRunner.markdownCodeLens` (boolean, default true, resource scope). */
export const MARKDOWN_LENS_SETTING = 'markdownCodeLens' satisfies SettingKey;

/**
 * Markdown files and untitled Markdown documents: not the `git:` (or other) copies a diff editor
 * shows, whose blocks are an old version of the text.
 */
const MARKDOWN_DOCUMENTS: vscode.DocumentSelector = [
  { language: 'markdown', scheme: 'file' },
  { language: 'markdown', scheme: 'untitled' },
];

/** True when `doc`'s folder (or the window) has the lenses on. */
function lensesOn(doc: vscode.TextDocument): boolean {
  return vscode.workspace.getConfiguration(SECTION, doc.uri).get<boolean>(MARKDOWN_LENS_SETTING, true) !== false;
}

/** Registers the provider for Markdown files and untitled documents; disposables go into `context.subscriptions`. */
export function registerMarkdownLenses(context: vscode.ExtensionContext, settings: SettingsCache): void {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    provideCodeLenses: (doc) => (lensesOn(doc) ? markdown().codeBlockLenses(doc, settings.get()) : []),
  };
  context.subscriptions.push(
    changed,
    vscode.languages.registerCodeLensProvider(MARKDOWN_DOCUMENTS, provider),
    settings.onDidChange(() => changed.fire()),
  );
}
