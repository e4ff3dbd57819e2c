/**
 * Built-in profiles, using official images from Docker Hub. Users pull these once
 * (`docker pull python:3.12-slim`); runs themselves never pull (`--pull never`).
 * Compiled languages (issue 23) compile in the same container with `compile`, writing the program
 * to `${out}` (/sandbox/a.out, an exec tmpfs of `limits.tmpfsMiB`); /tmp and HOME stay noexec.
 * Their limits are the toolchain's needs, measured on the test images (docs/languages.md).
 * Adding a language: one entry here, its error-site pattern (source/sourceRefs.ts `AFTER_PATH`,
 * when its runtime prints a form not yet there), its fence aliases (source/fenceLanguages.ts) and
 * its engine test (test/engine/languages.test.ts).
 * Also the default of the masked-files setting, which the settings schema and the workspace mount
 * share.
 */
import type { ProfileInput } from './profileSchema';

/** Limits of the built-ins that compile: a C++ or Go compiler needs more than the 512 MiB / 128 process default. */
const COMPILER_LIMITS = { memoryMiB: 1024, pids: 256, tmpfsMiB: 256 } as const;

/** The built-in profiles by name; settings with the same name are merged over them key by key. */
export const BUILTIN_PROFILES: Readonly<Record<string, ProfileInput>> = Object.freeze({
  python: {
    image: 'python:3.12-slim',
    command: ['python3', '${file}'],
    languages: ['python'],
    extensions: ['.py'],
    shebangs: ['python3', 'python'],
    // Unbuffered so output streams as it is printed; no .pyc writes into the read-only mount.
    env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    modulePathEnv: 'PYTHONPATH',
  },
  node: {
    image: 'node:20-slim',
    command: ['node', '${file}'],
    languages: ['javascript'],
    extensions: ['.js', '.mjs', '.cjs'],
    shebangs: ['node', 'nodejs'],
    env: { NODE_ENV: 'development' },
    modulePathEnv: 'NODE_PATH',
  },
  shell: {
    image: 'debian:bookworm-slim',
    command: ['sh', '${file}'],
    languages: ['shellscript'],
    extensions: ['.sh'],
    shebangs: ['sh', 'dash'],
  },
  bash: {
    image: 'debian:bookworm-slim',
    command: ['bash', '${file}'],
    languages: ['bash'],
    extensions: ['.bash'],
    shebangs: ['bash'],
  },
  c: {
    image: 'gcc:14',
    compile: ['gcc', '-o', '${out}', '${file}', '-lm'],
    command: ['${out}'],
    languages: ['c'],
    extensions: ['.c'],
    limits: COMPILER_LIMITS,
  },
  cpp: {
    image: 'gcc:14',
    compile: ['g++', '-o', '${out}', '${file}'],
    command: ['${out}'],
    languages: ['cpp'],
    extensions: ['.cpp', '.cc', '.cxx'],
    limits: COMPILER_LIMITS,
  },
  go: {
    image: 'golang:1.23',
    compile: ['go', 'build', '-o', '${out}', '${file}'],
    command: ['${out}'],
    languages: ['go'],
    extensions: ['.go'],
    // The build cache goes to HOME (noexec is fine for it); go's work directory to the exec
    // snippet tmpfs; nothing is downloaded (no network, no module proxy, no toolchain switch).
    env: { GOCACHE: '/home/sandbox/.cache/go-build', GOTMPDIR: '/sandbox', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOTELEMETRY: 'off', CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' },
    limits: { ...COMPILER_LIMITS, memoryMiB: 2048, pids: 512, tmpfsMiB: 512 },
  },
  rust: {
    image: 'rust:1.83-slim',
    // rustc's own default edition is 2015; snippets are written for the current one.
    compile: ['rustc', '--edition', '2021', '-o', '${out}', '${file}'],
    command: ['${out}'],
    languages: ['rust'],
    extensions: ['.rs'],
    // rustc (LLVM) and its linker (cc) need more than gcc; a debug binary is a few MB.
    limits: { ...COMPILER_LIMITS, memoryMiB: 2048 },
  },
  java: {
    image: 'eclipse-temurin:21-jdk',
    // The single-file source launcher: compiles in memory, runs the first top-level class
    // whatever its name (the snippet is main.java). SerialGC: fewer threads and less memory than
    // the default collector; no hsperfdata file in /tmp; C1 only, for the launcher's start.
    command: ['java', '-XX:+UseSerialGC', '-XX:-UsePerfData', '-XX:TieredStopAtLevel=1', '${file}'],
    languages: ['java'],
    extensions: ['.java'],
    // The JVM reserves a quarter of the memory limit as heap and starts ~15 threads before main.
    limits: { memoryMiB: 1024, pids: 256 },
  },
  typescript: {
    image: 'node:24-slim',
    // Node ≥ 22.18 / 23.6 strips the types of a .ts/.mts/.cts file and runs it (no type check).
    command: ['node', '${file}'],
    languages: ['typescript'],
    extensions: ['.ts', '.mts', '.cts'],
    env: { NODE_ENV: 'development' },
    modulePathEnv: 'NODE_PATH',
  },
  r: {
    image: 'r-base:4.4.1',
    command: ['Rscript', '${file}'],
    languages: ['r'],
    extensions: ['.r'],
    shebangs: ['Rscript'],
  },
  ruby: {
    image: 'ruby:3.3-slim',
    command: ['ruby', '${file}'],
    languages: ['ruby'],
    extensions: ['.rb'],
    shebangs: ['ruby'],
  },
  php: {
    image: 'php:8.3-cli',
    // Errors to stderr, once (the image's php.ini, if any, may log them as well as display them).
    command: ['php', '-d', 'display_errors=stderr', '-d', 'log_errors=0', '${file}'],
    languages: ['php'],
    extensions: ['.php'],
    shebangs: ['php'],
  },
  perl: {
    image: 'perl:5.40-slim',
    command: ['perl', '${file}'],
    languages: ['perl'],
    extensions: ['.pl'],
    shebangs: ['perl'],
  },
});

/**
 * Globs hidden from the workspace mount by default (`sandboxRunner.maskedFiles`' default; `.git`
 * is hidden whatever the setting says; matching is in mounts/workspaceMask.ts).
 */
export const DEFAULT_MASK_GLOBS: readonly string[] = Object.freeze(['.env*', '*.pem', 'id_*', '.ssh', '.aws']);
