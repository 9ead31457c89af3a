#!/usr/bin/env bash
# Browser tests of the playground: builds it (cargo xtask web), serves dist/playground on a free
# port, runs the Playwright end-to-end tests (tests/e2e, system Chromium) and the wasm-bindgen-test
# browser tests (headless Chromium through chromedriver). Screenshots: tests/e2e/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/spreadlab/target}"
bash scripts/setup.sh --web-test
cargo xtask web   # also builds xtask's wasm-bindgen-test-runner (same package)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist/playground >/dev/null 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/')" 2>/dev/null && break
  sleep 0.1
done
echo "== playground e2e (Playwright, system Chromium) on http://127.0.0.1:$PORT/"
(cd tests/e2e && URL="http://127.0.0.1:$PORT/" ARTIFACTS="$PWD/artifacts" node --test --test-concurrency=1 playground.test.mjs)

echo "== wasm-bindgen-test in headless Chromium (chromedriver from apt)"
# (no -q on the test: cargo would pass --quiet to the runner, which rejects it)
cargo build -q --release -p xtask --bin wasm-bindgen-test-runner
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$CARGO_TARGET_DIR/release/wasm-bindgen-test-runner" \
  cargo test -p spreadlab-playground --target wasm32-unknown-unknown --test browser
