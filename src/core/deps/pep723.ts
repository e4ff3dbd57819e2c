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
 * The specification's block syntax: `# /// TYPE` on a line of its own, then comment lines that are
 * `#` alone or `# ` followed by text, then `# ///`. (`\r?` so a file saved with CRLF reads the same.)
 */
const BLOCK = /^# \/\/\/ ([A-Za-z0-9-]+)\r?$\n((?:^#(?:| .*?)\r?$\n)+)^# \/\/\/\r?$/gm;

/**
 * Finds and parses the `script` block of Python source `code`.
 * @returns `none` without a block; `invalid` (one sentence naming what to fix) for two blocks,
 *   TOML that does not parse, `dependencies` that is not a list of strings, `requires-python`
 *   that is not a string, or a dependency refused by `dependencyListProblem`; else `ok`
 */
export function readScriptMetadata(code: string): ScriptMetadataResult {
  const blocks = [...code.matchAll(BLOCK)].filter((m) => m[1] === 'script');
  if (blocks.length === 0) return { kind: 'none' };
  if (blocks.length > 1) return { kind: 'invalid', message: `The code has ${blocks.length} "# /// script" blocks; PEP 723 allows one: merge them.` };
  const toml = blocks[0]![2]!
    .split('\n')
    .slice(0, -1)
    .map((line) => line.replace(/\r$/, '').replace(/^# ?/, ''))
    .join('\n');
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
