//! `tongcheng play --online`: two terminals at one table of the real `tongcheng-server` on
//! loopback (two seats are the server's bots), each playing a whole guobiao match from an
//! empty stdin; every hand verifies, lands in the local history, and a sync finds it already
//! on the server. Like `net_sync`, it says SKIPPED when the server binary was not built.

mod play_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};

use play_support::{command, temp_dir};
use serde_json::Value;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(dir: &Path) -> Option<(Server, String)> {
    let bin = Path::new(play_support::BIN).with_file_name("tongcheng-server");
    if !bin.exists() {
        eprintln!("SKIPPED: tongcheng-server is not built next to tongcheng");
        return None;
    }
    let mut child = std::process::Command::new(bin)
        .args(["--listen", "127.0.0.1:0", "--database"])
        .arg(format!("sqlite:{}", dir.join("server.db").display()))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_string();
    Some((Server(child), url))
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
