// swift-tools-version:5.9
// TongchengKit: the generated Swift bindings of the Rust library (the app model's views and
// AppModel, and the engine's API). `scripts/build-xcframework.sh` builds
// TongchengCoreFFI.xcframework and copies the generated TongchengCore.swift and
// TongchengModel.swift into Sources/TongchengKit before `swift build` / Xcode.
import PackageDescription

let package = Package(
    name: "TongchengKit",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        .library(name: "TongchengKit", targets: ["TongchengKit"]),
    ],
    targets: [
        .binaryTarget(name: "TongchengCoreFFI", path: "TongchengCoreFFI.xcframework"),
        .target(name: "TongchengKit", dependencies: ["TongchengCoreFFI"], exclude: ["README.md"]),
    ]
)
