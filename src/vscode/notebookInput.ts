/**
 * A sandbox cell's `input()` and `getpass` answered through an input box (issue 24; core
 * session.ts `InputHandler`). The prompt is the program's text: shown as plain text (plainText.ts:
 * the input box's message parses links and codicons), on one line, at most the protocol's bound.
 * `getpass` gets a password box. Escape (or focus moving away is ignored: `ignoreFocusOut`) means
 * cancel: the cell gets KeyboardInterrupt, as Jupyter's kernel raises when its input is
 * interrupted. The box closes by itself when the cell is interrupted or ends (`signal`).
 */
import * as vscode from 'vscode';
import { INPUT_PROMPT_MAX, type InputAnswer } from '../core/session/frames';
import type { InputRequest } from '../core/session/session';
import { plainText } from './plainText';

/** Shows the input box for `request` until answered, cancelled or `signal` aborts (then the answer is a cancel, never sent: the session drops it). */
export async function askInput(request: InputRequest, signal: AbortSignal): Promise<InputAnswer> {
  const cts = new vscode.CancellationTokenSource();
  const onAbort = () => cts.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) cts.cancel();
  try {
    const prompt = plainText(request.prompt, INPUT_PROMPT_MAX).trim();
    const value = await vscode.window.showInputBox({
      title: request.password ? vscode.l10n.t('Password for the sandboxed cell') : vscode.l10n.t('Input for the sandboxed cell'),
      ...(prompt ? { prompt } : {}),
      password: request.password,
      ignoreFocusOut: true,
    }, cts.token);
    return value === undefined ? { cancel: true } : { value };
  } finally {
    signal.removeEventListener('abort', onAbort);
    cts.dispose();
  }
}
