/**
 * Built-in profiles, using official images from Docker Hub. Users pull these once
 * (`docker pull python:3.12-slim`); runs themselves never pull (`--pull never`). Also the
 * default of the masked-files setting, which the settings schema and the workspace mount share.
 */
import type { ProfileInput } from './profileSchema';

/** The built-in profiles by name; settings with the same name are merged over them key by key. */
export const BUILTIN_PROFILES: Readonly<Record<string, ProfileInput>> = Object.freeze({
  python: {
    image: 'python:3.12-slim',
    command: ['python3', '${file}'],
    languages: ['python'],
    extensions: ['.py'],
    // Unbuffered so output streams as it is printed; no .pyc writes into the read-only mount.
    env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    modulePathEnv: 'PYTHONPATH',
  },
  node: {
    image: 'node:20-slim',
    command: ['node', '${file}'],
    languages: ['javascript'],
    extensions: ['.js', '.mjs', '.cjs'],
    env: { NODE_ENV: 'development' },
    modulePathEnv: 'NODE_PATH',
  },
  shell: {
    image: 'debian:bookworm-slim',
    command: ['sh', '${file}'],
    languages: ['shellscript'],
    extensions: ['.sh'],
  },
});

/**
 * Globs hidden from the workspace mount by default (`sandboxRunner.maskedFiles`' default; `.git`
 * is hidden whatever the setting says; matching is in mounts/workspaceMask.ts).
 */
export const DEFAULT_MASK_GLOBS: readonly string[] = Object.freeze(['.env*', '*.pem', 'id_*', '.ssh', '.aws']);
