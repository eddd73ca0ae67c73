//! A hand played through `tongcheng play` is found by `tongcheng history` and replays to the
//! same result with `tongcheng replay`.

use crate::play_support;

use play_support::{Session, command, numbers, temp_dir};

#[test]
fn a_played_hand_is_in_the_history_and_replays_to_the_same_result() {
    let dir = temp_dir("history");
    let mut s = Session::start(
        &dir,
        &["play", "--seed", "17", "--level", "hard", "--db", "h.db"],
    );
    // A few moves typed in (each decision's own timeout move, discards of the drawn tile),
    // a hint on the way; then the input ends and auto-play finishes the match.
    for i in 0..4 {
        let Some(asked) = s.next_decision() else {
            break;
        };
        if i == 1 {
            s.send("hint");
        }
        s.send(&asked.on_timeout);
    }
    let (ok, transcript) = s.finish();
    assert!(ok);
    let t = transcript.join("\n");
    assert!(t.contains("saved to the history as hand 1"), "{t}");

    // Hand 1's score changes as the game printed them, seat by seat.
    let start = t.find("== hand 1/16 over").expect("hand 1 ended");
    let changes_line = t[start..]
        .lines()
        .find(|l| l.trim_start().starts_with("score changes:"))
        .expect("score changes")
        .to_string();
    let played = numbers(&changes_line);
    assert_eq!(played.len(), 4, "{changes_line}");

    let o = command(
        &dir,
        &["history", "--db", "h.db", "--json", "--limit", "100"],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let hands = doc["hands"].as_array().expect("a list of hands");
    assert_eq!(hands.len(), 16);
    let first = hands
        .iter()
        .min_by_key(|h| h["id"].as_i64().unwrap())
        .expect("hand 1");
    let id = first["id"].as_i64().unwrap();
    assert_eq!(
        first["points"].as_i64(),
        Some(played[0]),
        "the player's points"
    );

    let o = command(&dir, &["replay", &id.to_string(), "--db", "h.db"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(last.starts_with("verified"), "{out}");
    let points = out
        .lines()
        .find(|l| l.starts_with("points:"))
        .expect("the replay's score changes");
    assert_eq!(numbers(points), played, "{points} vs {changes_line}");
}
