'use strict';
// The activation row's fake `vscode` module (scripts/bench/activation.ts). Run as a program
// (`node vscodeStub.js BUNDLE EXTENSION_PATH [LAZY…]`) it maps `vscode` to itself, then times
// require(BUNDLE) + activate(context) and prints one JSON line. Every member not given below is a
// callable, constructible stub; the real ones are those where a stub would change what activate() does.
const fs = require('fs');
const os = require('os');
const path = require('path');

/** Any property is a stub (kept once set), a call returns a stub, `new` an object; never a thenable. */
function stub(name) {
  const store = new Map();
  return new Proxy(function () {}, {
    get(t, prop) {
      if (store.has(prop)) return store.get(prop);
      if (prop === Symbol.toPrimitive) return (hint) => (hint === 'number' ? 0 : '');
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      if (prop === 'dispose') return () => undefined;
      if (prop === 'toString') return () => name;
      store.set(prop, stub(`${name}.${String(prop)}`));
      return store.get(prop);
    },
    set: (t, prop, v) => !!store.set(prop, v),
    has: () => true,
    apply: () => stub(`${name}()`),
    construct: (t, args, newTarget) => Object.create(newTarget && newTarget !== t ? newTarget.prototype : stub(`${name}#proto`)),
  });
}

/** `obj`'s own members first; anything missing becomes a stub. */
const real = (name, obj) => new Proxy(obj, {
  get(o, prop) {
    if (prop in o || typeof prop === 'symbol' || prop === 'then') return o[prop];
    return (o[prop] = stub(`${name}.${String(prop)}`));
  },
});

const uri = (p) => ({
  scheme: 'file', authority: '', path: p, query: '', fragment: '', fsPath: p,
  with: (c) => uri((c && c.path) || p), toString: () => `file://${p}`, toJSON: () => ({ scheme: 'file', path: p }),
});
class Disposable {
  constructor(fn) { this.fn = fn; }
  static from(...ds) { return new Disposable(() => ds.forEach((d) => d && d.dispose && d.dispose())); }
  dispose() { if (this.fn) this.fn(); this.fn = undefined; }
}
const none = () => new Disposable(() => undefined);
class EventEmitter {
  constructor() {
    const ls = (this.listeners = new Set());
    this.event = (l, thisArg) => { const f = thisArg ? l.bind(thisArg) : l; ls.add(f); return new Disposable(() => ls.delete(f)); };
  }
  fire(e) { for (const l of [...this.listeners]) l(e); }
  dispose() { this.listeners.clear(); }
}
// The engine bundle extends it at load time (sourceLinks.ts: class SourceLink extends DocumentLink).
class DocumentLink { constructor(range, target) { this.range = range; this.target = target; } }
const memento = () => {
  const m = new Map();
  return real('Memento', { get: (k, d) => (m.has(k) ? m.get(k) : d), update: async (k, v) => void m.set(k, v), keys: () => [...m.keys()], setKeysForSync() {} });
};
const quiet = { append() {}, appendLine() {}, replace() {}, clear() {}, show() {}, hide() {}, dispose() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };
const ask = async () => undefined;
const enumOf = (name, values) => real(name, Object.fromEntries(values.map((v, i) => [v, i + 1])));

const window = real('window', {
  createOutputChannel: (name) => real('OutputChannel', { name, ...quiet, logLevel: 2, onDidChangeLogLevel: none }),
  createStatusBarItem: () => real('StatusBarItem', { text: '', tooltip: undefined, command: undefined, show() {}, hide() {}, dispose() {} }),
  registerTreeDataProvider: none,
  createTreeView: () => real('TreeView', { dispose() {}, onDidChangeVisibility: none, onDidChangeSelection: none, visible: false }),
  showInformationMessage: ask, showWarningMessage: ask, showErrorMessage: ask,
  withProgress: async (_o, task) => task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: none }),
  activeTextEditor: undefined, visibleTextEditors: [], state: { focused: true },
  onDidChangeActiveTextEditor: none, onDidChangeVisibleTextEditors: none, onDidChangeWindowState: none,
});
const workspace = real('workspace', {
  getConfiguration: () => real('WorkspaceConfiguration', { get: (_k, dflt) => dflt, has: () => false, inspect: () => undefined, update: ask }),
  onDidChangeConfiguration: none, onDidGrantWorkspaceTrust: none, onDidChangeWorkspaceFolders: none,
  onDidOpenTextDocument: none, onDidCloseTextDocument: none, onDidSaveTextDocument: none,
  isTrusted: true, workspaceFolders: undefined, textDocuments: [], fs: stub('workspace.fs'),
  asRelativePath: (p) => (typeof p === 'string' ? p : p.fsPath),
});

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-runner-bench-ext-'));
process.on('exit', () => fs.rmSync(stateDir, { recursive: true, force: true }));
/** An ExtensionContext whose storage folders live in a temporary folder removed on exit. */
function makeContext(extensionPath) {
  const dir = (d) => { const p = path.join(stateDir, d); fs.mkdirSync(p, { recursive: true }); return p; };
  const [g, s, l] = [dir('global'), dir('workspace'), dir('log')];
  return real('ExtensionContext', {
    subscriptions: [], extensionPath, extensionUri: uri(extensionPath), extensionMode: 1, asAbsolutePath: (rel) => path.join(extensionPath, rel),
    globalStorageUri: uri(g), globalStoragePath: g, storageUri: uri(s), storagePath: s, logUri: uri(l), logPath: l,
    globalState: memento(), workspaceState: memento(),
    secrets: real('secrets', { get: ask, store: ask, delete: ask, onDidChange: none }),
    extension: real('extension', { id: 'sandbox-runner.sandbox-runner', extensionPath, extensionUri: uri(extensionPath), packageJSON: {} }),
  });
}

module.exports = real('vscode', {
  Disposable, EventEmitter, DocumentLink, window, workspace, version: '1.90.0',
  Uri: real('Uri', { file: uri, parse: (s) => uri(String(s).replace(/^file:\/\//, '')), joinPath: (b, ...p) => uri(path.posix.join(b.path, ...p)), from: (c) => uri(c.path || '/') }),
  commands: real('commands', { registerCommand: none, registerTextEditorCommand: none, executeCommand: ask, getCommands: async () => [] }),
  languages: real('languages', { registerDocumentLinkProvider: none }),
  env: real('env', { language: 'en', appName: 'fake', machineId: 'bench', sessionId: 'bench', uiKind: 1, remoteName: undefined }),
  l10n: real('l10n', { t: (m, ...a) => String(typeof m === 'string' ? m : m.message).replace(/\{(\d+)\}/g, (_, i) => String(a[i])) }),
  StatusBarAlignment: enumOf('StatusBarAlignment', ['Left', 'Right']),
  ProgressLocation: real('ProgressLocation', { SourceControl: 1, Window: 10, Notification: 15 }),
  TreeItemCollapsibleState: real('TreeItemCollapsibleState', { None: 0, Collapsed: 1, Expanded: 2 }),
  ConfigurationTarget: enumOf('ConfigurationTarget', ['Global', 'Workspace', 'WorkspaceFolder']),
  ExtensionMode: enumOf('ExtensionMode', ['Production', 'Development', 'Test']),
  ViewColumn: real('ViewColumn', { Active: -1, Beside: -2, One: 1, Two: 2 }),
});

/** The probe: the first JSON line on stdout is { ok, requireMs, activateMs, totalMs, subscriptions, loaded, lazyMs } or { ok: false, error }. */
async function probe([bundle, extensionPath, ...lazyBundles]) {
  const Module = require('module');
  const { performance } = require('perf_hooks');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? __filename : resolve.call(this, request, ...rest);
  };
  const ctx = makeContext(extensionPath);
  const t0 = performance.now();
  const ext = require(bundle);
  const t1 = performance.now();
  await ext.activate(ctx);
  const t2 = performance.now();
  // After the work activate() defers by setImmediate (untimed), before any timer: the .js files
  // beside the bundle it loaded, then what a first use pays once: require of each lazy bundle.
  await new Promise((r) => setImmediate(r));
  const loaded = Object.keys(require.cache).filter((f) => path.dirname(f) === path.dirname(path.resolve(bundle)) && f.endsWith('.js'));
  const t3 = performance.now();
  for (const b of lazyBundles) require(b);
  const lazyMs = performance.now() - t3;
  return { ok: true, requireMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, subscriptions: ctx.subscriptions.length, loaded, lazyMs };
}

if (require.main === module) {
  probe(process.argv.slice(2)).then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (e) => process.stdout.write(`${JSON.stringify({ ok: false, error: String((e && e.stack) || e) })}\n`),
  ).finally(() => process.exit(0));
}
