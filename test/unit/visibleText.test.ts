/**
 * Core agent/visibleText.ts (issue 34): the confirmation shows what the interpreter executes. For
 * each hostile input, every character Python's or JavaScript's tokenizer ends a line at (modelled
 * here: JS LF, CR, LS, PS; Python LF, CR) is a visible break with an escape, every hidden
 * character is escaped, and long lines wrap instead of being cut; real node runs the JS case.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { visibleRows, visibleText } from '../../src/core/agent/visibleText';

const JS_BREAKS = ['\n', '\r', '\u2028', '\u2029'];
const PY_BREAKS = ['\n', '\r'];
const HIDDEN = ['\u202e', '\u2066', '\u200b', '\u200d', '\u2060', '\ufeff', '\u061c', '\u200e', '\u0085', '\x0b', '\x0c', '\u3164', '\ufe0f', '\u00ad', '\x1b', '\x00'];

describe('visibleText: hidden and line-breaking characters (unit)', () => {
  for (const b of new Set([...JS_BREAKS, ...PY_BREAKS])) {
    it(`U+${b.codePointAt(0)!.toString(16)} ends a shown line`, () => {
      const rows = visibleRows(`// notes${b}console.log("HIDDEN")`);
      assert.equal(rows.length, 2, JSON.stringify(rows));
      assert.equal(rows[1], 'console.log("HIDDEN")');
      if (b !== '\n') assert.match(rows[0]!, /⟦U\+[0-9A-F]{4}⟧$/);
    });
  }
  for (const h of HIDDEN) {
    it(`U+${h.codePointAt(0)!.toString(16)} is escaped`, () => {
      const shown = visibleText(`a${h}b`);
      assert.ok(!shown.includes(h), JSON.stringify(shown));
      assert.match(shown, /^a⟦U\+[0-9A-F]{4}⟧\n?b$/);
    });
  }
  it('escapes its own brackets, keeps tab and plain text', () => {
    assert.equal(visibleText('⟦x⟧\tok'), '⟦U+27E6⟧x⟦U+27E7⟧\tok');
  });
  it('wraps a statement after 250 spaces instead of cutting it', () => {
    const rows = visibleRows(`x = 1${' '.repeat(250)}; print("HIDDEN")`);
    assert.ok(rows.every((r) => r.length <= 110));
    assert.ok(rows.join('').includes('print("HIDDEN")'));
  });
  it('node runs the statement after U+2028 that the confirmation shows on its own line', () => {
    const code = '// notes\u2028console.log("HIDDEN")';
    assert.equal(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' }).trim(), 'HIDDEN');
    assert.ok(visibleRows(code).includes('console.log("HIDDEN")'));
  });
});
