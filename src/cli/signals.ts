/**
 * Which process signals mean "stop the run" to `sandbox-run`, per client OS (Node's "Signal
 * events" docs). POSIX: SIGINT (Ctrl-C), SIGTERM, SIGHUP (the terminal went away). Windows has
 * no POSIX signals: Node emits SIGINT for Ctrl-C in a console (also in Windows Terminal), SIGBREAK
 * for Ctrl-Break, and SIGHUP when the console window is closed (Windows then ends the process
 * about 10 s later, so the first interrupt must start the removal at once); SIGTERM is never
 * delivered there (`process.kill(pid, 'SIGTERM')` terminates outright), so it is not listened for.
 * The first of these interrupts the program, the second removes the container (main.ts).
 */

/** The signals `sandbox-run` handles on `platform` (default `process.platform`). */
export function interruptSignals(platform: NodeJS.Platform = process.platform): readonly NodeJS.Signals[] {
  return platform === 'win32' ? ['SIGINT', 'SIGBREAK', 'SIGHUP'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
}
