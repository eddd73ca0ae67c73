//! Botzone's protocol both ways: our bot as a Botzone program seated in our own arena plays
//! exactly the hands it plays in-process; outside programs that misbehave are reported and
//! the match still finishes; a simple bot written in Python plays through the bridge.

use std::process::Command;

use serde_json::Value;

fn tongcheng() -> &'static str {
    env!("CARGO_BIN_EXE_tongcheng")
}

fn simulate(seats: &str, walls: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "simulate",
        "--rules",
        "botzone",
        "--seats",
        seats,
        "--hands",
        walls,
        "--duplicate",
        "--seed",
        "7",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(tongcheng()).args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn our_bot_through_the_bridge_plays_the_same_hands_as_in_process() {
    let inside = simulate("hard,hard,hard,hard", "2", &[]);
    for form in ["botzone", "botzone-simple"] {
        let seat = format!("{form}:{} botzone --level hard --keep-running", tongcheng());
        let bridged = simulate(&format!("{seat},hard,hard,hard"), "2", &[]);
        assert_eq!(bridged["hands_digest"], inside["hands_digest"], "{form}");
        let report = &bridged["botzone"][0];
        assert!(report["decisions"].as_u64().unwrap() > 20, "{report}");
        for bad in ["illegal", "unreadable", "late", "crashed"] {
            assert_eq!(report[bad], 0, "{form}: {report}");
        }
    }
}

#[test]
fn one_turn_is_answered_in_either_form() {
    let run = |input: &str| {
        let mut child = Command::new(tongcheng())
            .args(["botzone", "--level", "normal"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    // The protocol's own opening: seat and round, the deal, the dealer's draw, its discard.
    let json = r#"{"requests":["0 1 0","1 0 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2","3 0 DRAW","3 0 PLAY F1"],"responses":["PASS","PASS","PASS"]}"#;
    let out = run(&format!("{json}\n"));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    // Holding a pair of 1z, the discarded 1z may be punged (then a discard is named) or not.
    let r = v["response"].as_str().unwrap();
    assert!(r == "PASS" || r.starts_with("PENG "), "{r}");
    let simple = "4\n0 1 0\nPASS\n1 0 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2\nPASS\n3 0 DRAW\nPASS\n3 0 PLAY F1\n";
    assert_eq!(run(simple).trim(), r, "both forms give the same answer");
}

#[test]
fn misbehaving_programs_are_reported_and_the_match_finishes() {
    let v = simulate(
        "hard,botzone:echo nonsense,botzone:exit 3,botzone:sleep 5",
        "1",
        &["--decision-ms", "300"],
    );
    assert_eq!(v["hands"], 4, "{v}");
    let reports = v["botzone"].as_array().unwrap();
    let by = |seat: &str| {
        reports
            .iter()
            .find(|r| r["seat"] == format!("botzone:{seat}"))
            .unwrap()
            .clone()
    };
    assert!(
        by("echo nonsense")["unreadable"].as_u64().unwrap() > 0,
        "{v}"
    );
    assert!(by("exit 3")["crashed"].as_u64().unwrap() > 0, "{v}");
    assert!(by("sleep 5")["late"].as_u64().unwrap() > 0, "{v}");
    assert!(
        by("echo nonsense")["examples"][0]
            .as_str()
            .unwrap()
            .contains("nonsense"),
        "{v}"
    );
}

#[test]
fn a_python_bot_plays_through_the_bridge() {
    if Command::new("python3").arg("--version").output().is_err() {
        println!("SKIPPED: no python3");
        return;
    }
    let bot = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/botzone_bots/shanten_bot.py"
    );
    let v = simulate(&format!("hard,botzone:python3 {bot},hard,hard"), "1", &[]);
    assert_eq!(v["hands"], 4, "{v}");
    let r = &v["botzone"][0];
    assert!(r["decisions"].as_u64().unwrap() > 20, "{r}");
    assert_eq!(r["crashed"], 0, "{r}");
    assert_eq!(r["late"], 0, "{r}");
    assert_eq!(r["unreadable"], 0, "{r}");
}
