/**
 * Which profile runs a Markdown code block (issue 12): the fence's info word is turned into a
 * VS Code language id through {@link FENCE_ALIASES} (or taken as a language id itself), and the
 * profile is the one a file of that language would run with: the first profile (workspace, user,
 * built-in order) whose `languages` lists it (profileResolution.ts `pickProfile`). Never the
 * `defaultProfile` fallback: a block whose language no profile lists gets no lens and does not
 * run. Pure; no `vscode` import.
 */
import type { ProfileSet, ResolvedProfile } from '../profiles/profileResolution';

/** What a fence name stands for: a VS Code language id, and the file extension a block of it needs, if any. */
export interface FenceLanguage {
  /** A VS Code language id (`python`, `javascript`, `shellscript`, …), matched against profiles' `languages`. */
  readonly languageId: string;
  /**
   * The file extension the snippet must have when the profile lists it (snippet.ts
   * `snippetFileName`), e.g. `.mjs` for an ES module: node picks the module type by it.
   */
  readonly extension?: string;
}

/**
 * Fence names that are also the extension a block's snippet needs: node and TypeScript choose
 * the module type by it (`.mjs`/`.mts` an ES module, `.cjs`/`.cts` CommonJS).
 */
const EXTENSION_NAMES: ReadonlySet<string> = new Set(['mjs', 'cjs', 'mts', 'cts']);

/**
 * Common fence names (lower case) and the VS Code language id each stands for. A fence name not
 * listed is taken as a language id as written (lower-cased), so ```` ```ruby ```` reaches the
 * built-in ruby profile. The built-in profiles (defaults.ts) list `python`, `javascript`,
 * `shellscript`, `bash`, `c`, `cpp`, `go`, `rust`, `java`, `typescript`, `ruby`, `php`, `perl`
 * and `r`; the other rows only matter
 * for a profile that lists their language. `bash` is its own language here (issue 23: the bash
 * profile runs `bash`; a `.sh` file without a bash shebang runs with `sh`). Not mapped on purpose:
 * `zsh` (not `sh` syntax), `console` and `shell-session` (prompts and output mixed with the commands).
 */
export const FENCE_ALIASES: Readonly<Record<string, FenceLanguage>> = /* @__PURE__ */ aliasTable({
  python: ['py', 'py3', 'python3'],
  javascript: ['js', 'node', 'nodejs', 'mjs', 'cjs'],
  shellscript: ['sh', 'shell'],
  bash: ['bash'],
  typescript: ['ts', 'mts', 'cts'],
  ruby: ['rb'],
  go: ['golang'],
  rust: ['rs'],
  perl: ['pl'],
  cpp: ['c++', 'cc', 'cxx'],
  csharp: ['cs', 'c#'],
  fsharp: ['f#'],
  powershell: ['ps1', 'pwsh'],
  kotlin: ['kt'],
  julia: ['jl'],
  elixir: ['exs'],
  haskell: ['hs'],
  clojure: ['clj'],
});

/**
 * The alias table from language id → fence names (in that order), each name with its
 * {@link EXTENSION_NAMES} extension when it has one. Called under a pure annotation with plain
 * literals, so bundles that import the core barrel without using the table drop it.
 */
function aliasTable(namesByLanguage: Readonly<Record<string, readonly string[]>>): Readonly<Record<string, FenceLanguage>> {
  const rows = Object.entries(namesByLanguage).flatMap(([languageId, names]) =>
    names.map((name): [string, FenceLanguage] => [name, EXTENSION_NAMES.has(name) ? { languageId, extension: `.${name}` } : { languageId }]),
  );
  return Object.freeze(Object.fromEntries(rows));
}

/**
 * The fence name in an info word, lower-cased: pandoc's `{.python}` and Quarto/R Markdown's
 * `{python}` or `{r,` forms lose their braces, dot and trailing comma. `''` when nothing is left.
 */
export function fenceName(info: string): string {
  return info.toLowerCase().replace(/^\{?\.?/, '').replace(/[,}]+$/, '');
}

/** The language an info word (FencedBlock `info`) stands for; undefined for an empty one. */
export function fenceLanguage(info: string): FenceLanguage | undefined {
  const name = fenceName(info);
  if (name === '') return undefined;
  return Object.hasOwn(FENCE_ALIASES, name) ? FENCE_ALIASES[name] : { languageId: name };
}

/** A block's language and the profile that runs it. */
export interface BlockProfile {
  readonly language: FenceLanguage;
  readonly chosen: ResolvedProfile;
}

/**
 * The profile that runs a block with info word `info` from `set`: the first valid profile whose
 * `languages` lists the fence's language id (as `pickProfile` routes a file of that language).
 * @returns undefined for an empty info word or a language no valid profile lists
 */
export function blockProfile(set: ProfileSet, info: string): BlockProfile | undefined {
  const language = fenceLanguage(info);
  if (!language) return undefined;
  // profileResolution.ts `pickProfile`'s language route, written out: importing it would pull the profile
  // schema (zod) into the lazily loaded Markdown bundle. A unit test checks that both agree.
  const chosen = set.profiles.find((p) => p.profile.languages.includes(language.languageId));
  return chosen && { language, chosen };
}
