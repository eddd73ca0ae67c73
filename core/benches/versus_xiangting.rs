//! Regular shanten with useful tiles, ours against the `xiangting` crate (the fastest public
//! Rust shanten, riichi rules) on the same hands in the same run.
//!
//! Two seeded corpora of 13-tile hands: random draws from a full wall, and ready hands (a
//! random complete hand of four sets and a pair less one random tile). Ours is
//! `shanten::regular_with_useful` (shanten and useful tiles of the regular shape);
//! `xiangting::calculate_necessary_tiles` returns the same pair (its replacement number is
//! shanten + 1, its necessary tiles our useful tiles) and also looks at seven pairs and thirteen
//! orphans, two counting passes it cannot turn off.
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
use tongcheng_core::shanten::regular_with_useful;
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

fn ours(h: &TileCounts) -> (i8, u64) {
    let s = regular_with_useful(h, 0).unwrap();
    (s.shanten, s.useful.0)
}

fn theirs(h: &TileCounts) -> (u8, u64) {
    calculate_necessary_tiles(&h.0, PlayerCount::Four).unwrap()
}

/// Median ns per hand over `rounds` passes of each, ours and theirs alternating.
fn interleaved(hands: &[TileCounts], rounds: usize) -> (f64, f64) {
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
    // Same answers where the shapes agree: every ready hand is ready for both, with the same
    // waits when seven pairs and thirteen orphans are further away (always, for these hands,
    // unless they hold pairs only).
    for h in &ready {
        let (s, u) = ours(h);
        let (r, n) = theirs(h);
        assert_eq!((s, r), (0, 1), "{h:?}");
        if h.0.iter().filter(|&&x| x == 2).count() < 6 {
            assert_eq!(u, n, "{h:?}");
        }
    }
    // Warm both sides' tables.
    black_box(ours(&random[0]));
    black_box(theirs(&random[0]));
    for (name, hands) in [("random", &random), ("ready", &ready)] {
        let (a, b) = interleaved(hands, 200);
        println!(
            "regular shanten + useful tiles, {name} 13-tile hands ({CORPUS}): ours {a:.1} ns, xiangting {b:.1} ns per hand (ours/xiangting {:.2})",
            a / b
        );
    }

    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("versus_xiangting");
    let mask = CORPUS - 1;
    let mut i = 0;
    for (name, hands) in [("random", &random), ("ready", &ready)] {
        g.bench_function(format!("ours_{name}"), |b| {
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
