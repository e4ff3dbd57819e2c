#!/usr/bin/env bash
# The main job on real input: make sure an engine is reachable and the demo image exists, build
# the CLI, then run examples/hello.py through `sandbox-run` and show its output and outcome.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! docker info >/dev/null 2>&1; then bash scripts/engine-up.sh; fi
# Only the images the demo's python run needs: the language images take many minutes to build.
bash scripts/build-test-images.sh --no-languages
npm run --silent build

echo "demo: sandbox-run --workspace examples examples/hello.py"
status=0
node dist/cli.js --workspace examples examples/hello.py || status=$?
echo "demo: sandbox-run exited with status $status"
