//! `tongcheng play` as the app: the phones' app model drawn in the terminal, played through
//! a pipe by buttons' names and keys.

use std::path::Path;

use tongcheng_test_support::{ServerProcess, server_beside};

use crate::play_support::{Session, command, stdout, temp_dir};

/// The app with its files in `dir` and bots moving every few milliseconds.
fn app(dir: &Path) -> Session {
    Session::start(dir, &["play", "--db", "data/history.db", "--pace-ms", "2"])
}

#[test]
fn a_hand_against_bots_is_played_kept_listed_and_replayed() {
    let dir = temp_dir("face");
    let mut s = app(&dir);
    let home = s
        .wait_for("[1]单机对战")
        .expect("the home screen in Chinese");
    assert!(home.iter().any(|l| l.contains("桐城麻将")), "{home:?}");
    s.send("单机对战");
    s.wait_for("[Esc]返回").expect("the new match's choices");
    s.send("国标麻将");
    s.send("开始");
    // The hand's first tile, by its key, once it is the player's to discard; then 托管.
    let table = s.wait_for("[6]提示").expect("the table");
    assert!(table.iter().any(|l| l.contains("[2]碰")), "{table:?}");
    s.send("a");
    s.send("托管");
    let result = s.wait_for("下一局").expect("the result");
    let text = result.join("\n");
    assert!(text.contains("结算"), "{text}");
    // Four payments summing to zero, each signed.
    let pay_line = result
        .iter()
        .rev()
        .find(|l| l.matches(['+', '-']).count() + l.matches(" 0 ").count() >= 4)
        .unwrap_or_else(|| panic!("payments in {text}"));
    let sum: i64 = pay_line
        .split_whitespace()
        .filter_map(|w| w.parse::<i64>().ok())
        .sum();
    assert_eq!(sum, 0, "{pay_line}");
    s.send("大厅");
    s.wait_for("继续牌局").expect("the match is kept");
    s.send("我的牌局");
    let list = s.wait_for("[Esc]返回").expect("my hands");
    let hand = list
        .iter()
        .find(|l| l.starts_with("国标麻将 ·"))
        .unwrap_or_else(|| panic!("the hand in {list:?}"));
    // Its row's key opens the replay.
    let key = &hand[hand.find('[').unwrap() + 1..hand.find(']').unwrap()];
    s.send(key);
    s.wait_for("终局").expect("the replay's controls");
    s.send("终局");
    s.wait_for("结算").expect("the replay ends on the result");
    s.send("Esc");
    s.send("Esc");
    s.wait_for("[1]").expect("home again");
    let (ok, _) = s.finish();
    assert!(ok);
    // The command line's history reads the same database.
    let o = command(&dir, &["history", "--db", "data/history.db"])
        .output()
        .unwrap();
    assert!(stdout(&o).contains("guobiao"), "{}", stdout(&o));
    // Opened again: the kept match is there to continue.
    let mut again = app(&dir);
    again
        .wait_for("继续牌局")
        .expect("继续牌局 after a restart");
    again.send("继续牌局");
    again.wait_for("[Esc]大厅").expect("the kept match's table");
    let (ok, _) = again.finish();
    assert!(ok);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn english_is_a_kept_setting_and_a_line_no_button_answers_is_an_error() {
    let dir = temp_dir("face-lang");
    let mut s = app(&dir);
    s.wait_for("[1]单机对战").unwrap();
    s.send("设置");
    s.send("English");
    s.wait_for("Back").expect("the settings in English");
    s.send("Back");
    s.wait_for("[1]Play vs bots").expect("home in English");
    let (ok, _) = s.finish();
    assert!(ok);
    // Opened again in English; a line that names no button ends the game with an error.
    let o = crate::play_support::run(
        &dir,
        &["play", "--db", "data/history.db", "--pace-ms", "2"],
        "no such button\n",
    );
    assert!(!o.status.success());
    assert!(stdout(&o).contains("[1]Play vs bots"), "{}", stdout(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no such button"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_history_not_named_history_db_is_refused() {
    let dir = temp_dir("face-db");
    let o = command(&dir, &["play", "--db", "other.db"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("history.db"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_a_server_it_signs_in_by_itself_and_plays_a_quick_match_with_a_verified_wall() {
    let dir = temp_dir("face-online");
    let Some(bin) = server_beside(Path::new(crate::play_support::BIN)) else {
        eprintln!("SKIPPED: tongcheng-server is not built next to tongcheng");
        return;
    };
    let store = format!("sqlite:{}", dir.join("server.db").display());
    // The queue fills with the server's bots at once; a match is one hand.
    let server = ServerProcess::start(
        &bin,
        &[
            "--database",
            &store,
            "--bot-fill-ms",
            "0",
            "--match-hands",
            "1",
        ],
    );
    let url = server.url().to_string();
    let mut s = Session::start(
        &dir,
        &[
            "play",
            "--db",
            "data/history.db",
            "--pace-ms",
            "2",
            "--server",
            &url,
        ],
    );
    s.wait_for("已登录").expect("signed in with the device key");
    s.send("快速匹配");
    let table = s.wait_for("[6]提示").expect("a table of the server's bots");
    assert!(table.iter().any(|l| l.contains("[2]碰")), "{table:?}");
    s.send("托管");
    let result = s.wait_for("结算").expect("the hand's result");
    let more = s.wait_for("[Esc]").unwrap_or_default();
    let text = [result, more].concat().join("\n");
    assert!(text.contains("牌墙已验证"), "{text}");
    let (ok, _) = s.finish();
    assert!(ok);
    // The key the app signed in with is the command line's: `tongcheng login` is the same
    // account.
    assert!(dir.join("data/history.db.key").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
