/**
 * One notebook cell's outputs from a sandbox session (issue 24): the session's cell events (core
 * session.ts `CellEvent`) become the cell execution's outputs as they arrive. Everything here is
 * untrusted data shown as data:
 * - stdout and stderr stream in as `NotebookCellOutputItem.stdout`/`stderr` text (decoded as UTF-8
 *   across chunk boundaries), consecutive chunks of one stream appended to one output;
 * - a displayed value becomes one output with an item per MIME type of the allow-list (core
 *   frames.ts `DISPLAY_MIMES`; the session already dropped every other type): text types as text,
 *   images from base64 to bytes, `application/json` as JSON. HTML and SVG render only where VS
 *   Code's own notebook output rules allow;
 * - an exception becomes `NotebookCellOutputItem.error` with the traceback as its stack, the
 *   frames of the cells' code linked to the cell's line and nothing else linked (core notebookTraceback.ts);
 * - the runner's notices (a bound passed, the session ended) are stderr text of the cell.
 */
import * as vscode from 'vscode';
import type { CellEvent } from '../core/session/session';
import type { DisplayData } from '../core/session/frames';
import { notebookStack } from '../core/session/notebookTraceback';

/** The display MIME types, in the order items are added. */
const MIMES = ['image/png', 'image/jpeg', 'image/svg+xml', 'text/html', 'text/markdown', 'application/json', 'text/plain'] as const;

/** The output items of a display bundle; values of the wrong kind (a text type that is not a string) are skipped. */
export function displayItems(data: DisplayData): vscode.NotebookCellOutputItem[] {
  const items: vscode.NotebookCellOutputItem[] = [];
  for (const mime of MIMES) {
    const value = data[mime];
    if (value === undefined) continue;
    if (mime === 'application/json') items.push(vscode.NotebookCellOutputItem.json(value, mime));
    else if (typeof value !== 'string') continue;
    else if (mime === 'image/png' || mime === 'image/jpeg') items.push(new vscode.NotebookCellOutputItem(Buffer.from(value, 'base64'), mime));
    else items.push(vscode.NotebookCellOutputItem.text(value, mime));
  }
  return items;
}

/** Streams one cell's events into its execution (see the file comment). */
export class CellOutputs {
  private readonly decoders = { stdout: new TextDecoder('utf-8'), stderr: new TextDecoder('utf-8') };
  /** The stream output the next chunk of the same stream is appended to. */
  private last: { readonly stream: 'stdout' | 'stderr'; readonly output: vscode.NotebookCellOutput } | undefined;
  /** Output calls in order: the execution's append calls are asynchronous. */
  private queue: Thenable<void> = Promise.resolve();

  constructor(private readonly exec: vscode.NotebookCellExecution) {}

  /** Takes one event of the cell (core `SandboxSession.execute`'s `onEvent`). */
  readonly onEvent = (e: CellEvent): void => {
    if (e.kind === 'stdout' || e.kind === 'stderr') this.stream(e.kind, this.decoders[e.kind].decode(e.bytes, { stream: true }));
    else if (e.kind === 'notice') this.stream('stderr', e.text);
    else if (e.kind === 'display') this.append(displayItems(e.data));
    else if (e.kind === 'error') this.append([vscode.NotebookCellOutputItem.error({ name: e.ename, message: e.evalue, stack: notebookStack(e.traceback, e.frames) })]);
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

  private stream(stream: 'stdout' | 'stderr', text: string): void {
    if (text === '') return;
    const item = stream === 'stdout' ? vscode.NotebookCellOutputItem.stdout(text) : vscode.NotebookCellOutputItem.stderr(text);
    const last = this.last;
    if (last?.stream === stream) {
      this.then(() => this.exec.appendOutputItems(item, last.output));
      return;
    }
    const output = new vscode.NotebookCellOutput([item]);
    this.last = { stream, output };
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
