/**
 * Profile factories of the suites: valid profiles (parsed by the product's own `ProfileSchema`,
 * so defaults are filled in and a factory can never build what a user could not) with
 * `overrides` merged in at the top level.
 */
import { ProfileSchema, type Profile } from '../../src/core/profiles/profileSchema';
import { TEST_IMAGES } from './images';

/**
 * The OCI runtime every suite profile asks for (`SANDBOX_RUNNER_TEST_RUNTIME`, e.g. `runsc` for
 * `npm run test:engine:gvisor`); undefined: the engine's default. A profile's own `runtime` override wins.
 */
export const TEST_RUNTIME = process.env.SANDBOX_RUNNER_TEST_RUNTIME || undefined;
const runtimeOf = () => (TEST_RUNTIME ? { runtime: TEST_RUNTIME } : {});

/**
 * The python test image running the snippet as `python3 ${file}` (unbuffered output).
 * @param overrides top-level profile keys (e.g. `{ network: 'bridge' }`, `{ limits: {…} }`)
 * @throws ZodError when the merged profile is not valid
 */
export function pythonProfile(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({
    image: TEST_IMAGES.python,
    command: ['python3', '${file}'],
    extensions: ['.py'],
    env: { PYTHONUNBUFFERED: '1' },
    ...runtimeOf(),
    ...overrides,
  });
}

/**
 * The busybox test image running the snippet as `sh ${file}` (the `shell` profile of the suites).
 * @param overrides top-level profile keys
 * @throws ZodError when the merged profile is not valid
 */
export function shellProfile(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({ image: TEST_IMAGES.busybox, command: ['sh', '${file}'], extensions: ['.sh'], ...runtimeOf(), ...overrides });
}

/**
 * The smallest valid profile, for unit tests that never reach an engine: image `img` (any name),
 * command `${file}`, with `overrides` merged in.
 * @throws ZodError when the merged profile is not valid
 */
export function profileOf(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({ image: 'img', command: ['${file}'], ...overrides });
}

/**
 * Overrides for a control that needs the opt-in bridge network: under gVisor the suites' runsc is
 * registered with `--network=none` (scripts/gvisor-up.sh; this kernel refuses runsc networking from
 * the root namespace), so the control runs under the engine's default runtime there.
 */
export const BRIDGE = { network: 'bridge', ...(TEST_RUNTIME === 'runsc' ? { runtime: undefined } : {}) } as const;

