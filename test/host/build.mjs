// Bundles the extension-host test harness with esbuild into out/test/host/:
//   codeServerShim.js (executable), runHostTests.js, suite/index.js + suite/*.test.js,
//   suite-trust/index.js + suite-trust/*.test.js, suite-multiroot/index.js + suite-multiroot/*.test.js, ui/uiCheck.js, ui/consentCheck.js, ui/linkCheck.js.
// Same settings as esbuild.config.mjs (CommonJS for Node 20, `vscode` external, ESM entry points
// first). mocha, playwright-core and @vscode/test-electron stay external: they load files of
// their own at run time and resolve from the repo's node_modules. Each suite's index.ts bundles its
// root hooks (suite/leftovers.ts, suite-trust/final.ts) and the harness in lib/; only *.test.ts
// files become test files. out/test/host is emptied first, so a renamed or removed test file
// leaves no stale *.test.js that the suite would still load.
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const host = join(repo, 'test', 'host');
const outdir = join(repo, 'out', 'test', 'host');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  external: ['vscode', 'mocha', 'playwright-core', '@vscode/test-electron'],
  mainFields: ['module', 'main'],
  logLevel: 'warning',
  absWorkingDir: repo,
};
rmSync(outdir, { recursive: true, force: true });
const testsOf = (dir) =>
  readdirSync(join(host, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(host, dir, f));
const suites = testsOf('suite');
const trustSuites = testsOf('suite-trust');
const multirootSuites = testsOf('suite-multiroot');

await Promise.all([
  build({ ...common, entryPoints: [join(host, 'codeServerShim.ts')], outfile: join(outdir, 'codeServerShim.js'), banner: { js: '#!/usr/bin/env node' } }),
  build({ ...common, entryPoints: [join(host, 'runHostTests.ts')], outfile: join(outdir, 'runHostTests.js') }),
  build({ ...common, entryPoints: [join(host, 'ui', 'uiCheck.ts')], outfile: join(outdir, 'ui', 'uiCheck.js') }),
  build({ ...common, entryPoints: [join(host, 'ui', 'consentCheck.ts')], outfile: join(outdir, 'ui', 'consentCheck.js') }),
  build({ ...common, entryPoints: [join(host, 'ui', 'linkCheck.ts')], outfile: join(outdir, 'ui', 'linkCheck.js') }),
  build({ ...common, entryPoints: [join(host, 'suite', 'index.ts'), ...suites], outdir: join(outdir, 'suite') }),
  build({ ...common, entryPoints: [join(host, 'suite-trust', 'index.ts'), ...trustSuites], outdir: join(outdir, 'suite-trust') }),
  build({ ...common, entryPoints: [join(host, 'suite-multiroot', 'index.ts'), ...multirootSuites], outdir: join(outdir, 'suite-multiroot') }),
]);
chmodSync(join(outdir, 'codeServerShim.js'), 0o755);
