//! Shanten with useful tiles, ours against the `xiangting` crate (the fastest public Rust
//! shanten, riichi rules) on the same hands in the same run.
//!
//! Two seeded corpora of 13-tile hands: random draws from a full wall, and ready hands (a
//! random complete hand of four sets and a pair less one random tile).
//!
//! The work compared is at least equal on our side: `xiangting::calculate_necessary_tiles`
//! always runs three shapes (regular, seven pairs, thirteen orphans) and returns the minimum
//! and the tiles that lower it; ours is `shanten::best`, which runs our five (those three, honors
//! and knitted, knitted straight) and returns the same pair (its replacement number is our
//! shanten + 1, its necessary tiles our useful tiles). Its regular pass alone is not public, so
//! our regular shape alone against its three shapes would time less work on our side: the
//! figure printed last, for reference only. Before timing, every hand of both corpora is
//! checked: the answers must be the same wherever our two extra shapes are not at the minimum
//! and seven pairs cannot differ (a quad is two pairs in Chinese Official, none in riichi: so
//! no kind held four times, nor three while seven pairs is at the minimum).
//!
//! First an interleaved comparison: rounds alternate ours and theirs over the whole corpus, and
//! the median time per hand over the rounds is printed with the ratio. Then the criterion
//! benchmarks of the four cases.
//!
//! `cargo bench -p tongcheng-core --bench versus_xiangting`

use std::hint::black_box;
use std::time::Instant;

use criterion::Criterion;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tongcheng_core::shanten::{ShapeShanten, analyze, best, regular_with_useful};
use tongcheng_core::tile::{KINDS, TileCounts};
use xiangting::{PlayerCount, calculate_necessary_tiles};

const CORPUS: usize = 4096;

fn draw(rng: &mut ChaCha8Rng, n: usize) -> TileCounts {
    let mut wall: Vec<u8> = (0..KINDS as u8).flat_map(|k| [k; 4]).collect();
    wall.shuffle(rng);
    let mut c = TileCounts::new();
    for &k in &wall[..n] {
        c.0[k as usize] += 1;
    }
    c
}

/// A random complete hand of four sets and a pair, less one random tile: ready (听牌).
fn ready(rng: &mut ChaCha8Rng) -> TileCounts {
    loop {
        let mut c = TileCounts::new();
        for _ in 0..4 {
            if rng.gen_bool(0.6) {
                let low = rng.gen_range(0..3) * 9 + rng.gen_range(0..7);
                (0..3).for_each(|d| c.0[low + d] += 1);
            } else {
                c.0[rng.gen_range(0..KINDS)] += 3;
            }
        }
        c.0[rng.gen_range(0..KINDS)] += 2;
        if c.0.iter().all(|&x| x <= 4) {
            let kinds: Vec<_> = c.kinds().collect();
            c.remove(*kinds.choose(rng).unwrap());
            return c;
        }
    }
}

/// Our five shapes: the minimum shanten and the useful tiles of every shape at it.
fn ours(h: &TileCounts) -> (i8, u64) {
    let s = best(h, 0).unwrap();
    (s.shanten, s.useful.0)
}

/// Our regular shape alone (less work than theirs: for reference only).
fn ours_regular(h: &TileCounts) -> (i8, u64) {
    let s = regular_with_useful(h, 0).unwrap();
    (s.shanten, s.useful.0)
}

fn theirs(h: &TileCounts) -> (u8, u64) {
    calculate_necessary_tiles(&h.0, PlayerCount::Four).unwrap()
}

/// Checks that both sides give the same answer on every hand where the shapes agree (see the
/// module comment); returns how many hands were compared.
fn same_answers(hands: &[TileCounts]) -> usize {
    let mut compared = 0;
    for h in hands {
        let a = analyze(h, 0).unwrap();
        let at_minimum = |s: Option<ShapeShanten>| s.is_some_and(|s| s.shanten == a.shanten);
        let extra_at_minimum = at_minimum(a.honors_knitted) || at_minimum(a.knitted_straight);
        // A quad is two pairs for us: a third copy then counts toward seven pairs.
        let quads_differ =
            h.0.contains(&4) || (at_minimum(a.seven_pairs) && h.0.iter().any(|&x| x >= 3));
        if extra_at_minimum || quads_differ {
            continue;
        }
        let (s, u) = ours(h);
        let (r, n) = theirs(h);
        assert_eq!((s + 1, u), (r as i8, n), "{h:?}");
        compared += 1;
    }
    compared
}

/// Median ns per hand over `rounds` passes of each, ours and theirs alternating.
fn interleaved(
    hands: &[TileCounts],
    rounds: usize,
    ours: fn(&TileCounts) -> (i8, u64),
) -> (f64, f64) {
    let mut a = Vec::with_capacity(rounds);
    let mut b = Vec::with_capacity(rounds);
    let per_hand = |start: Instant| start.elapsed().as_nanos() as f64 / hands.len() as f64;
    for round in 0..rounds {
        // Alternate which goes first, so neither always follows the other.
        for side in [round % 2, 1 - round % 2] {
            let start = Instant::now();
            if side == 0 {
                for h in hands {
                    black_box(ours(black_box(h)));
                }
                a.push(per_hand(start));
            } else {
                for h in hands {
                    black_box(theirs(black_box(h)));
                }
                b.push(per_hand(start));
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(&mut a), median(&mut b))
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let random: Vec<TileCounts> = (0..CORPUS).map(|_| draw(&mut rng, 13)).collect();
    let ready: Vec<TileCounts> = (0..CORPUS).map(|_| ready(&mut rng)).collect();
    for (name, hands) in [("random", &random), ("ready", &ready)] {
        let n = same_answers(hands);
        println!(
            "{name}: same answers on {n} of {CORPUS} hands (the rest: see the module comment)"
        );
    }
    // Every ready hand is ready for both.
    for h in &ready {
        assert_eq!((ours(h).0, theirs(h).0), (0, 1), "{h:?}");
    }
    // Warm both sides' tables.
    black_box(ours(&random[0]));
    black_box(theirs(&random[0]));
    for (name, hands) in [("random", &random), ("ready", &ready)] {
        let (a, b) = interleaved(hands, 200, ours);
        println!(
            "our five shapes vs xiangting's three, {name} 13-tile hands ({CORPUS}): ours {a:.1} ns, xiangting {b:.1} ns per hand (ours/xiangting {:.2})",
            a / b
        );
    }
    for (name, hands) in [("random", &random), ("ready", &ready)] {
        let (a, b) = interleaved(hands, 200, ours_regular);
        println!(
            "(less work on our side) our regular shape vs xiangting's three, {name}: ours {a:.1} ns, xiangting {b:.1} ns per hand (ours/xiangting {:.2})",
            a / b
        );
    }

    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("versus_xiangting");
    let mask = CORPUS - 1;
    let mut i = 0;
    for (name, hands) in [("random", &random), ("ready", &ready)] {
        g.bench_function(format!("ours_five_shapes_{name}"), |b| {
            b.iter(|| {
                i = (i + 1) & mask;
                ours(black_box(&hands[i]))
            })
        });
        g.bench_function(format!("xiangting_{name}"), |b| {
            b.iter(|| {
                i = (i + 1) & mask;
                theirs(black_box(&hands[i]))
            })
        });
    }
    g.finish();
    c.final_summary();
}
