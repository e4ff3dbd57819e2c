/**
 * Which log lines of code-server, the workbench and the browser are shown: known offline noise and
 * start-up chatter are filtered out (never test output), and everything is printed as it comes
 * only with SANDBOX_RUNNER_HOST_VERBOSE=1.
 */
import { format } from 'node:util';

/** True when SANDBOX_RUNNER_HOST_VERBOSE=1: server and browser logs are printed as they come. */
export const verbose = process.env.SANDBOX_RUNNER_HOST_VERBOSE === '1';

/**
 * Log lines that an offline run always produces and that mean nothing here: failed look-ups of
 * the gallery, update and telemetry hosts, the missing `vsda` module, cancellations at shutdown.
 */
const NOISE: readonly RegExp[] = [
  /getaddrinfo (ENOTFOUND|EAI_AGAIN)/,
  /\b(ENETUNREACH|ECONNREFUSED|ETIMEDOUT)\b.*(:443|https?:\/\/)/,
  /open-vsx\.org|marketplace\.visualstudio\.com|vscode-unpkg|update\.code\.visualstudio\.com|mobile\.events\.data|default\.exp-tas\.com|az764295\.vo\.msecnd|vscode-sync|api\.github\.com|copilot/i,
  /vsda/,
  /\bCanceled\b/,
  /Failed to fetch|net::ERR_(NAME_NOT_RESOLVED|INTERNET_DISCONNECTED|CONNECTION_REFUSED|ADDRESS_UNREACHABLE)/,
  /404 \(Not Found\)/,
  /Extension host \(.*\) is unresponsive|An unknown error occurred\. Please consult the log for more details\./,
  /\[(File Watcher|Terminal|ptyHost)/,
  /Unable to resolve resource|Error: ENOENT: no such file or directory, open '.*\/(product|package)\.nls/,
];

/** The workbench's own start-up chatter, forwarded along with the extension host's console. */
const CHATTER: readonly RegExp[] = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket \(/,
  /^\[reconnection-grace-time\]/,
  /^Ignoring fetching additional builtin extensions from gallery/,
  /^Updating additional builtin extensions cache/,
  /^\[Service Worker\]/,
  /^\[AgentHost/,
  /^\[AccountPolicyGate\]/,
  /^No search provider registered for scheme/,
];

/** True for known offline noise and workbench chatter (see {@link NOISE}); never for test output. */
export function isNoise(line: string): boolean {
  return NOISE.some((re) => re.test(line)) || CHATTER.some((re) => re.test(line));
}

/** Formats `codeAutomationLog` arguments (console-style, printf format first) as text. */
export function formatLogArgs(args: unknown): string {
  if (Array.isArray(args)) return format(...(args as unknown[]));
  return typeof args === 'string' ? args : format(args);
}
