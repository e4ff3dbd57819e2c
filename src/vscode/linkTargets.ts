/**
 * The pure part of the editor's source links (issue 11): which spans of a line of program output
 * link where, which output-channel lines belong to which run, and the containment check a
 * mounted file must pass before it is opened. No `vscode` import, so unit tests load it as is;
 * the output channel's DocumentLinkProvider (sourceLinks.ts) and the pseudoterminal's
 * TerminalLinkProvider (terminalLinks.ts) share it.
 * Program output only chooses a line and column: the file is always the run's own document
 * (`documentUri`, set by the extension) or a file inside one of the run's local mount sources.
 */
import { realpath } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import stripAnsi from 'strip-ansi';
import { isPathInside } from '../core/profiles/profileSchema';
import { findSourceRefs } from '../core/source/sourceRefs';
import type { SnippetOrigin } from '../core';
import { STDERR_PREFIX } from './programOutput';

/** Where a link goes: the run's document, or a host file under a mount. Lines and columns 0-based. */
export interface LinkTarget {
  /** `snippet`: `documentUri`; `mount`: the host file `path`, opened only when {@link insideMount} holds. */
  readonly kind: 'snippet' | 'mount';
  /** The run's document URI (as `Uri.toString()`), for `snippet` targets. */
  readonly documentUri?: string;
  /** The host file, for `mount` targets. */
  readonly path?: string;
  readonly mountSource?: string;
  readonly line: number;
  readonly column?: number;
}

/** A link in one line of output: UTF-16 offsets `[start, end)` and its target. */
export interface LineLink {
  readonly start: number;
  readonly end: number;
  readonly target: LinkTarget;
}

/** Where a run's snippet came from, as the editor knows it: core's origin and the document's URI. */
export interface RunSource {
  readonly origin: SnippetOrigin;
  /** The source document's URI (`Uri.toString()`): a file, an untitled document, any scheme. */
  readonly documentUri: string;
}

/** The links of one line of output (core `findSourceRefs`), for a run from `source`. Never throws. */
export function lineLinks(text: string, source: RunSource): LineLink[] {
  return findSourceRefs(text, source.origin).map((r) => ({
    start: r.start,
    end: r.end,
    target: r.kind === 'snippet'
      ? { kind: 'snippet', documentUri: source.documentUri, line: r.line, ...(r.column === undefined ? {} : { column: r.column }) }
      : { kind: 'mount', path: r.path, mountSource: r.mountSource!, line: r.line, ...(r.column === undefined ? {} : { column: r.column }) },
  }));
}

/**
 * True when `path` exists and, through every symlink, stays inside `mountSource` (also resolved):
 * a program may create a symlink in a writable mount that leads anywhere on the host, and the
 * link must not open that. Never throws (false on any error).
 */
export async function insideMount(path: string, mountSource: string): Promise<boolean> {
  try {
    const [file, root] = await Promise.all([realpath(path), realpath(mountSource)]);
    return isPathInside(file, root);
  } catch {
    return false;
  }
}

/** The stderr lines of a run's channel text (lines marked {@link STDERR_PREFIX}), the marker removed. */
export function stderrLines(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(STDERR_PREFIX)).map((l) => l.slice(STDERR_PREFIX.length));
}

/**
 * The lines of a terminal's text (what an interactive run's pseudoterminal was sent): escape
 * sequences removed (strip-ansi), split at LF with CRs dropped (a TTY ends lines with CR LF). On a
 * TTY stdout and stderr are one stream, so every line counts.
 */
export function terminalTextLines(text: string): string[] {
  return stripAnsi(text).replace(/\r/g, '').split('\n');
}

/** One run's lines in the shared output channel. */
export interface RunLines {
  /** 0-based channel line of the run's header (`▶ …`), counted over everything written. */
  readonly headerLine: number;
  /** The header line's exact text: a run's lines are used only where it is found (fail closed). */
  readonly headerText: string;
  /**
   * The channel lines the run's own text was written to, as inclusive `[first, last]` 0-based
   * spans counted like `headerLine` (ProgramOutput `begin().lines`): runs in flight at the same
   * time interleave their lines, so a line is the run's only when the run wrote it.
   */
  readonly lines: () => readonly (readonly [number, number])[];
  readonly source: RunSource;
}

/** Most runs remembered for links; older runs' lines get none. */
export const MAX_RUNS = 50;

/** A run found in the channel's document, with the document lines (`[from, to)` ranges) it wrote. */
export interface LocatedRun {
  readonly run: RunLines;
  readonly ranges: readonly (readonly [number, number])[];
}

/**
 * Which lines of the shared output channel belong to which run. The channel's document may
 * start later than what was written (the user or `clearOutputBeforeRun` cleared it) or lag behind
 * the last append, so a run's lines are used only where its header line is found at the expected
 * place: at its line counted from the start, or from the extension's last clear, or counted back
 * from the end of what was written.
 */
export class RunLineIndex {
  private readonly runs: RunLines[] = [];

  /** Remembers a run (the oldest is forgotten past {@link MAX_RUNS}). */
  add(run: RunLines): void {
    this.runs.push(run);
    if (this.runs.length > MAX_RUNS) this.runs.shift();
  }

  /** True when no run is remembered (the link provider returns at once). */
  get empty(): boolean {
    return this.runs.length === 0;
  }

  /**
   * The runs found in a document, each with the document lines it wrote (its header excluded).
   * @param doc the channel's document: line count and a line's text
   * @param written lines written to the channel so far (line feeds counted)
   * @param cleared lines written when the extension last cleared the channel (0: never)
   */
  locate(doc: { lineCount: number; lineAt(i: number): string }, written: number, cleared = 0): LocatedRun[] {
    const found = (off: number, r: RunLines) => {
      const at = r.headerLine - off;
      return at >= 0 && at < doc.lineCount && doc.lineAt(at) === r.headerText;
    };
    const offsets = [0, cleared, written - (doc.lineCount - 1)];
    const out: LocatedRun[] = [];
    for (const r of this.runs) {
      const off = offsets.find((o) => found(o, r));
      if (off === undefined) continue;
      const ranges: (readonly [number, number])[] = [];
      for (const [first, last] of r.lines()) {
        const from = Math.max(first, r.headerLine + 1) - off;
        const to = Math.min(last - off + 1, doc.lineCount);
        if (from < to) ranges.push([from, to]);
      }
      out.push({ run: r, ranges });
    }
    return out;
  }
}

/** A terminal link's span in a terminal line (VS Code `TerminalLink`: start index and length) and its target. */
export interface TerminalLinkSpan {
  readonly startIndex: number;
  readonly length: number;
  readonly tooltip: string;
  readonly target: LinkTarget;
}

/**
 * The links of one terminal line (`TerminalLinkContext.line`: the rendered text, escape sequences
 * already interpreted) for a run from `source`, as a `TerminalLinkProvider` returns them.
 * Pure; never throws.
 */
export function terminalLinkSpans(line: string, source: RunSource): TerminalLinkSpan[] {
  return lineLinks(line, source).map((l) => ({
    startIndex: l.start,
    length: l.end - l.start,
    tooltip: l.target.kind === 'snippet' ? l10n.t('Open line {0} of the run\'s source', l.target.line + 1) : l10n.t('Open line {0} of the mounted file', l.target.line + 1),
    target: l.target,
  }));
}
