/**
 * `requires-python` of a PEP 723 block against the image's Python (issue 22): a small PEP 440
 * comparison of release numbers (`3.11.4`), enough for the specifiers scripts write
 * (`>=3.11`, `<3.13,>=3.9`, `==3.12.*`, `~=3.10`, `!=3.9.*`). Pre-release, post-release and local
 * parts of a specifier are refused as not understood rather than guessed. Pure.
 */

/** Release numbers of a version such as `3.12.1` (`3.12.1rc1` reads as 3.12.1); undefined when not a version. */
function release(v: string): number[] | undefined {
  const m = /^v?(\d+(?:\.\d+)*)/.exec(v.trim());
  return m ? m[1]!.split('.').map(Number) : undefined;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** True when `version` starts with `prefix` (release numbers, missing ones read as 0). */
function hasPrefix(version: readonly number[], prefix: readonly number[]): boolean {
  return prefix.every((n, i) => (version[i] ?? 0) === n);
}

/**
 * Whether the interpreter's `version` (e.g. `3.11.2`, from `sys.version_info`) satisfies `spec`.
 * @returns true or false; `undefined` when `spec` is not a comma-separated list of clauses this
 *   function understands (the caller refuses the run with that, never guesses)
 */
export function satisfiesRequiresPython(version: string, spec: string): boolean | undefined {
  const v = release(version);
  if (!v) return undefined;
  const clauses = spec.split(',').map((c) => c.trim());
  if (clauses.length === 0 || clauses.some((c) => c === '')) return undefined;
  let all = true;
  for (const clause of clauses) {
    const m = /^(===|==|!=|<=|>=|~=|<|>)\s*(\d+(?:\.\d+)*)(\.\*)?$/.exec(clause);
    if (!m) return undefined;
    const [, op, num, wild] = m;
    const r = num!.split('.').map(Number);
    if (wild && op !== '==' && op !== '!=') return undefined;
    let ok: boolean;
    switch (op) {
      case '==': ok = wild ? hasPrefix(v, r) : compare(v, r) === 0; break;
      case '===': ok = version.trim() === num; break;
      case '!=': ok = wild ? !hasPrefix(v, r) : compare(v, r) !== 0; break;
      case '<=': ok = compare(v, r) <= 0; break;
      case '>=': ok = compare(v, r) >= 0; break;
      case '<': ok = compare(v, r) < 0; break;
      case '>': ok = compare(v, r) > 0; break;
      default: // ~=: >= r and == r with its last number dropped, as a prefix (needs two numbers).
        if (r.length < 2) return undefined;
        ok = compare(v, r) >= 0 && hasPrefix(v, r.slice(0, -1));
    }
    all &&= ok;
  }
  return all;
}

/**
 * The refusal for a script whose `requires-python` the image's Python does not meet, or that is not
 * understood; undefined when it is met.
 * @param imageVersion the image's `python3` version, e.g. `3.11.2`
 * @param profileName the profile that would run it (named so the user knows which image to change)
 */
export function requiresPythonProblem(spec: string, imageVersion: string, profileName: string): string | undefined {
  const ok = satisfiesRequiresPython(imageVersion, spec);
  if (ok === true) return undefined;
  if (ok === undefined) {
    return `The script's requires-python ${JSON.stringify(spec)} is not a list of version clauses this runner reads (such as ">=3.11" or "==3.12.*"): simplify it.`;
  }
  return `The script requires Python ${spec}, but profile "${profileName}" has Python ${imageVersion}: pick a profile whose image has a matching Python, or change requires-python.`;
}
