//! The history is never lost or overwritten by the command line: a file that is not a history
//! is refused and left byte for byte as it was, and a history that cannot be written stops
//! `tongcheng play` before a hand is dealt (rather than playing a match whose hands all fail to
//! save).

use crate::play_support;

use std::process::Stdio;

use play_support::{command, run, stdout, temp_dir};

#[test]
fn history_refuses_a_one_byte_file_and_leaves_it_alone() {
    let dir = temp_dir("guard-one-byte");
    let db = dir.join("one.db");
    std::fs::write(&db, b"x").unwrap();
    for args in [
        vec!["history", "--db", "one.db"],
        vec!["history", "--db", "one.db", "--json"],
        vec!["replay", "1", "--db", "one.db"],
    ] {
        let o = command(&dir, &args).stdin(Stdio::null()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded: {}", stdout(&o));
        assert!(err.contains("not a tongcheng history"), "{args:?}: {err}");
        assert!(err.contains("one.db"), "{err}");
        assert!(err.contains("move it aside"), "{err}");
        assert_eq!(
            std::fs::read(&db).unwrap(),
            b"x",
            "{args:?} touched the file"
        );
        assert!(!dir.join("one.db-wal").exists() && !dir.join("one.db-shm").exists());
    }
    // `play` too refuses it before dealing.
    let o = run(&dir, &["play", "--seed", "5", "--db", "one.db"], "");
    assert!(!o.status.success());
    assert!(!stdout(&o).contains("hand 1/"), "{}", stdout(&o));
    assert_eq!(std::fs::read(&db).unwrap(), b"x");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn play_stops_before_dealing_when_the_history_is_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("guard-read-only");
    // A real history (made by `history` on an empty file), then marked read-only.
    let db = dir.join("ro.db");
    std::fs::write(&db, b"").unwrap();
    let o = command(&dir, &["history", "--db", "ro.db"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&db).unwrap();

    let o = command(&dir, &["play", "--seed", "5", "--db", "ro.db"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let out = stdout(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "exit 0 with a read-only history:\n{out}"
    );
    assert!(err.contains("cannot be written"), "{err}");
    assert!(err.contains("ro.db"), "{err}");
    assert!(!out.contains("hand 1/"), "no hand is dealt:\n{out}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert!(!dir.join("ro.db.unfinished.json").exists());

    // Writable again, the same command plays and saves.
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
