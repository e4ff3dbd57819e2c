'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS module loaded as `vscode` by plain node */
// A fake `vscode` module, for running the extension's activate() in plain node (the benchmark's
// activation row: scripts/bench/activationProbe.js). Every member is a callable, constructible stub,
// except the REAL values, where a stub would change what activate() does. `context(extensionPath)`
// is an ExtensionContext built the same way.
const fs = require('fs');
const os = require('os');
const path = require('path');

const uri = (p) => ({ scheme: 'file', authority: '', path: p, query: '', fragment: '', fsPath: p, with: (c) => uri((c && c.path) || p), toString: () => `file://${p}`, toJSON: () => ({ scheme: 'file', path: p }) });
class Disposable {
  constructor(fn) { this.fn = fn; }
  static from(...ds) { return new Disposable(() => ds.forEach((d) => d && d.dispose && d.dispose())); }
  dispose() { if (this.fn) this.fn(); this.fn = undefined; }
}
class EventEmitter {
  constructor() { const ls = (this.listeners = new Set()); this.event = (l, self) => { const f = self ? l.bind(self) : l; ls.add(f); return new Disposable(() => ls.delete(f)); }; }
  fire(e) { for (const l of [...this.listeners]) l(e); }
  dispose() { this.listeners.clear(); }
}
// The engine bundle extends it at load time (sourceLinks.ts: class SourceLink extends DocumentLink).
class DocumentLink { constructor(range, target) { this.range = range; this.target = target; } }
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-runner-bench-ext-'));
process.on('exit', () => fs.rmSync(stateDir, { recursive: true, force: true }));
const dir = (d) => { const p = path.join(stateDir, d); fs.mkdirSync(p, { recursive: true }); return p; };
const ask = async () => undefined;

/** By dotted name as code reaches it (`vscode.x.y`; a call adds `()`; `ctx.` is the ExtensionContext). */
const REAL = {
  'vscode.Disposable': Disposable, 'vscode.EventEmitter': EventEmitter, 'vscode.DocumentLink': DocumentLink, 'vscode.version': '1.90.0', 'vscode.ExtensionMode': { Production: 1, Development: 2, Test: 3 },
  'vscode.Uri.file': uri, 'vscode.Uri.parse': (s) => uri(String(s).replace(/^file:\/\//, '')), 'vscode.Uri.joinPath': (b, ...p) => uri(path.posix.join(b.path, ...p)), 'vscode.Uri.from': (c) => uri(c.path || '/'),
  'vscode.workspace.getConfiguration().get': (_k, dflt) => dflt, 'vscode.workspace.getConfiguration().has': () => false, 'vscode.workspace.getConfiguration().inspect': () => undefined,
  'vscode.workspace.isTrusted': true, 'vscode.workspace.workspaceFolders': undefined, 'vscode.workspace.textDocuments': [], 'vscode.workspace.notebookDocuments': [], 'vscode.window.activeTextEditor': undefined, 'vscode.window.visibleTextEditors': [],
  'vscode.window.showInformationMessage': ask, 'vscode.window.showWarningMessage': ask, 'vscode.window.showErrorMessage': ask, 'vscode.commands.executeCommand': ask, 'vscode.window.createTreeView().visible': false,
  'vscode.l10n.t': (m, ...a) => String(typeof m === 'string' ? m : m.message).replace(/\{(\d+)\}/g, (_, i) => String(a[i])),
  'ctx.subscriptions': [], 'ctx.extensionMode': 1, 'ctx.extension.id': 'sandbox-runner.sandbox-runner', 'ctx.extension.packageJSON': {},
  'ctx.globalStoragePath': dir('global'), 'ctx.storagePath': dir('workspace'), 'ctx.logPath': dir('log'),
};
for (const [k, m] of [['globalState', new Map()], ['workspaceState', new Map()]]) {
  Object.assign(REAL, { [`ctx.${k}.get`]: (key, d) => (m.has(key) ? m.get(key) : d), [`ctx.${k}.update`]: async (key, v) => void m.set(key, v), [`ctx.${k}.keys`]: () => [...m.keys()] });
}
for (const [k, p] of [['globalStorageUri', 'globalStoragePath'], ['storageUri', 'storagePath'], ['logUri', 'logPath']]) REAL[`ctx.${k}`] = uri(REAL[`ctx.${p}`]);

/** Any member is REAL[name.member] or a stub (kept once read or set); a call returns a stub, `new` an object; never a thenable. */
function stub(name) {
  const store = new Map();
  return new Proxy(function () {}, {
    get(t, prop) {
      const key = `${name}.${String(prop)}`;
      if (store.has(prop)) return store.get(prop);
      if (key in REAL) return REAL[key];
      if (prop === Symbol.toPrimitive) return (hint) => (hint === 'number' ? 0 : '');
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      if (prop === 'dispose') return () => undefined;
      if (prop === 'toString') return () => name;
      store.set(prop, stub(key));
      return store.get(prop);
    },
    set: (t, prop, v) => !!store.set(prop, v),
    has: () => true,
    apply: () => stub(`${name}()`),
    construct: (t, args, newTarget) => Object.create(newTarget && newTarget !== t ? newTarget.prototype : stub(`${name}#proto`)),
  });
}
// Only these members exist at the top (esbuild's interop copies own keys): others are undefined, as in a VS Code without them.
const TOP = 'Uri Disposable EventEmitter DocumentLink window workspace commands languages notebooks env l10n version StatusBarAlignment ProgressLocation TreeItemCollapsibleState ConfigurationTarget ExtensionMode ViewColumn CodeActionKind CodeAction';
const vscode = stub('vscode');
module.exports = Object.fromEntries(TOP.split(' ').map((k) => [k, vscode[k]]));
module.exports.context = (extensionPath) => {
  const u = uri(extensionPath);
  Object.assign(REAL, { 'ctx.extensionPath': extensionPath, 'ctx.extensionUri': u, 'ctx.extension.extensionPath': extensionPath, 'ctx.extension.extensionUri': u, 'ctx.asAbsolutePath': (rel) => path.join(extensionPath, rel) });
  return stub('ctx');
};

