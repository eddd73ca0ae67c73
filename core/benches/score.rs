//! Chinese Official scoring speed over a seeded corpus of varied winning hands: regular hands
//! with 0–4 melds (kongs too), seven pairs, thirteen orphans, honors-and-knitted and knitted
//! straights, with random win conditions.
//!
//! Prints the median time per hand (each hand timed on its own, many repetitions), then runs the
//! criterion benchmark of the whole corpus (time per pass; throughput in hands per second).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tongcheng_core::hand::{KongKind, Meld, is_complete_counts};
use tongcheng_core::score::mcr::{McrOptions, WinContext, score};
use tongcheng_core::seat::Wind;
use tongcheng_core::tile::{Tile, TileCounts};

const CORPUS: usize = 2000;

struct Hand {
    concealed: Vec<Tile>,
    melds: Vec<Meld>,
    win: Tile,
    self_drawn: bool,
    last_copy: bool,
    last_tile: bool,
    seat: Wind,
    round: Wind,
    flowers: u8,
}

impl Hand {
    fn ctx(&self) -> WinContext<'_> {
        WinContext {
            self_drawn: self.self_drawn,
            last_copy: self.last_copy,
            last_tile: self.last_tile,
            seat_wind: self.seat,
            round_wind: self.round,
            flowers: self.flowers,
            ..WinContext::new(&self.concealed, &self.melds, self.win)
        }
    }
}

/// Concealed counts (winning tile included) and melds of a random complete hand, if the draw
/// respected the four-copy limit.
fn draw(rng: &mut ChaCha8Rng) -> Option<([u8; 34], Vec<Meld>)> {
    let mut c = [0u8; 34];
    let mut used = [0u8; 34];
    let mut melds = Vec::new();
    match rng.gen_range(0..12) {
        0 | 1 => {
            let mut n = 0;
            while n < 7 {
                let k = rng.gen_range(0..34);
                if c[k] <= 2 {
                    c[k] += 2;
                    n += 1;
                }
            }
        }
        2 => {
            let orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];
            orphans.iter().for_each(|&k| c[k] = 1);
            c[*orphans.choose(rng)?] += 1;
        }
        3 => {
            let mut suits = [0usize, 1, 2];
            suits.shuffle(rng);
            let knit: Vec<usize> = (0..3)
                .flat_map(|p| (0..3).map(move |j| suits[p] * 9 + p + 3 * j))
                .collect();
            if rng.gen_bool(0.5) {
                let honors = rng.gen_range(5..=7);
                knit.choose_multiple(rng, 14 - honors)
                    .for_each(|&k| c[k] = 1);
                let all: Vec<usize> = (27..34).collect();
                all.choose_multiple(rng, honors).for_each(|&k| c[k] = 1);
            } else {
                knit.iter().for_each(|&k| c[k] = 1);
                let k = rng.gen_range(0..25);
                if k % 9 < 7 {
                    (0..3).for_each(|d| c[k + d] += 1);
                } else {
                    c[k] += 3;
                }
                c[rng.gen_range(0..34)] += 2;
            }
        }
        _ => {
            for _ in 0..4 {
                let k = rng.gen_range(0..34);
                let t = Tile::kind(k);
                let meld = rng.gen_bool(0.3);
                if k < 27 && k % 9 < 7 && rng.gen_bool(0.6) {
                    let target = if meld { &mut used } else { &mut c };
                    (0..3).for_each(|d| target[k + d] += 1);
                    if meld {
                        melds.push(Meld::chow(t, None, None).ok()?);
                    }
                } else if meld && rng.gen_bool(0.3) {
                    let kind = if rng.gen_bool(0.5) {
                        KongKind::Concealed
                    } else {
                        KongKind::Exposed
                    };
                    melds.push(Meld::kong(t, kind, None).ok()?);
                    used[k] += 4;
                } else if meld {
                    melds.push(Meld::pung(t, None, None).ok()?);
                    used[k] += 3;
                } else {
                    c[k] += 3;
                }
            }
            c[rng.gen_range(0..34)] += 2;
        }
    }
    ((0..34).all(|i| c[i] + used[i] <= 4)).then_some((c, melds))
}

fn corpus() -> Vec<Hand> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5c0e);
    let mut hands = Vec::with_capacity(CORPUS);
    while hands.len() < CORPUS {
        let Some((c, melds)) = draw(&mut rng) else {
            continue;
        };
        if !is_complete_counts(&TileCounts(c), melds.len()) {
            continue;
        }
        let tiles = TileCounts(c).tiles();
        let win = *tiles.choose(&mut rng).unwrap();
        let mut concealed = tiles;
        let at = concealed.iter().position(|&t| t == win).unwrap();
        concealed.remove(at);
        concealed.shuffle(&mut rng);
        hands.push(Hand {
            concealed,
            melds,
            win,
            self_drawn: rng.gen_bool(0.4),
            last_copy: rng.gen_bool(0.1),
            last_tile: rng.gen_bool(0.05),
            seat: Wind::from_index(rng.gen_range(0..4)),
            round: Wind::from_index(rng.gen_range(0..4)),
            flowers: rng.gen_range(0..3),
        });
    }
    hands
}

/// Times each hand on its own and prints the median over the corpus.
fn print_median(hands: &[Hand], opts: &McrOptions) {
    const REPS: u32 = 400;
    // Warm up the lookup tables and caches.
    for h in hands {
        black_box(score(&h.ctx(), opts).unwrap());
    }
    let mut per_hand: Vec<f64> = hands
        .iter()
        .map(|h| {
            let ctx = h.ctx();
            let start = Instant::now();
            for _ in 0..REPS {
                black_box(score(black_box(&ctx), opts).unwrap());
            }
            start.elapsed().as_nanos() as f64 / REPS as f64
        })
        .collect();
    per_hand.sort_by(f64::total_cmp);
    let at = |q: f64| per_hand[((per_hand.len() - 1) as f64 * q) as usize];
    println!(
        "mcr score: median {:.0} ns per hand (p10 {:.0} ns, p90 {:.0} ns, max {:.0} ns) over {} hands",
        at(0.5),
        at(0.1),
        at(0.9),
        at(1.0),
        per_hand.len()
    );
}

fn main() {
    let hands = corpus();
    let opts = McrOptions::default();
    print_median(&hands, &opts);
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("mcr");
    group.throughput(Throughput::Elements(hands.len() as u64));
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("score_corpus", |b| {
        b.iter(|| {
            for h in &hands {
                black_box(score(black_box(&h.ctx()), &opts).unwrap());
            }
        })
    });
    group.finish();
    c.final_summary();
}
