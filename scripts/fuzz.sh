#!/usr/bin/env bash
# Runs the cargo-fuzz targets under fuzz/ (libFuzzer, address sanitizer, debug assertions).
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 60; with no TARGET every target of `cargo fuzz list` runs,
# one after the other. Installs cargo-fuzz when missing. The toolchain is stable, so the
# nightly flags libFuzzer needs are allowed with RUSTC_BOOTSTRAP=1. Each target keeps its
# corpus in fuzz/corpus/TARGET; a crash leaves its input in fuzz/artifacts/TARGET and makes
# the script fail (after the other targets ran). Reproduce one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET fuzz/artifacts/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -eq 0 ]; then
  echo "usage: bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]" >&2
  exit 2
fi
shift $(( $# > 0 ? 1 : 0 ))

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list --fuzz-dir fuzz)
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "no fuzz targets found under fuzz/" >&2
  exit 2
fi

failed=()
for t in "${targets[@]}"; do
  echo "== fuzz $t for ${secs}s"
  mkdir -p "fuzz/corpus/$t"
  if ! cargo fuzz run --fuzz-dir fuzz "$t" "fuzz/corpus/$t" -- \
      -max_total_time="$secs" -timeout=30 -print_final_stats=1; then
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]} (inputs under fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: ${targets[*]}: no crash in ${secs}s each"
