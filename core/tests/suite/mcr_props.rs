//! Property tests of the Chinese Official scorer over random winning hands (regular hands with
//! 0–4 melds and kongs, seven pairs, thirteen orphans, knitted hands) and random inputs.

use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tongcheng_core::hand::{KongKind, Meld, decompositions};
use tongcheng_core::score::mcr::{
    McrOptions, WinContext, fan_by_id, payments, score, score_decomposition, set_scoped,
};
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::tile::{Tile, TileCounts};

/// A random complete hand: (concealed without the winning tile, melds, winning tile).
fn winning_hand(rng: &mut ChaCha8Rng) -> (Vec<Tile>, Vec<Meld>, Tile) {
    loop {
        if let Some(h) = try_hand(rng) {
            return h;
        }
    }
}

fn try_hand(rng: &mut ChaCha8Rng) -> Option<(Vec<Tile>, Vec<Meld>, Tile)> {
    let mut counts = [0u8; 34];
    let mut melds = Vec::new();
    match rng.gen_range(0..10) {
        0 => {
            // Seven pairs, sometimes with four alike.
            let mut n = 0;
            while n < 7 {
                let k = rng.gen_range(0..34);
                if counts[k] <= 2 {
                    counts[k] += 2;
                    n += 1;
                }
            }
        }
        1 => {
            // Thirteen orphans.
            let orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];
            for &k in &orphans {
                counts[k] = 1;
            }
            counts[*orphans.choose(rng)?] += 1;
        }
        2 => {
            // Knitted: honors and knitted tiles, or a knitted straight with a set and pair.
            let suits = {
                let mut s = [0usize, 1, 2];
                s.shuffle(rng);
                s
            };
            let knit: Vec<usize> = (0..3)
                .flat_map(|p| (0..3).map(move |j| suits[p] * 9 + p + 3 * j))
                .collect();
            if rng.gen_bool(0.5) {
                let honors = rng.gen_range(5..=7);
                for &k in knit.choose_multiple(rng, 14 - honors) {
                    counts[k] = 1;
                }
                for k in (27..34).collect::<Vec<_>>().choose_multiple(rng, honors) {
                    counts[*k] = 1;
                }
            } else {
                for &k in &knit {
                    counts[k] = 1;
                }
                let k = rng.gen_range(0..34);
                let p = rng.gen_range(0..34);
                if k < 27 && k % 9 < 7 && rng.gen_bool(0.5) {
                    (0..3).for_each(|d| counts[k + d] += 1);
                } else {
                    counts[k] += 3;
                }
                counts[p] += 2;
            }
        }
        _ => {
            // Regular: four random sets and a pair; some sets become melds.
            let mut in_melds = [0u8; 34];
            for _ in 0..4 {
                let k = rng.gen_range(0..34);
                let chow = k < 27 && k % 9 < 7 && rng.gen_bool(0.5);
                let meld = rng.gen_bool(0.3);
                let t = Tile::kind(k);
                if chow {
                    let c = if meld { &mut in_melds } else { &mut counts };
                    (0..3).for_each(|d| c[k + d] += 1);
                    if meld {
                        melds.push(Meld::chow(t, None, None).ok()?);
                    }
                } else if meld && rng.gen_bool(0.4) {
                    let kind = if rng.gen_bool(0.5) {
                        KongKind::Concealed
                    } else {
                        KongKind::Exposed
                    };
                    melds.push(Meld::kong(t, kind, None).ok()?);
                    in_melds[k] += 4;
                } else if meld {
                    melds.push(Meld::pung(t, None, None).ok()?);
                    in_melds[k] += 3;
                } else {
                    counts[k] += 3;
                }
            }
            counts[rng.gen_range(0..34)] += 2;
            if (0..34).any(|i| counts[i] + in_melds[i] > 4) {
                return None;
            }
        }
    }
    if counts.iter().any(|&x| x > 4) {
        return None;
    }
    let tiles = TileCounts(counts).tiles();
    let win = *tiles.choose(rng)?;
    let mut concealed = tiles;
    let at = concealed.iter().position(|&t| t == win)?;
    concealed.remove(at);
    concealed.shuffle(rng);
    Some((concealed, melds, win))
}

fn flags<'a>(
    rng: &mut ChaCha8Rng,
    concealed: &'a [Tile],
    melds: &'a [Meld],
    win: Tile,
) -> WinContext<'a> {
    let self_drawn = rng.gen_bool(0.4);
    WinContext {
        self_drawn,
        last_copy: rng.gen_bool(0.1),
        on_kong: self_drawn && rng.gen_bool(0.2),
        robbing_kong: !self_drawn && rng.gen_bool(0.1),
        last_tile: rng.gen_bool(0.1),
        seat_wind: Wind::from_index(rng.gen_range(0..4)),
        round_wind: Wind::from_index(rng.gen_range(0..4)),
        flowers: rng.gen_range(0..=8),
        ..WinContext::new(concealed, melds, win)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn total_does_not_depend_on_tile_order(seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (concealed, melds, win) = winning_hand(&mut rng);
        let ctx = flags(&mut rng, &concealed, &melds, win);
        let opts = McrOptions::default();
        let b = score(&ctx, &opts).unwrap();
        let mut shuffled = concealed.clone();
        shuffled.shuffle(&mut rng);
        let mut melds2 = melds.clone();
        melds2.shuffle(&mut rng);
        let ctx2 = WinContext { concealed: &shuffled, melds: &melds2, ..ctx };
        prop_assert_eq!(score(&ctx2, &opts).unwrap(), b);
    }

    #[test]
    fn best_total_is_the_best_single_reading(seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (concealed, melds, win) = winning_hand(&mut rng);
        let ctx = flags(&mut rng, &concealed, &melds, win);
        let opts = McrOptions { mixed_kong_5: rng.gen_bool(0.5), ..McrOptions::default() };
        let b = score(&ctx, &opts).unwrap();
        let mut c14 = TileCounts::from_tiles(&concealed);
        c14.add(win);
        let readings = decompositions(&c14, &melds);
        prop_assert!(!readings.is_empty());
        let mut best = 0;
        for d in &readings {
            let alone = score_decomposition(&ctx, d, &opts).unwrap();
            prop_assert!(b.total >= alone.total);
            best = best.max(alone.total);
        }
        prop_assert_eq!(b.total, best);
    }

    #[test]
    fn breakdowns_are_consistent(seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (concealed, melds, win) = winning_hand(&mut rng);
        let ctx = flags(&mut rng, &concealed, &melds, win);
        let b = score(&ctx, &McrOptions::default()).unwrap();
        let sum: u32 = b.fans.iter().map(|f| f.points()).sum();
        prop_assert_eq!(sum, b.total);
        prop_assert_eq!(b.valid, b.total - b.flowers as u32 >= 8);
        prop_assert_eq!(b.count(81), b.flowers);
        prop_assert!(b.fans.windows(2).all(|w| w[0].id < w[1].id));
        prop_assert!(b.total - b.flowers as u32 >= 1);
        for f in b.fans.iter() {
            for &x in fan_by_id(f.id).unwrap().excludes {
                if !set_scoped(f.id, x) {
                    prop_assert_eq!(b.count(x), 0, "{} excludes {}", f.id, x);
                }
            }
        }
    }

    #[test]
    fn payments_sum_to_zero(total in 0u32..2000, winner in 0u8..4, discarder in proptest::option::of(0u8..4)) {
        let p = payments(total, Seat(winner), discarder.map(Seat));
        prop_assert_eq!(p.iter().sum::<i32>(), 0);
        prop_assert!(p[winner as usize] >= 24);
    }

    /// Arbitrary tiles, melds and flags give a breakdown or an error, never a panic.
    #[test]
    fn arbitrary_input_never_panics(
        concealed in proptest::collection::vec(0u8..42, 0..16),
        meld_tiles in proptest::collection::vec((0u8..34, 0u8..4), 0..6),
        win in 0u8..42,
        bits in any::<u8>(),
        flowers in any::<u8>(),
    ) {
        let concealed: Vec<Tile> = concealed.iter().filter_map(|&i| Tile::from_index(i)).collect();
        let melds: Vec<Meld> = meld_tiles
            .iter()
            .filter_map(|&(i, kind)| {
                let t = Tile::kind(i as usize);
                match kind {
                    0 => Meld::chow(t, None, None).ok(),
                    1 => Meld::pung(t, None, None).ok(),
                    2 => Meld::kong(t, KongKind::Exposed, None).ok(),
                    _ => Meld::kong(t, KongKind::Concealed, None).ok(),
                }
            })
            .collect();
        let win = Tile::from_index(win).unwrap();
        let ctx = WinContext {
            self_drawn: bits & 1 != 0,
            last_copy: bits & 2 != 0,
            on_kong: bits & 4 != 0,
            robbing_kong: bits & 8 != 0,
            last_tile: bits & 16 != 0,
            flowers,
            ..WinContext::new(&concealed, &melds, win)
        };
        let _ = score(&ctx, &McrOptions::default());
    }
}
