/**
 * Activation time of OUR code only: a fresh `node` child process installs a Module._resolveFilename
 * hook that maps `vscode` to a minimal fake module (written below), loads the fake first (untimed),
 * then times `require(dist/extension.js)` + `activate(fakeContext)` (awaited if it returns a
 * promise). This is not VS Code's activation time (no extension host, no IPC, no real API); it is
 * the cost of evaluating our bundle and running our activate(), which is what our code controls.
 *
 * The fake answers every property with a callable, constructible stub (so new API use in
 * activate() keeps working), with real objects where a stub would break typical code:
 * Uri, EventEmitter, Disposable, configuration reads, output channels, mementos, the context.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

const FAKE_VSCODE = String.raw`'use strict';
// Minimal fake of the vscode API for timing our own activation (scripts/bench/activation.ts).
const os = require('os');
const path = require('path');
const fs = require('fs');

function stub(name) {
  const store = new Map();
  const target = function () {};
  return new Proxy(target, {
    get(t, prop) {
      if (store.has(prop)) return store.get(prop);
      if (prop === 'then') return undefined; // never a thenable
      if (prop === Symbol.toPrimitive) return (hint) => (hint === 'number' ? 0 : '');
      if (prop === Symbol.iterator) return function* () {};
      if (typeof prop === 'symbol') return undefined;
      if (prop === 'dispose') return () => undefined;
      if (prop === 'toString') return () => name;
      const v = stub(name + '.' + String(prop));
      store.set(prop, v);
      return v;
    },
    set(t, prop, v) { store.set(prop, v); return true; },
    has() { return true; },
    apply() { return stub(name + '()'); },
    construct(t, args, newTarget) {
      const proto = newTarget && newTarget !== t ? newTarget.prototype : stub(name + '#proto');
      return Object.create(proto);
    },
  });
}

/** Real members first; anything missing becomes a stub. */
function withFallback(obj, name) {
  return new Proxy(obj, {
    get(o, prop) {
      if (prop in o) return o[prop];
      if (typeof prop === 'symbol' || prop === 'then') return undefined;
      const v = stub(name + '.' + String(prop));
      o[prop] = v;
      return v;
    },
  });
}

function uri(p) {
  return {
    scheme: 'file', authority: '', path: p, query: '', fragment: '', fsPath: p,
    with(change) { return uri((change && change.path) || p); },
    toString() { return 'file://' + p; },
    toJSON() { return { scheme: 'file', path: p }; },
  };
}
const Uri = withFallback({
  file: (p) => uri(p),
  parse: (s) => uri(String(s).replace(/^file:\/\//, '')),
  joinPath: (base, ...parts) => uri(path.posix.join(base.path, ...parts)),
  from: (c) => uri(c.path || '/'),
}, 'Uri');

class Disposable {
  constructor(fn) { this._fn = fn; }
  static from(...ds) { return new Disposable(() => ds.forEach((d) => d && d.dispose && d.dispose())); }
  dispose() { if (this._fn) this._fn(); this._fn = undefined; }
}
class EventEmitter {
  constructor() {
    this._listeners = new Set();
    this.event = (listener, thisArg) => {
      const l = thisArg ? listener.bind(thisArg) : listener;
      this._listeners.add(l);
      return new Disposable(() => this._listeners.delete(l));
    };
  }
  fire(e) { for (const l of [...this._listeners]) l(e); }
  dispose() { this._listeners.clear(); }
}
const noEvent = () => new Disposable(() => undefined);

function configuration() {
  return withFallback({
    get: (_key, dflt) => dflt,
    has: () => false,
    inspect: () => undefined,
    update: async () => undefined,
  }, 'WorkspaceConfiguration');
}
function outputChannel(name) {
  return withFallback({
    name, append() {}, appendLine() {}, replace() {}, clear() {}, show() {}, hide() {}, dispose() {},
    info() {}, warn() {}, error() {}, debug() {}, trace() {}, logLevel: 2, onDidChangeLogLevel: noEvent,
  }, 'OutputChannel');
}
function statusBarItem() {
  return withFallback({ text: '', tooltip: undefined, command: undefined, show() {}, hide() {}, dispose() {} }, 'StatusBarItem');
}
function memento() {
  const m = new Map();
  return withFallback({ get: (k, d) => (m.has(k) ? m.get(k) : d), update: async (k, v) => { m.set(k, v); }, keys: () => [...m.keys()], setKeysForSync() {} }, 'Memento');
}

const window = withFallback({
  createOutputChannel: (name) => outputChannel(name),
  createStatusBarItem: () => statusBarItem(),
  registerTreeDataProvider: () => new Disposable(() => undefined),
  createTreeView: () => withFallback({ dispose() {}, onDidChangeVisibility: noEvent, onDidChangeSelection: noEvent, visible: false }, 'TreeView'),
  showInformationMessage: async () => undefined,
  showWarningMessage: async () => undefined,
  showErrorMessage: async () => undefined,
  withProgress: async (_o, task) => task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: noEvent }),
  activeTextEditor: undefined,
  visibleTextEditors: [],
  onDidChangeActiveTextEditor: noEvent,
  onDidChangeVisibleTextEditors: noEvent,
  onDidChangeWindowState: noEvent,
  state: { focused: true },
}, 'window');

const workspace = withFallback({
  getConfiguration: () => configuration(),
  onDidChangeConfiguration: noEvent,
  onDidGrantWorkspaceTrust: noEvent,
  onDidChangeWorkspaceFolders: noEvent,
  onDidOpenTextDocument: noEvent,
  onDidCloseTextDocument: noEvent,
  onDidSaveTextDocument: noEvent,
  isTrusted: true,
  workspaceFolders: undefined,
  textDocuments: [],
  asRelativePath: (p) => (typeof p === 'string' ? p : p.fsPath),
  fs: stub('workspace.fs'),
}, 'workspace');

const commands = withFallback({
  registerCommand: () => new Disposable(() => undefined),
  registerTextEditorCommand: () => new Disposable(() => undefined),
  executeCommand: async () => undefined,
  getCommands: async () => [],
}, 'commands');

// Classes the engine bundle extends at load time (sourceLinks.ts: class SourceLink extends DocumentLink).
class DocumentLink { constructor(range, target) { this.range = range; this.target = target; } }

const languages = withFallback({
  registerDocumentLinkProvider: () => new Disposable(() => undefined),
}, 'languages');

const enumLike = (name, values) => withFallback(Object.fromEntries(values.map((v, i) => [v, i + 1])), name);

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-runner-bench-ext-'));
process.on('exit', () => fs.rmSync(stateDir, { recursive: true, force: true }));
function makeContext(extensionPath) {
  const sub = (d) => { const p = path.join(stateDir, d); fs.mkdirSync(p, { recursive: true }); return p; };
  const g = sub('global'), s = sub('workspace'), l = sub('log');
  return withFallback({
    subscriptions: [],
    extensionPath,
    extensionUri: uri(extensionPath),
    globalStorageUri: uri(g), globalStoragePath: g,
    storageUri: uri(s), storagePath: s,
    logUri: uri(l), logPath: l,
    globalState: memento(), workspaceState: memento(),
    secrets: withFallback({ get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: noEvent }, 'secrets'),
    extensionMode: 1,
    extension: withFallback({ id: 'sandbox-runner.sandbox-runner', extensionPath, extensionUri: uri(extensionPath), packageJSON: {} }, 'extension'),
    asAbsolutePath: (rel) => path.join(extensionPath, rel),
  }, 'ExtensionContext');
}

module.exports = withFallback({
  Uri, Disposable, EventEmitter, window, workspace, commands, languages, DocumentLink,
  env: withFallback({ language: 'en', appName: 'fake', machineId: 'bench', sessionId: 'bench', uiKind: 1, remoteName: undefined }, 'env'),
  l10n: withFallback({ t: (m, ...a) => String(typeof m === 'string' ? m : m.message).replace(/\{(\d+)\}/g, (_, i) => String(a[i])) }, 'l10n'),
  version: '1.90.0',
  StatusBarAlignment: enumLike('StatusBarAlignment', ['Left', 'Right']),
  ProgressLocation: withFallback({ SourceControl: 1, Window: 10, Notification: 15 }, 'ProgressLocation'),
  TreeItemCollapsibleState: withFallback({ None: 0, Collapsed: 1, Expanded: 2 }, 'TreeItemCollapsibleState'),
  ConfigurationTarget: enumLike('ConfigurationTarget', ['Global', 'Workspace', 'WorkspaceFolder']),
  ExtensionMode: enumLike('ExtensionMode', ['Production', 'Development', 'Test']),
  ViewColumn: withFallback({ Active: -1, Beside: -2, One: 1, Two: 2 }, 'ViewColumn'),
  __makeContext: makeContext,
}, 'vscode');
`;

const CHILD = String.raw`'use strict';
// Times require(bundle) + activate(ctx) with the fake vscode (scripts/bench/activation.ts).
const Module = require('module');
const path = require('path');
const { performance } = require('perf_hooks');
const [bundle, fakePath, extensionPath, ...lazyBundles] = process.argv.slice(2);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? fakePath : resolve.call(this, request, ...rest);
};
const fake = require(fakePath); // untimed
const ctx = fake.__makeContext(extensionPath);
const t0 = performance.now();
let t1 = t0;
Promise.resolve()
  .then(() => {
    const ext = require(bundle);
    t1 = performance.now();
    return ext.activate(ctx);
  })
  .then(
    () => {
      const t2 = performance.now();
      // Which JavaScript files beside the bundle activation loaded: after activate() and the work
      // it defers by setImmediate (untimed), before any timer (the first orphan sweep is at 2 s).
      setImmediate(() => {
        const dir = path.dirname(path.resolve(bundle));
        const loaded = Object.keys(require.cache).filter((f) => path.dirname(f) === dir && f.endsWith('.js'));
        // Then the cost a first use pays: require of each lazy bundle not loaded yet.
        const t3 = performance.now();
        for (const b of lazyBundles) require(b);
        const lazyMs = performance.now() - t3;
        process.stdout.write(JSON.stringify({ ok: true, requireMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, subscriptions: ctx.subscriptions.length, loaded, lazyMs }) + '\n');
        process.exit(0);
      });
    },
    (e) => {
      process.stdout.write(JSON.stringify({ ok: false, error: String((e && e.stack) || e) }) + '\n');
      process.exit(0);
    },
  );
`;

export interface ActivationSample {
  readonly requireMs: number;
  readonly activateMs: number;
  readonly totalMs: number;
  readonly subscriptions: number;
  /** Absolute paths of the .js files in the bundle's folder that were loaded once activation (and its setImmediate work) finished. */
  readonly loaded: readonly string[];
  /** ms to require the `lazy` bundles after activation (what the first run pays once), 0 without any. */
  readonly lazyMs: number;
}

/** Writes the fake module and the child script into a new folder; returns their paths and the folder. */
function prepare(): { dir: string; fake: string; child: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-runner-bench-act-'));
  const fake = join(dir, 'vscode-fake.js');
  const child = join(dir, 'activate-child.js');
  writeFileSync(fake, FAKE_VSCODE);
  writeFileSync(child, CHILD);
  return { dir, fake, child };
}

/**
 * Times activation in `warmup + runs` fresh node processes (then, untimed for activation, the
 * require of each `lazy` bundle: the one-off cost of a first use) (the first `warmup` are not counted:
 * they warm the OS file cache).
 * @throws Error with the child's stack when activate() throws or the bundle fails to load
 */
export async function measureActivation(bundle: string, extensionPath: string, runs: number, warmup: number, lazy: readonly string[] = []): Promise<ActivationSample[]> {
  const { dir, fake, child } = prepare();
  try {
    return await timeActivations(bundle, extensionPath, runs, warmup, fake, child, lazy);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The timing loop of {@link measureActivation}. */
async function timeActivations(
  bundle: string, extensionPath: string, runs: number, warmup: number, fake: string, child: string, lazy: readonly string[],
): Promise<ActivationSample[]> {
  const out: ActivationSample[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const r = await execa(process.execPath, [child, bundle, fake, extensionPath, ...lazy], { reject: false, stdin: 'ignore' });
    const last = String(r.stdout).trim().split('\n').pop() ?? '';
    let parsed: { ok: boolean; error?: string } & Partial<ActivationSample>;
    try {
      parsed = JSON.parse(last) as typeof parsed;
    } catch {
      throw new Error(`activation child failed (exit ${r.exitCode}): ${String(r.stderr).trim() || last}`);
    }
    if (!parsed.ok) throw new Error(`activate() failed with the fake vscode: ${parsed.error}`);
    if (i >= warmup) out.push(parsed as ActivationSample);
  }
  return out;
}
