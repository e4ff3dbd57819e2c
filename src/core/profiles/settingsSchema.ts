/**
 * The `contributes.configuration` section of package.json, generated from the zod schemas so the
 * settings editor's validation and the runner's validation never drift. `npm run gen:schema`
 * writes it into package.json; a unit test fails when package.json is stale.
 *
 * What zod writes and what is written here (issue 21, checked with zod 4.6.7):
 * - Every value with a zod schema (a profile, the default limits) is zod 4's own
 *   `z.toJSONSchema` (draft 7, input side, descriptions from the global registry); the only
 *   post-processing is dropping `$schema`, which zod always writes and VS Code does not need.
 * - The settings around them (`scope`, `markdownDescription`, `enumDescriptions`, `default`) are
 *   VS Code's extensions to JSON schema and are written here as plain JSON. The settings without a
 *   profile or limits schema (`interactive`, `revealOutput`, `warmStart`, `warmIdleSeconds`,
 *   `maskedFiles`, the engine and agent tool settings) have no zod schema to generate from: they
 *   are read in the activation bundle (src/vscode/settings.ts, agentTool.ts, engineChoice.ts)
 *   with plain checks, because zod's module code runs only on first validation (zodLoader.ts,
 *   issue 12's activation budget); a zod schema for them would exist only to print this JSON.
 *   Their bounds are repeated where they are read (e.g. `warmIdleSeconds` 10-86400 in settings.ts).
 */
import * as z from 'zod/mini';
import { SETTING_KEYS, settingId, type SettingKey } from '../layout';
import { limitsSchema } from './limits';
import { profileSchema as profileZod } from './profileSchema';
import { DEFAULT_MASK_GLOBS } from './defaults';
import { dependencySettingsSchemas } from './dependencySettings';

type JsonSchema = Record<string, unknown>;

/** Removes keys VS Code's settings schema does not need (`$schema`). */
function clean(schema: JsonSchema): JsonSchema {
  const rest = { ...schema };
  delete rest.$schema;
  return rest;
}

/** The JSON schema (draft 7) of the values `schema` accepts as input, without `$schema`. */
function inputSchema(schema: z.ZodMiniType): JsonSchema {
  return clean(z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as JsonSchema);
}

/** The run settings: the profiles, the default profile and the default limits. */
function runSettings(profileSchema: JsonSchema) {
  return {
    profiles: {
      type: 'object',
      default: {},
      markdownDescription:
        'Sandbox profiles by name. A profile named like a built-in one (`python`, `node`, `shell`) is merged over it key by key; a new profile needs at least `image` and `command`.',
      additionalProperties: profileSchema,
      scope: 'resource',
    },
    defaultProfile: {
      type: 'string',
      default: '',
      markdownDescription: 'Profile used when no profile lists the document\'s language or extension (empty: none).',
      scope: 'resource',
    },
    timeoutSeconds: {
      ...inputSchema(limitsSchema().shape.timeoutSeconds),
      markdownDescription: 'Default wall-clock limit in seconds for profiles that do not set `limits.timeoutSeconds`.',
      scope: 'resource',
    },
    outputBytes: {
      ...inputSchema(limitsSchema().shape.outputBytes),
      markdownDescription: 'Default bytes kept per stream for profiles that do not set `limits.outputBytes`; the first byte past it ends the run.',
      scope: 'resource',
    },
  };
}

/** How runs show themselves: a terminal or the output channel, Markdown lenses, the channel's clearing and reveal. */
function outputSettings() {
  return {
    interactive: {
      type: 'string',
      enum: ['never', 'always'],
      enumDescriptions: [
        'Run commands show output in the Sandbox Runner output channel; the program\'s stdin is empty.',
        'Run commands open a terminal for each run, as "Run in Sandbox (Interactive)" does: what you type goes to the program (a TTY).',
      ],
      default: 'never',
      markdownDescription:
        'Whether the Run in Sandbox commands (Run, Run File, Run Selection, Run with Profile) are interactive: `always` gives each run a terminal of its own where the program reads what you type (`input()`, `scanf`) and shows its output, with stdout and stderr merged. The sandbox is the same either way. "Run in Sandbox (Interactive)" is always interactive. An interactive run needs `sh` and `stty` in the image and always starts a new container.',
      scope: 'resource',
    },
    markdownCodeLens: {
      type: 'boolean',
      default: true,
      markdownDescription:
        'Show a "Run in Sandbox" CodeLens above each fenced code block of a Markdown file whose language a profile runs (through the profiles\' `languages` and the fence-name aliases: `py` → python, `js`/`node`/`mjs` → javascript, `sh`/`bash`/`shell` → shellscript, …). A block runs as a selection does, and its errors point at the Markdown lines.',
      scope: 'resource',
    },
    clearOutputBeforeRun: {
      type: 'boolean',
      default: false,
      markdownDescription:
        'Clear the Sandbox Runner output channel before each run. Runs still in progress keep writing to it; the channel is not cleared while another run is in progress.',
      scope: 'resource',
    },
    revealOutput: {
      type: 'string',
      enum: ['always', 'onError', 'never'],
      enumDescriptions: [
        'Bring the Sandbox Runner output channel forward when a run starts (the editor keeps the keyboard focus).',
        'Bring it forward only when a run did not exit with code 0 (a failure, a non-zero exit, a timeout, a limit or a cancel).',
        'Never bring it forward; "Sandbox Runner: Show Output" still shows it.',
      ],
      default: 'always',
      markdownDescription:
        'When a run in the output channel brings the channel forward. Only `always` shows the Output panel at every run; none takes the keyboard focus from the editor. Interactive runs show their terminal instead.',
      scope: 'resource',
    },
  };
}

/** User-only settings about the host: warm start and the workspace mount's masks. */
function hostSettings() {
  return {
    warmStart: {
      type: 'string',
      enum: ['built-in', 'all', 'off'],
      enumDescriptions: [
        'Keep one started container ready for each built-in profile (same isolation; each container serves one run).',
        'Keep one started container ready for every profile that has run or whose language is open.',
        'Always create the container when the run starts.',
      ],
      default: 'built-in',
      markdownDescription: 'Warm start: which profiles keep one fresh container started ahead of time, so a run answers faster. A container never serves a second run. User settings only: never read from workspace settings.',
      scope: 'application',
    },
    warmIdleSeconds: {
      type: 'number',
      minimum: 10,
      maximum: 86400,
      default: 300,
      markdownDescription: 'An unused warm container is removed after this many seconds. User settings only: never read from workspace settings.',
      scope: 'application',
    },
    maskedFiles: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [...DEFAULT_MASK_GLOBS],
      markdownDescription:
        'Files and folders hidden from a profile\'s read-only workspace mount (`"workspace": "ro"`), at any depth: globs matched against each name and its path in the folder, in any letter case (`*` also matches names starting with `.`). `.git` and every file with more than one hard link are always hidden. A folder becomes an empty read-only folder, a file an empty one. User settings only: never read from workspace settings.',
      scope: 'application',
    },
  };
}

/** The engine choice (machine-scoped). */
function engineSettings() {
  return {
    preferRuntime: {
      type: 'string',
      enum: ['', 'runsc'],
      default: '',
      markdownDescription:
        'An OCI runtime every profile without its own `runtime` uses when the engine offers it: `runsc` (gVisor: the program talks to a user-space kernel, not the host\'s; slower to start). Empty: the engine\'s default runtime. The run\'s header and footer name the runtime it used. Machine-scoped: never read from workspace settings.',
      scope: 'machine',
    },
    dockerPath: {
      type: 'string',
      default: 'docker',
      markdownDescription: 'The docker CLI executable. Machine-scoped: never read from workspace settings.',
      scope: 'machine',
    },
    dockerContext: {
      type: 'string',
      default: '',
      pattern: '^$|^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$',
      markdownDescription:
        'The docker context whose engine runs the code (`docker context ls`), e.g. `colima`. Empty: `DOCKER_HOST`, `DOCKER_CONTEXT` or the current context decide, as for `docker` in a terminal. `#sandboxRunner.dockerHost#` wins when both are set. Machine-scoped: never read from workspace settings.',
      scope: 'machine',
    },
    dockerHost: {
      type: 'string',
      default: '',
      pattern: '^$|^(unix|tcp|ssh|npipe|fd|http|https)://[\\x21-\\x7e]{0,480}$',
      markdownDescription:
        'The engine address that runs the code, as `DOCKER_HOST` takes it, e.g. `ssh://me@build-host` or `unix:///run/user/1000/docker.sock`. Empty: the environment and the current context decide. A profile with mounts runs on an engine only where that engine sees the same files at the same path (checked once per folder). Machine-scoped: never read from workspace settings.',
      scope: 'machine',
    },
  };
}

/** Issue 14: the language model tool (src/vscode/agentTool.ts). */
function agentToolSettings() {
  return {
    // 120 is core agentRun.ts's DEFAULT_AGENT_MAX_TIMEOUT_SECONDS (not imported: that module's schema would join the barrel's bundles).
    'agentTool.enabled': {
      type: 'boolean',
      default: true,
      markdownDescription:
        'Offer the **Run in Sandbox** language model tool (`sandboxRunner_run`) to chat agents, and list the `sandbox-run --mcp` server among VS Code\'s MCP servers. When off, the tool is not offered to agents, and a call that still arrives is refused with a message saying so. User settings only: never read from workspace settings.',
      scope: 'application',
    },
    'agentTool.maxTimeoutSeconds': {
      type: 'number',
      minimum: 0.1,
      maximum: 86400,
      default: 120,
      markdownDescription:
        'Cap on the wall-clock limit of a run an agent starts through the language model tool, in seconds: the requested `timeoutSeconds` (else the profile\'s) is lowered to this. User settings only: never read from workspace settings.',
      scope: 'application',
    },
  };
}

/** Issue 22: how dependency sets are installed (machine-scoped; zod schemas in dependencySettings.ts). */
function installSettings() {
  const s = dependencySettingsSchemas();
  const machine = ' Machine-scoped: never read from workspace settings.';
  return {
    'dependencies.network': {
      ...inputSchema(s.network),
      markdownDescription:
        'The Docker network of the container that installs a run\'s declared dependencies (PEP 723 `# /// script` blocks, profile `dependencies`, an agent\'s `dependencies`); the program itself always runs on its profile\'s network. For registry-only egress name an `--internal` network that holds your mirror or proxy (see docs/dependencies.md). `host` is refused.' + machine,
      scope: 'machine',
    },
    'dependencies.pipIndexUrl': {
      ...inputSchema(s.pipIndexUrl),
      markdownDescription: 'The PEP 503 index pip installs from, set as `PIP_INDEX_URL` in the install container only (never in the run). Empty: the extension host\'s `PIP_INDEX_URL`, else pip\'s default (PyPI). Part of the cache key of an installed set.' + machine,
      scope: 'machine',
    },
    'dependencies.npmRegistry': {
      ...inputSchema(s.npmRegistry),
      markdownDescription: 'The npm registry npm installs from, set as `npm_config_registry` in the install container only (never in the run). Empty: the extension host\'s `npm_config_registry`, else npm\'s default.' + machine,
      scope: 'machine',
    },
    'dependencies.installTimeoutSeconds': {
      ...inputSchema(s.installTimeoutSeconds),
      markdownDescription: 'Longest an install may take, in seconds; past it the install container is removed, nothing is published and the program does not run (CLI `--install-timeout`).' + machine,
      scope: 'machine',
    },
    'dependencies.maxSetMiB': {
      ...inputSchema(s.maxSetMiB),
      markdownDescription: 'Largest installed dependency set, in MiB; a larger set is refused and nothing is published (CLI `--max-set-mib`).' + machine,
      scope: 'machine',
    },
    'dependencies.cacheMaxMiB': {
      ...inputSchema(s.cacheMaxMiB),
      markdownDescription: 'Size of all installed dependency sets on an engine, in MiB: after an install, the least recently used sets are removed until the rest fit (sets a run is using are kept). "Sandbox Runner: Clear Dependency Cache" removes them all (CLI `--cache-max-mib`, `--prune-deps`).' + machine,
      scope: 'machine',
    },
  };
}

/** Issue 24: sessions of notebooks and of the agent tool (src/vscode/sessionIdle.ts reads it from user settings only, with the same bounds). */
function sessionSettings() {
  return {
    'sessions.idleSeconds': {
      type: 'number',
      minimum: 60,
      maximum: 86400,
      default: 1800,
      markdownDescription:
        'A sandbox session (a notebook\'s kernel, or a chat agent\'s session of the Run in Sandbox tool: its container and the Python state in it) is closed after this many seconds without a cell running; a notebook\'s next cell starts a new session, an agent is told its session ended. User settings only: never read from workspace settings.',
      scope: 'application',
    },
    'notebooks.richOutput': {
      type: 'boolean',
      default: false,
      markdownDescription:
        'Show HTML, SVG and Markdown outputs of sandbox notebook kernels\' cells. Off (the default): a cell\'s outputs are text, PNG and JPEG images and JSON only, which VS Code shows without loading anything or running script; HTML, SVG and Markdown outputs are dropped, because their renderers load remote images and run the output\'s scripts, so a cell could send what it read to another host through the editor even when its container has no network. On: those outputs render as VS Code\'s notebook rules allow, and the kernel\'s description and the status bar say "rich output ON". User settings only: never read from workspace settings (src/vscode/notebookRich.ts).',
      scope: 'application',
    },
  };
}

/**
 * The configuration contribution: every key of {@link SETTING_KEYS}, as `sandboxRunner.<key>`, in
 * that order.
 * Profiles are partial in settings: a profile named like a built-in one is merged over it,
 * so only new profiles need `image` and `command` (checked at run time with the full schema).
 */
export function settingsContribution(): JsonSchema {
  const profileSchema = inputSchema(z.partial(profileZod()));
  const byKey: Record<SettingKey, JsonSchema> = {
    ...runSettings(profileSchema), ...outputSettings(), ...hostSettings(), ...engineSettings(), ...agentToolSettings(), ...installSettings(), ...sessionSettings(),
  };
  return {
    title: 'Sandbox Runner',
    properties: Object.fromEntries(SETTING_KEYS.map((key) => [settingId(key), byKey[key]])),
  };
}
