//! `tongcheng play --online`: two terminals at one table of the real `tongcheng-server` on
//! loopback (two seats are the server's bots), each playing a whole guobiao match from an
//! empty stdin; every hand verifies, lands in the local history, and a sync finds it already
//! on the server. Like `net_sync`, it says SKIPPED when the server binary was not built.

mod play_support;

use std::path::Path;
use std::process::Stdio;

use play_support::{command, temp_dir};
use serde_json::Value;
use tongcheng_test_support::{ServerProcess, server_beside};

/// A server on a free port with its store in `dir`, and its URL; `None` (saying SKIPPED)
/// when the server binary was not built.
fn start_server(dir: &Path) -> Option<(ServerProcess, String)> {
    let Some(bin) = server_beside(Path::new(play_support::BIN)) else {
        eprintln!("SKIPPED: tongcheng-server is not built next to tongcheng");
        return None;
    };
    let store = format!("sqlite:{}", dir.join("server.db").display());
    let server = ServerProcess::start(&bin, &["--database", &store]);
    let url = server.url().to_string();
    Some((server, url))
}

#[test]
fn two_terminals_play_a_match_online_and_sync_finds_every_hand() {
    let dir = temp_dir("online");
    let Some((_server, url)) = start_server(&dir) else {
        return;
    };
    let players: Vec<_> = ["a.db", "b.db"]
        .iter()
        .map(|db| {
            command(
                &dir,
                &[
                    "play", "--online", "--server", &url, "--table", "duo", "--people", "2",
                    "--db", db, "--ascii",
                ],
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for p in players {
        let o = p.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(out.matches("  fair wall:").count(), 16, "{out}");
        assert!(out.contains("0 unfair hand(s)"), "{out}");
        assert!(!out.contains("WARNING"), "{out}");
    }
    for db in ["a.db", "b.db"] {
        let o = command(&dir, &["sync", "--server", &url, "--db", db])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(report["already"], 16, "{report}");
        assert_eq!(report["uploaded"], 0, "{report}");
        assert_eq!(report["rejected"].as_array().map(Vec::len), Some(0));
    }
}
