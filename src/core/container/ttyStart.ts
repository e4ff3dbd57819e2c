/**
 * How a terminal run's container is started attached (issue 11): `docker start --attach
 * --interactive --detach-keys KEYS NAME`, with a detach sequence new per run that the code frame
 * can never end in (the engine would otherwise hold bytes of the frame back, or detach the run).
 * Not a floor flag: the floor is in argv.ts, which `buildTtyCreateArgv` applies to the container.
 */
import { assertValue } from './argv';

/** Characters the docker CLI accepts after `ctrl-` in `--detach-keys` that are letters (0x01…0x1a). */
const DETACH_LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** How many keys a run's detach sequence has (the first fixed, then 11 random letters: 25^11 ≈ 2.4e15 sequences). */
export const DETACH_KEYS_LENGTH = 12;

/**
 * A `--detach-keys` value for one terminal run. With a terminal the engine reads a detach
 * sequence out of the attached stdin (Docker: `copyEscapable`, default Ctrl-P Ctrl-Q, which cannot
 * be switched off; Podman the same), which would end the attachment while the program runs on.
 * Measured (Docker 20.10 engine, CLI 28, and Podman 4.3): a stdin chunk whose END matches the start
 * of the sequence is held back until the next chunk arrives, so a frame ending in it never
 * completes (the launcher waits for its last byte) and a typed key ending a chunk is delayed until
 * the next key. Hence: the first key is Ctrl-^ (0x1e), which a terminal sends only for Ctrl-^ or
 * Ctrl-6 (Ctrl-] 0x1d when the frame ends with 0x1e); the others are random `ctrl-a`…`ctrl-z`,
 * never the frame's last byte, so the frame can never end in a prefix of the sequence; the whole
 * sequence is new per run and never seen by the container.
 * @param random at least {@link DETACH_KEYS_LENGTH} - 1 random bytes (crypto `randomBytes`)
 * @param lastByte the code frame's last byte (0…255)
 * @throws RangeError for too few random bytes
 */
export function detachKeys(random: Uint8Array, lastByte: number): string {
  if (random.length < DETACH_KEYS_LENGTH - 1) throw new RangeError(`detachKeys needs ${DETACH_KEYS_LENGTH - 1} random bytes`);
  const letters = [...DETACH_LETTERS].filter((l) => l.charCodeAt(0) - 0x60 !== lastByte);
  const rest = [...random.subarray(0, DETACH_KEYS_LENGTH - 1)].map((b) => `ctrl-${letters[b % letters.length]}`);
  return [lastByte === 0x1e ? 'ctrl-]' : 'ctrl-^', ...rest].join(',');
}

/**
 * The arguments after `docker` that start a container of argv.ts `buildTtyCreateArgv` attached to
 * this process's pipes: `start --attach --interactive --detach-keys KEYS NAME` (Docker and Podman
 * alike). The CLI sends no resize of its own (its stdout is not a terminal).
 * @param keys from {@link detachKeys}
 * @throws SandboxError `invalid-profile` for a malformed name or keys (defence in depth)
 */
export function buildTtyStartArgv(name: string, keys: string): readonly string[] {
  assertValue(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name), 'the container name');
  assertValue(/^ctrl-[a-z@^_\]\\](,ctrl-[a-z@^_\]\\])*$/.test(keys), 'the detach keys');
  return ['start', '--attach', '--interactive', '--detach-keys', keys, name];
}
