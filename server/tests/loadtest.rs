//! A small load run, as CI can afford it: 400 players on loopback log in, queue (ranked, each
//! from its own address), play one-hand matches at a quick pace against a server process of
//! their own for 30 s of queueing, and every match they started must finish with no error of
//! any kind. The figures for 10,000 players come from the same command in release (README).

use std::process::Command;

use serde_json::Value;

#[test]
fn four_hundred_players_finish_every_match_without_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tongcheng-server"))
        .args([
            "loadtest",
            "--players",
            "400",
            "--ramp-secs",
            "5",
            "--secs",
            "25",
            "--grace-secs",
            "240",
            "--think-ms",
            "150,500",
            "--bot-fill-ms",
            "3000",
            "--progress-secs",
            "0",
        ])
        .output()
        .expect("the server binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "loadtest failed: {stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON report");
    eprintln!("{report}");
    assert_eq!(report["errors"], 0, "{report}\n{stderr}");
    assert_eq!(report["players"], 400);
    assert_eq!(report["connected_peak"], 400, "{report}");
    let started = report["matches_started"].as_u64().unwrap();
    assert!(started >= 400, "{report}");
    assert_eq!(
        report["matches_finished"].as_u64(),
        Some(started),
        "{report}"
    );
    assert!(report["tables_peak"].as_u64().unwrap() >= 100, "{report}");
    assert!(
        report["latency_samples"].as_u64().unwrap() > 1000,
        "{report}"
    );
    assert!(
        report["server_kb_per_player"].as_f64().is_some(),
        "{report}"
    );
}
