//! A tournament's work between rounds at 10,000 entrants: booking a round of 2,500 tables
//! into the standings, ranking them, and seating the next round by standing with one entrant
//! in ten sharing an address with another (they must not meet).
//!
//! `cargo bench -p tongcheng-core --bench tournament`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tongcheng_core::tournament::{
    EntrantId, Format, Standings, TableResult, TournamentConfig, seat_round,
};

const ENTRANTS: u64 = 10_000;

/// One address per pair among the first thousand entrants, everyone else alone.
fn address(e: EntrantId) -> u64 {
    if e <= 1_000 {
        e.div_ceil(2)
    } else {
        e + 1_000_000
    }
}

fn conflict(a: EntrantId, b: EntrantId) -> bool {
    address(a) == address(b)
}

fn config() -> TournamentConfig {
    TournamentConfig {
        rules: "guobiao".into(),
        format: Format::Swiss { rounds: 6 },
        duplicate: false,
        hands_per_match: 4,
        table_points: [4, 2, 1, 0],
        bots_allowed: false,
    }
}

/// A round's results: scores from a cheap mix of the entrants' ids.
fn results(order: &[EntrantId], round: u64) -> Vec<TableResult> {
    order
        .chunks(4)
        .map(|c| {
            let s = |k: usize| ((c[k] * 7919 + round * 104_729) % 61) as i32 - 30;
            let scores = [s(0), s(1), s(2), -(s(0) + s(1) + s(2))];
            TableResult {
                players: [Some(c[0]), Some(c[1]), Some(c[2]), Some(c[3])],
                scores,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let entrants: Vec<EntrantId> = (1..=ENTRANTS).collect();
    let config = config();
    let mut standings = Standings::new(&entrants);
    standings.add_round(&config, &results(&entrants, 0), &[]);
    let mut g = c.benchmark_group("tournament");
    g.sample_size(20);
    g.bench_function("book a round of 2,500 tables", |b| {
        let tables = results(&entrants, 1);
        b.iter(|| {
            let mut s = standings.clone();
            s.add_round(&config, black_box(&tables), &[]);
            s
        })
    });
    g.bench_function("rank 10,000 entrants", |b| {
        b.iter(|| black_box(&standings).order())
    });
    let order = standings.order();
    g.bench_function(
        "seat 10,000 entrants by standing, 1,000 in pairs apart",
        |b| b.iter(|| seat_round(black_box(&order), 1, false, conflict)),
    );
    g.bench_function("between rounds at 10,000: book, rank, seat", |b| {
        let tables = results(&entrants, 1);
        b.iter(|| {
            let mut s = standings.clone();
            s.add_round(&config, &tables, &[]);
            seat_round(&s.order(), 1, false, conflict)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
