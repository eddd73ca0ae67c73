//! The hand history on a real file-backed WAL database in a temporary directory.
//!
//! - `history/insert_hand`: storing one finished hand (its own transaction, as the game does),
//!   the record's verification (a replay) included. Target ≤ 1 ms.
//! - `history/stats_100k`: the player's statistics over 100,000 stored hands. Target ≤ 50 ms.
//! - `history/stats_for_guobiao_100k`: the same, asked for one rule set.
//! - `history/list_20_of_100k`: the first page of the hand list over the same history.
//!
//! The 100k history is built once, before measuring, from 100,000 different real hands
//! (played by simple players; a hand is stored once, by its record id) under different seats
//! and times, inside big transactions.

use std::path::PathBuf;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use tongcheng_core::bot::play_simple_hand;
use tongcheng_core::game::HandSetup;
use tongcheng_core::history::{HistoryStore, NewHand};
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::wall::Seed;

const BIG: usize = 100_000;

struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let p =
            std::env::temp_dir().join(format!("tongcheng-history-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("a temporary directory");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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
    HandRecord::of(&g).expect("a finished hand")
}

fn bench_history(c: &mut Criterion) {
    let dir = TempDir::new();

    // Each iteration stores a hand not stored before (played outside the timing).
    let mut h = HistoryStore::open(dir.0.join("insert.db")).expect("open");
    let mut seed = 1_000_000u64;
    c.bench_function("history/insert_hand", |b| {
        b.iter_batched(
            || {
                seed += 1;
                (play(seed), seed)
            },
            |(r, s)| {
                h.add_hand(&r, Seat((s % 4) as u8), 1_700_000_000 + s as i64, None)
                    .expect("stored")
            },
            BatchSize::SmallInput,
        )
    });
    drop(h);

    let path = dir.0.join("big.db");
    let mut h = HistoryStore::open(&path).expect("open");
    let started = std::time::Instant::now();
    const CHUNK: usize = 10_000;
    for start in (0..BIG).step_by(CHUNK) {
        let records: Vec<HandRecord> = (start..start + CHUNK).map(|i| play(i as u64)).collect();
        let hands: Vec<NewHand> = records
            .iter()
            .enumerate()
            .map(|(k, r)| NewHand {
                record: r,
                // Simple players rarely reach the 8-point minimum: a quarter of the time
                // the player is the winner, so that there are wins and fans to count.
                seat: r
                    .result
                    .winner
                    .filter(|_| k % 4 == 0)
                    .unwrap_or(Seat(((start + k) / 7 % 4) as u8)),
                played_at: 1_600_000_000 + (start + k) as i64 * 60,
                match_id: None,
            })
            .collect();
        h.import(&hands).expect("imported");
    }
    drop(h);
    let h = HistoryStore::open(&path).expect("reopen");
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let st = h.stats().expect("stats");
    eprintln!(
        "built {} hands in {:.1?} ({} MB); {} wins ({:.1}%), biggest {:?}, top fan {:?}",
        st.hands,
        started.elapsed(),
        size >> 20,
        st.wins,
        100.0 * st.win_rate,
        st.biggest,
        st.top_fans.first().map(|f| (&f.name, f.wins))
    );
    assert_eq!(st.hands, BIG as u64);

    c.bench_function("history/stats_100k", |b| {
        b.iter(|| h.stats().expect("stats"))
    });
    c.bench_function("history/stats_for_guobiao_100k", |b| {
        b.iter(|| h.stats_for(Some("guobiao")).expect("stats"))
    });
    c.bench_function("history/list_20_of_100k", |b| {
        b.iter(|| h.list_hands(0, 20).expect("a page"))
    });
}

criterion_group!(benches, bench_history);
criterion_main!(benches);
