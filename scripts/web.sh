#!/usr/bin/env bash
# The browser face (H5): builds the app model for WebAssembly and the page around it, then
# serves both with the server at http://127.0.0.1:8080 (same origin as the API).
#
#   bash scripts/web.sh                    # build and serve at 127.0.0.1:8080
#   bash scripts/web.sh --listen 0.0.0.0:8080
#   bash scripts/web.sh --build-only       # leave the built face in web/dist
#
# Installs what it needs on a fresh machine: the wasm32 target (rustup), wasm-bindgen-cli at
# the version the lockfile pins (cargo), the page's build tools (npm, from web/package-lock.json).
# wasm-opt (Debian's binaryen) shrinks the module when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/timed.sh

listen=127.0.0.1:8080
serve=1
while [ $# -gt 0 ]; do
  case "$1" in
    --listen) listen="$2"; shift 2 ;;
    --build-only) serve=0; shift ;;
    *) echo "usage: bash scripts/web.sh [--listen ADDR] [--build-only]" >&2; exit 2 ;;
  esac
done

bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
rustup target add wasm32-unknown-unknown >/dev/null
if ! wasm-bindgen --version 2>/dev/null | grep -q " $bindgen\$"; then
  # Not --locked: the index here may lag the tool's own lockfile by a patch release.
  # A debug build: it compiles in a third of the time, and binding one module takes it
  # about a second either way (this runs on every fresh CI machine).
  timed cargo install wasm-bindgen-cli --version "$bindgen" --debug
fi
timed cargo build --release -p tongcheng-web --target wasm32-unknown-unknown
wasm=target/wasm32-unknown-unknown/release/tongcheng_web.wasm
if command -v wasm-opt >/dev/null; then
  # Before wasm-bindgen, not after: Debian's binaryen (108) predates the reference-types
  # table wasm-bindgen writes and breaks it (the page then fails in WebAssembly.Table.set).
  mkdir -p target/wasm-opt
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals -o target/wasm-opt/tongcheng_web.wasm "$wasm"
  wasm=target/wasm-opt/tongcheng_web.wasm
fi
rm -rf web/pkg
wasm-bindgen --target web --out-dir web/pkg "$wasm"

cd web
timed npm ci --no-audit --no-fund
npm run build
# The service worker keeps every built file for offline play, under a name of this build.
node -e '
  const fs = require("fs"), path = require("path"), crypto = require("crypto");
  const files = [];
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => {
    const p = path.join(d, e.name);
    e.isDirectory() ? walk(p) : files.push(path.relative("dist", p));
  });
  walk("dist");
  const list = ["./", ...files.filter((f) => f !== "sw.js").map((f) => "./" + f)];
  fs.writeFileSync("dist/files.json", JSON.stringify(list));
  const hash = crypto.createHash("sha256");
  files.sort().forEach((f) => hash.update(fs.readFileSync(path.join("dist", f))));
  const sw = fs.readFileSync("dist/sw.js", "utf8").replace("__BUILD__", hash.digest("hex").slice(0, 12));
  fs.writeFileSync("dist/sw.js", sw);
'
cd ..

if [ "$serve" = 1 ]; then
  cargo build --release -p tongcheng-server
  echo "桐城麻将 in the browser: http://$listen/"
  exec target/release/tongcheng-server --listen "$listen" --web-dir web/dist
fi
