/**
 * The "Sandbox Runner" output channel: each run framed by a header (what, profile, image, limits,
 * network, and the engine when known) and a footer (outcome and duration; the engine just before
 * it when it was not known at the start); program output streamed in between, decoded as
 * UTF-8 (invalid bytes shown as U+FFFD), with ANSI escape sequences stripped, stderr lines marked,
 * and very long lines cut with a marker.
 * Appends are batched (see OutputWriter). A copy of the last 1 MiB is kept for the exported API.
 * Concurrent runs (issue 12) share the channel: while more than one run is in progress, every line
 * a run writes starts with its short label (`[a.py#3] `), and a run's open line is ended before
 * another run writes, so no line mixes two runs.
 * Our own lines (header, footer, notices, refusals) quote names, settings and engine or program
 * text: they pass the same filter as program output.
 */
import * as l10n from '@vscode/l10n';
import type * as vscode from 'vscode';
import { Utf8Decoder } from '../core/output/output';
import { TerminalTextFilter } from '../core/output/terminalText';
import type { OutputSink, Profile, RunResult } from '../core';
import { OutputWriter } from './outputWriter';

/**
 * Environment for runs shown in the output channel: the channel is plain text and strips colour
 * codes anyway, so `NO_COLOR=1` (no-color.org) and `TERM=dumb` ask tools not to write them.
 * Not used by the CLI, whose output may go to a real terminal.
 */
export const CHANNEL_ENV: Readonly<Record<string, string>> = { NO_COLOR: '1', TERM: 'dumb' };

/**
 * The profile an output-channel run uses: `profile` with {@link CHANNEL_ENV} added to its `env`;
 * a variable the profile sets itself keeps the profile's value. A warm container is created with
 * its environment fixed, so the extension prepares warm containers with this same profile (the
 * pool matches containers to runs by the whole profile, see `warmKey`). Pure.
 */
export function channelRunProfile(profile: Profile): Profile {
  return { ...profile, env: { ...CHANNEL_ENV, ...profile.env } };
}

/** Marker put before each stderr line, so stderr stays distinguishable in a plain-text channel. */
export const STDERR_PREFIX = '[stderr] ';
/** Longest line shown, in characters; the rest of the line is replaced by a marker. */
export const MAX_LINE_CHARS = 4000;
/** Most separate line spans remembered per run (interleaved concurrent runs), for source links. */
const MAX_SPANS = 10_000;
/** Characters of channel text kept for `outputText()`. */
const MIRROR_CHARS = 1024 * 1024;

/** The marker at the end of a line cut at {@link MAX_LINE_CHARS}: how many characters were dropped. */
const cutMarker = (chars: number) => l10n.t(' … [{0} more characters cut]', chars);

/**
 * A run's short label for its lines while other runs are in progress: the last path segment of
 * `what` (cut to 24 characters), with the first line of a selection (`a.py:10`). Pure.
 */
export function shortLabel(what: string): string {
  const sel = /^selection of (.*) \(lines (\d+)-\d+\)$/.exec(what);
  const name = (sel ? sel[1]! : what).split(/[\\/]/).pop() || what;
  const cut = name.length > 24 ? `${name.slice(0, 23)}…` : name;
  return sel ? `${cut}:${sel[2]}` : cut;
}

/** `text` with `tag` before each non-empty line that starts in it (at its start when `atLineStart`, and after each line feed). Pure. */
function tagLines(text: string, tag: string, atLineStart: boolean): string {
  const inner = text.replace(/\n(?=[^\n])/g, `\n${tag}`);
  return atLineStart && !text.startsWith('\n') ? tag + inner : inner;
}

/** `text` through a fresh TerminalTextFilter: no escape sequences or control characters but tab and line feed. */
function filtered(text: string): string {
  const filter = new TerminalTextFilter();
  return filter.push(text) + filter.end();
}

/**
 * Per-stream line state: the stream's bytes are decoded (a character split across chunks waits
 * for its last byte), escape sequences go through the filter, and the current line is tracked.
 */
class LineShaper {
  private column = 0;
  private cut = 0;
  private readonly decoder = new Utf8Decoder();
  private readonly filter = new TerminalTextFilter();

  constructor(private readonly prefix: string) {}

  /** Shapes `bytes` (a piece of one stream) for the channel. */
  shape(bytes: Uint8Array): string {
    return this.lines(this.filter.push(this.decoder.push(bytes)));
  }

  /** Prefixes, counts and cuts lines of already filtered text. */
  private lines(clean: string): string {
    let out = '';
    for (const piece of clean.split(/(\n)/)) {
      if (piece === '\n') {
        if (this.cut > 0) out += cutMarker(this.cut);
        if (this.column === 0 && this.prefix) out += this.prefix;
        out += '\n';
        this.column = 0;
        this.cut = 0;
        continue;
      }
      if (!piece) continue;
      if (this.column === 0 && this.prefix) out += this.prefix;
      const room = MAX_LINE_CHARS - this.column;
      if (room > 0) out += piece.slice(0, room);
      this.cut += Math.max(0, piece.length - Math.max(room, 0));
      this.column += piece.length;
    }
    return out;
  }

  /** True while a line is open (text written without its newline yet). */
  get open(): boolean {
    return this.column > 0;
  }

  /** Ends the open line visually because the other stream writes; the rest continues on a new line. */
  interrupt(): string {
    const out = (this.cut > 0 ? cutMarker(this.cut) : '') + '\n';
    this.column = 0;
    this.cut = 0;
    return out;
  }

  /** Ends the stream: flushes a partial character (as U+FFFD) and closes an unterminated line. */
  end(): string {
    let out = this.lines(this.filter.push(this.decoder.end()) + this.filter.end());
    if (this.cut > 0) out += cutMarker(this.cut);
    if (this.column > 0) out += '\n';
    this.column = 0;
    this.cut = 0;
    return out;
  }
}

/** Writes framed runs to the program output channel. */
export class ProgramOutput {
  private readonly writer: OutputWriter;
  private mirror = '';
  /** Line feeds and characters queued so far (all of the channel's text, before batching). */
  private queuedLines = 0;
  private queuedChars = 0;
  /** Runs whose frame is open (begun, not ended), and the number of the last run begun. */
  private running = 0;
  private runSeq = 0;
  /** Whether the channel's last character is a line feed, and who wrote it (a frame's token; undefined: `line`). */
  private atLineStart = true;
  private lastWriter: object | undefined;
  private cleared = 0;

  constructor(private readonly channel: vscode.OutputChannel) {
    this.writer = new OutputWriter({ append: (text) => this.append(text) });
  }

  /** Queues `text` for the channel, counting its lines (for source links, sourceLinks.ts). */
  private queue(text: string): void {
    if (!text) return;
    this.queuedChars += text.length;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.queuedLines++;
    this.atLineStart = text.endsWith('\n');
    this.writer.write(text);
  }

  /** Ends the channel's open line when someone else (`writer`) left it open, so no line mixes two runs. */
  private takeLine(writer: object | undefined): void {
    if (!this.atLineStart && this.lastWriter !== writer) this.queue('\n');
    this.lastWriter = writer;
  }

  /** Line feeds written to the channel so far (queued included): the 0-based index of the line being written. */
  get lineCount(): number {
    return this.queuedLines;
  }

  private append(text: string): void {
    this.channel.append(text);
    this.mirror = (this.mirror + text).slice(-MIRROR_CHARS);
  }

  /** Text written so far (last 1 MiB), after batching is flushed. */
  text(): string {
    this.writer.flush();
    return this.mirror;
  }

  /** Shows the channel without taking focus (VS Code `OutputChannel.show(preserveFocus: true)`). */
  show(): void {
    this.channel.show(true);
  }

  /**
   * Clears the channel and the API's copy of it (`sandboxRunner.clearOutputBeforeRun`). Line
   * counts go on from where they were: source links find runs in a cleared channel by counting
   * back from its end (linkTargets.ts `RunLineIndex`).
   */
  clear(): void {
    this.writer.flush();
    this.channel.clear();
    this.mirror = '';
    this.cleared = this.queuedLines;
  }

  /** Line feeds written before the last `clear()` (0: never cleared): the channel's document starts there. */
  get clearedAt(): number {
    return this.cleared;
  }

  /**
   * Starts a run's frame; returns the sink for its output and a function that writes the footer.
   * @param engine which engine runs the code (core `describeEngine`), when known now; else give it
   *   to `end`, which writes it just before the footer (the header is never delayed for it)
   */
  begin(what: string, profileName: string, source: string, profile: Profile, engine?: string) {
    const l = profile.limits;
    const engineLine = (text: string) => filtered(l10n.t('  engine {0}', text.replace(/\n/g, ' '))) + '\n';
    const me = {};
    const tag = `[${filtered(shortLabel(what)).replace(/\n/g, ' ')}#${++this.runSeq}] `;
    this.running++;
    // The run's own text, untagged (the last 1 MiB), for its error site (sourceLinks.ts `runLines`).
    let own = '';
    // The channel lines this run's text went to (runs in flight together interleave), for source links.
    const spans: [number, number][] = [];
    const write = (text: string) => {
      if (!text) return;
      own = (own + text).slice(-MIRROR_CHARS);
      this.takeLine(me);
      const first = this.queuedLines;
      this.queue(this.running > 1 ? tagLines(text, tag, this.atLineStart) : text);
      const last = this.queuedLines - (this.atLineStart ? 1 : 0);
      const prev = spans[spans.length - 1];
      if (prev && first <= prev[1] + 1) prev[1] = Math.max(prev[1], last);
      else if (spans.length < MAX_SPANS) spans.push([first, last]);
    };
    const header = filtered(
        `\n▶ ${what.replace(/\n/g, ' ')}\n` +
          (profile.network === 'none'
            ? l10n.t('  profile {0} ({1}) · image {2} · network off', profileName, source, profile.image)
            : l10n.t('  profile {0} ({1}) · image {2} · network ON (bridge)', profileName, source, profile.image)) + '\n' +
          l10n.t('  limits {0} MiB memory, {1} CPU, {2} processes, {3} s, {4} bytes per stream', l.memoryMiB, l.cpus, l.pids, l.timeoutSeconds, l.outputBytes) + '\n',
    );
    // The header starts with a line feed (a blank line before it): its text is the line after.
    const headerLine = this.queuedLines + (this.atLineStart || this.lastWriter === me ? 1 : 2);
    write(header + (engine ? engineLine(engine) : ''));
    const headerText = (this.running > 1 ? tag : '') + header.split('\n')[1]!;
    const shapers = { stdout: new LineShaper(''), stderr: new LineShaper(STDERR_PREFIX) };
    const sink: OutputSink = (stream, data) => {
      if (stream === 'notice') {
        write(`${shapers.stdout.end()}${shapers.stderr.end()}${filtered(data).trim()}\n`);
        return;
      }
      // Lines of the two streams never share a line: an open line of the other stream is broken first.
      const other = shapers[stream === 'stdout' ? 'stderr' : 'stdout'];
      write((other.open ? other.interrupt() : '') + shapers[stream].shape(data));
    };
    let ended = false;
    const end = (result: RunResult, lateEngine?: string) => {
      const late = !engine && lateEngine ? engineLine(lateEngine) : '';
      write(shapers.stdout.end() + shapers.stderr.end() + late + `■ ${filtered(footer(result))}\n`);
      if (!ended) this.running--;
      ended = true;
      this.writer.flush();
    };
    /** The run's own text so far (its last 1 MiB; never another run's lines, never tagged). */
    const text = () => own;
    // headerLine/headerText/lines: where the run is in the channel, for its source links (sourceLinks.ts).
    return { sink, end, text, headerLine, headerText, lines: (): readonly (readonly [number, number])[] => spans };
  }

  /** Writes one line outside any run (e.g. a refused run). */
  line(text: string): void {
    this.takeLine(undefined);
    this.queue(filtered(text) + '\n');
  }
}

/**
 * The footer text for a result: outcome first, then duration, then the sandbox rule behind it
 * (a fact, or a hint from the exit status; see core rules.ts).
 */
export function footer(result: RunResult): string {
  const ms = l10n.t('{0} ms', Math.round(result.durationMs));
  const rule = result.rule ? ` · ${result.rule.text}` : '';
  const code = `${result.exitCode}${result.signal ? ` (${result.signal})` : ''}`;
  const own = result.exitCode === null ? '' : l10n.t(' · the program exited with code {0}', code);
  switch (result.outcome) {
    case 'exited':
      return l10n.t('exited with code {0} · {1}', code, ms) + rule;
    case 'compile-failed':
      return l10n.t('compilation failed (compiler exit code {0}) · {1}', code, ms);
    case 'timed-out':
      return l10n.t('timed out · {0} · {1}', ms, result.message);
    case 'cancelled':
      return l10n.t('cancelled · {0}', ms) + own + rule;
    case 'output-limit':
      return l10n.t('output limit exceeded · {0} · {1}', ms, result.message);
    case 'oom-killed':
      return l10n.t('killed: out of memory · {0} · {1}', ms, result.message);
    case 'failed-to-start':
    case 'engine-error':
      // The notification only names the kind of failure: the message and the fix are here.
      return l10n.t('failed · {0}', result.message) + (result.error?.fix && !result.message.includes(result.error.fix) ? ` ${result.error.fix}` : '');
  }
}
