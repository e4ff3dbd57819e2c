/**
 * The site of a failed run's error (issue 11, "Problems"): the innermost frame of a Python
 * traceback or a Node (V8) error that lies in the snippet, and the exception line that goes with
 * it, for one diagnostic in the source document. Pure; no `vscode` import. The output is
 * untrusted: it only decides which line of the run's own source is marked and the message text
 * (shown as plain text by the caller).
 */
import { findSourceRefs, type SnippetOrigin, type SourceRef } from './sourceRefs';

/** Where a run's error happened in its own source, and what it said. */
export interface ErrorSite {
  /** A `snippet` reference: 0-based line (and column, when the runtime gave one) in the origin's source. */
  readonly ref: SourceRef;
  /** The exception line as printed, trimmed, at most {@link MAX_MESSAGE_CHARS} characters. */
  readonly message: string;
}

/** Longest diagnostic message kept, in characters. */
export const MAX_MESSAGE_CHARS = 500;

const PY_HEADER = /^Traceback \(most recent call last\):\s*$/;
const PY_FRAME = /^\s*File "/;
/** Python's chained-exception separators, which are not the exception line. */
const PY_CHAIN = /^(During handling of the above exception|The above exception was the direct cause)/;
/** A V8 exception line: `Error: boom`, `TypeError: x is not a function`, `Uncaught ReferenceError …`. */
const NODE_EXCEPTION = /^(?:Uncaught )?(?:[A-Za-z_$][\w$.]*)?(?:Error|Exception)\b/;
const NODE_FRAME = /^\s+at /;

/**
 * The error site of a run from its output lines (stderr, or both streams interleaved; line ends
 * removed): the last Python traceback's innermost snippet frame and exception line, else the
 * first Node error's innermost snippet frame (`at … (/sandbox/main.js:3:7)`, else the
 * `/sandbox/main.js:3` line V8 prints above the source excerpt) and its exception line (a JVM's
 * `Exception in thread "main" …` over `\tat Main.f(main.java:3)` reads the same), else the
 * first compiler error ({@link compilerSite}), else the first line that names a snippet line
 * ({@link firstSite}: ruby, perl, PHP, bash, Go panics).
 * Python's rule (traceback.py): frames are printed outermost first, the exception line is the
 * first unindented line after them; a SyntaxError prints a frame with no `Traceback` header.
 * @returns undefined when no frame in the snippet is followed by an exception line
 */
export function findErrorSite(lines: readonly string[], origin: SnippetOrigin): ErrorSite | undefined {
  return pythonSite(lines, origin) ?? nodeSite(lines, origin) ?? compilerSite(lines, origin) ?? firstSite(lines, origin);
}

/** A compiler's diagnostic that is not an error: gcc/clang `warning:`/`note:`, rustc `warning`. */
const NOT_AN_ERROR = /^\s*(?:warning|note|remark)\b/i;
/** rustc's location line under its message: `  --> /sandbox/main.rs:3:5`. */
const RUST_LOCATION = /^\s*--> /;

/**
 * Issue 23: the first compiler error in the snippet. A line that starts with a snippet reference
 * followed by `:` and a message (gcc/g++ `main.c:3:5: error: …`, go `main.go:3:5: undefined: x`,
 * javac `Main.java:3: error: …`; warnings and notes skipped), with that message; or rustc's
 * `--> main.rs:3:5` under its `error[E0425]: …` line, with that line as the message.
 */
function compilerSite(lines: readonly string[], origin: SnippetOrigin): ErrorSite | undefined {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const rust = RUST_LOCATION.exec(line);
    const lead = rust ? rust[0].length : 0;
    const ref = findSourceRefs(line, origin).find((r) => r.kind === 'snippet' && r.start === lead);
    if (!ref) continue;
    if (rust) {
      const head = lines.slice(Math.max(0, i - 3), i).reverse().find((l) => /^error\b/.test(l));
      if (head) return { ref, message: message(head) };
      continue;
    }
    const rest = line.slice(ref.end).replace(/^:/, '');
    if (rest.trim() === '' || !/^\s/.test(rest) || NOT_AN_ERROR.test(rest)) continue;
    return { ref, message: message(rest) };
  }
  return undefined;
}

/**
 * Issue 23: interpreters that print one line per error (ruby `main.rb:3:in 'f': boom
 * (RuntimeError)`, perl `boom at main.pl line 3.`, PHP `… in main.php on line 3`, bash
 * `main.sh: line 3: …`): the first line with a snippet reference, as the message. A Go panic's
 * frame (`\t/sandbox/main.go:5 +0x1d`) takes the `panic: …` line above it as its message.
 * A compile step's warnings before the program ran (rustc's ` --> main.rs:2:9` under
 * `warning: …`, gcc's `main.c:2:7: warning: …`) are not the site: a Rust panic's
 * `panicked at main.rs:3:5` after them is.
 */
function firstSite(lines: readonly string[], origin: SnippetOrigin): ErrorSite | undefined {
  for (let i = 0; i < lines.length; i++) {
    const ref = snippetRef(lines[i]!, origin);
    if (!ref || isCompilerNote(lines[i]!, ref)) continue;
    const panic = /^\s/.test(lines[i]!) ? lines.slice(0, i).find((l) => l.startsWith('panic: ')) : undefined;
    return { ref, message: message(panic ?? lines[i]!) };
  }
  return undefined;
}

/** A compiler's warning or note line: rustc's location line, or `path:line:col: warning:` (or `note:`). */
function isCompilerNote(line: string, ref: SourceRef): boolean {
  return RUST_LOCATION.test(line) || (ref.start === 0 && NOT_AN_ERROR.test(line.slice(ref.end).replace(/^:/, '')));
}

function snippetRef(line: string, origin: SnippetOrigin): SourceRef | undefined {
  return findSourceRefs(line, origin).find((r) => r.kind === 'snippet');
}

function message(line: string): string {
  return line.trim().slice(0, MAX_MESSAGE_CHARS);
}

function pythonSite(lines: readonly string[], origin: SnippetOrigin): ErrorSite | undefined {
  let found: ErrorSite | undefined;
  let frame: SourceRef | undefined;
  let inFrames = false;
  for (const line of lines) {
    if (PY_HEADER.test(line)) {
      frame = undefined;
      inFrames = true;
      continue;
    }
    if (PY_FRAME.test(line)) {
      if (!inFrames) frame = undefined; // a SyntaxError's lone frame starts a new report
      inFrames = true;
      const ref = snippetRef(line, origin);
      if (ref) frame = ref; // innermost so far: later frames are deeper
      continue;
    }
    if (!inFrames || line.trim() === '' || /^\s/.test(line)) continue;
    if (PY_CHAIN.test(line)) continue;
    // The first unindented line after the frames is the exception line.
    if (frame) found = { ref: frame, message: message(line) };
    frame = undefined;
    inFrames = false;
  }
  return found;
}

function nodeSite(lines: readonly string[], origin: SnippetOrigin): ErrorSite | undefined {
  let header: SourceRef | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!NODE_EXCEPTION.test(line)) {
      // `/sandbox/main.js:3` alone on a line: V8's uncaught-error header above the excerpt.
      const ref = /^(?:file:\/\/)?\/\S*:\d+\s*$/.test(line) ? snippetRef(line, origin) : undefined;
      if (ref) header = ref;
      continue;
    }
    let frame: SourceRef | undefined;
    for (let j = i + 1; j < lines.length && NODE_FRAME.test(lines[j]!); j++) {
      frame = snippetRef(lines[j]!, origin);
      if (frame) break; // frames are printed innermost first
    }
    const ref = frame ?? header;
    if (ref) return { ref, message: message(line) };
  }
  return undefined;
}
