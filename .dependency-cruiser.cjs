// Import rules of src/, checked by dependency-cruiser in `npm run lint` (so in `npm test`'s pretest
// and CI). Type-only imports count (tsPreCompilationDeps): a type cycle is still a cycle.
//
// Layers: src/extension.ts and src/vscode/ (the extension) and src/cli/ (sandbox-run) sit over
// src/core/, which imports neither them nor `vscode`. Inside src/core the folders are ordered
// (CORE_ORDER, lowest first): a folder imports only its own files, folders below it and the shared
// files at the top of src/core (errors, layout, hostPath, interactive, zod, zodLoader), which import
// no folder. With no file cycles and that order, the folders form no cycle either.
// engine/podman/ sits over engine/ (engine/ never imports it).

/** Core folders, lowest first (see ARCHITECTURE.md's code map). */
const CORE_ORDER = [
  'engine', 'engine/podman', 'profiles', 'output', 'ownership', 'container', 'mounts', 'deps', 'admission', 'source', 'sweep', 'run', 'session', 'agent',
];

const esc = (s) => s.replace(/[/.]/g, '\\$&');
/** A path regex for the files directly in core folder `f` (engine/ excludes engine/podman/). */
const inFolder = (f) => `^src/core/${esc(f)}/[^/]+$`;

const layerRules = CORE_ORDER.map((folder, i) => {
  const above = CORE_ORDER.slice(i + 1);
  return {
    name: `core-order-${folder}`,
    comment: `src/core/${folder}/ may import only folders below it in CORE_ORDER (${CORE_ORDER.slice(0, i).join(', ') || 'none'}) and the shared top-level files`,
    severity: 'error',
    from: { path: inFolder(folder) },
    to: { path: above.map(inFolder) },
  };
}).filter((r) => r.to.path.length > 0);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle between files (type-only imports included)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-vscode-in-core',
      comment: 'src/core runs without VS Code (the CLI, the MCP server, the tests): no `vscode` import',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: ['^vscode$', '^node_modules/@types/vscode/'] },
    },
    {
      name: 'core-below-layers',
      comment: 'src/core imports neither the extension (src/vscode, src/extension.ts) nor the CLI (src/cli)',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(vscode/|cli/|extension\\.ts$)' },
    },
    {
      name: 'cli-not-vscode',
      comment: 'The CLI layer does not import the extension layer or `vscode`',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: ['^src/(vscode/|extension\\.ts$)', '^vscode$', '^node_modules/@types/vscode/'] },
    },
    {
      name: 'vscode-not-cli',
      comment: 'The extension layer does not import the CLI layer',
      severity: 'error',
      from: { path: '^src/(vscode/|extension\\.ts$)' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'core-shared-files-import-no-folder',
      comment: 'The shared files at the top of src/core import no core folder (every folder may import them)',
      severity: 'error',
      from: { path: '^src/core/[^/]+\\.ts$', pathNot: '^src/core/index\\.ts$' },
      to: { path: '^src/core/[^/]+/' },
    },
    {
      name: 'core-not-through-barrel',
      comment: 'Inside src/core, modules import each other directly, never through the barrel src/core/index.ts',
      severity: 'error',
      from: { path: '^src/core/', pathNot: '^src/core/index\\.ts$' },
      to: { path: '^src/core/index\\.ts$' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
