//! The bindings generate from the phone library as `cargo test` built it (the dev-dependency
//! beside this test's executable), in Kotlin and in Swift, and name the library's API.

use std::path::PathBuf;
use std::process::Command;

/// The phone library in this test's own build directory.
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let name = format!(
        "{}tongcheng_ffi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let lib = deps.join(&name);
    assert!(lib.is_file(), "no {name} in {}", deps.display());
    lib
}

#[test]
fn kotlin_and_swift_bindings_name_the_librarys_api() {
    let lib = library();
    for (language, file, expected) in [
        (
            "kotlin",
            "com/tongcheng/core/tongcheng_ffi.kt",
            "class HistoryStore",
        ),
        ("swift", "TongchengCore.swift", "class HistoryStore"),
    ] {
        let out = std::env::temp_dir().join(format!(
            "tongcheng-bindgen-test-{}-{language}",
            std::process::id()
        ));
        let status = Command::new(env!("CARGO_BIN_EXE_uniffi-bindgen"))
            .args(["generate", "--library"])
            .arg(&lib)
            .args(["--language", language, "--no-format", "--out-dir"])
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success(), "{language}: {status}");
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(
            text.contains(expected),
            "{language}: no '{expected}' in {file}"
        );
        let _ = std::fs::remove_dir_all(&out);
    }
}
