// Lint: typescript-eslint's recommended rules, plus the rule that keeps `vscode` out of the core
// and the plain-Node tests (src/core must run without VS Code), and the rule that keeps the
// extension's value imports off the core barrel: the barrel re-exports the CLI's values (the runner,
// the sweep, the warm pool), and a value import through it makes esbuild keep those modules'
// top-level code (classes extending node:http's Agent, node:child_process…) in the activation
// bundle, which then loads those built-ins on every activation.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts', 'test/unit/**/*.ts', 'test/engine/**/*.ts', 'test/support/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'src/core, the CLI and plain-Node tests must not import vscode.' }] },
      ],
    },
  },
  {
    files: ['src/vscode/**/*.ts', 'src/extension.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: '../core', allowTypeImports: true, message: 'Import values from the core module that defines them (../core/<module>), not the barrel: see eslint.config.mjs.' }],
        },
      ],
    },
  },
);
