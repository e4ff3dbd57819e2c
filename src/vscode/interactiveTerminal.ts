/**
 * The pseudoterminal of one interactive run (issue 11; VS Code `Pseudoterminal`,
 * `window.createTerminal({ name, pty })`, as in vscode-extension-samples' terminal-sample).
 * - What the user types (`handleInput`) goes to the program's stdin as UTF-8 bytes, unchanged:
 *   on the run's TTY, 0x03 (Ctrl+C) is the terminal's SIGINT and 0x04 (Ctrl+D) its end-of-file.
 * - The program's output (stdout and stderr, merged by the TTY) is decoded and passes
 *   {@link TtyTextFilter}: colours and cursor moves stay, sequences that reach outside the
 *   terminal (titles, clipboard, hyperlinks...) are dropped.
 * - Our own lines (header, result) quote file and profile names and engine text: they pass
 *   {@link TerminalTextFilter}, which leaves no escape sequence or control character at all.
 * - Closing the terminal while the run is active cancels it (the `onUserClose` callback); the
 *   terminal of a finished run stays open until the user closes it, and ignores input.
 * - The size: the first `open(initialDimensions)` gives the TTY's size, later `setDimensions`
 *   calls go to the `onResize` listeners (the runner forwards them to the engine).
 * Text written before VS Code opened the terminal is held and sent at `open`.
 * No engine code here; the class ships in the engine bundle (engineModule.ts) only to keep the
 * activation bundle small: interactiveRun.ts creates it through `engine()`.
 */
import { PassThrough } from 'node:stream';
import * as vscode from 'vscode';
import { Utf8Decoder } from '../core/output/output';
import { TerminalTextFilter } from '../core/output/terminalText';
import { TtyTextFilter, ttyResultLead } from '../core/output/ttyText';
import type { InteractiveIo, OutputSink, TtySize } from '../core';

/** The TTY size used when VS Code gives none at `open` (the terminal is not laid out yet). */
export const DEFAULT_TTY_SIZE: TtySize = { columns: 80, rows: 24 };

/** Characters of terminal text kept for {@link InteractiveTerminal.text} (tests, the exported API). */
const TRANSCRIPT_CHARS = 1024 * 1024;

/** `text` with no escape sequence or control character but line feeds, which become CRLF (a terminal needs the CR). */
export function terminalLine(text: string): string {
  const filter = new TerminalTextFilter();
  return (filter.push(text) + filter.end()).replace(/\n/g, '\r\n');
}

type Phase = 'waiting' | 'running' | 'finished' | 'closed';

export class InteractiveTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writeEmitter.event;
  /** The program's stdin (bytes typed after the code frame); ended when the run ends. */
  private readonly input = new PassThrough();
  private readonly resizeListeners = new Set<(size: TtySize) => void>();
  private readonly decoder = new Utf8Decoder();
  /** Counts in the program's sequences are clamped to the terminal's size (see TtyTextFilter). */
  private readonly filter = new TtyTextFilter(() => this.size ?? DEFAULT_TTY_SIZE);
  private phase: Phase = 'waiting';
  private transcript = '';
  /** Text written before VS Code opened the terminal (it would drop it), sent at `open`. */
  private held: string[] | undefined = [];
  private size: TtySize | undefined;
  private openedResolve: (() => void) | undefined;
  /** Resolves once VS Code called `open` (or the terminal closed first). */
  readonly opened = new Promise<void>((resolve) => (this.openedResolve = resolve));
  /** Called when the terminal closes, whatever the run's phase (e.g. to forget the terminal). */
  readonly closeListeners = new Set<() => void>();
  /** Called once when the user closes the terminal while the run is active (cancel the run). */
  onUserClose: (() => void) | undefined;

  /** Called by VS Code when the terminal is ready: output written before this is lost. */
  open(initialDimensions: vscode.TerminalDimensions | undefined): void {
    if (initialDimensions) this.size = toSize(initialDimensions);
    const held = this.held;
    this.held = undefined;
    if (held?.length && this.phase !== 'closed') this.writeEmitter.fire(held.join(''));
    this.openedResolve?.();
  }

  /** Called by VS Code when the user closes the terminal. */
  close(): void {
    const wasRunning = this.phase === 'running';
    this.phase = 'closed';
    // The cancel first: ending the input (a 0x04 on the TTY) could let the program exit by itself.
    if (wasRunning) this.onUserClose?.();
    this.input.end();
    this.openedResolve?.();
    this.writeEmitter.dispose();
    for (const listener of this.closeListeners) listener();
  }

  /** Keys typed, pasted text and `Terminal.sendText`: to the program while its run is active. */
  handleInput(data: string): void {
    if (this.phase === 'running') this.input.write(Buffer.from(data, 'utf8'));
  }

  /** The terminal was resized: the program's TTY follows (only positive sizes are passed on). */
  setDimensions(dimensions: vscode.TerminalDimensions): void {
    const size = toSize(dimensions);
    if (!size) return;
    this.size = size;
    for (const listener of this.resizeListeners) listener(size);
  }

  /** True once the user closed the terminal. */
  get closed(): boolean {
    return this.phase === 'closed';
  }

  /** What the terminal was sent so far (the last 1 MiB), escape sequences included. */
  text(): string {
    return this.transcript;
  }

  /**
   * Starts the run phase: input is passed on from now. Returns the run's live input (the TTY
   * sized as the terminal is now, or {@link DEFAULT_TTY_SIZE}) for `RunRequest.interactive`.
   */
  begin(): InteractiveIo {
    if (this.phase === 'waiting') this.phase = 'running';
    return {
      input: this.input,
      tty: this.size ?? DEFAULT_TTY_SIZE,
      onResize: (listener) => {
        this.resizeListeners.add(listener);
        return () => this.resizeListeners.delete(listener);
      },
    };
  }

  /** The run's output sink (`RunRequest.onOutput`): program bytes filtered, runner notices as our own lines. */
  readonly sink: OutputSink = (stream, data) => {
    if (stream === 'notice') this.write(`\r\n${terminalLine(data.trim())}\r\n`);
    else this.write(this.filter.push(this.decoder.push(data)));
  };

  /** Writes one line of our own (untrusted parts are filtered), dimmed, on a line of its own. */
  line(text: string): void {
    this.write(`\x1b[2m${terminalLine(text)}\x1b[0m\r\n`);
  }

  /**
   * Ends the run phase: flushes the program's last partial character, ends its stdin, resets
   * colours and writes `summary` (our own line) on a new line. Input is ignored from now on.
   */
  finish(summary: string): void {
    if (this.phase !== 'closed') this.phase = 'finished';
    this.input.end();
    this.resizeListeners.clear();
    this.write(this.filter.push(this.decoder.end()) + this.filter.end());
    // The terminal back to plain (a program stopped mid-way, or a hostile one, may have left modes
    // on that hide or garble the result line) and the result on a cleared line of its own.
    this.write(ttyResultLead(this.transcript.endsWith('\n')));
    this.write(`\x1b[1m${terminalLine(summary)}\x1b[0m\r\n`);
  }

  private write(text: string): void {
    if (!text) return;
    this.transcript = (this.transcript + text).slice(-TRANSCRIPT_CHARS);
    if (this.phase === 'closed') return;
    if (this.held) this.held.push(text);
    else this.writeEmitter.fire(text);
  }
}

/** A VS Code size as a TTY size; undefined when VS Code has no layout yet (0 or missing). */
function toSize(d: vscode.TerminalDimensions): TtySize | undefined {
  return d.columns > 0 && d.rows > 0 ? { columns: d.columns, rows: d.rows } : undefined;
}
