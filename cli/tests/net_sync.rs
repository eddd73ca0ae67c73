//! `tongcheng login`, `link`, `sync` and `devices` against the real `tongcheng-server` on
//! loopback: two histories on one account, each with a match played by `tongcheng play`,
//! end with the same hands and statistics.
//!
//! The server binary is found next to `tongcheng` (`cargo test --workspace` builds both);
//! when it was not built (`cargo test -p tongcheng-cli` alone) the test says so and passes.

mod play_support;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use play_support::{command, temp_dir};
use serde_json::Value;
use tongcheng_test_support::{ServerProcess, server_beside};

/// Runs `tongcheng args...` in `dir`; stdout, or a panic with stderr.
fn tongcheng(dir: &Path, args: &[&str]) -> String {
    let o = command(dir, args).stdin(Stdio::null()).output().unwrap();
    assert!(
        o.status.success(),
        "tongcheng {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("{e}: {s}"))
}

#[test]
fn two_histories_on_one_account_sync_to_the_same_hands() {
    let Some((dir, _server, url)) = server_in("net-sync") else {
        return;
    };
    std::fs::write(dir.join("moves.txt"), "").unwrap();
    let play = |db: &str, seed: &str| {
        tongcheng(
            &dir,
            &[
                "play",
                "--script",
                "moves.txt",
                "--level",
                "easy",
                "--seed",
                seed,
                "--db",
                db,
            ],
        );
    };

    play("a.db", "3");
    let login = json(&tongcheng(
        &dir,
        &["login", "--server", &url, "--db", "a.db"],
    ));
    assert_eq!(login["created_account"], true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for f in ["a.db.key", "a.db.session.json"] {
            let mode = std::fs::metadata(dir.join(f)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{f}");
        }
    }
    let code = tongcheng(&dir, &["link", "--server", &url, "--db", "a.db"]);
    let code = code.trim();
    assert_eq!(code.len(), 9, "{code}");
    let joined = json(&tongcheng(
        &dir,
        &["link", code, "--server", &url, "--db", "b.db"],
    ));
    assert_eq!(joined["account_id"], login["account_id"]);
    play("b.db", "4");

    let sync = |db: &str| json(&tongcheng(&dir, &["sync", "--server", &url, "--db", db]));
    let a1 = sync("a.db");
    assert_eq!(a1["rejected"], serde_json::json!([]));
    assert_eq!(a1["pulled"], 0);
    let played_a = a1["uploaded"].as_u64().unwrap();
    assert!(played_a >= 16, "{a1}");
    let b1 = sync("b.db");
    assert_eq!(b1["pulled"].as_u64(), Some(played_a));
    let played_b = b1["uploaded"].as_u64().unwrap();
    let a2 = sync("a.db");
    assert_eq!(a2["pulled"].as_u64(), Some(played_b));
    assert_eq!(a2["uploaded"], 0);

    let history = |db: &str| {
        json(&tongcheng(
            &dir,
            &["history", "--db", db, "--json", "--limit", "1000"],
        ))
    };
    let (ha, hb) = (history("a.db"), history("b.db"));
    assert_eq!(ha["stats"], hb["stats"], "the same statistics");
    assert_eq!(ha["stats"]["hands"].as_u64(), Some(played_a + played_b));
    let ids = |h: &Value| {
        let mut v: Vec<String> = h["hands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["record_id"].to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids(&ha), ids(&hb));

    let devices = json(&tongcheng(
        &dir,
        &["devices", "--server", &url, "--db", "b.db"],
    ));
    assert_eq!(devices["devices"].as_array().unwrap().len(), 2);

    // A used or wrong code is refused, the same way.
    for bad in [code, "ABCD-EFGH"] {
        let o = command(&dir, &["link", bad, "--server", &url, "--db", "c.db"])
            .output()
            .unwrap();
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("invalid_link_code"), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory and a server on a free port with its store there, or `None` (saying
/// SKIPPED) when the server binary was not built.
fn server_in(name: &str) -> Option<(PathBuf, ServerProcess, String)> {
    let Some(bin) = server_beside(Path::new(play_support::BIN)) else {
        eprintln!(
            "SKIPPED: tongcheng-server is not built next to tongcheng (cargo test --workspace builds it)"
        );
        return None;
    };
    let dir = temp_dir(name);
    let store = format!("sqlite:{}", dir.join("server.db").display());
    let server = ServerProcess::start(&bin, &["--database", &store]);
    let url = server.url().to_string();
    Some((dir, server, url))
}

#[test]
fn killing_the_client_during_a_sync_loses_and_doubles_nothing() {
    let Some((dir, _server, url)) = server_in("net-kill-client") else {
        return;
    };
    std::fs::write(dir.join("moves.txt"), "").unwrap();
    for seed in ["5", "6"] {
        tongcheng(
            &dir,
            &[
                "play",
                "--script",
                "moves.txt",
                "--level",
                "easy",
                "--seed",
                seed,
                "--db",
                "a.db",
            ],
        );
    }
    tongcheng(&dir, &["login", "--server", &url, "--db", "a.db"]);
    // Kill `tongcheng sync` at different moments (before, during and after the upload, or
    // between the server's answer and the outbox being marked): whenever it dies, the next
    // sync finishes the job and nothing is stored twice.
    for delay_ms in [5u64, 20, 40, 80, 160] {
        let mut child = command(&dir, &["sync", "--server", &url, "--db", "a.db"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
    }
    let last = json(&tongcheng(
        &dir,
        &["sync", "--server", &url, "--db", "a.db"],
    ));
    assert_eq!(last["rejected"], serde_json::json!([]), "{last}");
    let again = json(&tongcheng(
        &dir,
        &["sync", "--server", &url, "--db", "a.db"],
    ));
    assert_eq!(again["uploaded"], 0, "{again}");

    // A second device on the account pulls exactly the hands played on the first.
    let code = tongcheng(&dir, &["link", "--server", &url, "--db", "a.db"]);
    tongcheng(
        &dir,
        &["link", code.trim(), "--server", &url, "--db", "b.db"],
    );
    let pulled = json(&tongcheng(
        &dir,
        &["sync", "--server", &url, "--db", "b.db"],
    ));
    let history = |db: &str| {
        json(&tongcheng(
            &dir,
            &["history", "--db", db, "--json", "--limit", "1000"],
        ))
    };
    let played = history("a.db")["stats"]["hands"].as_u64().unwrap();
    assert_eq!(played, 32, "two matches");
    assert_eq!(pulled["pulled"].as_u64(), Some(played), "{pulled}");
    assert_eq!(history("b.db")["stats"], history("a.db")["stats"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
