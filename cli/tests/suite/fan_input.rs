//! `tongcheng fan` through the real binary: every reproducer of a panic, an overflow or a
//! silently ignored key answers with an `{"error": ...}` line, and the run goes on.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tongcheng");

fn fan(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .arg("fan")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The answer lines, after checking the run succeeded.
fn answers(args: &[&str], input: &str) -> Vec<serde_json::Value> {
    let o = fan(args, input.as_bytes());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn error(v: &serde_json::Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

const H1: &str = r#""concealed":"123m456m789p234s5s","win_tile":"5s""#;

#[test]
fn hangzhou_reproducers_are_errors_and_the_run_goes_on() {
    let lines = [
        r#"{"concealed":"1112345678999m","win_tile":"1f"}"#.to_string(),
        format!(r#"{{{H1},"wild":"1f"}}"#),
        format!(r#"{{{H1},"liable":{{"contract":4}}}}"#),
        format!(r#"{{{H1},"piao":255}}"#),
        format!(r#"{{{H1},"kongs":255,"on_kong":true}}"#),
        format!(r#"{{{H1},"liable":{{"contract":1}}}}"#),
        format!(r#"{{{H1},"wilds_discarded":255}}"#),
        format!(r#"{{{H1},"dealer_level":255}}"#),
        format!(r#"{{{H1},"self_draw":false}}"#),
        format!("{{{H1}}}"),
    ];
    let want = [
        "the winning tile 1f is a flower: flowers are never part of a hand",
        "1f is a flower: a flower cannot be the wild or the face 白 plays",
        "seat 4 does not exist (seats are 0–3)",
        "piao 255 is more than the 4 wilds in play",
        "kongs 255 is more than the 4 kongs a hand can make",
        "the liable seat 1 is the winner: a winner cannot pay itself",
        "wilds_discarded 255 is more than the 4 wilds in play",
        "dealer_level 255 is above these rules' highest level, 3",
        "unknown field `self_draw`",
    ];
    for rules in ["hangzhou", "hangzhou-mil"] {
        let out = answers(&["--rules", rules], &(lines.join("\n") + "\n"));
        assert_eq!(out.len(), lines.len());
        for (i, w) in want.iter().enumerate() {
            assert!(
                error(&out[i]).starts_with(w),
                "{rules} line {i}: {}",
                out[i]
            );
        }
        let last = &out[want.len()];
        let payments: Vec<i64> = last["payments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .collect();
        assert_eq!(payments.iter().sum::<i64>(), 0, "{last}");
    }
}

#[test]
fn a_typo_is_not_a_discard_win() {
    let out = answers(
        &[],
        r#"{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m","claimed":"2m"}],"win_tile":"6s","selfdrawn":true}
{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m","claimed":"2m"}],"win_tile":"6s","self_drawn":true}
"#,
    );
    assert!(error(&out[0]).starts_with("unknown field `selfdrawn`, expected one of"));
    assert_eq!(out[1]["total"], 9, "{}", out[1]);
}

#[test]
fn a_huge_line_is_refused_quickly() {
    // Within the line limit, the tile parser stops at the 145th digit.
    let digits = format!(
        "{{\"concealed\":\"{}\",\"win_tile\":\"1m\"}}\n",
        "1".repeat(1 << 19)
    );
    // Past it, the line is skipped unread: the next lines are answered as ever.
    let huge = format!("{{\"concealed\":\"{}\"}}\n", "1".repeat(20 << 20));
    let unterminated = "2".repeat(3 << 20);
    let input = format!("{digits}{huge}{{{H1}}}\n{digits}{unterminated}");
    let t = std::time::Instant::now();
    let o = fan(&["--rules", "hangzhou"], input.as_bytes());
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    let too_many = r#"{"error":"concealed: more than 144 tiles (position 144): no hand or meld list holds that many"}"#;
    let too_long = r#"{"error":"the line is longer than 1048576 bytes"}"#;
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[0], too_many);
    assert_eq!(lines[1], too_long);
    assert!(lines[2].contains("payments"), "{}", lines[2]);
    assert_eq!(lines[3], too_many);
    assert_eq!(lines[4], too_long);
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn help_documents_the_input_schema() {
    let o = Command::new(BIN).args(["fan", "--help"]).output().unwrap();
    let help = String::from_utf8(o.stdout).unwrap();
    for f in [
        "concealed",
        "win_tile",
        "self_drawn",
        "seat_wind",
        "options",
        "wilds_discarded",
        "dealer_level",
        "liable",
        "Unknown keys are errors",
    ] {
        assert!(help.contains(f), "{f}: {help}");
    }
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    // `tongcheng shanten < hands | head -1`: the pipe closes after the first line.
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tongcheng"))
        .arg("shanten")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for _ in 0..20_000 {
            if stdin.write_all(b"123m456p789s1167z\n").is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("\"shanten\":1"), "{first}");
    // stdout is dropped here: the next write of the program meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
