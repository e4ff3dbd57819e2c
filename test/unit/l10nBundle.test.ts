/**
 * Runtime UI strings go through `vscode.l10n.t` (issue 12, "localised strings through
 * `vscode.l10n`"), and l10n/bundle.l10n.json (package.json `"l10n"`) holds every one of them.
 * The sources are read with the TypeScript parser (loaded from node_modules, not bundled).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as TS from 'typescript';

const root = join(__dirname, '../../..');
const ts = createRequire(__filename)('typescript') as typeof TS;

/**
 * Files of src/vscode whose UI strings are not converted yet: another branch rewrites them
 * (issue 12); they leave this list when converted (a test below fails while a listed file is clean).
 */
const PENDING: string[] = [];

interface Source {
  readonly file: string;
  readonly sf: TS.SourceFile;
}

function sources(): Source[] {
  const files = [...readdirSync(join(root, 'src/vscode')).filter((f) => f.endsWith('.ts')).map((f) => `src/vscode/${f}`), 'src/extension.ts'];
  return files.map((file) => ({ file, sf: ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true) }));
}

function calls(sf: TS.SourceFile): TS.CallExpression[] {
  const out: TS.CallExpression[] = [];
  const visit = (n: TS.Node) => {
    if (ts.isCallExpression(n)) out.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const where = (s: Source, n: TS.Node) => `${s.file}:${s.sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
const isLiteral = (n: TS.Node) => ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n);
/** True when `n` is or contains string text written in the source (a literal or a template). */
const hasText = (n: TS.Node): boolean =>
  isLiteral(n) || ts.isTemplateExpression(n) || (ts.isBinaryExpression(n) && (hasText(n.left) || hasText(n.right))) || (ts.isConditionalExpression(n) && (hasText(n.whenTrue) || hasText(n.whenFalse)));

/** A call of `l10n.t` (as `vscode.l10n.t`). */
const isL10nT = (c: TS.CallExpression) => /(^|\.)l10n\.t$/.test(c.expression.getText());

/** The message of an `l10n.t` call: its literal first argument, or the literal `message` of its object argument; else undefined. */
function messageOf(c: TS.CallExpression): { message: string; comment?: string } | undefined {
  const first = c.arguments[0];
  if (first && isLiteral(first)) return { message: (first as TS.StringLiteral).text };
  if (!first || !ts.isObjectLiteralExpression(first)) return undefined;
  const prop = (name: string) => first.properties.find((p): p is TS.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === name)?.initializer;
  const message = prop('message');
  if (!message || !isLiteral(message)) return undefined;
  const comment = prop('comment');
  const parts = comment && ts.isArrayLiteralExpression(comment) ? comment.elements.filter(isLiteral).map((e) => (e as TS.StringLiteral).text) : comment && isLiteral(comment) ? [(comment as TS.StringLiteral).text] : undefined;
  return { message: (message as TS.StringLiteral).text, ...(parts ? { comment: parts.join('') } : {}) };
}

describe('runtime UI strings through vscode.l10n (unit)', () => {
  const all = sources();
  const bundle = JSON.parse(readFileSync(join(root, 'l10n/bundle.l10n.json'), 'utf8')) as Record<string, string | { message: string; comment: string[] }>;

  it('package.json names the l10n folder and the .vsix ships it', () => {
    assert.equal(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).l10n, './l10n');
    assert.ok(readFileSync(join(root, '.vscodeignore'), 'utf8').split('\n').includes('!l10n/**'), 'the .vsix ships l10n/');
  });

  it('every vscode.l10n.t call has a literal message (untrusted text only as {0} arguments), and l10n/bundle.l10n.json holds each one and nothing else', () => {
    const nonLiteral: string[] = [];
    const keys = new Set<string>();
    for (const s of all) {
      for (const c of calls(s.sf).filter(isL10nT)) {
        const m = messageOf(c);
        if (!m) nonLiteral.push(where(s, c));
        else keys.add(m.comment === undefined ? m.message : `${m.message}/${m.comment}`);
      }
    }
    assert.deepEqual(nonLiteral, [], 'l10n.t calls whose message is not a string literal');
    assert.ok(keys.size > 60, `only ${keys.size} localised runtime strings`);
    assert.deepEqual([...keys].filter((k) => !Object.hasOwn(bundle, k)), [], 'missing from l10n/bundle.l10n.json (npm run l10n:export)');
    assert.deepEqual(Object.keys(bundle).filter((k) => !keys.has(k)), [], 'keys of l10n/bundle.l10n.json no source uses');
    for (const [k, v] of Object.entries(bundle)) {
      const message = typeof v === 'string' ? v : v.message;
      assert.equal(typeof v === 'string' ? k : `${v.message}/${v.comment.join('')}`, k, `bundle entry ${k}`);
      assert.ok(message.length > 0);
    }
  });

  it('notifications, status bar messages, quick picks and input boxes get no text written in the source but through l10n.t', () => {
    const ui = /\.(show(Information|Warning|Error)Message|setStatusBarMessage|showQuickPick|showInputBox)$/;
    const uiProps = new Set(['title', 'placeHolder', 'prompt', 'detail']);
    const found = new Map<string, string[]>();
    for (const s of all) {
      const name = s.file.split('/').pop()!;
      for (const c of calls(s.sf).filter((c) => ui.test(c.expression.getText()))) {
        for (const a of c.arguments) {
          const texts = hasText(a) ? [a] : ts.isObjectLiteralExpression(a)
            ? a.properties.filter((p): p is TS.PropertyAssignment => ts.isPropertyAssignment(p) && uiProps.has(p.name.getText()) && hasText(p.initializer))
            : [];
          for (const t of texts) found.set(name, [...(found.get(name) ?? []), `${where(s, t)} ${t.getText().slice(0, 60)}`]);
        }
      }
    }
    const converted = [...found].filter(([f]) => !PENDING.includes(f)).flatMap(([, w]) => w);
    assert.deepEqual(converted, [], 'UI text written as a literal instead of vscode.l10n.t(…)');
    // A pending file leaves PENDING once converted (it calls l10n.t and shows no literal), so the check covers it.
    const stillPending = PENDING.filter((f) => found.has(f) || !all.some((s) => s.file === `src/vscode/${f}` && s.sf.text.includes('l10n.t(')));
    assert.deepEqual(PENDING.filter((f) => !stillPending.includes(f)), [], 'files in PENDING that are converted: remove them from the list');
  });
});
