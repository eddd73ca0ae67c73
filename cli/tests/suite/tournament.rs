//! `tongcheng tournament`: a bot tournament written out round by round, every round verified
//! by `verify`, and a round whose secret was changed refused.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_tongcheng");

#[test]
fn a_simulated_tournaments_rounds_verify_and_a_forged_one_does_not() {
    let dir = std::env::temp_dir().join(format!("tongcheng-tournament-{}", std::process::id()));
    let out = Command::new(BIN)
        .args([
            "tournament",
            "simulate",
            "--entrants",
            "16",
            "--format",
            "elimination",
        ])
        .args(["--duplicate", "--hands", "1", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // 16 → 8 → 4: three rounds, 4 + 2 + 1 tables.
    assert_eq!(summary["rounds"], 3);
    assert_eq!(summary["tables"], 7);
    let rounds: Vec<_> = (1..=3)
        .map(|r| dir.join(format!("round-{r}.json")))
        .collect();
    let out = Command::new(BIN)
        .args(["tournament", "verify"])
        .args(&rounds)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("\"verified\":true"))
            .count(),
        3
    );

    // Another secret than the one committed to.
    let mut forged: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&rounds[0]).unwrap()).unwrap();
    forged["secret"] = serde_json::json!("00".repeat(32));
    std::fs::write(&rounds[0], forged.to_string()).unwrap();
    let out = Command::new(BIN)
        .args(["tournament", "verify"])
        .arg(&rounds[0])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("not the one committed to"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
