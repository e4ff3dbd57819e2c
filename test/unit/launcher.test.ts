import assert from 'node:assert/strict';
import { PREAMBLE, PreambleReader } from '../../src/core';

/** Feeds `chunks` to a reader; returns what passed through as program stderr, and the verdict. */
function feed(chunks: string[]): { program: string; verdict: string; held: string } {
  const r = new PreambleReader();
  let program = '';
  for (const c of chunks) program += r.push(Buffer.from(c, 'latin1')).toString('latin1');
  r.end();
  return { program, verdict: r.verdict, held: r.heldText() };
}

describe('launcher preamble (unit)', () => {
  it('strips the ready preamble, also split across chunks, and passes the rest unchanged', () => {
    const whole = PREAMBLE.ready + 'err 1\n';
    for (let cut = 0; cut <= whole.length; cut++) {
      assert.deepEqual(feed([whole.slice(0, cut), whole.slice(cut), 'more\n']), { program: 'err 1\nmore\n', verdict: 'ready', held: '' });
    }
  });

  it('recognises no-command, and keeps what follows out of program output', () => {
    const r = feed([PREAMBLE.noCommand, 'x']);
    assert.equal(r.verdict, 'no-command');
    assert.equal(r.program, '');
  });

  it('the CLI\'s own words before the preamble are skipped and never program output', () => {
    const warning = 'WARNING: Error loading config file: /x/config.json: invalid character\n';
    for (const chunks of [[warning + PREAMBLE.ready + 'err\n'], [warning, PREAMBLE.ready.slice(0, 7), PREAMBLE.ready.slice(7) + 'err\n']]) {
      assert.deepEqual(feed(chunks), { program: 'err\n', verdict: 'ready', held: warning });
    }
  });

  it('no preamble at all means the launcher never ran: held back, never program output', () => {
    const tini = '[FATAL tini (7)] exec sh failed: No such file or directory\n';
    assert.deepEqual(feed([tini]), { program: '', verdict: 'absent', held: tini });
    assert.equal(feed([]).verdict, 'absent');
    assert.equal(feed([PREAMBLE.ready.slice(0, 5)]).verdict, 'absent', 'a preamble cut short counts as absent');
  });

  it('text that imitates the preamble after it is program output', () => {
    const r = feed([PREAMBLE.ready, PREAMBLE.noCommand]);
    assert.equal(r.verdict, 'ready');
    assert.equal(r.program, PREAMBLE.noCommand);
  });
});
