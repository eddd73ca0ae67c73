#!/usr/bin/env bash
# The browser face's tests: builds the face (scripts/web.sh --build-only), serves the built
# files on a free loopback port with no server behind them (the page plays offline), and runs
# the Playwright journey in Debian's Chromium at phone and desktop sizes, with axe-core on
# every screen; then serves them with the server (built as `cargo test` builds it) and runs
# the online journey (login in the browser). Screenshots go to $SHOTS (default target/screens).
#
# Installs what it needs on a fresh machine: chromium, the CJK fonts (Chinese shows as boxes
# without them) and binaryen (wasm-opt) from Debian, the rest through scripts/web.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/timed.sh

need=()
command -v chromium >/dev/null || need+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
command -v wasm-opt >/dev/null || need+=(binaryen)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  ($sudo apt-get install -y -qq "${need[@]}" >/dev/null 2>&1) ||
    ($sudo apt-get update -qq && $sudo apt-get install -y -qq "${need[@]}" >/dev/null)
fi

timed bash scripts/web.sh --build-only
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory web/dist >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import urllib.request as u; u.urlopen(\"http://127.0.0.1:$port/\", timeout=1)" 2>/dev/null && break
  sleep 0.1
done
shots=${SHOTS:-target/screens}
timed node web/tests/journey.mjs "http://127.0.0.1:$port/" "$shots"

# Online: the same face served by the server (same origin as the API), signing in. The
# server as `cargo test` built it (nothing to build when it did).
[ "${TONGCHENG_PREBUILT:-}" = 1 ] || cargo build -q --profile test -p tongcheng-server
run=$(mktemp -d)
# Bots fill a quick match's table after 1.5 s (two browsers queueing at once meet at one
# table), and the pause after each discard (a fairness rule the server's own suite tests) is
# short, so a whole online hand takes seconds.
# The operator's token lets the journey make a tournament (比赛) for four browsers.
export TONGCHENG_ADMIN_TOKEN="browser-$RANDOM$RANDOM$RANDOM"
target/debug/tongcheng-server --listen 127.0.0.1:0 --database "sqlite:$run/server.db" \
  --web-dir web/dist --bot-fill-ms 1500 --claim-pause-ms 20,20 >"$run/out" 2>"$run/log" &
api=$!
trap 'kill $server $api 2>/dev/null || true; rm -rf "$run"' EXIT
for _ in $(seq 100); do
  grep -q "listening on" "$run/out" 2>/dev/null && break
  sleep 0.1
done
origin=$(grep -o 'http://[0-9.:]*' "$run/out" | head -1)
[ -n "$origin" ] || { cat "$run/log" >&2; echo "browser: the server did not start" >&2; exit 1; }
timed node web/tests/online.mjs "$origin/" "$shots"
echo "browser: screenshots in $shots"
