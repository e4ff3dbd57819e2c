import assert from 'node:assert/strict';
import { addDependencyEdit, distributionFor, missingModule, MODULE_DISTRIBUTIONS } from '../../src/core/deps/moduleFix';
import { readScriptMetadata } from '../../src/core/deps/pep723';

/** `code` with `edit` applied. */
function apply(code: string, dist: string): string {
  const edit = addDependencyEdit(code, dist);
  assert.ok(edit, `no edit for ${dist}`);
  const lines = code.split('\n');
  lines.splice(edit.startLine, edit.endLine - edit.startLine, ...edit.lines);
  return lines.join('\n');
}

describe('ModuleNotFoundError quick fix (unit)', () => {
  it('reads the top-level module of the message, and suggests the distribution of at least 30 common mismatches', () => {
    assert.equal(missingModule("ModuleNotFoundError: No module named 'yaml'"), 'yaml');
    assert.equal(missingModule("ModuleNotFoundError: No module named 'google.protobuf'"), 'google');
    assert.equal(missingModule("ModuleNotFoundError: No module named 'a b'"), undefined);
    assert.equal(missingModule('NameError: name x'), undefined);
    assert.ok(Object.keys(MODULE_DISTRIBUTIONS).length >= 30);
    for (const [m, d] of [['yaml', 'pyyaml'], ['cv2', 'opencv-python'], ['sklearn', 'scikit-learn'], ['PIL', 'pillow'], ['bs4', 'beautifulsoup4'], ['requests', 'requests']]) assert.equal(distributionFor(m!), d);
    for (const d of Object.values(MODULE_DISTRIBUTIONS)) assert.equal(distributionFor(d), d, `${d} is a valid requirement`);
    assert.equal(distributionFor('constructor'), 'constructor', 'no prototype lookup');
  });

  it('inserts a block (after a shebang), extends a one-line or multi-line list, or adds the key; the result parses', () => {
    const cases: Array<[string, string[]]> = [
      ['import yaml\n', ['pyyaml']],
      ['#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nimport yaml\n', ['pyyaml']],
      ['# /// script\n# dependencies = ["rich"]\n# ///\nimport yaml\n', ['rich', 'pyyaml']],
      ['# /// script\n# dependencies = []\n# ///\n', ['pyyaml']],
      ['# /// script\n# requires-python = ">=3.9"\n# dependencies = [\n#   "rich",\n# ]\n# ///\n', ['pyyaml', 'rich']],
      ['# /// script\n# requires-python = ">=3.9"\n# ///\n', ['pyyaml']],
    ];
    for (const [code, deps] of cases) {
      const out = apply(code, 'pyyaml');
      const meta = readScriptMetadata(out);
      assert.ok(meta.kind === 'ok', `${JSON.stringify(out)}: ${JSON.stringify(meta)}`);
      assert.deepEqual([...meta.metadata.dependencies].sort(), [...deps].sort(), out);
    }
    assert.ok(apply('#!/usr/bin/env python3\nimport yaml\n', 'pyyaml').startsWith('#!/usr/bin/env python3\n# /// script\n'));
    assert.equal(addDependencyEdit('# /// script\n# dependencies = ["pyyaml"]\n# ///\n', 'pyyaml'), undefined, 'already listed');
  });
});
