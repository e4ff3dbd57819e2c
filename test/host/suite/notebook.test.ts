/**
 * Notebook kernels (issue 24) through VS Code's notebook API and its built-in ipynb support: a
 * real .ipynb fixture opens, the "Sandbox (PROFILE)" controller is selected with
 * `notebook.selectKernel`, and its cells run in one sandbox session: text (state kept between
 * cells, the network blocked), an error whose traceback links the cells' frames to their lines, a
 * matplotlib figure as a PNG; then a looping cell is interrupted and Restart ends the session (the
 * next cell has no earlier state), and input() and getpass are answered through input boxes.
 * The profile is a user profile on the notebook test image (python with Debian's matplotlib and
 * IPython), set for this suite only. A second profile with `"workspace": "ro"` runs a notebook in
 * a folder of the workspace: the cell reads the file beside it, in its own folder, and cannot write it.
 */
import * as assert from 'node:assert/strict';
import { chmod, readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { NOTEBOOK_IMAGE } from '../../support/images';
import { EXTENSION_ID, cleanUp, fixture, getApi, ownContainers, waitFor } from './helpers';

const PROFILE = 'pynb';
/** The user profile whose session mounts the workspace folder read-only. */
const WS_PROFILE = 'pynbws';
const CELL_MS = 90_000;
const decoder = new TextDecoder();

/** The text of a cell's outputs by MIME type (stdout and stderr items joined in order). */
function outputs(cell: vscode.NotebookCell, mime: string): string {
  return cell.outputs.flatMap((o) => o.items).filter((i) => i.mime === mime).map((i) => decoder.decode(i.data)).join('');
}

const STDOUT = 'application/vnd.code.notebook.stdout';
/** The line VS Code's error renderer turns into a link to a cell's line (notebook-renderers stackTraceHelper, 1.139). */
const CELL_LINK = /^(?:\u001b\[[\d;]*m|\s)*Cell(?:\u001b\[[\d;]*m|\s)*In(?:\u001b\[[\d;]*m|\s)*\[(\d+)\](?:\u001b\[[\d;]*m|\s|,)+line (\d+)[^\n]*$/gm;
const ERROR = 'application/vnd.code.notebook.error';

/** Opens `uri` as a user does and selects the sandbox controller of `profile`; the notebook. */
async function openWithKernel(uri: vscode.Uri, profile: string): Promise<vscode.NotebookDocument> {
  // Opened as a user opens it (workspace.openNotebookDocument would keep the document open for
  // minutes after its editor closes: the extension host holds a reference to it).
  await vscode.commands.executeCommand('vscode.openWith', uri, 'jupyter-notebook');
  await waitFor(() => vscode.window.activeNotebookEditor?.notebook.uri.toString() === uri.toString(), 20_000, 'the notebook editor');
  // The controller appears once the settings change reached the extension.
  await waitFor(async () => {
    try {
      await vscode.commands.executeCommand('notebook.selectKernel', { id: `sandboxRunner.notebook.${profile}`, extension: EXTENSION_ID });
      return true;
    } catch {
      return false;
    }
  }, 20_000, 'the sandbox controller to be selectable');
  return vscode.window.activeNotebookEditor!.notebook;
}

/** Answers the extension's input boxes with `answers` in turn (undefined: Escape); records what each showed. */
function answerInputBoxes(answers: (string | undefined)[]): { asked: vscode.InputBoxOptions[]; dispose(): void } {
  const win = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = win.showInputBox!;
  const asked: vscode.InputBoxOptions[] = [];
  win.showInputBox = (...args: unknown[]) => {
    asked.push(args[0] as vscode.InputBoxOptions);
    return Promise.resolve(answers.shift());
  };
  return { asked, dispose: () => (win.showInputBox = original) };
}

/** Runs cells `indexes` and waits until each has an execution summary with a result. */
async function runCells(nb: vscode.NotebookDocument, indexes: readonly number[]): Promise<void> {
  const before = indexes.map((i) => nb.cellAt(i).executionSummary?.timing?.endTime);
  await vscode.commands.executeCommand('notebook.cell.execute', { ranges: indexes.map((i) => ({ start: i, end: i + 1 })), document: nb.uri });
  await waitFor(
    () => indexes.every((i, k) => nb.cellAt(i).executionSummary?.success !== undefined && nb.cellAt(i).executionSummary?.timing?.endTime !== before[k]),
    CELL_MS,
    `cells ${indexes.join(', ')} to finish`,
  );
}

describe('notebook kernels (host)', function () {
  this.timeout(240_000);
  const config = () => vscode.workspace.getConfiguration('sandboxRunner');

  before(async () => {
    await getApi();
    await config().update('profiles', {
      [PROFILE]: { image: NOTEBOOK_IMAGE, command: ['python3', '${file}'], languages: ['python'] },
      [WS_PROFILE]: { image: NOTEBOOK_IMAGE, command: ['python3', '${file}'], languages: ['python'], workspace: 'ro' },
    }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    if (vscode.window.activeNotebookEditor) await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await config().update('profiles', undefined, vscode.ConfigurationTarget.Global);
    await cleanUp();
  });

  it('runs a downloaded notebook in a sandbox session: text, an error with linked traceback, a matplotlib PNG, interrupt, restart and input', async () => {
    const api = await getApi();
    const uri = fixture('sandboxed.ipynb');
    const nb = await openWithKernel(uri, PROFILE);
    assert.equal(nb.notebookType, 'jupyter-notebook');
    await waitFor(() => api.notebookStatusText() !== undefined, 20_000, 'the notebook kernel status bar item');
    assert.match(api.notebookStatusText()!, new RegExp(`Sandboxed kernel: ${PROFILE} · network off`));

    // Other suites' warm containers may exist: the session's is the one that is new.
    const before = new Set(await ownContainers());
    const sessionContainers = async () => (await ownContainers()).filter((c) => !before.has(c));
    await runCells(nb, [1, 2, 3]);
    const [text, failing, plot] = [nb.cellAt(1), nb.cellAt(2), nb.cellAt(3)];
    assert.equal(text.executionSummary?.success, true, outputs(text, STDOUT));
    assert.match(outputs(text, STDOUT), /NB-TEXT 42 blocked True/);
    assert.equal(outputs(text, 'text/plain'), '42', 'the last expression is displayed');
    assert.equal(text.executionSummary?.executionOrder, 1);

    assert.equal(failing.executionSummary?.success, false);
    assert.match(outputs(failing, STDOUT), /NB-STATE 43/, 'state is kept between cells');
    const error = JSON.parse(outputs(failing, ERROR)) as { name: string; message: string; stack: string };
    assert.equal(error.name, 'JSONDecodeError');
    assert.equal(failing.executionSummary?.executionOrder, 2);
    // The frames of the cells' code are `Cell In[N], line L` lines, which VS Code's error renderer
    // links to the cell with execution count N at line L; the json library's frames are not.
    assert.deepEqual([...error.stack.matchAll(CELL_LINK)].map((m) => `${m[1]}:${m[2]}`), ['2:2', '1:8'], error.stack);
    assert.match(error.stack, /^Traceback \(most recent call last\):\nCell In\[2\], line 2\n    parse\('\{'\)\nCell In\[1\], line 8\n    return json\.loads\(text\)\n/);
    assert.match(error.stack, /File "\/usr\/lib\/python3[^"]*\/json\/decoder\.py", line \d+, in /, 'the library frames are as Python wrote them');
    assert.doesNotMatch(error.stack, /File\s+\S+:\d/, 'no library frame in the shape the renderer links');
    assert.match(error.stack, /JSONDecodeError: Expecting property name enclosed in double quotes/);

    assert.equal(plot.executionSummary?.success, true, JSON.stringify(plot.outputs.map((o) => o.items.map((i) => i.mime))));
    assert.match(outputs(plot, STDOUT), /NB-PLOT/);
    const png = plot.outputs.flatMap((o) => o.items).find((i) => i.mime === 'image/png');
    assert.ok(png, 'the figure is an image/png output');
    assert.deepEqual([...png.data.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    const [container, ...more] = await sessionContainers();
    assert.ok(container, 'the session has a container');
    assert.deepEqual(more, [], 'one session for the notebook');

    // Interrupt: the looping cell gets KeyboardInterrupt and the session goes on.
    const loop = nb.cellAt(4);
    const ran = vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 4, end: 5 }], document: nb.uri });
    await waitFor(() => outputs(loop, STDOUT).includes('NB-LOOP'), CELL_MS, 'the loop to start');
    await vscode.commands.executeCommand('notebook.cancelExecution');
    await ran;
    await waitFor(() => loop.executionSummary?.success === false, CELL_MS, 'the loop to be interrupted');
    assert.equal((JSON.parse(outputs(loop, ERROR)) as { name: string }).name, 'KeyboardInterrupt');
    assert.deepEqual(await sessionContainers(), [container], 'the interrupt kept the session');

    // Restart: the session's container goes, and the next cell starts a new session without the old state.
    await vscode.commands.executeCommand('sandboxRunner.restartNotebookKernel');
    await waitFor(async () => (await sessionContainers()).length === 0, 20_000, 'the session container to be removed');
    await runCells(nb, [5]);
    assert.match(outputs(nb.cellAt(5), STDOUT), /NB-AFTER False/);
    assert.equal(nb.cellAt(5).executionSummary?.executionOrder, 1, 'a new session counts from 1');

    assert.equal((await sessionContainers()).length, 1, 'the new session has a container');

    // input() and getpass ask through input boxes (the prompt as plain text, getpass as a password box); Escape interrupts the cell.
    const boxes = answerInputBoxes(['Ada', 's3cret', undefined]);
    try {
      await runCells(nb, [6, 7]);
    } finally {
      boxes.dispose();
    }
    assert.deepEqual(boxes.asked.map((o) => [o.prompt, o.password]), [['Name?', false], ['Token:', true], ['Never answered?', false]], outputs(nb.cellAt(6), ERROR));
    assert.equal(nb.cellAt(6).executionSummary?.success, true, outputs(nb.cellAt(6), STDOUT));
    assert.equal(outputs(nb.cellAt(6), STDOUT), 'Name? Ada\nToken: ········\nNB-INPUT Ada 6\n');
    assert.equal(nb.cellAt(7).executionSummary?.success, false);
    assert.equal((JSON.parse(outputs(nb.cellAt(7), ERROR)) as { name: string }).name, 'KeyboardInterrupt');
    // Closing the notebook (its outputs reverted, so no save prompt) ends its session.
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor(async () => (await sessionContainers()).length === 0, 30_000, 'no session container after the notebook closed');
  });

  it('a "workspace": "ro" profile\'s session reads the file beside the notebook, in the notebook\'s folder, and cannot change it', async () => {
    const api = await getApi();
    const file = fixture('nbfolder/beside.txt');
    // Writable by anyone: only the read-only mount can stop the cell's write (EROFS, not EACCES).
    await chmod(file.fsPath, 0o666);
    try {
      const before = new Set(await ownContainers());
      const nb = await openWithKernel(fixture('nbfolder/beside.ipynb'), WS_PROFILE);
      await waitFor(() => api.notebookStatusText()?.includes(WS_PROFILE) === true, 20_000, 'the notebook kernel status bar item');
      await runCells(nb, [1]);
      const cell = nb.cellAt(1);
      assert.equal(cell.executionSummary?.success, true, outputs(cell, STDOUT) + outputs(cell, ERROR));
      assert.equal(outputs(cell, STDOUT), 'BESIDE-NB-OK True\nwrite 30\n');
      assert.equal(await readFile(file.fsPath, 'utf8'), 'BESIDE-NB-OK\n', 'the host file is unchanged');
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await waitFor(async () => (await ownContainers()).every((c) => before.has(c)), 30_000, 'no session container after the notebook closed');
    } finally {
      await chmod(file.fsPath, 0o644);
    }
  });
});
