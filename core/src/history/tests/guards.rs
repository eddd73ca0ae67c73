//! What `open` refuses, and leaves exactly as it was.

use super::*;

#[cfg(unix)]
fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn short_and_text_files_are_not_histories_and_stay_untouched() {
    let dir = TempDir::new("short");
    let mut sqlite_header = b"SQLite format 3\0".to_vec();
    sqlite_header.resize(300, 0);
    let cases: [(&str, Vec<u8>); 4] = [
        ("one-byte.db", b"x".to_vec()),
        ("text.db", b"my notes about mahjong\n".repeat(100)),
        ("newline.db", b"\n".to_vec()),
        ("short-sqlite.db", sqlite_header),
    ];
    for (name, content) in cases {
        let path = dir.join(name);
        std::fs::write(&path, &content).unwrap();
        let e = HistoryStore::open(&path).unwrap_err();
        assert!(
            matches!(e, HistoryError::NotADatabase { .. }),
            "{name}: {e:?}"
        );
        assert!(e.is_unusable_file());
        assert!(e.to_string().contains("not a tongcheng history"), "{e}");
        assert_eq!(bytes(&path), content, "{name} is untouched");
        for companion in ["-wal", "-shm", "-journal"] {
            assert!(!dir.join(&format!("{name}{companion}")).exists());
        }
    }
}

#[test]
fn a_missing_or_empty_file_becomes_a_new_history() {
    let dir = TempDir::new("empty");
    let path = dir.join("empty.db");
    std::fs::write(&path, b"").unwrap();
    let mut h = HistoryStore::open(&path).unwrap();
    h.add_hand(&samples().draws[0], Seat(0), 0, None).unwrap();
    assert_eq!(h.count_hands().unwrap(), 1);
    let h = HistoryStore::open(dir.join("missing.db")).unwrap();
    assert_eq!(h.count_hands().unwrap(), 0);
}

#[cfg(unix)]
#[test]
fn a_read_only_file_is_refused_at_open() {
    let dir = TempDir::new("ro-file");
    let path = dir.join("history.db");
    {
        let mut h = HistoryStore::open(&path).unwrap();
        h.add_hand(&samples().draws[0], Seat(0), 0, None).unwrap();
    }
    let before = bytes(&path);
    set_mode(&path, 0o444);
    let e = HistoryStore::open(&path).unwrap_err();
    assert!(matches!(e, HistoryError::ReadOnly { .. }), "{e:?}");
    assert!(e.to_string().contains("cannot be written"), "{e}");
    assert!(!e.is_unusable_file(), "moving it aside is not the answer");
    assert_eq!(bytes(&path), before);
    set_mode(&path, 0o644);
    assert_eq!(HistoryStore::open(&path).unwrap().count_hands().unwrap(), 1);
}

#[cfg(unix)]
#[test]
fn a_read_only_directory_is_refused_at_open() {
    let dir = TempDir::new("ro-dir");
    let sub = dir.join("ro");
    std::fs::create_dir_all(&sub).unwrap();
    let path = sub.join("history.db");
    drop(HistoryStore::open(&path).unwrap());
    set_mode(&sub, 0o555);
    let existing = HistoryStore::open(&path).unwrap_err();
    let fresh = HistoryStore::open(sub.join("new.db")).unwrap_err();
    set_mode(&sub, 0o755);
    assert!(
        matches!(existing, HistoryError::ReadOnly { .. }),
        "{existing:?}"
    );
    assert!(matches!(fresh, HistoryError::ReadOnly { .. }), "{fresh:?}");
    assert!(!sub.join("new.db").exists());
}
