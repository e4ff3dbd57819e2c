/**
 * The {@link SnippetOrigin} of a run, named as the runner names the snippet (issue 11). Kept
 * apart from sourceRefs.ts: it needs the argv module, which the extension's activation bundle
 * does not load (the editor reaches this through its engine bundle).
 */
import { SNIPPET_DIR } from './argv';
import type { Profile } from './profile';
import { snippetFileName } from './snippet';
import type { SnippetOrigin } from './sourceRefs';

/**
 * The origin of a run of `source` with `profile`: the in-container path is chosen as the runner
 * chooses it (`SNIPPET_DIR` + snippet.ts `snippetFileName` of the source's name), and the
 * profile's mounts are included (a run with mounts only starts when the engine mounts exactly the
 * checked host directory, at the same path: mounts.ts `resolveMounts` refuses any other engine).
 * @param where.sourceFileName the name the runner is given (`RunRequest.sourceFileName`), for the extension
 * @param where.line 0-based first line; `column` 0-based first column; `dedent` width removed (dedent.ts)
 */
export function snippetOrigin(
  profile: Profile,
  where: { source: string; untitled?: boolean; sourceFileName?: string; line?: number; column?: number; dedent?: number },
): SnippetOrigin {
  return {
    source: where.source,
    ...(where.untitled ? { untitled: true } : {}),
    line: where.line ?? 0,
    column: where.column ?? 0,
    dedent: where.dedent ?? 0,
    snippetPath: `${SNIPPET_DIR}/${snippetFileName(profile, where.sourceFileName)}`,
    mounts: profile.mounts.map((m) => ({ target: m.target, source: m.source })),
  };
}
