/**
 * Dependency specs as data (issue 22): which requirement strings a run may ask to install, checked
 * before anything starts. A spec is never parsed by a shell and never becomes an option: it is one
 * argv item after `--` of the installer. What is refused is what would make the installer fetch
 * something other than a named package from the configured index or registry (a URL, a path, a VCS
 * checkout, a `file:` spec) or read an option (a leading `-`).
 *
 * - Python: PEP 508 requirements by name: `name`, `name[extra,…]`, version specifiers
 *   (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===`, wildcards), and environment markers after `;`.
 *   Direct references (`name @ url`) are refused.
 * - npm: registry names (`name`, `@scope/name`) with an optional `@version`, `@range` or `@tag`.
 *
 * Pure; no `vscode`, no I/O. Lives in profiles/ because the profile schema checks the key with it.
 */

/** Most entries of one dependency list (profile key, PEP 723 block or agent input). */
export const MAX_DEPENDENCIES = 64;
/** Most characters of one entry. */
export const MAX_DEPENDENCY_CHARS = 200;

/** The package managers an installed set is made with. */
export type DependencyManager = 'pip' | 'npm';

/** PEP 508 / PEP 503 distribution name (letters, digits, `.`, `_`, `-`; alphanumeric at both ends). */
const PY_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
/** One version clause: an operator and a version (PEP 440 characters, `*` for `==`/`!=` wildcards, `+` local). */
const PY_CLAUSE = /^(?:===|==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9][A-Za-z0-9.*+!_-]*$/;
/** Marker text: variables, quoted strings, comparison operators, `and`/`or`/`in`/`not`, parentheses. No `@`, no backslash. */
const PY_MARKER = /^[A-Za-z0-9_.\s'"()<>=!~,*+-]+$/;

/**
 * pip's own archive list (pip/_internal/utils/filetypes.py `ARCHIVE_EXTENSIONS`: ZIP, BZ2, TAR and
 * XZ extensions, wheels included, as of pip 23 and 24): a requirement ending with one of these
 * (any case) is read by pip as a local archive to install, not a name (issue 34: `.tlz`,
 * `.tar.lz` and `.tar.lzma` passed an earlier, shorter list).
 */
export const PIP_ARCHIVE_EXTENSIONS = ['.zip', '.whl', '.tar.bz2', '.tbz', '.tar.gz', '.tgz', '.tar', '.tar.xz', '.txz', '.tlz', '.tar.lz', '.tar.lzma'] as const;

/** npm package name rules (lower-case, URL-safe, at most 214 characters, optional scope). */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
/** A version, range or tag: semver characters, range operators, `||`, spaces, `x`/`*`; no `:`, `/`, `#`, `\`. */
const NPM_VERSION = /^[A-Za-z0-9.*^~<>=| +_-]+$/;

/** Text shown for an entry in a message: JSON-quoted (control characters escaped), cut at 80 characters. */
export function showSpec(spec: string): string {
  return JSON.stringify(spec.length > 80 ? `${spec.slice(0, 79)}…` : spec);
}

/**
 * Why `spec` is not a Python requirement this runner installs; undefined when it is one.
 * @returns one clause (no leading capital, no final period), e.g. `is a direct URL reference (…)`
 */
export function pythonSpecProblem(spec: string): string | undefined {
  const common = commonProblem(spec);
  if (common) return common;
  const [req = '', ...markerParts] = spec.split(';');
  const marker = markerParts.join(';').trim();
  if (markerParts.length > 0 && (marker === '' || !PY_MARKER.test(marker))) {
    return 'has an environment marker after ";" that is not a PEP 508 marker (such as python_version >= "3.10")';
  }
  if (req.includes('@')) return 'is a direct reference ("name @ URL"); only names from the index are installed';
  // pip reads a requirement that ends like an archive as a file to install (its own list, below).
  const lower = req.trimEnd().toLowerCase();
  if (PIP_ARCHIVE_EXTENSIONS.some((ext) => lower.endsWith(ext))) return 'names an archive file; only names from the index are installed';
  const m = /^\s*([^\s[<>=!~(]+)\s*(?:\[([^\]]*)\])?\s*(.*?)\s*$/.exec(req);
  if (!m || !PY_NAME.test(m[1]!)) return 'does not start with a package name (letters, digits, ".", "_", "-")';
  if (m[2] !== undefined && !m[2].split(',').every((e) => PY_NAME.test(e.trim()))) {
    return 'has extras that are not names (such as name[socks,security])';
  }
  let versions = m[3]!;
  if (versions.startsWith('(') && versions.endsWith(')')) versions = versions.slice(1, -1).trim();
  if (versions !== '' && !versions.split(',').every((c) => PY_CLAUSE.test(c.trim()))) {
    return 'has a version part that is not a list of specifiers (such as >=2.31,<3)';
  }
  return undefined;
}

/**
 * Why `spec` is not an npm registry spec this runner installs; undefined when it is one.
 * @returns one clause, as for {@link pythonSpecProblem}
 */
export function npmSpecProblem(spec: string): string | undefined {
  const common = commonProblem(spec);
  if (common) return common;
  if (/^(?:npm|git|git\+[a-z]+|github|gist|bitbucket|gitlab|link|workspace|http|https):/i.test(spec) || /^[^@/]+\/[^@]/.test(spec)) {
    return 'is a URL, Git, GitHub or alias spec; only registry names with a version, range or tag are installed';
  }
  // npm reads a spec (or a version part) ending like an archive as a local file to install.
  if (/\.(?:tgz|tar|tar\.gz)\s*$/i.test(spec)) return 'names an archive file; only registry names with a version, range or tag are installed';
  const at = spec.indexOf('@', 1);
  const name = at < 0 ? spec : spec.slice(0, at);
  const version = at < 0 ? undefined : spec.slice(at + 1);
  if (name.length > 214 || !NPM_NAME.test(name)) return 'is not an npm package name (lower-case, such as lodash or @scope/name)';
  if (version !== undefined && (version.trim() === '' || !NPM_VERSION.test(version))) {
    return 'has a version part that is not a version, range or tag (such as @4.17.21, @^1.2 or @latest)';
  }
  return undefined;
}

/** Refusals common to both managers: length, leading `-`, control characters, URLs, paths, `file:`. */
function commonProblem(spec: string): string | undefined {
  if (spec.trim() === '') return 'is empty';
  if (spec.length > MAX_DEPENDENCY_CHARS) return `is longer than ${MAX_DEPENDENCY_CHARS} characters`;
  if (/[\0-\x1f\x7f]/.test(spec)) return 'contains a control character or line break';
  if (spec.trimStart().startsWith('-')) return 'starts with "-", which an installer would read as an option';
  if (/^\s*file:/i.test(spec)) return 'is a "file:" spec; only names from the index or registry are installed';
  if (/^\s*(?:[a-z][a-z0-9+.-]*:\/\/|git\+|svn\+|hg\+|bzr\+)/i.test(spec) || /:\/\//.test(spec)) {
    return 'is a URL or VCS reference; only names from the index or registry are installed';
  }
  if (/^\s*(?:\.{1,2}(?:[/\\]|$)|[/\\~]|[A-Za-z]:[/\\])/.test(spec)) return 'is a path; only names from the index or registry are installed';
  return undefined;
}

/**
 * Checks a whole dependency list for `manager`.
 * @param where what the list is, for the message, e.g. `sandboxRunner.profiles.python.dependencies`
 *   or `the script's "# /// script" block`
 * @returns one sentence naming the first bad entry (or the count) and what to do; undefined when
 *   every entry is allowed
 */
export function dependencyListProblem(specs: readonly string[], manager: DependencyManager, where: string): string | undefined {
  if (specs.length > MAX_DEPENDENCIES) {
    return `${where} lists ${specs.length} dependencies; at most ${MAX_DEPENDENCIES} are installed for one run: build an image with them instead.`;
  }
  for (const spec of specs) {
    const problem = manager === 'pip' ? pythonSpecProblem(spec) : npmSpecProblem(spec);
    if (problem) {
      const allowed = manager === 'pip' ? 'a package name with optional extras, version specifiers and markers, such as "requests>=2.31"' : 'a registry name with an optional version, range or tag, such as "lodash@^4.17"';
      return `Dependency ${showSpec(spec)} in ${where} ${problem}: write ${allowed}.`;
    }
  }
  return undefined;
}

/**
 * The normal form of a spec list, for the cache key and for consent: each entry trimmed, inner
 * whitespace collapsed, Python names lower-cased with runs of `-_.` made `-` (PEP 503), duplicates
 * removed, sorted. Two lists that install the same set give the same form.
 * Call only on lists that {@link dependencyListProblem} accepts.
 */
export function normaliseSpecs(specs: readonly string[], manager: DependencyManager): string[] {
  const out = new Set<string>();
  for (const raw of specs) {
    let s = raw.trim().replace(/\s+/g, ' ');
    if (manager === 'pip') {
      s = s.replace(/^[A-Za-z0-9._-]+/, (name) => name.toLowerCase().replace(/[-_.]+/g, '-'));
      // Spaces around operators, commas and extras carry no meaning in PEP 508 outside markers.
      const semi = s.indexOf(';');
      const head = (semi < 0 ? s : s.slice(0, semi)).replace(/\s+/g, '');
      s = semi < 0 ? head : `${head}; ${s.slice(semi + 1).trim()}`;
    }
    out.add(s);
  }
  return [...out].sort();
}
