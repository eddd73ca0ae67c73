#!/usr/bin/env bash
# Runs every test: the Rust unit, property and integration tests, the Kotlin tests of the
# FFI boundary on the JVM, the cross-checks of `tongcheng shanten` and `tongcheng fan`
# against the independent pymahjonggb implementation, then the browser face in Chromium.
# Installs what it needs (pymahjonggb from PyPI, JNA, Chromium and fonts from Debian, the
# Kotlin compiler from PyPI, the wasm toolchain and the page's npm packages) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/timed.sh

timed cargo test --workspace --no-run
timed cargo test --workspace
# What the steps below run (the phone library and its bindings generator, the server, the
# CLI) is what that build made, with the tests' features: nothing is built again.
export TONGCHENG_PREBUILT=1

# The phone boundary: Kotlin on the JVM against the real library (installs its toolchain),
# and the phone shells checked to draw the model's views and decide nothing.
timed bash tests/kotlin/run.sh
timed python3 scripts/thin-shells.py

# The CLI as `cargo test` built it (test profile: optimised, debug assertions on).
if ! python3 -c "import MahjongGB" 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check pymahjonggb==1.4.0
fi
timed python3 tests/crosscheck/shanten_vs_pymahjonggb.py target/debug/tongcheng 5000 7
if [ -f tests/crosscheck/fan_vs_pymahjonggb.py ]; then
  timed python3 tests/crosscheck/fan_vs_pymahjonggb.py target/debug/tongcheng
fi

# The browser face: built for WebAssembly and played in Chromium (Playwright, axe-core).
timed bash scripts/browser.sh
