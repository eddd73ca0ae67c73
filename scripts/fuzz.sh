#!/usr/bin/env bash
# Runs the cargo-fuzz targets under fuzz/ (libFuzzer, address sanitizer, debug assertions).
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 60; with no TARGET every target of `cargo fuzz list` runs,
# one after the other. Installs cargo-fuzz when missing. The toolchain is stable, so the
# nightly flags libFuzzer needs are allowed with RUSTC_BOOTSTRAP=1. Each target keeps its
# corpus in fuzz/corpus/TARGET (not checked in), started from the checked-in seeds of
# fuzz/seeds/TARGET when there are any (and, for `record`, core's version-1 record fixtures);
# a crash leaves its input in fuzz/artifacts/TARGET and makes the script fail (after the other
# targets ran). Reproduce one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run --fuzz-dir fuzz TARGET fuzz/artifacts/TARGET/crash-...
# CI runs every target for 15 s (`bash scripts/fuzz.sh 15`); a longer run is e.g.
#   bash scripts/fuzz.sh 600 record engine
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/timed.sh

secs=${1:-60}
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -eq 0 ]; then
  echo "usage: bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]" >&2
  exit 2
fi
shift $(( $# > 0 ? 1 : 0 ))

if ! cargo fuzz --version >/dev/null 2>&1; then
  # A debug build: cargo-fuzz only starts cargo and the fuzzer, and an unoptimised build is quicker
  # (this runs on every fresh CI machine).
  timed cargo install cargo-fuzz --locked --debug
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
  dirs=("fuzz/corpus/$t")
  # New inputs go to the first directory only: the seeds stay as checked in.
  if [ -d "fuzz/seeds/$t" ]; then
    dirs+=("fuzz/seeds/$t")
  fi
  if [ "$t" = record ]; then
    cp core/tests/fixtures/record-v1-*.json "fuzz/corpus/$t/"
  fi
  if ! cargo fuzz run --fuzz-dir fuzz "$t" "${dirs[@]}" -- \
      -max_total_time="$secs" -timeout=30 -print_final_stats=1; then
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]} (inputs under fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: ${targets[*]}: no crash in ${secs}s each"
