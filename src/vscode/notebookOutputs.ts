/**
 * One notebook cell's outputs from a sandbox session (issue 24): the session's cell events (core
 * session.ts `CellEvent`) become the cell execution's outputs as they arrive. Everything here is
 * untrusted data shown as data:
 * - stdout and stderr stream in as `NotebookCellOutputItem.stdout`/`stderr` text (decoded as UTF-8
 *   across chunk boundaries), consecutive chunks of one stream appended to one output, made inert
 *   (core notebookOutputPolicy.ts `InertStream`: no web link or file path becomes an anchor);
 * - a displayed value becomes one output with an item per MIME type the editor renders inertly
 *   (core notebookOutputPolicy.ts `forwardedMimes`: PNG, JPEG, JSON, plain text; HTML, SVG and
 *   Markdown only with the user's opt-in `sandboxRunner.notebooks.richOutput`), whatever the
 *   kernel sent (a cell can forge its kernel's messages): text types as text, images from base64
 *   to bytes, `application/json` as JSON;
 * - an exception becomes `NotebookCellOutputItem.error` with the traceback as its stack, the
 *   frames of the cells' code linked to the cell's line and nothing else linked (core
 *   notebookTraceback.ts; web links broken by notebookOutputPolicy.ts `inertWebText`);
 * - the runner's notices (a bound passed, the session ended) are stderr text of the cell.
 */
import * as vscode from 'vscode';
import type { CellEvent } from '../core/session/session';
import type { DisplayData } from '../core/session/frames';
import { notebookStack } from '../core/session/notebookTraceback';
import { InertStream, forwardedMimes, inertStreamText, inertWebText } from '../core/session/notebookOutputPolicy';

/**
 * The output items of a display bundle: only the types of `forwardedMimes(rich)`, in its order;
 * values of the wrong kind (a text type that is not a string) are skipped; `text/plain` made inert.
 * @param rich the user's opt-in to HTML, SVG and Markdown (`sandboxRunner.notebooks.richOutput`)
 */
export function displayItems(data: DisplayData, rich: boolean): vscode.NotebookCellOutputItem[] {
  const items: vscode.NotebookCellOutputItem[] = [];
  for (const mime of forwardedMimes(rich)) {
    const value = data[mime];
    if (value === undefined) continue;
    if (mime === 'application/json') items.push(vscode.NotebookCellOutputItem.json(value, mime));
    else if (typeof value !== 'string') continue;
    else if (mime === 'image/png' || mime === 'image/jpeg') items.push(new vscode.NotebookCellOutputItem(Buffer.from(value, 'base64'), mime));
    else items.push(vscode.NotebookCellOutputItem.text(mime === 'text/plain' ? inertStreamText(value) : value, mime));
  }
  return items;
}

/** Streams one cell's events into its execution (see the file comment). */
export class CellOutputs {
  private readonly decoders = { stdout: new TextDecoder('utf-8'), stderr: new TextDecoder('utf-8') };
  /** The stream output the next chunk of the same stream is appended to. */
  private last: { readonly stream: 'stdout' | 'stderr'; readonly output: vscode.NotebookCellOutput; readonly inert: InertStream } | undefined;
  /** Output calls in order: the execution's append calls are asynchronous. */
  private queue: Thenable<void> = Promise.resolve();

  /**
   * @param exec the cell's execution
   * @param rich the user's opt-in to HTML, SVG and Markdown outputs, read when the cell started
   */
  constructor(private readonly exec: vscode.NotebookCellExecution, private readonly rich: boolean) {}

  /** Takes one event of the cell (core `SandboxSession.execute`'s `onEvent`). */
  readonly onEvent = (e: CellEvent): void => {
    if (e.kind === 'stdout' || e.kind === 'stderr') this.stream(e.kind, this.decoders[e.kind].decode(e.bytes, { stream: true }));
    else if (e.kind === 'notice') this.stream('stderr', e.text);
    else if (e.kind === 'display') this.append(displayItems(e.data, this.rich));
    else if (e.kind === 'error') this.append([vscode.NotebookCellOutputItem.error({ name: inertWebText(e.ename), message: inertWebText(e.evalue), stack: inertWebText(notebookStack(e.traceback, e.frames)) })]);
  };

  /** A line of the runner's own (plain text) as stderr of the cell. */
  notice(text: string): void {
    this.stream('stderr', `[sandbox-runner] ${text}\n`);
  }

  /** Flushes partial characters held by the decoders and waits for every output call. */
  async done(): Promise<void> {
    for (const s of ['stdout', 'stderr'] as const) this.stream(s, this.decoders[s].decode());
    await this.queue;
  }

  private stream(stream: 'stdout' | 'stderr', raw: string): void {
    if (raw === '') return;
    const last = this.last;
    const inert = last?.stream === stream ? last.inert : new InertStream();
    const text = inert.push(raw);
    if (text === '') return;
    const item = stream === 'stdout' ? vscode.NotebookCellOutputItem.stdout(text) : vscode.NotebookCellOutputItem.stderr(text);
    if (last?.stream === stream) {
      this.then(() => this.exec.appendOutputItems(item, last.output));
      return;
    }
    const output = new vscode.NotebookCellOutput([item]);
    this.last = { stream, output, inert };
    this.then(() => this.exec.appendOutput(output));
  }

  private append(items: vscode.NotebookCellOutputItem[]): void {
    if (items.length === 0) return;
    this.last = undefined;
    const output = new vscode.NotebookCellOutput(items);
    this.then(() => this.exec.appendOutput(output));
  }

  private then(call: () => Thenable<void>): void {
    this.queue = this.queue.then(call, call);
  }
}
