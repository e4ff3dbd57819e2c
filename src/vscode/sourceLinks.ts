/**
 * Errors that lead back to the source (issue 11), in the editor: links in the "Sandbox Runner"
 * output channel from each in-container snippet path with a line to the run's own document, at
 * the right line and column (a `DocumentLinkProvider` for the output channel's documents, scheme
 * `output`), and one diagnostic per failed run at the innermost frame of its traceback in the
 * snippet. Link targets are the run's document URI, or a `file:` URI of a host file inside one of
 * the run's local mounts (checked through symlinks before it opens); never a `command:` URI, never
 * a path the program text names outside those. Diagnostic messages are plain text.
 */
import * as vscode from 'vscode';
import type { ErrorSite } from '../core';
import { insideMount, lineLinks, RunLineIndex, stderrLines, terminalTextLines, type LinkTarget, type RunLines, type RunSource } from './linkTargets';
import { linkTerminal } from './terminalLinks';

/** The `source` of the extension's diagnostics. */
export const DIAGNOSTIC_SOURCE = 'Sandbox Runner';

/** Most output lines scanned for links in one call (the channel can hold many runs). */
const MAX_SCANNED_LINES = 20_000;

/** A link from the output channel, resolved to its target when clicked (resolveDocumentLink). */
class SourceLink extends vscode.DocumentLink {
  constructor(range: vscode.Range, readonly destination: LinkTarget) {
    super(range);
  }
}

/**
 * `target` as a URI VS Code opens at its line and column: the document (or file) URI with a
 * `#L<line>,<column>` fragment (1-based; the workbench opener's `extractSelection` reads it).
 */
export function targetUri(target: LinkTarget): vscode.Uri {
  const base = target.kind === 'snippet' ? vscode.Uri.parse(target.documentUri!, true) : vscode.Uri.file(target.path!);
  return base.with({ fragment: `L${target.line + 1}${target.column === undefined ? '' : `,${target.column + 1}`}` });
}

/** The output channel's run lines and their links; the failed runs' diagnostics. */
export class SourceLinks implements vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly index = new RunLineIndex();
  private problems: vscode.DiagnosticCollection | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  /**
   * @param lineCount lines written to the output channel so far (ProgramOutput `lineCount`)
   * @param clearedAt lines written when the extension last cleared the channel (ProgramOutput `clearedAt`)
   */
  constructor(
    private readonly lineCount: () => number,
    private readonly clearedAt: () => number = () => 0,
  ) {}

  /** Remembers that the run whose header is at `frame.headerLine` (and whose lines are `frame.lines()`) came from `source`. */
  track(frame: Pick<RunLines, 'headerLine' | 'headerText' | 'lines'>, source: RunSource): void {
    this.index.add({ headerLine: frame.headerLine, headerText: frame.headerText, lines: frame.lines, source });
  }

  /** Links an interactive run's terminal to `source` (terminalLinks.ts); the provider goes with this object. */
  linkTerminal(terminal: vscode.Terminal, source: RunSource): void {
    linkTerminal(terminal, source, this.subscriptions);
  }

  /** The lines of an interactive run's terminal text (InteractiveTerminal `text()`), for core `findErrorSite`. */
  terminalLines(text: string): string[] {
    return terminalTextLines(text);
  }

  provideDocumentLinks(doc: vscode.TextDocument, token: vscode.CancellationToken): SourceLink[] {
    if (doc.uri.scheme !== 'output' || this.index.empty) return [];
    const links: SourceLink[] = [];
    let budget = MAX_SCANNED_LINES;
    const runs = this.index.locate({ lineCount: doc.lineCount, lineAt: (i) => doc.lineAt(i).text }, this.lineCount(), this.clearedAt());
    for (const { run, ranges } of runs.reverse()) {
      for (const [from, to] of ranges) {
        for (let i = from; i < to && budget-- > 0 && !token.isCancellationRequested; i++) links.push(...this.lineLinks(doc, i, run.source));
      }
    }
    return links;
  }

  private lineLinks(doc: vscode.TextDocument, i: number, source: RunSource): SourceLink[] {
    return lineLinks(doc.lineAt(i).text, source).map((l) => {
      const link = new SourceLink(new vscode.Range(i, l.start, i, l.end), l.target);
      if (l.target.kind === 'snippet') link.target = targetUri(l.target);
      link.tooltip = vscode.l10n.t('Open the source line');
      return link;
    });
  }

  /** A mounted file's link gets its target only when the file stays inside the mount's source. */
  async resolveDocumentLink(link: vscode.DocumentLink): Promise<vscode.DocumentLink | undefined> {
    if (!(link instanceof SourceLink)) return link;
    const t = link.destination;
    if (t.kind === 'snippet') return link;
    if (!(await insideMount(t.path!, t.mountSource!))) return undefined;
    link.target = targetUri(t);
    return link;
  }

  /** Clears the run document's diagnostic (a new run of it starts). */
  clear(documentUri: string): void {
    this.problems?.delete(vscode.Uri.parse(documentUri, true));
  }

  /**
   * The stderr lines of a run's channel text (ProgramOutput `begin().text`), marker removed, for
   * core `findErrorSite`: tracebacks go to stderr, and stdout lines arrive interleaved with them
   * in any order (Python flushes a buffered stdout after printing the traceback).
   */
  runLines(text: string): string[] {
    return stderrLines(text);
  }

  /**
   * After a failed run: one diagnostic at `site` (core `findErrorSite`: the innermost snippet
   * frame of its traceback), message = the exception line (plain text), source
   * {@link DIAGNOSTIC_SOURCE}; skipped when the document changed since the run read it (`version`).
   */
  report(source: RunSource, site: ErrorSite, version: number | undefined): void {
    const uri = vscode.Uri.parse(source.documentUri, true);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === source.documentUri);
    if (version !== undefined && doc && doc.version !== version) return;
    const line = site.ref.line;
    const lineText = doc && line < doc.lineCount ? doc.lineAt(line) : undefined;
    const start = site.ref.column ?? lineText?.firstNonWhitespaceCharacterIndex ?? 0;
    const range = new vscode.Range(line, start, line, lineText ? lineText.range.end.character : start + 1);
    const diagnostic = new vscode.Diagnostic(range, site.message, vscode.DiagnosticSeverity.Error);
    diagnostic.source = DIAGNOSTIC_SOURCE;
    this.collection().set(uri, [diagnostic]);
  }

  private collection(): vscode.DiagnosticCollection {
    if (!this.problems) {
      this.problems = vscode.languages.createDiagnosticCollection('sandbox-runner');
      // Cleared when the document changes: its lines may have moved.
      this.subscriptions.push(this.problems, vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) this.problems?.delete(e.document.uri);
      }));
    }
    return this.problems;
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
