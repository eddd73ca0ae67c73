//! `kill -9` at any moment loses at most the hand in progress.
//!
//! The test re-runs its own executable as a writer process (told so by an environment
//! variable) that plays hands and stores them one by one, printing each committed id. The
//! writer is killed with SIGKILL at different moments — while opening and migrating, after a
//! few hands, after many, a few hundred microseconds into a write — and after each kill the
//! history must open, pass SQLite's integrity check, and hold and replay every hand the writer
//! reported, with at most one more (committed, but killed before it could say so).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tongcheng_core::bot::play_simple_hand;
use tongcheng_core::game::HandSetup;
use tongcheng_core::history::{HandId, HistoryStore};
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::wall::Seed;

const WRITER_ENV: &str = "TONGCHENG_HISTORY_KILL_WRITER";
const PREFIX: &str = "committed ";
const OPENING: &str = "opening the history";

fn play(seed: u64) -> HandRecord {
    let g = play_simple_hand(
        HandSetup {
            rules: RuleSet::guobiao(),
            seed: Seed::from_u64(seed),
            dealer: Seat((seed % 4) as u8),
            prevalent: Wind::East,
            dealer_level: 0,
        },
        seed,
    );
    HandRecord::of(&g).unwrap()
}

/// The writer: a no-op unless the environment says this process is the writer. Then it plays
/// and stores hands until it is killed (or a minute has passed, should the parent be gone).
#[test]
fn writer_process() {
    let Ok(path) = std::env::var(WRITER_ENV) else {
        return;
    };
    println!("\n{OPENING}");
    let mut h = HistoryStore::open(&path).expect("the writer opens the history");
    let start = Instant::now();
    // Each run starts from a different seed so that the hands differ between runs.
    let base = std::process::id() as u64 * 1000;
    let mut m = None;
    for i in 0.. {
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
        // Matches come and go too: one every 8 hands.
        if i % 8 == 0 {
            if let Some(id) = m.take() {
                h.finish_match(id, [1, -1, 2, -2], i).unwrap();
            }
            m = Some(h.start_match("guobiao", Seat(0), i).unwrap());
        }
        let record = play(base + i as u64);
        let id = h.add_hand(&record, Seat((i % 4) as u8), i, m).unwrap();
        // Printed only once the hand is committed; println! flushes at the newline.
        println!("{PREFIX}{}", id.0);
    }
}

/// The id in a writer's line. The test harness may print `test writer_process ... ` on the
/// same line before the first one.
fn committed_id(line: &str) -> Option<i64> {
    let (_, id) = line.trim_end().split_once(PREFIX)?;
    Some(id.parse().expect("an id after the prefix"))
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How long to let the writer run: until it is about to open the history and has reported
/// `hands` hands, then `extra` more.
struct Moment {
    hands: usize,
    extra: Duration,
}

/// Runs the writer until `at`, kills it with SIGKILL, and returns every id it reported.
fn run_writer_and_kill(db: &Path, at: &Moment) -> Vec<i64> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "writer_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut ids = Vec::new();
    let mut line = String::new();
    let mut opening = false;
    while !opening || ids.len() < at.hands {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("the writer stopped before {} hands:\n{err}", at.hands);
        }
        opening |= line.trim_end() == OPENING;
        ids.extend(committed_id(&line));
    }
    std::thread::sleep(at.extra);
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    // Whatever it managed to report before it died is still in the pipe.
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    ids.extend(rest.lines().filter_map(committed_id));
    ids
}

#[test]
fn kill_9_loses_at_most_the_hand_in_progress() {
    if std::env::var_os(WRITER_ENV).is_some() {
        return;
    }
    let dir = TempDir(
        std::env::temp_dir().join(format!("tongcheng-history-kill-{}", std::process::id())),
    );
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let db = dir.0.join("history.db");
    let moments = [
        // While it starts: creating the file, migrating, or writing its first hand.
        Moment {
            hands: 0,
            extra: Duration::ZERO,
        },
        Moment {
            hands: 0,
            extra: Duration::from_micros(200),
        },
        Moment {
            hands: 0,
            extra: Duration::from_micros(1500),
        },
        Moment {
            hands: 1,
            extra: Duration::ZERO,
        },
        Moment {
            hands: 5,
            extra: Duration::from_micros(300),
        },
        Moment {
            hands: 40,
            extra: Duration::from_micros(700),
        },
        Moment {
            hands: 150,
            extra: Duration::from_micros(150),
        },
        // Long enough for WAL checkpoints to have run and to be running.
        Moment {
            hands: 600,
            extra: Duration::ZERO,
        },
    ];
    let mut reported: BTreeSet<i64> = BTreeSet::new();
    let mut stored = 0u64;
    for (round, at) in moments.iter().enumerate() {
        let ids = run_writer_and_kill(&db, at);
        assert!(ids.len() >= at.hands);
        reported.extend(&ids);
        if !db.exists() {
            assert!(ids.is_empty(), "round {round}: hands reported but no file");
            continue;
        }
        let h = HistoryStore::open(&db).unwrap_or_else(|e| panic!("round {round}: {e}"));
        h.check_integrity()
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        for &id in &reported {
            let game = h
                .replay(HandId(id))
                .unwrap_or_else(|e| panic!("round {round}, hand {id}: {e}"));
            assert!(game.is_finished());
        }
        // Everything reported is there, and at most one hand more: the one committed just
        // before the kill, whose id the writer had no time to print.
        let now = h.count_hands().unwrap();
        let added = now - stored;
        assert!(
            added == ids.len() as u64 || added == ids.len() as u64 + 1,
            "round {round}: {added} hands stored, {} reported",
            ids.len()
        );
        eprintln!(
            "round {round}: killed after {} reported hands; {added} stored",
            ids.len()
        );
        stored = now;
        // Summaries and statistics read.
        h.list_hands(0, 50).unwrap();
        h.list_matches(0, 50).unwrap();
        let st = h.stats().unwrap();
        assert_eq!(st.hands, now);
    }
    assert!(reported.len() >= 796, "{} hands reported", reported.len());
}
