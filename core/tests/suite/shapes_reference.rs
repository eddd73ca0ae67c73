//! The fast win checks and shanten tables against slow, obviously-correct references, on
//! tens of thousands of seeded random hands per shape, with and without wilds.

use crate::common;

use common::*;
use proptest::prelude::*;
use rand::Rng;
use tongcheng_core::hand::{
    Shape, decompositions, is_complete_counts, is_complete_with_wilds, wild_decompositions,
};
use tongcheng_core::shanten::{analyze, analyze_wild, regular_shanten};
use tongcheng_core::tile::{KINDS, Tile, TileCounts};

const N: u64 = 20_000;

fn reference_complete(c: &TileCounts) -> bool {
    ref_regular_win(&c.0, 0)
        || ref_seven_pairs_win(&c.0)
        || ref_orphans_shanten(&c.0) == -1
        || ref_honors_knitted_shanten(&c.0) == -1
        || ref_knitted_straight_shanten(&c.0, 1) == -1
}

#[test]
fn generated_wins_are_recognised_in_their_shape() {
    let mut rng = rng(1);
    type Generator = fn(&mut rand_chacha::ChaCha8Rng) -> TileCounts;
    let gens: [(Shape, Generator); 5] = [
        (Shape::Regular, random_regular_win),
        (Shape::SevenPairs, random_seven_pairs),
        (Shape::ThirteenOrphans, random_thirteen_orphans),
        (Shape::HonorsKnitted, random_honors_knitted),
        (Shape::KnittedStraight, random_knitted_straight),
    ];
    for (shape, gen_hand) in gens {
        for _ in 0..N {
            let c = gen_hand(&mut rng);
            assert!(is_complete_counts(&c, 0), "{shape:?} {c:?}");
            let ds = decompositions(&c, &[]);
            assert!(ds.iter().any(|d| d.shape == shape), "{shape:?} {c:?}");
            assert_eq!(analyze(&c, 0).unwrap().shanten, -1, "{c:?}");
        }
    }
}

#[test]
fn win_check_agrees_with_brute_force_on_random_hands() {
    let mut rng = rng(2);
    let mut wins = 0;
    for i in 0..N * 2 {
        let c = if i % 2 == 0 {
            random_biased(&mut rng, 14)
        } else {
            // A winning hand with one tile swapped: often still winning, often not.
            let mut c = random_regular_win(&mut rng);
            let from = c.kinds().nth(rng.gen_range(0..c.kinds().count())).unwrap();
            c.remove(from);
            let to = rng.gen_range(0..KINDS);
            if c.0[to] < 4 {
                c.0[to] += 1;
            } else {
                c.add(from);
            }
            c
        };
        let fast = is_complete_counts(&c, 0);
        assert_eq!(fast, reference_complete(&c), "{c:?}");
        assert_eq!(fast, !decompositions(&c, &[]).is_empty(), "{c:?}");
        wins += fast as u32;
    }
    assert!(wins > 1000, "the corpus must contain wins ({wins})");
}

#[test]
fn regular_decompositions_are_all_distinct_and_valid() {
    let mut rng = rng(3);
    for _ in 0..N {
        let c = random_regular_win(&mut rng);
        let ds = decompositions(&c, &[]);
        for (i, d) in ds.iter().enumerate() {
            if d.shape != Shape::Regular {
                continue;
            }
            let mut back = TileCounts::new();
            for s in d.sets() {
                for k in 0..3 {
                    let t = if s.kind == tongcheng_core::hand::SetKind::Chow {
                        Tile::kind(s.tile.index() + k)
                    } else {
                        s.tile
                    };
                    back.add(t);
                }
            }
            back.0[d.pair.unwrap().index()] += 2;
            assert_eq!(back, c, "decomposition does not rebuild the hand");
            assert!(!ds[..i].contains(d), "duplicate decomposition of {c:?}");
        }
    }
}

#[test]
fn shanten_agrees_with_references_for_every_shape() {
    let mut rng = rng(4);
    for i in 0..N {
        let n = if i % 5 == 4 { 14 } else { 13 };
        let c = random_biased(&mut rng, n);
        let s = analyze(&c, 0).unwrap();
        assert_eq!(
            s.regular.shanten as i32,
            ref_regular_shanten_any(&c.0, 4),
            "{c:?}"
        );
        if n == 13 {
            assert_eq!(
                regular_shanten(&c, 0) as i32,
                ref_rest_distance(&c.0, 4) - 1,
                "{c:?}"
            );
            assert_eq!(
                s.seven_pairs.unwrap().shanten as i32,
                ref_seven_pairs_shanten(&c.0)
            );
            assert_eq!(
                s.thirteen_orphans.unwrap().shanten as i32,
                ref_orphans_shanten(&c.0)
            );
            assert_eq!(
                s.honors_knitted.unwrap().shanten as i32,
                ref_honors_knitted_shanten(&c.0),
                "{c:?}"
            );
            assert_eq!(
                s.knitted_straight.unwrap().shanten as i32,
                ref_knitted_straight_shanten(&c.0, 1),
                "{c:?}"
            );
        }
    }
}

#[test]
fn shanten_with_melds_agrees_with_reference() {
    let mut rng = rng(5);
    for i in 0..N {
        let melds = (i % 4 + 1) as usize;
        let c = random_tiles(&mut rng, 13 - 3 * melds);
        let s = analyze(&c, melds).unwrap();
        assert_eq!(
            s.regular.shanten as i32,
            ref_regular_shanten(&c.0, 4 - melds),
            "{c:?}"
        );
        assert!(s.seven_pairs.is_none() && s.thirteen_orphans.is_none());
        assert_eq!(s.knitted_straight.is_some(), melds == 1);
        if melds == 1 {
            assert_eq!(
                s.knitted_straight.unwrap().shanten as i32,
                ref_knitted_straight_shanten(&c.0, 0),
                "{c:?}"
            );
        }
    }
}

/// Every multiset of `w` kinds, in non-decreasing order.
fn for_each_substitution(w: usize, f: &mut impl FnMut(&[usize]) -> bool) -> bool {
    fn go(
        w: usize,
        from: usize,
        cur: &mut Vec<usize>,
        f: &mut impl FnMut(&[usize]) -> bool,
    ) -> bool {
        if cur.len() == w {
            return f(cur);
        }
        for k in from..KINDS {
            cur.push(k);
            if go(w, k, cur, f) {
                return true;
            }
            cur.pop();
        }
        false
    }
    go(w, 0, &mut Vec::new(), f)
}

fn brute_force_wild_win(real: &TileCounts, w: usize, melds: usize) -> bool {
    for_each_substitution(w, &mut |subs| {
        let mut c = real.0;
        for &k in subs {
            c[k] += 1;
        }
        ref_regular_win(&c, melds) || (melds == 0 && ref_seven_pairs_win(&c))
    })
}

#[test]
fn wild_win_check_agrees_with_every_substitution() {
    let mut rng = rng(6);
    for i in 0..N {
        let w = 1 + (i % 2) as usize;
        // Half: a winning hand with w tiles turned wild; half: random tiles.
        let real = if i % 4 < 2 {
            let mut c = if i % 8 < 4 {
                random_regular_win(&mut rng)
            } else {
                random_seven_pairs(&mut rng)
            };
            for _ in 0..w {
                let k = c.kinds().nth(rng.gen_range(0..c.kinds().count())).unwrap();
                c.remove(k);
            }
            c
        } else {
            random_biased(&mut rng, 14 - w)
        };
        let fast = is_complete_with_wilds(&real, w as u8, 0);
        assert_eq!(
            fast,
            brute_force_wild_win(&real, w, 0),
            "{real:?} + {w} wilds"
        );
        let ds = wild_decompositions(&real, w as u8, &[]);
        assert_eq!(fast, !ds.is_empty());
        for d in &ds {
            assert_eq!(d.stood_for.len(), w);
            let mut c = real.0;
            for t in &d.stood_for {
                c[t.index()] += 1;
            }
            let ok = match d.decomposition.shape {
                Shape::SevenPairs => ref_seven_pairs_win(&c),
                _ => ref_regular_win(&c, 0),
            };
            assert!(
                ok,
                "substitution {:?} does not complete {real:?}",
                d.stood_for
            );
        }
    }
}

#[test]
fn many_wilds_agree_with_substitution_search() {
    let mut rng = rng(7);
    for i in 0..400u64 {
        let w = 3 + (i % 10 == 9) as usize;
        let mut c = random_regular_win(&mut rng);
        for _ in 0..w {
            let k = c.kinds().nth(rng.gen_range(0..c.kinds().count())).unwrap();
            c.remove(k);
        }
        if i % 3 == 0 {
            // Spoil it: swap one real tile.
            let k = c.kinds().next().unwrap();
            c.remove(k);
            let to = rng.gen_range(0..KINDS);
            if c.0[to] < 4 {
                c.0[to] += 1;
            } else {
                c.add(k);
            }
        }
        assert_eq!(
            is_complete_with_wilds(&c, w as u8, 0),
            brute_force_wild_win(&c, w, 0),
            "{c:?}"
        );
    }
    // Up to eight wilds: any eight wilds plus two sets complete a hand.
    let real = TileCounts::parse("123m456p").unwrap();
    assert!(is_complete_with_wilds(&real, 8, 0));
    // Six unrelated singles and eight wilds: no regular reading, but seven pairs.
    let real = TileCounts::parse("1m4m7m1p4p7z").unwrap();
    assert!(is_complete_with_wilds(&real, 8, 0));
    let ds = wild_decompositions(&real, 8, &[]);
    assert!(
        ds.iter()
            .all(|d| d.decomposition.shape == Shape::SevenPairs)
    );
    // Eight wilds, one meld and three tiles that cannot be grouped: 1m 5m 9m need three slots.
    let pung = tongcheng_core::Meld::pung(Tile::EAST, None, None).unwrap();
    let real = TileCounts::parse("159m").unwrap();
    assert!(is_complete_with_wilds(&real, 8, 1));
    assert!(!wild_decompositions(&real, 8, &[pung]).is_empty());
}

#[test]
fn wild_shanten_agrees_with_reference() {
    let mut rng = rng(8);
    let wild = Tile::WHITE;
    for i in 0..N {
        let w = (i % 5) as u8;
        let mut real = random_tiles(&mut rng, 13 - w as usize);
        // The wild kind's own tiles are the wilds: move any drawn White elsewhere.
        while real.get(wild) > 0 {
            real.remove(wild);
            let k = rng.gen_range(0..31);
            if real.0[k] < 4 {
                real.0[k] += 1;
            } else {
                real.add(wild);
            }
        }
        let s = analyze_wild(&real, w, wild, 0).unwrap();
        assert_eq!(
            s.regular.shanten as i32,
            ref_rest_distance(&real.0, 4) - w as i32 - 1
        );
        if w < 4 {
            assert!(s.regular.useful.contains(wild));
        }
    }
}

fn seed_hand(seed: u64, n: usize) -> TileCounts {
    random_biased(&mut rng(seed), n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn useful_tiles_lower_shanten_by_one_and_others_never(seed in any::<u64>()) {
        let c = seed_hand(seed, 13);
        let before = analyze(&c, 0).unwrap();
        for k in 0..KINDS {
            if c.0[k] >= 4 {
                continue;
            }
            let t = Tile::kind(k);
            let mut after_c = c;
            after_c.add(t);
            let after = analyze(&after_c, 0).unwrap();
            let pairs = [
                (before.regular, after.regular),
                (before.seven_pairs.unwrap(), after.seven_pairs.unwrap()),
                (before.thirteen_orphans.unwrap(), after.thirteen_orphans.unwrap()),
                (before.honors_knitted.unwrap(), after.honors_knitted.unwrap()),
                (before.knitted_straight.unwrap(), after.knitted_straight.unwrap()),
            ];
            for (b, a) in pairs {
                if b.useful.contains(t) {
                    prop_assert_eq!(a.shanten, b.shanten - 1, "{:?} + {}", c, t);
                } else {
                    prop_assert!(a.shanten >= b.shanten, "{:?} + {}", c, t);
                }
            }
        }
    }

    #[test]
    fn wild_useful_tiles_lower_shanten_by_one(seed in any::<u64>(), w in 0u8..4) {
        let wild = Tile::RED;
        let mut c = seed_hand(seed, 13 - w as usize);
        let reds = c.get(wild);
        c.0[wild.index()] = 0;
        let mut rng = rng(seed);
        for _ in 0..reds {
            loop {
                let k = rng.gen_range(0..33);
                if c.0[k] < 4 { c.0[k] += 1; break; }
            }
        }
        let before = analyze_wild(&c, w, wild, 0).unwrap();
        for k in 0..KINDS {
            let t = Tile::kind(k);
            let after = if t == wild {
                analyze_wild(&c, w + 1, wild, 0).unwrap()
            } else if c.0[k] < 4 {
                let mut a = c;
                a.add(t);
                analyze_wild(&a, w, wild, 0).unwrap()
            } else {
                continue;
            };
            for (b, a) in [(before.regular, after.regular), (before.seven_pairs.unwrap(), after.seven_pairs.unwrap())] {
                if b.useful.contains(t) {
                    prop_assert_eq!(a.shanten, b.shanten - 1);
                } else {
                    prop_assert!(a.shanten >= b.shanten);
                }
            }
        }
    }

    #[test]
    fn quick_queries_agree_with_the_full_analysis(seed in any::<u64>(), melds in 0usize..5, extra in 0usize..2) {
        let c = seed_hand(seed, 13 - 3 * melds + extra);
        let full = analyze(&c, melds).unwrap();
        prop_assert_eq!(tongcheng_core::shanten::shanten_number(&c, melds), full.shanten);
        let b = tongcheng_core::shanten::best(&c, melds).unwrap();
        prop_assert_eq!(b.shanten, full.shanten);
        let mut useful = tongcheng_core::tile::TileSet::EMPTY;
        for sh in [Some(full.regular), full.seven_pairs, full.thirteen_orphans, full.honors_knitted, full.knitted_straight].into_iter().flatten() {
            if sh.shanten == full.shanten {
                useful |= sh.useful;
            }
        }
        prop_assert_eq!(b.useful, useful);
        if melds == 0 {
            prop_assert_eq!(
                tongcheng_core::shanten::honors_knitted_shanten(&c),
                full.honors_knitted.map(|s| s.shanten)
            );
        }
        if extra == 1 {
            let after = tongcheng_core::shanten::after_each_discard(&c, melds);
            for (i, &a) in after.iter().enumerate() {
                if c.0[i] == 0 {
                    prop_assert_eq!(a, i8::MAX);
                } else {
                    let mut r = c;
                    r.0[i] -= 1;
                    prop_assert_eq!(a, analyze(&r, melds).unwrap().shanten);
                }
            }
            // Every discard at once, useful tiles included, equals `best` after that discard
            // (within the slack of the best discard; beyond it, the shanten alone).
            let which = seed.rotate_left(7) | (1 << (seed % 34));
            let slack = (seed % 3) as i8;
            let each = tongcheng_core::shanten::best_after_each_discard(&c, melds, which, slack).unwrap();
            let top = each.iter().map(|e| e.shanten).min().unwrap();
            for (i, e) in each.iter().enumerate() {
                if c.0[i] == 0 || which & (1 << i) == 0 {
                    prop_assert_eq!(e.shanten, i8::MAX);
                    prop_assert!(e.useful.is_empty());
                } else {
                    let mut r = c;
                    r.0[i] -= 1;
                    let expected = tongcheng_core::shanten::best(&r, melds).unwrap();
                    prop_assert_eq!(e.shanten, expected.shanten, "discard {}", i);
                    if e.shanten <= top + slack {
                        prop_assert_eq!(e.useful, expected.useful, "discard {}", i);
                    } else {
                        prop_assert!(e.useful.is_empty());
                    }
                }
            }
        } else {
            prop_assert!(tongcheng_core::shanten::best_after_each_discard(&c, melds, u64::MAX, 0).is_err());
        }
    }

    #[test]
    fn tile_order_never_matters(seed in any::<u64>()) {
        let c = seed_hand(seed, 14);
        let mut tiles = c.tiles();
        tiles.reverse();
        let again = TileCounts::from_tiles(&tiles);
        prop_assert_eq!(is_complete_counts(&c, 0), is_complete_counts(&again, 0));
        prop_assert_eq!(analyze(&c, 0).unwrap(), analyze(&again, 0).unwrap());
    }
}
