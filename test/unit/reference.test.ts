import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cell, code, localize, plain, plainWithCode, referencePages, renderSettings } from '../../scripts/reference';

const root = join(__dirname, '../../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');

describe('settings and commands reference (unit)', () => {
  const pages = referencePages(JSON.parse(read('package.json')), JSON.parse(read('package.nls.json')));

  for (const path of ['docs/settings.md', 'docs/commands.md']) {
    it(`${path} is what package.json generates (run npm run gen:reference)`, () => {
      assert.equal(read(path), pages[path]);
    });
  }

  it('lists every setting and every command of package.json', () => {
    const pkg = JSON.parse(read('package.json'));
    for (const id of Object.keys(pkg.contributes.configuration.properties)) assert.ok(pages['docs/settings.md']!.includes(`## \`${id}\``), id);
    for (const c of pkg.contributes.commands) assert.ok(pages['docs/commands.md']!.includes(`\`${c.command}\``), c.command);
  });

  it('escapes Markdown: a pipe stays in its cell, a backtick in its code span, markup in plain text', () => {
    assert.equal(cell('a | b\nc'), 'a \\| b c');
    assert.equal(code('a`b'), '``a`b``');
    assert.equal(code('`x'), '`` `x ``');
    assert.equal(plain('<img src=x> *y* [z](w)'), '\\<img src=x\\> \\*y\\* \\[z\\](w)');
    assert.equal(plainWithCode('use `--cpus` *not* <x>'), 'use `--cpus` \\*not\\* \\<x\\>');
    const page = renderSettings({
      contributes: {
        commands: [],
        menus: {},
        keybindings: [],
        configuration: {
          properties: {
            'x.y': {
              type: 'object',
              default: 'a|b',
              pattern: '^(a|b)$',
              description: 'one | two <b>',
              additionalProperties: { type: 'object', properties: { k: { type: 'string', pattern: 'p|q', description: 'c | d' } } },
            },
          },
        },
      },
    });
    assert.match(page, /^- Default: `"a\|b"`$/m, 'outside a table a pipe needs no escape');
    assert.match(page, /^one \| two \\<b\\>$/m, 'plain text is escaped');
    assert.match(page, /^\| `k` \| string, matching `p\\\|q` \| — \| c \\\| d \|$/m, 'a pipe in a table cell is escaped');
  });

  it('resolves %placeholders% from package.nls.json and fails loudly on a missing one', () => {
    assert.equal(localize('%k%', { k: 'Run' }), 'Run');
    assert.equal(localize('plain', {}), 'plain');
    assert.throws(() => localize('%missing%', {}), /package.nls.json has no "missing"/);
  });
});
