/**
 * The sandbox kernels of Jupyter notebooks (issue 24): one NotebookController "Sandbox (PROFILE)"
 * for `jupyter-notebook` per profile that can host a session (core start.ts
 * `checkSessionProfile`: Python profiles), and one session (core session.ts) per notebook,
 * started on its first cell. Profiles come as a run's do (settings.ts `currentSettings` for the
 * notebook's folder, core runStart.ts `decideRunStart`, consent to a workspace loosening): in
 * Restricted Mode only built-in and user profiles (VS Code itself asks for workspace trust before
 * it executes any notebook cell, whatever the kernel; an empty window is trusted).
 * A `"workspace": "ro"` profile's session sees the notebook's workspace folder read-only, as a run
 * of a selection in that folder does (workspaceRun.ts: the folder, the notebook's own folder as
 * the working directory, the user's mask globs; consent compares that folder as a run's does).
 * - Cells run one at a time in the order asked, with the kernel's execution count, start and end
 *   times and success; their output streams in (notebookOutputs.ts); `input()` and `getpass` ask
 *   through an input box (notebookInput.ts). Outputs are the types VS Code shows inertly unless
 *   the user's own `sandboxRunner.notebooks.richOutput` is on (notebookRich.ts), which each
 *   kernel's description and the status bar then say ("rich output ON").
 * - Interrupt (the controller's interruptHandler): queued cells are dropped and the running cell
 *   gets SIGINT (core `interrupt`); a cell that does not stop within the profile's
 *   `limits.interruptGraceSeconds` brings a notification offering Restart.
 * - A session ends on Restart (the toolbar command), when its notebook closes or its kernel is
 *   deselected, after `sandboxRunner.sessions.idleSeconds` without a cell (user settings only),
 *   at deactivate, or by itself (an OOM kill, a crash, a cell past its grace): the cell running
 *   then shows the one-sentence reason with the rule, a cell after an idle end says so, and the
 *   next cell starts a new session. Every end removes the container (core session.ts).
 * Sessions come from the engine bundle (`deps.engine`, lazy.ts `engine()`); this module is the notebook bundle's.
 */
import * as vscode from 'vscode';
import type { SandboxSession, SessionEnd } from '../core/session/session';
import type { ResolvedProfile } from '../core';
import { decideRunStart } from '../core/admission/runStart';
import { isSandboxError } from '../core/errors';
import { consentScope, ensureConsent } from './consent';
import { askInput } from './notebookInput';
import { CellOutputs } from './notebookOutputs';
import { JUPYTER_NOTEBOOK, type NotebookDeps } from './notebookType';
import { NotebookStatus } from './notebookStatus';
import { richOutputOn } from './notebookRich';
import { currentSettings, dockerOptions } from './settings';
import { sessionIdleMs } from './sessionIdle';
import { workspaceRunFor, type WorkspaceRunFields } from './workspaceRun';

/** The toolbar's and the palette's Restart command (package.json). */
export const RESTART_KERNEL_COMMAND = 'sandboxRunner.restartNotebookKernel';
/** Controller ids: this prefix and the profile name (package.json's `notebookKernel` when-clauses match it). */
export const CONTROLLER_PREFIX = 'sandboxRunner.notebook.';

/** One notebook's kernel state. */
interface NotebookState {
  readonly notebook: vscode.NotebookDocument;
  session?: SandboxSession;
  /** How its last session ended (not by a close): the next cell tells it unless a cell showed it already ({@link told}). */
  lastEnd?: SessionEnd;
  /** The end a cell showed when its session ended while it ran. */
  told?: SessionEnd;
  /** Cells asked for and not started yet. */
  readonly queued: Set<vscode.NotebookCellExecution>;
  /** The cell running now. */
  running?: vscode.NotebookCellExecution;
  /** The cells' order. */
  chain: Promise<void>;
}

/** A profile's controller. */
interface Kernel {
  readonly controller: vscode.NotebookController;
  profile: ResolvedProfile;
}

export class NotebookKernels implements vscode.Disposable {
  private readonly kernels = new Map<string, Kernel>();
  private readonly notebooks = new Map<vscode.NotebookDocument, NotebookState>();
  private readonly status: NotebookStatus;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly deps: NotebookDeps) {
    this.status = new NotebookStatus((nb) => this.profileOf(nb));
    this.subscriptions.push(
      this.status,
      deps.settings.onDidChange(() => this.sync()),
      vscode.workspace.onDidCloseNotebookDocument((nb) => void this.closeSession(nb)),
      vscode.commands.registerCommand(RESTART_KERNEL_COMMAND, (arg?: unknown) => this.restartFromCommand(arg)),
    );
    this.sync();
  }

  /** The status bar item's text while shown. */
  get statusText(): string | undefined {
    return this.status.text;
  }

  /** The profile of the sandbox kernel selected for `nb`, if one is. */
  private profileOf(nb: vscode.NotebookDocument): ResolvedProfile | undefined {
    const name = this.status.selected.get(nb);
    return name === undefined ? undefined : this.kernels.get(name)?.profile;
  }

  /** One controller per profile that can host a session (window settings: Restricted Mode drops workspace profiles). */
  private sync(): void {
    const hosts = this.deps.settings.get().profiles.filter((p) => this.canHost(p));
    const rich = richOutputOn();
    for (const [name, k] of this.kernels) {
      if (hosts.some((p) => p.name === name)) continue;
      k.controller.dispose();
      this.kernels.delete(name);
    }
    for (const p of hosts) {
      const k = this.kernels.get(p.name) ?? this.create(p);
      k.profile = p;
      k.controller.description = describe(p, rich);
      k.controller.detail = vscode.l10n.t('Runs each cell in a sandboxed container that keeps the notebook\'s state (profile "{0}").', p.name);
    }
    this.status.update();
  }

  /** True when the profile can host a session (core start.ts `checkSessionProfile`). */
  private canHost(p: ResolvedProfile): boolean {
    if (!p.profile.languages.includes('python')) return false; // without loading the engine bundle
    try {
      this.deps.engine().checkSessionProfile(p.name, p.profile);
      return true;
    } catch {
      return false;
    }
  }

  private create(p: ResolvedProfile): Kernel {
    const controller = vscode.notebooks.createNotebookController(CONTROLLER_PREFIX + p.name, JUPYTER_NOTEBOOK, vscode.l10n.t('Sandbox ({0})', p.name));
    controller.supportedLanguages = ['python'];
    controller.supportsExecutionOrder = true;
    const kernel: Kernel = { controller, profile: p };
    controller.executeHandler = (cells, nb) => this.execute(kernel, cells, nb);
    controller.interruptHandler = (nb) => this.interrupt(nb);
    controller.onDidChangeSelectedNotebooks(({ notebook, selected }) => {
      if (selected) this.status.selected.set(notebook, p.name);
      else if (this.status.selected.get(notebook) === p.name) {
        this.status.selected.delete(notebook);
        void this.closeSession(notebook);
      }
      this.status.update();
    });
    this.kernels.set(p.name, kernel);
    return kernel;
  }

  private state(nb: vscode.NotebookDocument): NotebookState {
    let st = this.notebooks.get(nb);
    if (!st) this.notebooks.set(nb, (st = { notebook: nb, queued: new Set(), chain: Promise.resolve() }));
    return st;
  }

  /** Queues `cells` (each shows as pending at once) and runs them one after another. */
  private execute(kernel: Kernel, cells: vscode.NotebookCell[], nb: vscode.NotebookDocument): void {
    const st = this.state(nb);
    for (const cell of cells) {
      let exec: vscode.NotebookCellExecution;
      try {
        exec = kernel.controller.createNotebookCellExecution(cell);
      } catch (e) {
        this.deps.log.warn(`notebook cell ${cell.index} not queued: ${String(e)}`); // already queued or running
        continue;
      }
      st.queued.add(exec);
      st.chain = st.chain.then(() => this.runCell(kernel, st, exec)).catch((e: unknown) => this.deps.log.error(`notebook cell: ${String(e)}`));
    }
  }

  private async runCell(kernel: Kernel, st: NotebookState, exec: vscode.NotebookCellExecution): Promise<void> {
    if (!st.queued.delete(exec)) return; // dropped by an interrupt or a restart
    exec.start(Date.now());
    await exec.clearOutput();
    const out = new CellOutputs(exec, richOutputOn());
    st.running = exec;
    let ok = false;
    try {
      const session = await this.sessionFor(kernel, st, out);
      if (session) {
        const r = await session.execute(exec.cell.document.getText(), out.onEvent, { onInput: askInput });
        if (r.executionCount !== null) exec.executionOrder = r.executionCount;
        if (r.status === 'session-ended' && r.ended) {
          st.told = r.ended;
          const key = r.ended.rule?.key;
          out.notice(key ? vscode.l10n.t('Rule: {0}. The next cell starts a new session.', key) : vscode.l10n.t('The next cell starts a new session.'));
        }
        ok = r.status === 'ok';
      }
    } catch (e) {
      out.notice(isSandboxError(e) ? `${e.message} ${e.fix}` : String(e));
    } finally {
      st.running = undefined;
      await out.done();
      exec.end(ok, Date.now());
    }
  }

  /**
   * The notebook's live session, or a new one (admitted as a run is; see the file comment).
   * @returns undefined when the profile may not run (the reason is in the cell's output)
   * @throws SandboxError from core `startSession` (start failures)
   */
  private async sessionFor(kernel: Kernel, st: NotebookState, out: CellOutputs): Promise<SandboxSession | undefined> {
    if (st.session && !st.session.end) return st.session;
    if (st.lastEnd && st.lastEnd !== st.told) out.notice(vscode.l10n.t('The previous session ended: {0} A new session starts; earlier variables are gone.', st.lastEnd.message));
    st.lastEnd = st.told = undefined;
    // A notebook runs as a selection of its file would: never "the file itself" (`where` set).
    const where = workspaceRunFor({ documentUri: st.notebook.uri.toString(), untitled: st.notebook.isUntitled, where: 'notebook' });
    const profile = await this.admit(kernel.profile.name, st.notebook.uri, out, where.paths);
    if (!profile) return undefined;
    const code = this.deps.engine();
    const session = await code.startSession({
      profileName: profile.name,
      profile: profile.profile,
      docker: dockerOptions(),
      protectedPaths: this.deps.protectedPaths,
      idleMs: sessionIdleMs(),
      ...where,
      onNotice: (text) => this.deps.log.info(text.trimEnd()),
      onArgv: (argv) => this.deps.log.debug(`docker ${argv.map((a) => JSON.stringify(a)).join(' ')}`),
    });
    st.session = session;
    this.deps.log.info(`notebook session ${session.id} started: profile ${profile.name}, image ${profile.profile.image}, container ${session.containerName}`);
    void session.ended.then((end) => {
      this.deps.log.info(`notebook session ${session.id} ended: ${end.reason}`);
      if (st.session !== session) return;
      st.session = undefined;
      // An end while a cell ran was shown in that cell (told); one between cells is shown in the next.
      if (end.reason !== 'closed') st.lastEnd = end;
    });
    return session;
  }

  /** The profile as it resolves now for the notebook's folder, after consent to a workspace loosening; undefined when refused. */
  private async admit(name: string, uri: vscode.Uri, out: CellOutputs, paths: WorkspaceRunFields['paths']): Promise<ResolvedProfile | undefined> {
    const settings = currentSettings(uri);
    const scope = consentScope(uri);
    const decision = decideRunStart({
      set: settings, settings: settings.route, query: { name, paths }, caller: 'person', trusted: settings.trusted,
      consented: (r) => this.deps.consents.has(r, scope),
    });
    switch (decision.kind) {
      case 'go':
        return decision.chosen;
      case 'needs-consent':
      case 'agent-loosening':
        if (await ensureConsent(this.deps.consents, decision.report, scope)) return decision.chosen;
        out.notice(vscode.l10n.t('Not run: the workspace profile "{0}" loosens the sandbox and was not allowed.', name));
        return undefined;
      case 'malformed':
        for (const i of decision.issues) out.notice(`${i.key}: ${i.message}`);
        return undefined;
      default:
        out.notice(settings.trusted
          ? vscode.l10n.t('Not run: there is no valid profile named "{0}" any more. Pick another kernel.', name)
          : vscode.l10n.t('Not run: there is no valid profile named "{0}"; workspace profiles are ignored in Restricted Mode. Pick another kernel.', name));
        return undefined;
    }
  }

  /** The controller's interrupt: drops queued cells, interrupts the running one, offers Restart when it does not stop. */
  private async interrupt(nb: vscode.NotebookDocument): Promise<void> {
    const st = this.notebooks.get(nb);
    if (!st) return;
    this.dropQueued(st);
    const session = st.session;
    if (!session || !st.running) return;
    if (await session.interrupt()) return;
    const restart = vscode.l10n.t('Restart');
    const grace = session.end ? undefined : vscode.l10n.t('The cell did not stop within its interrupt grace (the profile\'s limits.interruptGraceSeconds). Restart the sandbox kernel? Its variables are lost.');
    if (grace && (await vscode.window.showWarningMessage(grace, restart)) === restart) await this.restart(nb);
  }

  /** Restart: ends the notebook's session (its container is removed); the next cell starts a new one. */
  async restart(nb: vscode.NotebookDocument): Promise<void> {
    const st = this.notebooks.get(nb);
    if (!st) return;
    this.dropQueued(st);
    await st.session?.close();
  }

  /** The Restart command: from the notebook toolbar (its argument names the notebook) or the palette (the active notebook). */
  async restartFromCommand(arg?: unknown): Promise<void> {
    const uri = (arg as { notebookEditor?: { notebookUri?: unknown } } | undefined)?.notebookEditor?.notebookUri;
    const nb = uri instanceof vscode.Uri
      ? vscode.workspace.notebookDocuments.find((d) => d.uri.toString() === uri.toString())
      : vscode.window.activeNotebookEditor?.notebook;
    if (nb) await this.restart(nb);
  }

  /** Ends the queued cells without running them (no result: neither tick nor cross). */
  private dropQueued(st: NotebookState): void {
    const queued = [...st.queued];
    st.queued.clear();
    for (const exec of queued) {
      try {
        exec.end(undefined);
      } catch {
        // VS Code ended it already (its own cancel of pending cells)
      }
    }
  }

  private async closeSession(nb: vscode.NotebookDocument): Promise<void> {
    const st = this.notebooks.get(nb);
    if (!st) return;
    if (nb.isClosed) this.notebooks.delete(nb);
    this.dropQueued(st);
    await st.session?.close();
  }

  /** Ends every notebook session and waits for their containers' removal (deactivate). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.notebooks.values()].map((st) => st.session?.close()));
  }

  dispose(): void {
    void this.closeAll();
    for (const k of this.kernels.values()) k.controller.dispose();
    this.kernels.clear();
    for (const s of this.subscriptions) s.dispose();
  }
}

/** The controller's description: the image, the network, a workspace mount and rich outputs (workspace text, shown as plain text). */
function describe(p: ResolvedProfile, rich: boolean): string {
  let text = p.profile.network === 'none'
    ? vscode.l10n.t('{0} · network off', p.profile.image)
    : vscode.l10n.t('{0} · network ON ({1})', p.profile.image, p.profile.network);
  if (p.profile.workspace === 'ro') text = vscode.l10n.t('{0} · workspace folder read-only', text);
  return rich ? vscode.l10n.t('{0} · rich output ON (HTML, SVG, Markdown may load from the network)', text) : text;
}
