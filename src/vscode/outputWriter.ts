/**
 * Batched writes to an output channel: program output arrives in many small chunks, and one
 * `append` per chunk would flood the extension host's IPC. Text is collected and appended at most
 * every `intervalMs`, and never more than `maxBatchChars` at once.
 */
import type * as vscode from 'vscode';

export class OutputWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param channel the output channel written to
   * @param intervalMs flush period in milliseconds
   * @param maxBatchChars pending characters that force an immediate flush
   */
  constructor(
    private readonly channel: Pick<vscode.OutputChannel, 'append'>,
    private readonly intervalMs = 50,
    private readonly maxBatchChars = 64 * 1024,
  ) {}

  /** Queues text for the channel. */
  write(text: string): void {
    if (!text) return;
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= this.maxBatchChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Appends everything queued now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.channel.append(text);
  }
}
