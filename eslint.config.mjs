// Lint: typescript-eslint's recommended rules, plus the rule that keeps `vscode` out of the core
// and the plain-Node tests (src/core must run without VS Code).
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
);
