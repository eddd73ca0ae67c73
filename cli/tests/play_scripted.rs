//! `tongcheng play` in scripted mode, through the real binary: whole matches on auto-play,
//! bad input lines, quitting and resuming.

mod play_support;

use play_support::{Asked, Session, command, run, stdout, temp_dir};
use tongcheng_core::history::HistoryStore;

#[test]
fn an_empty_input_plays_a_whole_match_and_saves_16_hands() {
    let dir = temp_dir("auto");
    let o = run(&dir, &["play", "--seed", "5", "--db", "h.db"], "");
    let out = stdout(&o);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        out.matches("saved to the history as hand").count(),
        16,
        "{out}"
    );
    assert_eq!(
        out.matches("== hand ").count(),
        32,
        "16 starts and 16 results: {out}"
    );
    assert!(
        out.contains("== final standings after 16 hands =="),
        "{out}"
    );
    assert!(out.contains("auto-play: discard"), "{out}");
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "wider than 80: {line}");
    }

    let store = HistoryStore::open(dir.join("h.db")).unwrap();
    assert_eq!(store.count_hands().unwrap(), 16);
    let matches = store.list_matches(0, 10).unwrap();
    assert_eq!(matches.len(), 1);
    assert_eq!(matches[0].hands, 16);
    assert!(matches[0].finished_at.is_some(), "the match is closed");
    let finals = matches[0].final_scores.expect("final scores");
    assert_eq!(finals.iter().sum::<i32>(), 0);
    // Every stored hand replays and verifies.
    for h in store.list_hands(0, 100).unwrap() {
        store.replay(h.id).unwrap();
    }

    // The same seed and input give the same transcript, byte for byte.
    let again = run(&dir, &["play", "--seed", "5", "--db", "h2.db"], "");
    assert_eq!(stdout(&again).replace("h2.db", "h.db"), out);
    // Another seed gives another match.
    let other = run(&dir, &["play", "--seed", "6", "--db", "h3.db"], "");
    assert_ne!(stdout(&other).replace("h3.db", "h.db"), out);
}

#[test]
fn bad_lines_are_errors_and_the_same_decision_is_asked_again() {
    let dir = temp_dir("bad");
    let mut s = Session::start(&dir, &["play", "--seed", "5", "--db", "h.db"]);
    let first = s.next_decision().expect("a first decision");
    let hand_line = first
        .table
        .iter()
        .find(|l| l.starts_with("your hand: "))
        .expect("the hand is shown")
        .clone();
    // A tile the player does not hold: an illegal discard.
    let missing = [
        "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "4p", "5p",
    ]
    .into_iter()
    .find(|t| !hand_line.split_whitespace().any(|w| w == *t))
    .expect("13 tiles cannot hold all fourteen");
    assert!(
        first.table.iter().any(|l| l.contains("your turn")),
        "{:?}",
        first.table
    );
    for line in [
        format!("discard {missing}"),
        "dance wildly".into(),
        "pass".into(),
        "pung".into(),
        "discard".into(),
        "".into(),
        "# just a comment".into(),
        "\u{1b}[A garbage \u{7f}".into(),
        "hint".into(),
        first.on_timeout.clone(),
    ] {
        s.send(&line);
    }
    let next = s
        .next_decision()
        .expect("the game goes on after the errors");
    assert!(!next.table.is_empty());
    let (ok, transcript) = s.finish();
    assert!(ok, "exit 0 after bad input");
    let t = transcript.join("\n");
    assert!(
        t.contains(&format!(
            "error: line 1: you cannot discard {missing}: you hold no {missing}"
        )),
        "{t}"
    );
    assert!(
        t.contains("error: line 2: 'dance wildly' is not a move"),
        "{t}"
    );
    assert!(
        t.contains("error: line 3: you cannot pass: it is your turn"),
        "{t}"
    );
    assert!(t.contains("error: line 4: pung is not possible now"), "{t}");
    assert!(
        t.contains("error: line 5: 'discard': discard needs a tile"),
        "{t}"
    );
    assert!(t.contains("error: line 8:"), "{t}");
    assert!(
        !t.contains("error: line 6") && !t.contains("error: line 7"),
        "blank and comment lines are skipped: {t}"
    );
    assert!(t.contains("hint: "), "{t}");
    assert_eq!(t.matches("error: ").count(), 6, "{t}");
    // The legal move after the errors was played as the dealer's first discard.
    let played = first.on_timeout.trim_start_matches("discard ");
    assert!(t.contains(&format!("You (E) discards {played}")), "{t}");
    assert!(t.contains("== final standings after 16 hands =="), "{t}");
}

#[test]
fn a_script_file_drives_the_game_and_a_missing_one_is_a_clean_error() {
    let dir = temp_dir("file");
    std::fs::write(dir.join("moves.txt"), "# my moves\nhint\n\ntable\ndance\n").unwrap();
    let o = command(
        &dir,
        &[
            "play",
            "--seed",
            "8",
            "--db",
            "h.db",
            "--script",
            "moves.txt",
        ],
    )
    .output()
    .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("hint: "), "{out}");
    assert!(
        out.contains("error: line 5: 'dance' is not a move"),
        "{out}"
    );
    assert!(
        out.contains("== final standings after 16 hands =="),
        "{out}"
    );

    let o = command(
        &dir,
        &[
            "play", "--seed", "8", "--db", "h.db", "--script", "nope.txt",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read the script nope.txt"));
    // A missing script leaves no new history behind.
    let o = command(
        &dir,
        &[
            "play", "--seed", "8", "--db", "fresh.db", "--script", "nope.txt",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        !dir.join("fresh.db").exists(),
        "the history was created first"
    );

    let o = command(&dir, &["play", "--rules", "mahjong-2000", "--db", "h.db"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown rule set"));
}

/// Answers every decision with its timeout move (what auto-play would do) until `stop`
/// returns true for the table shown; that decision is returned unanswered.
fn answer_until(s: &mut Session, mut stop: impl FnMut(&[String]) -> bool) -> Asked {
    loop {
        let asked = s.next_decision().expect("the match is still on");
        if stop(&asked.table) {
            return asked;
        }
        s.send(&asked.on_timeout);
    }
}

#[test]
fn quitting_saves_the_match_and_only_resume_continues_it() {
    let dir = temp_dir("resume");
    let args = ["play", "--seed", "21", "--level", "easy", "--db", "h.db"];
    // Play into the second hand, a few moves in, then quit.
    let mut s = Session::start(&dir, &args);
    let hand2 = answer_until(&mut s, |t| t.iter().any(|l| l.contains("-- hand 2/16")));
    s.send(&hand2.on_timeout);
    let mut n = 0;
    let before_quit = answer_until(&mut s, |_| {
        n += 1;
        n > 3
    })
    .table;
    s.send("quit");
    let (ok, transcript) = s.finish();
    assert!(ok);
    let t = transcript.join("\n");
    assert!(
        t.contains("quit: the match is saved in h.db.unfinished.json"),
        "{t}"
    );
    // The way back names the same history file.
    assert!(
        t.contains("`tongcheng play --resume --db h.db` continues it"),
        "{t}"
    );
    let saved_path = dir.join("h.db.unfinished.json");
    let saved = std::fs::read(&saved_path).expect("the unfinished match is written");
    let json: serde_json::Value = serde_json::from_slice(&saved).unwrap();
    assert_eq!(json["version"], 2);
    assert_eq!(json["table"]["config"]["bot_seed"], 21);
    assert_eq!(json["table"]["config"]["players"][1]["bot"], "easy");
    assert_eq!(json["table"]["hands"].as_array().unwrap().len(), 2);

    // A new run without --resume says so and leaves the file alone.
    let o = run(&dir, &["play", "--seed", "99", "--db", "h.db"], "quit\n");
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("an unfinished match (guobiao rules, seed 21, easy bots,")
            && out.contains("is saved in h.db.unfinished.json; it is left untouched"),
        "{out}"
    );
    assert!(out.contains("seed 99"), "{out}");
    assert_eq!(std::fs::read(&saved_path).unwrap(), saved, "untouched");

    // With --resume: the same table as when we quit, then the match plays on to its end.
    let mut r = Session::start(&dir, &["play", "--resume", "--db", "h.db", "--seed", "1"]);
    r.send("table");
    let first = r.next_decision().expect("a decision after resuming");
    let again = r.next_decision().expect("the table again");
    assert_eq!(first.table, before_quit, "resumed at the same decision");
    assert_eq!(again.table, before_quit);
    let (ok, transcript) = r.finish();
    assert!(ok);
    let t = transcript.join("\n");
    assert!(
        t.contains("resuming the unfinished match saved in h.db.unfinished.json"),
        "{t}"
    );
    assert!(
        t.contains("tongcheng play: guobiao rules, easy bots, seed 21"),
        "{t}"
    );
    assert!(t.contains("== final standings after 16 hands =="), "{t}");
    assert!(
        !saved_path.exists(),
        "a resumed match that ended is no longer kept"
    );

    // Quitting and resuming changed nothing: an uninterrupted auto-played run of the same
    // seed ends with the same standings.
    let straight = stdout(&run(
        &dir,
        &[
            "play", "--seed", "21", "--level", "easy", "--db", "other.db",
        ],
        "",
    ));
    let finals = |s: &str| {
        s[s.find("== final standings").expect("finals")..]
            .trim_end()
            .to_string()
    };
    assert_eq!(finals(&t), finals(&straight));

    // One match in the history, with all 16 hands (hand 1 before the quit, the rest after).
    let store = HistoryStore::open(dir.join("h.db")).unwrap();
    let matches = store.list_matches(0, 10).unwrap();
    assert_eq!(matches.len(), 1, "the quick quit stored nothing");
    assert_eq!(matches[0].hands, 16);
    assert!(matches[0].finished_at.is_some());

    // --resume with nothing saved starts a new match and says so.
    let o = run(
        &dir,
        &["play", "--resume", "--seed", "4", "--db", "h.db"],
        "quit\n",
    );
    assert!(
        stdout(&o).contains("no unfinished match in h.db.unfinished.json: starting a new match")
    );
}

/// A killed game (a closed terminal window, a crash) loses at most the hand in play: the match
/// is kept after every hand, resumed or not, and the save is gone once the match ends.
#[test]
fn a_killed_game_keeps_every_finished_hand_even_after_a_resume() {
    let dir = temp_dir("killed");
    let saved_path = dir.join("h.db.unfinished.json");
    let hands_kept = || {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&saved_path).expect("the match is kept"))
                .unwrap();
        json["table"]["hands"].as_array().unwrap().len()
    };
    let into_hand = |s: &mut Session, n: u32| {
        let marker = format!("-- hand {n}/16");
        let asked = answer_until(s, |t| t.iter().any(|l| l.contains(&marker)));
        s.send(&asked.on_timeout);
        answer_until(s, |_| true);
    };

    let mut s = Session::start(
        &dir,
        &["play", "--seed", "21", "--level", "easy", "--db", "h.db"],
    );
    into_hand(&mut s, 2);
    drop(s); // SIGKILL mid-hand 2
    assert_eq!(hands_kept(), 2, "hand 1 finished, hand 2 to be played");

    let mut r = Session::start(&dir, &["play", "--resume", "--db", "h.db"]);
    into_hand(&mut r, 3);
    drop(r); // killed again, after a resume
    assert_eq!(hands_kept(), 3, "the resumed match was kept after its hand");

    let o = run(&dir, &["play", "--resume", "--db", "h.db"], "");
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(!saved_path.exists(), "a finished match is no longer kept");
    let store = HistoryStore::open(dir.join("h.db")).unwrap();
    let matches = store.list_matches(0, 10).unwrap();
    assert_eq!(matches.len(), 1);
    assert_eq!(
        matches[0].hands, 16,
        "every hand once, none lost or doubled"
    );
}

#[test]
fn a_damaged_unfinished_file_is_reported_not_fatal() {
    let dir = temp_dir("damaged");
    std::fs::write(dir.join("h.db.unfinished.json"), "{ not json").unwrap();
    let o = run(&dir, &["play", "--seed", "2", "--db", "h.db"], "quit\n");
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("cannot be read as a saved match"), "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.join("h.db.unfinished.json")).unwrap(),
        "{ not json"
    );
    let o = run(&dir, &["play", "--resume", "--db", "h.db"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("left untouched"));
}

/// Sets `key` to `value` in every object named "rules" inside `v`.
fn set_in_rules(v: &mut serde_json::Value, key: &str, value: serde_json::Value) -> usize {
    let mut n = 0;
    match v {
        serde_json::Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k == "rules"
                    && let Some(rules) = child.as_object_mut()
                {
                    rules.insert(key.to_string(), value.clone());
                    n += 1;
                } else {
                    n += set_in_rules(child, key, value.clone());
                }
            }
        }
        serde_json::Value::Array(items) => {
            for child in items {
                n += set_in_rules(child, key, value.clone());
            }
        }
        _ => {}
    }
    n
}

#[test]
fn a_saved_match_with_impossible_rules_is_refused_and_kept() {
    // Reproducer: flowers with the flipped wild used to panic in the Hangzhou scorer, after
    // --resume had already deleted the save.
    let dir = temp_dir("impossible");
    let o = run(&dir, &["play", "--seed", "8", "--db", "h.db"], "7p\nquit\n");
    assert!(o.status.success(), "{}", stdout(&o));
    let path = dir.join("h.db.unfinished.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("quit saves the match")).unwrap();
    assert!(set_in_rules(&mut json, "flowers", true.into()) > 0);
    set_in_rules(&mut json, "wild", "flipped".into());
    let forged = serde_json::to_string(&json).unwrap();
    std::fs::write(&path, &forged).unwrap();

    let o = run(&dir, &["play", "--resume", "--db", "h.db"], "");
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("left untouched") && err.contains("flower"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), forged);
}

#[test]
fn with_ascii_a_whole_match_prints_only_ascii() {
    let dir = temp_dir("ascii");
    // Hangzhou: the wild, its fans and payments are named too.
    for rules in ["guobiao", "hangzhou"] {
        let db = format!("{rules}.db");
        let o = run(
            &dir,
            &[
                "play", "--seed", "8", "--rules", rules, "--db", &db, "--ascii",
            ],
            "hint\nhint\n",
        );
        let out = stdout(&o);
        assert!(o.status.success(), "{out}");
        assert!(out.contains("hint:"), "{out}");
        let bad: Vec<&str> = out.lines().filter(|l| !l.is_ascii()).take(3).collect();
        assert!(bad.is_empty(), "{bad:?}");
    }
}

/// 飘 chosen each hand: a script stakes before each hand (a bad stake is asked again), the
/// end of input stakes 0, and `--piao-each-hand` needs a Tongcheng rule set.
#[test]
fn piao_each_hand_is_asked_before_every_hand() {
    let dir = temp_dir("piao");
    let args = [
        "play",
        "--seed",
        "4",
        "--rules",
        "tongcheng-dianpao",
        "--piao-each-hand",
        "--db",
        "h.db",
    ];
    let o = run(&dir, &args, "eleven\n12\n3\n");
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("'eleven' is not a stake"), "{out}");
    assert!(out.contains("飘 12 (at most 10)"), "{out}");
    assert!(out.contains("piao 3; everyone: "), "{out}");
    assert!(out.contains("tongcheng-dianpao-piao rules"), "{out}");
    let asked = out.matches("piao (飘) for this hand").count();
    assert!(asked >= 3, "asked {asked} times: {out}");
    let o = run(&dir, &["play", "--piao-each-hand", "--db", "g.db"], "");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a Tongcheng rule"));
}
