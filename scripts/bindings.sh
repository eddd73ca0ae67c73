#!/usr/bin/env bash
# Builds the FFI library (release) and generates the Kotlin and Swift bindings from it in
# library mode. Output: build/bindings/{kotlin,swift}. Generated code is build output, never
# committed.
#   scripts/bindings.sh [--target TRIPLE]   (e.g. aarch64-linux-android, with cargo-ndk set up)
# TONGCHENG_PROFILE=test builds with the test profile instead of release (optimised, with
# debug assertions). With TONGCHENG_PREBUILT=1 as well (scripts/test.sh sets it) nothing is
# built: the library and the generator are those `cargo test --workspace` built (the
# generator's own test depends on the library), with the tests' features — building them
# here with other features would compile half the workspace again.
# TONGCHENG_PROFILE=phone builds what ships in the apps (link-time optimised, stripped).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${TONGCHENG_PROFILE:-release}
case "$profile" in
  release) dir=release ;;
  phone) dir=phone ;;
  test | dev) dir=debug ;;
  *) echo "TONGCHENG_PROFILE must be release, phone, test or dev" >&2; exit 2 ;;
esac
target_args=()
libdir=target/$dir
if [ "${1:-}" = "--target" ]; then
  target_args=(--target "$2")
  libdir="target/$2/$dir"
fi
if [ "${TONGCHENG_PREBUILT:-}" = 1 ] && [ "$profile" = test ]; then
  libdir=target/debug/deps
  bindgen=(target/debug/uniffi-bindgen)
else
  cargo build --profile "$profile" -p tongcheng-ffi "${target_args[@]}"
  cargo build --profile "$profile" -q -p uniffi-bindgen
  bindgen=(target/$dir/uniffi-bindgen)
fi
lib="$libdir/libtongcheng_ffi.so"
[ -f "$lib" ] || lib="$libdir/libtongcheng_ffi.dylib"
out=build/bindings
rm -rf "$out"
mkdir -p "$out/kotlin" "$out/swift"
"${bindgen[@]}" generate --library "$lib" --language kotlin --out-dir "$out/kotlin" --no-format
"${bindgen[@]}" generate --library "$lib" --language swift --out-dir "$out/swift" --no-format
echo "bindings in $out (library: $lib)"
