/**
 * The one bridge from VS Code's cancellation (`CancellationToken`, e.g. a progress or a provider
 * call) to the core's (`AbortSignal`, which `runInSandbox` takes).
 */
import type * as vscode from 'vscode';

/**
 * Aborts `controller` (its `signal` is what the core sees) when `token` is cancelled, at once if
 * it already is. Dispose the result when the work ends: it removes the token's listener (a
 * long-lived token would otherwise keep every finished run's controller alive).
 * Source of the shapes: VS Code `CancellationToken.onCancellationRequested` and the DOM
 * `AbortController`. Never throws.
 */
export function abortOnCancel(token: vscode.CancellationToken | undefined, controller: AbortController): vscode.Disposable {
  if (!token) return { dispose: () => undefined };
  if (token.isCancellationRequested) {
    controller.abort();
    return { dispose: () => undefined };
  }
  return token.onCancellationRequested(() => controller.abort());
}
