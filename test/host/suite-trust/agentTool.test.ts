/**
 * The language model tool (issue 14) in Restricted Mode: it uses only built-in and user profiles,
 * whatever the hostile workspace's settings say; the agent cannot name a workspace profile.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { BUILTIN_PYTHON_IMAGE, getApi } from './helpers';

const none = new vscode.CancellationTokenSource().token;

describe('Restricted Mode: the agent tool uses only built-in and user profiles (trust host)', function () {
  this.timeout(30_000);

  it('confirms the built-in python profile for Python code, not the hostile workspace\'s', async () => {
    const api = await getApi();
    assert.equal(vscode.workspace.isTrusted, false);
    const prepared = await api.agentTool().prepareInvocation!({ input: { code: 'print(1)', language: 'python' } }, none);
    const md = prepared?.confirmationMessages?.message;
    assert.ok(md instanceof vscode.MarkdownString, `no confirmation: ${JSON.stringify(prepared)}`);
    const v = md.value.replace(/&nbsp;/g, ' ').replace(/\\([\\`*_{}[\]()#+\-.!~|<>])/g, '$1');
    assert.match(v, /Profile: python \(built-in\)/);
    assert.ok(v.includes(`Image: ${BUILTIN_PYTHON_IMAGE}`), v);
    assert.match(v, /Network: off/);
    assert.match(v, /Limits: 512 MiB memory, 1 CPU, 128 processes, 30 s, 1048576 bytes per stream/);
  });

  it('refuses a workspace profile by name, saying why', async () => {
    const api = await getApi();
    const input = { code: 'print(1)', profile: 'hostile' };
    const prepared = await api.agentTool().prepareInvocation!({ input }, none);
    assert.equal(prepared?.confirmationMessages, undefined);
    const r = await api.agentTool().invoke({ input, toolInvocationToken: undefined }, none);
    const text = r!.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(text, /^Not run: No valid sandbox profile named "hostile"\..* This workspace is in Restricted Mode: only built-in and user profiles run\.$/s);
  });
});
