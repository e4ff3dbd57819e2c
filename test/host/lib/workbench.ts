/** Addresses of a code-server's web workbench: the page URL (folder or workspace, test payload) and remote file URIs. */
import { pathToFileURL } from 'node:url';
import type { CodeServer } from './codeServer';

/** `vscode-remote://` URI of a server-side path, as the workbench payload expects it. */
export function remoteUri(server: CodeServer, absPath: string): string {
  return `vscode-remote://127.0.0.1:${server.port}${pathToFileURL(absPath).pathname}`;
}

/**
 * The workbench URL opening `folder` (a server-side path; a `.code-workspace` file opens that
 * multi-root workspace), with an optional test payload.
 */
export function workbenchUrl(server: CodeServer, folder: string | undefined, payload?: readonly (readonly [string, string])[]): string {
  const query: string[] = [];
  if (folder) query.push(`${folder.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(folder)}`);
  if (payload) query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  return `${server.origin}/${query.length ? `?${query.join('&')}` : ''}`;
}
