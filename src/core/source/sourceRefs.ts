/**
 * Errors that lead back to the source (issue 11): where a run's code came from (a
 * {@link SnippetOrigin}) and a matcher that finds, in one line of the program's output, every
 * reference to the in-container snippet file (or a file under a local bind mount) with a line
 * number, and maps it to a position in the source document or the host file.
 * Program output is untrusted: it only decides WHICH LINE (and column) of the run's own source,
 * or of a file inside one of the run's local mount sources, a reference points at. The file a
 * reference maps to is always the origin's `source` or a host path built from a mount's `source`
 * plus a relative path that has no `.`, `..` or empty segment; never a path the text names
 * outside those. Pure; no `vscode` import.
 */

/** A local bind mount of the run: the container path and the host directory it shows. */
export interface OriginMount {
  /** Absolute container path (a profile mount's `target`), e.g. `/data`. */
  readonly target: string;
  /** Absolute host directory (the profile mount's `source`, as checked by mounts.ts). */
  readonly source: string;
}

/**
 * Where a run's snippet came from, so positions in its output map back to the source.
 * Lines and columns are 0-based and count UTF-16 code units, as VS Code's `Position` does.
 */
export interface SnippetOrigin {
  /** The host file's absolute path, or an untitled document's name/URI text (never opened as a path by core). */
  readonly source: string;
  /** True when `source` names an untitled (never saved) document. */
  readonly untitled?: boolean;
  /** 0-based document line of the snippet's first line (0 for a whole-file run). */
  readonly line: number;
  /** 0-based document column where the snippet's first line starts (a selection that starts mid-line). */
  readonly column: number;
  /** Characters removed from the start of each non-blank line by `dedent` (dedent.ts); 0 for none. */
  readonly dedent: number;
  /** The in-container snippet path, e.g. `/sandbox/main.py` (argv.ts `snippetPath`). */
  readonly snippetPath: string;
  /**
   * The run's bind mounts, only when they are local (the engine mounted exactly the host path:
   * a local engine; see mounts.ts `resolveMounts`). Omit for a remote engine: its paths are not ours.
   */
  readonly mounts?: readonly OriginMount[];
}

/** One reference found in a line of output. */
export interface SourceRef {
  /** UTF-16 offsets in the output line: the path through the line (and column) number. */
  readonly start: number;
  readonly end: number;
  /** `snippet`: the run's own source (`path` = origin.source); `mount`: a host file under a local mount. */
  readonly kind: 'snippet' | 'mount';
  /** origin.source, or the host path under a mount's source. */
  readonly path: string;
  /** 0-based line in `path`. */
  readonly line: number;
  /** 0-based column in `path`, when the output gave one. */
  readonly column?: number;
  /** The mount's host directory, for `mount` references (the caller checks the file stays inside it). */
  readonly mountSource?: string;
}

/** Characters that end a path in output text: quotes, brackets, whitespace, `:` and `,`. */
const PATH_END = /["'()<>[\]{}\s:,;]/;

/**
 * What follows a path, as each runtime prints it (measured on the test images and Node 20):
 * - Python: `File "/sandbox/main.py", line 3, in <module>` → `", line 3`
 * - Node / V8: `/sandbox/main.js:3:7`, `at f (/sandbox/main.js:3:7)`, `file:///sandbox/main.mjs:3:7`,
 *   and the first line of an uncaught error, `/sandbox/main.js:3` → `:3:7` or `:3`
 * - bash and busybox sh: `/sandbox/main.sh: line 3: foo: not found` → `: line 3:`
 * - dash (Debian's sh): `/sandbox/main.sh: 3: foo: not found` → `: 3: `
 * - gcc/g++ `/sandbox/main.c:3:5: error:`, go `/sandbox/main.go:3:5:` and its panics'
 *   `/sandbox/main.go:5 +0x1d`, rustc `--> /sandbox/main.rs:3:5`, javac `/sandbox/Main.java:3:`,
 *   ruby `/sandbox/main.rb:3:in`, PHP's uncaught exceptions `in /sandbox/main.php:3` → `:3:5` or `:3`
 * - perl: `died at /sandbox/main.pl line 3.` → ` line 3`
 * - PHP errors: `in /sandbox/main.php on line 3` → ` on line 3`
 * - JVM stack frames name the file without its path: {@link javaFrameRef}
 */
const AFTER_PATH: readonly RegExp[] = [
  /^", line (\d{1,9})/,
  /^: line (\d{1,9}):/,
  /^: (\d{1,9}): /,
  /^ on line (\d{1,9})(?![\d])/,
  /^ line (\d{1,9})(?![\d])/,
  /^:(\d{1,9})(?::(\d{1,9}))?(?![\d])/,
];

/** One candidate path start: where the path text begins and the container path it is. */
interface Candidate {
  readonly at: number;
  readonly path: string;
  readonly urlPrefix: number;
}

/**
 * Every reference in `text` (one line of output, without its line end) to the origin's snippet
 * path or to a file under one of its local mounts, with a line number, mapped to the source.
 * A path must start the text or follow a character that cannot be part of a path (space, quote,
 * bracket, `=`), optionally as a `file://` URL (not percent-decoded: a `%` refuses the URL form).
 * Line 0 or a line before the snippet's first line is not a reference.
 * @returns the references in text order (empty when none); never throws
 */
export function findSourceRefs(text: string, origin: SnippetOrigin): SourceRef[] {
  const frame = javaFrameRef(text, origin);
  if (frame) return [frame];
  const refs: SourceRef[] = [];
  for (const c of candidates(text, origin)) {
    const rest = text.slice(c.at + c.path.length);
    for (const after of AFTER_PATH) {
      const m = after.exec(rest);
      if (!m) continue;
      const line = Number(m[1]);
      const column = m[2] === undefined ? undefined : Number(m[2]);
      const mapped = mapPosition(c.path, line, column, origin);
      if (mapped) refs.push({ start: c.at - c.urlPrefix, end: c.at + c.path.length + m[0].length, ...mapped });
      break;
    }
  }
  return refs;
}

/**
 * A JVM stack frame of a class in the unnamed module (the source launcher's program): `\tat
 * Main.f(main.java:5)`. The JVM prints the class file's SourceFile attribute, the snippet's base
 * name, not its path; a frame of a named module (`at java.base/…(Thread.java:9)`, the launcher's
 * own `jdk.compiler/…(Main.java:419)`) has a `/` before the parenthesis and is never the snippet.
 * Issue 23; form measured with OpenJDK 17 and 21 (`java main.java`).
 * @returns the frame's reference (its `main.java:5` text), or undefined when the line is no such frame
 */
function javaFrameRef(text: string, origin: SnippetOrigin): SourceRef | undefined {
  const m = /^(\s*at [^\s/()]+\()([^\s/():]+):(\d{1,9})\)\s*$/.exec(text);
  const base = origin.snippetPath.slice(origin.snippetPath.lastIndexOf('/') + 1);
  if (!m || m[2] !== base) return undefined;
  const mapped = mapPosition(origin.snippetPath, Number(m[3]), undefined, origin);
  if (!mapped) return undefined;
  const start = m[1]!.length;
  return { start, end: start + base.length + 1 + m[3]!.length, ...mapped };
}

/** Where container paths of interest start in `text` (the snippet path, or a path under a mount target). */
function candidates(text: string, origin: SnippetOrigin): Candidate[] {
  const roots = [origin.snippetPath, ...(origin.mounts ?? []).map((m) => m.target.replace(/\/+$/, '') + '/')];
  const out: Candidate[] = [];
  // Where the path through the last slash looked at ends: every slash before it ends there too
  // (no path-ending character in between), so each character is scanned once (a line of
  // `=/=/=/…` took 2 s per 40 KB, quadratic, when each slash searched to the end anew).
  let pathEnd = -1;
  for (let at = text.indexOf('/'); at >= 0; at = text.indexOf('/', at + 1)) {
    const before = at === 0 ? '' : text[at - 1]!;
    const urlPrefix = text.slice(Math.max(0, at - 7), at) === 'file://' ? 7 : 0;
    const start = at - urlPrefix;
    const lead = start === 0 ? '' : text[start - 1]!;
    if (urlPrefix === 0 && before !== '' && !/["'(\s=[<]/.test(before)) continue;
    if (urlPrefix > 0 && lead !== '' && !/["'(\s=[<]/.test(lead)) continue;
    if (at >= pathEnd) {
      const endRel = text.slice(at).search(PATH_END);
      pathEnd = endRel < 0 ? text.length : at + endRel;
    }
    const path = text.slice(at, pathEnd);
    if (urlPrefix > 0 && path.includes('%')) continue;
    if (roots.some((r) => path === r || (r.endsWith('/') && path.startsWith(r)))) {
      out.push({ at, path, urlPrefix });
      at += path.length - 1;
    }
  }
  return out;
}

/**
 * A container position (1-based `line`, 1-based `column` as V8 prints it) in `path` mapped to
 * the source: for the snippet, the origin's first line and column, plus the dedent width for
 * columns (a blank line had nothing removed, so a column on one may sit `dedent` too far right;
 * runtimes give no column on blank lines). For a mount file, the host path, same line and column.
 * @returns undefined for line 0, or a mount path with a `.`, `..` or empty segment (under a
 *   Windows mount source also one with a `\\` or a trailing dot or space)
 */
export function mapPosition(
  path: string, line: number, column: number | undefined, origin: SnippetOrigin,
): Omit<SourceRef, 'start' | 'end'> | undefined {
  if (!Number.isSafeInteger(line) || line < 1) return undefined;
  const col0 = column === undefined || column < 1 ? undefined : column - 1;
  if (path === origin.snippetPath) {
    const first = line === 1 ? origin.column : 0;
    return {
      kind: 'snippet', path: origin.source, line: origin.line + line - 1,
      ...(col0 === undefined ? {} : { column: first + origin.dedent + col0 }),
    };
  }
  for (const m of origin.mounts ?? []) {
    const root = m.target.replace(/\/+$/, '') + '/';
    if (!path.startsWith(root)) continue;
    const segments = path.slice(root.length).split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..')) return undefined;
    // A Windows mount source (`C:\…`, `\\srv\share\…`): Windows also splits at `\` and drops a
    // name's trailing dots and spaces, so `a\..\..\x` or `..` + `.` would leave the mount there.
    const windows = /^(?:[A-Za-z]:[\\/]|[\\/]{2})/.test(m.source);
    if (windows && segments.some((s) => /[\\]|[. ]$/.test(s))) return undefined;
    const sep = windows ? '\\' : '/';
    const host = m.source.replace(/[\\/]+$/, '') + sep + segments.join(sep);
    return { kind: 'mount', path: host, line: line - 1, mountSource: m.source, ...(col0 === undefined ? {} : { column: col0 }) };
  }
  return undefined;
}

/**
 * `text` with each reference replaced by the host file's path and its real 1-based line (and
 * column), e.g. `/sandbox/main.py", line 3` → `/home/ada/x.py", line 12`, keeping what the
 * runtime printed around them (for the CLI's terminal output). An untitled origin is left as is.
 * @param text one line of output (already filtered for a terminal)
 */
export function rewriteSourceRefs(text: string, origin: SnippetOrigin): string {
  const refs = findSourceRefs(text, origin).filter((r) => !(r.kind === 'snippet' && origin.untitled));
  if (refs.length === 0) return text;
  let out = '';
  let from = 0;
  for (const r of refs) {
    const original = text.slice(r.start, r.end);
    const m = /^(?:file:\/\/)?[^]*?(", line |: line | on line | line |: |:)(\d+)(?::(\d+))?(:? ?)$/.exec(original);
    if (!m) continue;
    const col = m[3] === undefined || r.column === undefined ? '' : `:${r.column + 1}`;
    out += text.slice(from, r.start) + r.path + m[1] + String(r.line + 1) + col + m[4];
    from = r.end;
  }
  return out + text.slice(from);
}
