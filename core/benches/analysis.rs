//! Hand-analysis speed: regular shanten, all five shapes with useful tiles, and the win check
//! with and without wilds, and a discard decision's queries (shanten, and useful tiles, after
//! every discard), each over a fixed seeded corpus of hands (never one hand in a loop).
//!
//! `cargo bench -p tongcheng-core --bench analysis`; the reported time is per hand.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tongcheng_core::hand::{is_complete_counts, is_complete_with_wilds};
use tongcheng_core::shanten::{
    after_each_discard, analyze, best, best_after_each_discard, regular_shanten,
};
use tongcheng_core::tile::{KINDS, TileCounts};

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

/// A random complete hand of four sets and a pair.
fn winning(rng: &mut ChaCha8Rng) -> TileCounts {
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
            return c;
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let hands13: Vec<TileCounts> = (0..CORPUS).map(|_| draw(&mut rng, 13)).collect();
    // Half complete hands, half random 14-tile hands: the check must be fast both ways.
    let hands14: Vec<TileCounts> = (0..CORPUS)
        .map(|i| {
            if i % 2 == 0 {
                winning(&mut rng)
            } else {
                draw(&mut rng, 14)
            }
        })
        .collect();
    // 1–4 wilds; half of them winning hands with tiles turned wild.
    let wild_hands: Vec<(TileCounts, u8)> = (0..CORPUS)
        .map(|i| {
            let w = (i % 4 + 1) as u8;
            if i % 8 < 4 {
                let mut h = winning(&mut rng);
                for _ in 0..w {
                    let k = h.kinds().next().unwrap();
                    h.remove(k);
                }
                (h, w)
            } else {
                (draw(&mut rng, 14 - w as usize), w)
            }
        })
        .collect();
    // Build the tables before timing.
    black_box(regular_shanten(&hands13[0], 0));

    let mask = CORPUS - 1;
    let mut g = c.benchmark_group("analysis");
    let mut i = 0;
    g.bench_function("regular_shanten", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            regular_shanten(black_box(&hands13[i]), 0)
        })
    });
    g.bench_function("all_shapes_with_useful_tiles", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            analyze(black_box(&hands13[i]), 0).unwrap()
        })
    });
    g.bench_function("win_check_all_shapes", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            is_complete_counts(black_box(&hands14[i]), 0)
        })
    });
    g.bench_function("win_check_with_1_to_4_wilds", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            let (h, w) = &wild_hands[i];
            is_complete_with_wilds(black_box(h), *w, 0)
        })
    });
    // A discard decision: shanten after each discard, then useful tiles after every discard
    // (what the bots compute each turn), over random 14-tile hands.
    let turns: Vec<TileCounts> = (0..CORPUS).map(|_| draw(&mut rng, 14)).collect();
    g.bench_function("shanten_after_each_discard", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            after_each_discard(black_box(&turns[i]), 0)
        })
    });
    g.bench_function("useful_tiles_after_each_discard", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            best_after_each_discard(black_box(&turns[i]), 0, u64::MAX, i8::MAX).unwrap()
        })
    });
    g.bench_function("useful_tiles_after_each_discard_one_by_one", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            let h = &turns[i];
            let mut out = [None; KINDS];
            for t in h.kinds() {
                let mut r = *h;
                r.remove(t);
                out[t.index()] = Some(best(black_box(&r), 0).unwrap());
            }
            out
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
