/**
 * The {@link SnippetOrigin} of a run, named as the runner names the snippet (issue 11). Kept
 * apart from sourceRefs.ts: it needs the argv module, which the extension's activation bundle
 * does not load (the editor reaches this through its engine bundle).
 */
import { SNIPPET_DIR } from '../layout';
import { substitutePathVariable, type RunPaths } from '../profiles/pathVariables';
import type { Profile } from '../profiles/profileSchema';
import { snippetFileName } from './snippet';
import type { OriginMount, SnippetOrigin } from './sourceRefs';
import { mirroredPath, workspaceTarget } from '../mounts/workspaceMount';

/**
 * The origin of a run of `source` with `profile`: the in-container path is chosen as the runner
 * chooses it (`SNIPPET_DIR` + snippet.ts `snippetFileName` of the source's name), and the
 * profile's mounts are included (a run with mounts only starts when the engine mounts exactly the
 * checked host directory, at the same path: mounts.ts `resolveMounts` refuses any other engine).
 * @param where.sourceFileName the name the runner is given (`RunRequest.sourceFileName`), for the extension
 * @param where.line 0-based first line; `column` 0-based first column; `dedent` width removed (dedent.ts)
 * @param paths the run's `RunRequest.paths` (issue 12): mount sources with `${workspaceFolder}` or
 *   `${fileDirname}` are named by the paths they resolve to, a `workspace: "ro"` profile's folder
 *   is one more mount, and a file run from that mount (`paths.file`) has its mirrored path as the
 *   snippet path (workspaceMount.ts, as the runner plans it)
 */
export function snippetOrigin(
  profile: Profile,
  where: { source: string; untitled?: boolean; sourceFileName?: string; line?: number; column?: number; dedent?: number },
  paths?: RunPaths & { readonly file?: string },
): SnippetOrigin {
  const mounts: OriginMount[] = [];
  for (const m of profile.mounts) {
    const source = paths ? substitutePathVariable(m.source, paths) : m.source;
    if (source !== undefined && !source.startsWith('${')) mounts.push({ target: m.target, source });
  }
  const folder = profile.workspace === 'ro' ? paths?.workspaceFolder : undefined;
  const target = folder === undefined ? undefined : workspaceTarget(folder);
  if (folder !== undefined && target !== undefined) mounts.push({ target, source: folder });
  const mirrored = folder !== undefined && target !== undefined && paths?.file !== undefined ? mirroredPath(paths.file, folder, target) : undefined;
  return {
    source: where.source,
    ...(where.untitled ? { untitled: true } : {}),
    line: where.line ?? 0,
    column: where.column ?? 0,
    dedent: where.dedent ?? 0,
    snippetPath: mirrored ?? `${SNIPPET_DIR}/${snippetFileName(profile, where.sourceFileName)}`,
    mounts,
  };
}
