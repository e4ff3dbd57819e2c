/**
 * code-server's output: written to the run's log file as it comes, kept as the last 2000 lines for
 * error messages, echoed when verbose, and watched for the "HTTP server listening on" line.
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { isNoise, verbose } from './logFilter';

/** The captured output of one server process. */
export interface ServerLog {
  /** Resolves with the port of the first "HTTP server listening on http(s)://HOST:PORT" line. */
  readonly port: Promise<number>;
  /** The last `lines` lines (noise filtered out unless `all`). */
  tail(lines?: number, all?: boolean): string;
  /** Closes the log file once everything written has been flushed. */
  end(): Promise<void>;
}

/** Captures `child`'s stdout and stderr into `file` (see the module comment). */
export function captureServerLog(child: ChildProcess, file: string): ServerLog {
  const log = createWriteStream(file);
  const ring: string[] = [];
  let listening: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => (listening = resolve));
  let partial = '';
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      ring.push(line);
      if (ring.length > 2000) ring.shift();
      if (verbose && !isNoise(line)) process.stderr.write(`[code-server] ${line}\n`);
      const m = /HTTP server listening on https?:\/\/[^\s/]*:(\d+)/.exec(line);
      if (m) listening(Number(m[1]));
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    port,
    tail: (lines = 60, all = false) =>
      [...ring, partial]
        .filter((l) => l && (all || !isNoise(l)))
        .slice(-lines)
        .join('\n'),
    end: () => new Promise<void>((resolve) => log.end(resolve)),
  };
}
