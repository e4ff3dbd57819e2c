/**
 * PEP 723 inline script metadata (issue 22): the `# /// script` block of a Python file, selection,
 * Markdown block or agent's code, as the specification's reference regular expression reads it
 * (packaging.python.org, "Inline script metadata"), its content parsed as TOML by smol-toml. Only
 * `dependencies` and `requires-python` are used; other keys (`[tool.*]`) are ignored. The text is
 * untrusted: the result is data, checked by profiles/dependencySpecs.ts before anything installs.
 * Pure; smol-toml is loaded on the first block found (never at extension activation).
 */
import { dependencyListProblem } from '../profiles/dependencySpecs';

/** What a script declares. */
export interface ScriptMetadata {
  /** The `dependencies` entries as written (unchecked); [] when the key is absent. */
  readonly dependencies: readonly string[];
  /** The `requires-python` specifier as written, when present. */
  readonly requiresPython?: string;
}

/** What {@link readScriptMetadata} found: nothing, the metadata, or one sentence on what is wrong. */
export type ScriptMetadataResult =
  | { readonly kind: 'none' }
  | { readonly kind: 'ok'; readonly metadata: ScriptMetadata }
  | { readonly kind: 'invalid'; readonly message: string };

/** Where the block is named in messages. */
export const SCRIPT_BLOCK = 'the script\'s "# /// script" block';

/**
 * The longest code read for a block, UTF-16 code units (4 Mi: a 4 MiB script of ASCII). Longer
 * code that holds a block opener is refused before it is scanned (`invalid`, naming the bound);
 * the scan is linear anyway, the bound keeps its work and the TOML parser's input finite.
 */
export const SCRIPT_SCAN_MAX = 4 * 1024 * 1024;
/** The longest block content handed to the TOML parser, UTF-16 code units (64 Ki); a longer block is `invalid`. */
export const SCRIPT_BLOCK_MAX = 64 * 1024;

/** One block the reference regular expression matches: its TYPE and its content lines (each `#` or `# …`, as written). */
export interface MetadataBlock {
  readonly type: string;
  readonly lines: readonly string[];
}

const OPENER = /^# \/\/\/ ([A-Za-z0-9-]+)$/;
const CLOSER = '# ///';
const isComment = (line: string): boolean => line === '#' || line.startsWith('# ');

/**
 * The blocks of `code` exactly as the specification's reference regular expression finds them
 * (packaging.python.org, "Inline script metadata":
 * `(?m)^# /// (?P<type>[a-zA-Z0-9-]+)$\s(?P<content>(^#(| .*)$\s)+)^# ///$`, matched left to right,
 * non-overlapping), read as Python reads a source file (universal newlines: `\r\n` and a lone `\r`
 * end a line as `\n` does; nothing else does), in one pass: linear in the code's length, no
 * backtracking (issue 34: the regular expression took 36 s on 256 KiB of `# /// x` lines).
 * Why one pass is exact: an opener line is itself a comment line, so its content run is the rest
 * of the maximal run of comment lines it is in, and the greedy `+` gives that run's LAST `# ///`
 * line as the closer when at least one content line precedes it; a match ends after that closer,
 * so no later opener of the same run has a closer left, and the scan moves past the run.
 * @param visit called once per line examined (tests count the work); every line is examined at most twice
 */
export function scanMetadataBlocks(code: string, visit: () => void = () => undefined): MetadataBlock[] {
  const lines = code.split(/\r\n|\r|\n/);
  const blocks: MetadataBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    visit();
    const opener = OPENER.exec(lines[i]!);
    if (!opener) {
      i++;
      continue;
    }
    // The run of comment lines after the opener, and the last closer in it (a content line is a
    // line followed by a newline: the last line of the code never is one, but may be the closer).
    let closer = -1;
    let j = i + 1;
    for (; j < lines.length && isComment(lines[j]!); j++) {
      visit();
      if (lines[j] === CLOSER && j >= i + 2) closer = j;
    }
    if (closer < 0) {
      // No closer after this opener: none after any later opener of this run either.
      i = Math.max(i + 1, j);
      continue;
    }
    blocks.push({ type: opener[1]!, lines: lines.slice(i + 1, closer) });
    i = closer + 1;
  }
  return blocks;
}

/**
 * Finds and parses the `script` block of Python source `code`.
 * @returns `none` without a block; `invalid` (one sentence naming what to fix) for code longer
 *   than {@link SCRIPT_SCAN_MAX} that holds a block opener, a block longer than
 *   {@link SCRIPT_BLOCK_MAX}, two blocks, TOML that does not parse, `dependencies` that is not a
 *   list of strings, `requires-python` that is not a string, or a dependency refused by
 *   `dependencyListProblem`; else `ok`
 */
export function readScriptMetadata(code: string): ScriptMetadataResult {
  if (!code.includes('# /// script')) return { kind: 'none' };
  if (code.length > SCRIPT_SCAN_MAX) {
    return { kind: 'invalid', message: `The code is ${Math.ceil(code.length / 1024)} KiB, over the ${SCRIPT_SCAN_MAX / 1024} KiB read for a "# /// script" block (PEP 723), so it was not read: declare the dependencies in the profile's "dependencies" instead, or shorten the code.` };
  }
  const blocks = scanMetadataBlocks(code).filter((b) => b.type === 'script');
  if (blocks.length === 0) return { kind: 'none' };
  if (blocks.length > 1) return { kind: 'invalid', message: `The code has ${blocks.length} "# /// script" blocks; PEP 723 allows one: merge them.` };
  const toml = blocks[0]!.lines.map((line) => line.slice(line.startsWith('# ') ? 2 : 1)).join('\n');
  if (toml.length > SCRIPT_BLOCK_MAX) {
    return { kind: 'invalid', message: `${cap(SCRIPT_BLOCK)} is ${Math.ceil(toml.length / 1024)} KiB, over the ${SCRIPT_BLOCK_MAX / 1024} KiB it may hold: keep only "dependencies" and "requires-python" in it.` };
  }
  let data: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { parse } = require('smol-toml') as typeof import('smol-toml');
    data = parse(toml) as Record<string, unknown>;
  } catch (e) {
    const first = String(e instanceof Error ? e.message : e).split('\n')[0]!.slice(0, 160);
    return { kind: 'invalid', message: `${cap(SCRIPT_BLOCK)} is not valid TOML (${first}): fix it, or remove the block.` };
  }
  const deps = data['dependencies'] ?? [];
  if (!Array.isArray(deps) || !deps.every((d): d is string => typeof d === 'string')) {
    return { kind: 'invalid', message: `"dependencies" in ${SCRIPT_BLOCK} must be a list of strings, such as dependencies = ["requests>=2.31"].` };
  }
  const rp = data['requires-python'];
  if (rp !== undefined && typeof rp !== 'string') {
    return { kind: 'invalid', message: `"requires-python" in ${SCRIPT_BLOCK} must be a string, such as requires-python = ">=3.11".` };
  }
  const problem = dependencyListProblem(deps, 'pip', SCRIPT_BLOCK);
  if (problem) return { kind: 'invalid', message: problem };
  return { kind: 'ok', metadata: rp === undefined ? { dependencies: deps } : { dependencies: deps, requiresPython: rp } };
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
