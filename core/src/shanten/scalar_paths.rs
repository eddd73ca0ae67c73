//! The plain paths (what ARM phones run, where there is no SSE2) give what the SSE2 paths
//! give, for every query built on the per-suit merges: thousands of random hands of every
//! size, with and without melds and wilds, each asked both ways in the same build.

use super::*;
use crate::hand::is_complete_counts;
use crate::hand::table::with_scalar;
use crate::tile::to_notation;

/// SplitMix64: the hands' randomness (deterministic, no dependency).
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` tiles drawn from a shuffled set of 136, and how many melds they stand beside.
fn hand(seed: u64, fourteen: bool) -> (TileCounts, usize) {
    let mut state = seed;
    let melds = (next(&mut state) % 5) as usize;
    let n = 13 - 3 * melds + usize::from(fourteen);
    let mut wall: Vec<usize> = (0..136).map(|i| i / 4).collect();
    let mut c = TileCounts::new();
    for i in 0..n {
        let j = i + (next(&mut state) % (136 - i) as u64) as usize;
        wall.swap(i, j);
        c.add(Tile::kind(wall[i]));
    }
    (c, melds)
}

#[test]
fn the_plain_paths_answer_as_the_sse2_ones() {
    for seed in 0..3_000u64 {
        for fourteen in [false, true] {
            let (c, melds) = hand(seed, fourteen);
            let both = |f: &dyn Fn() -> String| (f(), with_scalar(f));
            let (simd, plain) = both(&|| format!("{:?}", analyze(&c, melds)));
            assert_eq!(
                simd,
                plain,
                "analyze {} with {melds} melds",
                to_notation(&c.tiles())
            );
            let (simd, plain) = both(&|| format!("{}", regular_shanten(&c, melds)));
            assert_eq!(simd, plain, "regular {}", to_notation(&c.tiles()));
            let (simd, plain) = both(&|| format!("{}", is_complete_counts(&c, melds)));
            assert_eq!(simd, plain, "complete {}", to_notation(&c.tiles()));
            if fourteen {
                let (simd, plain) = both(&|| format!("{:?}", after_each_discard(&c, melds)));
                assert_eq!(simd, plain, "each discard {}", to_notation(&c.tiles()));
                let (simd, plain) =
                    both(&|| format!("{:?}", best_after_each_discard(&c, melds, u64::MAX, 1)));
                assert_eq!(
                    simd,
                    plain,
                    "best after each discard {}",
                    to_notation(&c.tiles())
                );
                let (simd, plain) = both(&|| {
                    format!(
                        "{:?}",
                        standard_or_seven_pairs_after_each_discard(&c, melds, u64::MAX)
                    )
                });
                assert_eq!(
                    simd,
                    plain,
                    "pairs after each discard {}",
                    to_notation(&c.tiles())
                );
            }
            // The same tiles with one or two of them wild (杭州's 财神: white dragons here).
            let wild = Tile::kind(31);
            for wilds in 1..=2u8 {
                let mut real = c;
                let mut taken = 0;
                for t in c.tiles() {
                    if taken < wilds && t != wild && real.remove(t) {
                        taken += 1;
                    }
                }
                let (simd, plain) =
                    both(&|| format!("{:?}", analyze_wild(&real, taken, wild, melds)));
                assert_eq!(simd, plain, "wild {} + {taken}", to_notation(&real.tiles()));
            }
        }
    }
}
