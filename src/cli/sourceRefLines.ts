/**
 * The CLI's terminal display of source references (issue 11, "CLI"): in text already filtered
 * for a terminal, every reference to the in-container snippet path (core sourceRefs.ts) becomes
 * the host file's absolute path and real line. References are found per line, so a line is
 * rewritten once it is complete; an unfinished line is written at once unless its end could
 * still become a reference, and then at most {@link HOLD_MS} after holding began, as it is
 * (more text on the same line does not extend the hold) (a prompt such as
 * `input("/data> ")` is never held for good). Only for a terminal: piped output is never
 * rewritten (the run-fidelity rule: bytes as `docker run` passes them).
 */
import { rewriteSourceRefs, type SnippetOrigin } from '../core';

/** Longest time an unfinished line that could hold a reference is held back, in milliseconds. */
export const HOLD_MS = 100;

export class SourceRefLines {
  private held = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly roots: readonly string[];

  /**
   * @param origin where the run's code came from (core `snippetOrigin`)
   * @param write receives the display text, in order
   */
  constructor(
    private readonly origin: SnippetOrigin,
    private readonly write: (text: string) => void,
  ) {
    this.roots = [origin.snippetPath, ...(origin.mounts ?? []).map((m) => m.target.replace(/\/+$/, '') + '/')];
  }

  /** Takes the next piece of filtered text of one stream. */
  push(text: string): void {
    if (!text) return;
    const all = this.held + text;
    const nl = all.lastIndexOf('\n');
    const done = nl < 0 ? '' : all.slice(0, nl + 1);
    const tail = all.slice(nl + 1);
    const keep = this.unfinishedFrom(tail);
    this.held = tail.slice(keep);
    const out = this.rewrite(done) + tail.slice(0, keep);
    if (out) this.write(out);
    // The timer runs from when holding began and is not restarted by more text: a program
    // that keeps writing one unfinished line (a path under a mount, then more) in chunks
    // less than HOLD_MS apart would otherwise be held, unseen, until it stopped or ended.
    if (!this.held) this.clearTimer();
    else if (!this.timer) this.timer = setTimeout(() => this.release(), HOLD_MS).unref();
  }

  /** Ends the stream: `text` (the last filtered piece) and anything held, rewritten. */
  end(text = ''): void {
    this.clearTimer();
    const all = this.held + text;
    this.held = '';
    if (all) this.write(this.rewrite(all));
  }

  private release(): void {
    this.timer = undefined;
    const held = this.held;
    this.held = '';
    if (held) this.write(held);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private rewrite(lines: string): string {
    return lines.split('\n').map((line) => rewriteSourceRefs(line, this.origin)).join('\n');
  }

  /**
   * Where in `tail` (an unfinished line) a reference could still be completed: the first `/` or
   * `f` from which the rest is a root (or `file://` + root) or starts with one; `tail.length` when none.
   */
  private unfinishedFrom(tail: string): number {
    for (let i = 0; i < tail.length; i++) {
      if (tail[i] !== '/' && tail[i] !== 'f') continue;
      const rest = tail.slice(i);
      for (const root of this.roots) {
        for (const form of [root, `file://${root}`]) {
          if (form.startsWith(rest) || rest.startsWith(form)) return i;
        }
      }
    }
    return tail.length;
  }
}
