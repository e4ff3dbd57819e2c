import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nlsStrings } from './localizedPackage';

describe('package.nls.json (unit)', () => {
  const raw = readFileSync(join(__dirname, '../../../package.json'), 'utf8');
  const keys = [...raw.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!);
  const nls = nlsStrings();

  it('gives every %key% of package.json its English text, and holds no unused key', () => {
    assert.ok(keys.length > 40, `only ${keys.length} localised strings`);
    assert.deepEqual(keys.filter((k) => typeof nls[k] !== 'string' || nls[k] === ''), [], 'keys without text');
    assert.deepEqual(Object.keys(nls).filter((k) => !keys.includes(k)), [], 'unused keys');
  });

  it('localises what the UI shows: command titles, the view, the walkthrough, the welcome texts, the tool', () => {
    const pkg = JSON.parse(raw);
    for (const c of pkg.contributes.commands as { title: string }[]) assert.match(c.title, /^%command\./);
    assert.match(pkg.contributes.views.sandboxRunner[0].name, /^%view\./);
    assert.match(pkg.contributes.walkthroughs[0].steps[0].title, /^%walkthrough\./);
    assert.match(pkg.contributes.viewsWelcome[0].contents, /^%viewsWelcome\./);
    assert.match(pkg.contributes.languageModelTools[0].displayName, /^%languageModelTool\./);
    assert.equal(readFileSync(join(__dirname, '../../../.vscodeignore'), 'utf8').split('\n').includes('!package.nls.json'), true, 'the .vsix ships package.nls.json');
  });
});
