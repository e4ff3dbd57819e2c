/**
 * The settings and commands reference (docs/settings.md, docs/commands.md), rendered from
 * package.json and package.nls.json. Pure: the caller reads the two JSON files and writes the
 * pages (scripts/gen-reference.ts, `npm run gen:reference`); test/unit/reference.test.ts renders
 * them again and fails when the committed pages differ.
 *
 * package.json is ours, but its text still goes through the Markdown escapes below: a `|` in a
 * description or a pattern would otherwise end a table cell, and a backtick in a value would end
 * its code span.
 */

/** The parts of package.json the reference reads (loosely typed: it is generated JSON). */
export interface PackageJson {
  readonly contributes: {
    readonly commands: readonly Command[];
    readonly menus: Readonly<Record<string, readonly MenuItem[]>>;
    readonly keybindings: readonly Keybinding[];
    readonly configuration: { readonly title?: string; readonly properties: Readonly<Record<string, Schema>> };
    readonly languageModelTools?: readonly Tool[];
    readonly walkthroughs?: readonly { readonly steps?: readonly { readonly description?: string }[] }[];
  };
  readonly capabilities?: { readonly untrustedWorkspaces?: { readonly restrictedConfigurations?: readonly string[] } };
}

/** One `contributes.commands` entry. */
interface Command {
  readonly command: string;
  readonly title: string;
  readonly category?: string;
  readonly enablement?: string;
}

/** One menu entry of `contributes.menus`. */
interface MenuItem {
  readonly command?: string;
  readonly when?: string;
  readonly group?: string;
}

/** One `contributes.keybindings` entry. */
interface Keybinding {
  readonly command: string;
  readonly key: string;
  readonly mac?: string;
  readonly when?: string;
}

/** One `contributes.languageModelTools` entry. */
interface Tool {
  readonly name: string;
  readonly displayName: string;
  readonly toolReferenceName?: string;
  readonly userDescription?: string;
  readonly inputSchema?: Schema;
  readonly when?: string;
}

/** The JSON-schema fields the reference shows. */
export interface Schema {
  readonly type?: string | readonly string[];
  readonly default?: unknown;
  readonly description?: string;
  readonly markdownDescription?: string;
  readonly enum?: readonly unknown[];
  readonly enumDescriptions?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly pattern?: string;
  readonly scope?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly required?: readonly string[];
}

/** package.nls.json: `%key%` placeholders of package.json and their English text. */
export type Nls = Readonly<Record<string, string>>;

const GENERATED = (what: string): string =>
  `<!-- Generated from package.json by \`npm run gen:reference\` (scripts/reference.ts); do not edit. ${what} -->`;

/** `%key%` → its English text from package.nls.json; other strings unchanged. Throws on a missing key. */
export function localize(text: string, nls: Nls): string {
  const m = /^%([^%]+)%$/.exec(text);
  if (!m) return text;
  const value = nls[m[1]!];
  if (value === undefined) throw new Error(`package.nls.json has no "${m[1]}"`);
  return value;
}

/** Text for one table cell: line breaks become spaces, `|` is escaped (also inside code spans, as GFM tables require). */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim();
}

/** Plain text as Markdown: every character CommonMark could read as markup is backslash-escaped. */
export function plain(text: string): string {
  return text.replace(/[\\`*_[\]<>#!~&]/g, (c) => `\\${c}`);
}

/** A code span holding `text` exactly: a backtick run longer than any inside it, padded when needed. */
export function code(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^`|`$/.test(text) || /^ .* $/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A setting's Markdown description with VS Code's `#setting.id#` links made into page anchors. */
function markdown(text: string): string {
  return text.replace(/`?#(sandboxRunner\.[A-Za-z.]+)#`?/g, (_m, id: string) => `[\`${id}\`](#${anchor(id)})`);
}

/** GitHub's heading anchor for a heading that is exactly `` `id` ``. */
export function anchor(id: string): string {
  return id.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');
}

/**
 * Plain text that marks code with backticks (package.json's `description`s do), as Markdown: each
 * `…` pair becomes a code span holding exactly its text, everything else is escaped by {@link plain}.
 */
export function plainWithCode(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) => (i % 2 === 1 ? code(part.slice(1, -1)) : plain(part)))
    .join('');
}

/** The description of a schema node: its Markdown one, else its plain one escaped. */
function describe(s: Schema): string {
  if (s.markdownDescription !== undefined) return markdown(s.markdownDescription);
  return s.description !== undefined ? plainWithCode(s.description) : '';
}

/** The type of a schema node in words, e.g. `integer 8–4096`, `"none" \| "bridge"`. */
function typeOf(s: Schema): string {
  if (s.enum) return s.enum.map((v) => code(JSON.stringify(v))).join(' or ');
  const type = Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
  const parts = [type === 'array' && s.items?.type ? `array of ${String(s.items.type)}` : type];
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? `>${s.exclusiveMinimum}` : undefined);
  if (min !== undefined && s.maximum !== undefined) parts.push(`${min}–${s.maximum}`);
  else if (min !== undefined) parts.push(`≥ ${min}`.replace('≥ >', '> '));
  else if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  if (s.pattern !== undefined) parts.push(`matching ${code(s.pattern)}`);
  return parts.join(', ');
}

/** A default value as a code span, or an em dash when there is none. */
function defaultOf(s: Schema): string {
  return s.default === undefined ? '—' : code(JSON.stringify(s.default));
}

/** Where a setting may be set, from its `scope` and the Restricted Mode list. */
function whereSet(id: string, s: Schema, restricted: ReadonlySet<string>): string {
  const scope = s.scope ?? 'window';
  if (scope === 'machine') return 'user settings only (machine); a workspace value is ignored';
  if (scope === 'application') return 'user settings only; a workspace value is ignored';
  const per = scope === 'resource' ? 'user, workspace or workspace folder' : 'user or workspace';
  return restricted.has(id) ? `${per}; Restricted Mode ignores the workspace value` : per;
}

/** Rows `key | type | default | description` for an object schema's properties, nested objects flattened (`limits.pids`). */
function propertyRows(props: Readonly<Record<string, Schema>>, prefix = ''): string[] {
  const rows: string[] = [];
  for (const [name, s] of Object.entries(props)) {
    const key = prefix + name;
    if (s.type === 'object' && s.properties) {
      rows.push(`| ${code(key)} | object | ${cell(defaultOf(s))} | ${cell(describe(s))} |`);
      rows.push(...propertyRows(s.properties, `${key}.`));
    } else if (s.type === 'array' && s.items?.properties) {
      rows.push(`| ${code(key)} | array of objects | ${cell(defaultOf(s))} | ${cell(describe(s))} ${cell(describe(s.items))} |`);
      rows.push(...propertyRows(s.items.properties, `${key}[].`));
    } else {
      rows.push(`| ${code(key)} | ${cell(typeOf(s))} | ${cell(defaultOf(s))} | ${cell(describe(s))} |`);
    }
  }
  return rows;
}

const TABLE_HEAD = ['| key | type | default | description |', '|---|---|---|---|'];

/** docs/settings.md: every setting with its type, default, where it may be set and its description; then the profile keys. */
export function renderSettings(pkg: PackageJson): string {
  const restricted = new Set(pkg.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? []);
  const out = [GENERATED('Descriptions come from contributes.configuration.'), '', '# Settings reference', ''];
  out.push(
    'Every setting of Sandbox Runner, as the Settings editor shows it. "User settings only" settings are never',
    'read from a workspace (a cloned repository cannot choose your engine or weaken warm start); see',
    '[SECURITY.md](../SECURITY.md) for the trust model and [profiles.md](profiles.md) for how profiles merge.',
    '',
  );
  for (const [id, s] of Object.entries(pkg.contributes.configuration.properties)) {
    out.push(`## ${code(id)}`, '', describe(s), '');
    out.push(`- Type: ${typeOf(s)}`);
    out.push(`- Default: ${defaultOf(s)}`);
    out.push(`- Set in: ${whereSet(id, s, restricted)}`);
    if (s.enum && s.enumDescriptions) {
      out.push('- Values:');
      s.enum.forEach((v, i) => out.push(`  - ${code(JSON.stringify(v))}: ${plain(s.enumDescriptions![i] ?? '')}`));
    }
    out.push('');
    const profile = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (profile?.properties) {
      out.push(`### Profile keys`, '', `Each value of ${code(id)} is a profile with these keys (required: ${(profile.required ?? ['image', 'command']).map(code).join(', ')} for a new profile).`, '');
      out.push(...TABLE_HEAD, ...propertyRows(profile.properties), '');
    }
  }
  return out.join('\n').replace(/\n+$/, '\n');
}

/** Menu locations of one command, named as a user finds them. */
function placesOf(id: string, menus: PackageJson['contributes']['menus'], walkthroughLinks: ReadonlySet<string>): string[] {
  const names: Record<string, string> = {
    'editor/context': 'editor context menu',
    'editor/title/run': "editor title's run menu",
    'editor/title': 'editor title',
    'explorer/context': 'explorer context menu',
    'view/title': 'Sandbox Profiles view title',
    'view/item/context': 'Sandbox Profiles view items',
  };
  const places: string[] = [];
  if (walkthroughLinks.has(id)) places.push('Get Started walkthrough');
  const palette = menus.commandPalette?.find((m) => m.command === id);
  if (!palette || palette.when !== 'false') places.push('command palette');
  for (const [menu, items] of Object.entries(menus)) {
    if (menu !== 'commandPalette' && items.some((m) => m.command === id)) places.push(names[menu] ?? menu);
  }
  return places;
}

/** Commands a walkthrough step links to (`command:ID` in its description). */
function walkthroughCommands(pkg: PackageJson, nls: Nls): Set<string> {
  const ids = new Set<string>();
  for (const w of pkg.contributes.walkthroughs ?? []) {
    for (const step of w.steps ?? []) {
      for (const m of localize(step.description ?? '', nls).matchAll(/\(command:([A-Za-z0-9_.]+)/g)) ids.add(m[1]!);
    }
  }
  return ids;
}

/** A key chord as written in package.json, capitalised: `ctrl+alt+r` → `Ctrl+Alt+R`. */
function chord(key: string): string {
  return key
    .split(' ')
    .map((c) => c.split('+').map((k) => (k.length === 1 ? k.toUpperCase() : k[0]!.toUpperCase() + k.slice(1))).join('+'))
    .join(' ');
}

/** docs/commands.md: every command with its title, id and where it appears; the keybindings; the language model tool's input. */
export function renderCommands(pkg: PackageJson, nls: Nls): string {
  const c = pkg.contributes;
  const out = [GENERATED('Titles come from package.nls.json.'), '', '# Commands reference', ''];
  out.push(
    'Commands are in the category "Sandbox Runner". A command listed without "command palette" is offered only where',
    'shown; one shown nowhere (—) is offered by the extension itself, e.g. as a CodeLens.',
    '',
  );
  const links = walkthroughCommands(pkg, nls);
  out.push('| title | id | where | enabled when |', '|---|---|---|---|');
  for (const cmd of c.commands) {
    const title = plain(localize(cmd.title, nls));
    const places = placesOf(cmd.command, c.menus, links).join(', ') || '—';
    out.push(`| ${cell(title)} | ${code(cmd.command)} | ${cell(places)} | ${cmd.enablement ? code(cell(cmd.enablement)) : 'always'} |`);
  }
  out.push('', '## Keybindings', '', '| key | macOS | command | when |', '|---|---|---|---|');
  for (const k of c.keybindings) {
    const cmd = c.commands.find((x) => x.command === k.command);
    const title = cmd ? plain(localize(cmd.title, nls)) : code(k.command);
    out.push(`| ${cell(chord(k.key))} | ${cell(chord(k.mac ?? k.key))} | ${cell(title)} | ${k.when ? code(cell(k.when)) : 'always'} |`);
  }
  for (const tool of c.languageModelTools ?? []) {
    out.push('', `## Language model tool: ${plain(localize(tool.displayName, nls))}`, '');
    out.push(`Name ${code(tool.name)}${tool.toolReferenceName ? `, referenced in a prompt as ${code(`#${tool.toolReferenceName}`)}` : ''}${tool.when ? `; offered when ${code(tool.when)}` : ''}.`);
    if (tool.userDescription) out.push('', plain(localize(tool.userDescription, nls)));
    if (tool.inputSchema?.properties) {
      const required = new Set(tool.inputSchema.required ?? []);
      out.push('', 'Input:', '', '| key | type | required | description |', '|---|---|---|---|');
      for (const [name, s] of Object.entries(tool.inputSchema.properties)) {
        out.push(`| ${code(name)} | ${cell(typeOf(s))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(describe(s))} |`);
      }
    }
  }
  return out.join('\n') + '\n';
}

/** The reference pages by path relative to the repository root. */
export function referencePages(pkg: PackageJson, nls: Nls): Record<string, string> {
  return { 'docs/settings.md': renderSettings(pkg), 'docs/commands.md': renderCommands(pkg, nls) };
}
