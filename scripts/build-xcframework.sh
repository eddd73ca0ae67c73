#!/usr/bin/env bash
# macOS only: builds TongchengCoreFFI.xcframework (device + simulator static libraries) and
# the Swift bindings for ios/. Needs Xcode and the iOS Rust targets.
set -euo pipefail
cd "$(dirname "$0")/.."
for t in aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios; do
  cargo build --release -p tongcheng-ffi --target "$t"
done
out=build/ios
rm -rf "$out" && mkdir -p "$out/headers" "$out/sim"
cargo run --release -q -p uniffi-bindgen -- generate \
  --library target/aarch64-apple-ios/release/libtongcheng_ffi.a --language swift --out-dir "$out/swift"
# Two crates export (the FFI crate and the app model's views): both headers, one module map.
cp "$out/swift/TongchengCoreFFI.h" "$out/swift/TongchengModelFFI.h" "$out/headers/"
cat "$out/swift/TongchengCoreFFI.modulemap" "$out/swift/TongchengModelFFI.modulemap" >"$out/headers/module.modulemap"
lipo -create target/aarch64-apple-ios-sim/release/libtongcheng_ffi.a \
  target/x86_64-apple-ios/release/libtongcheng_ffi.a -output "$out/sim/libtongcheng_ffi.a"
rm -rf ios/TongchengCoreFFI.xcframework
xcodebuild -create-xcframework \
  -library target/aarch64-apple-ios/release/libtongcheng_ffi.a -headers "$out/headers" \
  -library "$out/sim/libtongcheng_ffi.a" -headers "$out/headers" \
  -output ios/TongchengCoreFFI.xcframework
cp "$out/swift/TongchengCore.swift" "$out/swift/TongchengModel.swift" ios/Sources/TongchengKit/
echo "ios/TongchengCoreFFI.xcframework and the Swift bindings in ios/Sources/TongchengKit/ are ready"
