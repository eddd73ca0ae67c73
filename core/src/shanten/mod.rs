//! Shanten (向听): how far a hand is from winning, and which tiles bring it closer.
//!
//! Shanten is the number of tile exchanges still needed before the hand is ready: −1 complete,
//! 0 ready (听牌). It is reported for each shape separately — regular, seven pairs, thirteen
//! orphans, honors and knitted (全不靠), knitted straight (组合龙) — and overall (the minimum).
//! The useful tiles (有效牌) of a 13-tile hand are the kinds whose draw lowers that shape's
//! shanten; a kind of which the hand already holds four is never useful. For a 14-tile hand
//! they are the useful tiles after the best discards.
//!
//! The regular shape uses the suit tables of [`crate::hand`]; the others are counted directly.

// Index arithmetic over parallel per-kind arrays reads clearer as ranges.
#![allow(clippy::needless_range_loop)]

use serde::Serialize;

mod each_discard;
mod regular;
#[cfg(test)]
mod scalar_paths;
mod special;
mod useful;
mod wild;

pub use each_discard::{after_each_discard, best_after_each_discard};
use regular::*;
pub use special::honors_knitted_shanten;
use special::*;
pub use wild::{WildShanten, analyze_wild};

use crate::hand::KNITS;
use crate::hand::table::{self, Dist, POW5, tables};
use crate::tile::{KINDS, Tile, TileCounts, TileSet};

/// Builds the useful-tile tables now (see [`crate::prepare`]).
pub(crate) fn prepare() {
    useful::useful_tables();
}

/// Shanten and useful tiles of one shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShapeShanten {
    pub shanten: i8,
    pub useful: TileSet,
}

/// Shanten of every shape. Shapes that the melds rule out are `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Shanten {
    /// The minimum over the shapes.
    pub shanten: i8,
    pub regular: ShapeShanten,
    pub seven_pairs: Option<ShapeShanten>,
    pub thirteen_orphans: Option<ShapeShanten>,
    pub honors_knitted: Option<ShapeShanten>,
    pub knitted_straight: Option<ShapeShanten>,
}

/// Why a hand could not be analysed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShantenError {
    #[error("a hand for shanten holds 13 or 14 tiles counting each meld as 3, not {0}")]
    WrongSize(usize),
    #[error("more than four copies of {0}")]
    FifthCopy(Tile),
    #[error("more than four melds")]
    TooManyMelds,
}

fn check(c: &TileCounts, extra: usize, melds: usize) -> Result<bool, ShantenError> {
    if melds > 4 {
        return Err(ShantenError::TooManyMelds);
    }
    if let Some(t) = c.over_four() {
        return Err(ShantenError::FifthCopy(t));
    }
    let size = c.total() + extra + 3 * melds;
    match size {
        13 => Ok(false),
        14 => Ok(true),
        _ => Err(ShantenError::WrongSize(size)),
    }
}

/// Regular-shape shanten only: the fastest query (no useful tiles). `melds` declared melds.
#[inline]
pub fn regular_shanten(c: &TileCounts, melds: usize) -> i8 {
    crate::hand::shapes_regular_distance(&c.0, 4 - melds.min(4)) as i8 - 1
}

/// The regular shape alone (four sets and a pair, `melds` of them declared): its shanten and
/// useful tiles, for a hand of 13 or 14 tiles (melds count 3 each).
pub fn regular_with_useful(c: &TileCounts, melds: usize) -> Result<ShapeShanten, ShantenError> {
    let full = check(c, 0, melds)?;
    Ok(per_shape(&c.0, full, |c| regular13(c, 4 - melds)))
}

/// Every shape's shanten and useful tiles, for a hand of 13 or 14 tiles (melds count 3 each).
pub fn analyze(c: &TileCounts, melds: usize) -> Result<Shanten, ShantenError> {
    let full = check(c, 0, melds)?;
    let regular = per_shape(&c.0, full, |c| regular13(c, 4 - melds));
    let (mut seven_pairs, mut thirteen_orphans, mut honors_knitted) = (None, None, None);
    if melds == 0 {
        seven_pairs = Some(per_shape(&c.0, full, seven_pairs13));
        thirteen_orphans = Some(per_shape(&c.0, full, orphans13));
        honors_knitted = Some(per_shape(&c.0, full, knitted13));
    }
    let knitted_straight =
        (melds <= 1).then(|| per_shape(&c.0, full, |c| knitted_straight13(c, 1 - melds)));
    let shanten = [
        seven_pairs,
        thirteen_orphans,
        honors_knitted,
        knitted_straight,
    ]
    .iter()
    .flatten()
    .map(|s| s.shanten)
    .fold(regular.shanten, i8::min);
    Ok(Shanten {
        shanten,
        regular,
        seven_pairs,
        thirteen_orphans,
        honors_knitted,
        knitted_straight,
    })
}

/// The overall shanten and the useful tiles of every shape that reaches it — what a player
/// choosing a discard needs. Cheaper than [`analyze`]: each shape's number is found first and
/// useful tiles are gathered only for the shapes at the minimum (and a knitted straight is
/// not examined when it cannot reach it).
pub fn best(c: &TileCounts, melds: usize) -> Result<ShapeShanten, ShantenError> {
    let full = check(c, 0, melds)?;
    if full {
        let s = analyze(c, melds)?;
        let mut useful = TileSet::EMPTY;
        for sh in [
            Some(s.regular),
            s.seven_pairs,
            s.thirteen_orphans,
            s.honors_knitted,
            s.knitted_straight,
        ]
        .into_iter()
        .flatten()
        {
            if sh.shanten == s.shanten {
                useful |= sh.useful;
            }
        }
        return Ok(ShapeShanten {
            shanten: s.shanten,
            useful,
        });
    }
    let c = &c.0;
    let sets = 4 - melds;
    // The regular shape is nearly always at the minimum: take its useful tiles in one pass.
    let (regular_base, regular_useful) = distance_and_improvers(c, sets);
    let regular = regular_base as i8 - 1;
    let special = SpecialMasks::of(c).shanten(c, melds, regular);
    let mut useful = TileSet::EMPTY;
    if regular == special.min {
        useful.0 |= regular_useful & below_four(c);
    }
    useful |= special.useful(c, melds);
    Ok(ShapeShanten {
        shanten: special.min,
        useful,
    })
}

/// The overall shanten number alone (no useful tiles): the cheapest whole-hand query.
pub fn shanten_number(c: &TileCounts, melds: usize) -> i8 {
    let melds = melds.min(4);
    // The same formulas hold for 13 and 14 tiles (a surplus tile just goes unused).
    let regular = crate::hand::shapes_regular_distance(&c.0, 4 - melds) as i8 - 1;
    special_shanten(&c.0, melds, regular)
}

/// Shanten over the standard shape and seven pairs only (a concealed quad is two pairs): the
/// shapes the Tongcheng games score, so a bot there never counts a step toward thirteen
/// orphans or a knitted hand that could not win. For 13 or 14 tiles (melds count 3 each).
pub fn standard_or_seven_pairs_number(c: &TileCounts, melds: usize) -> i8 {
    let melds = melds.min(4);
    let regular = crate::hand::shapes_regular_distance(&c.0, 4 - melds) as i8 - 1;
    if melds > 0 {
        return regular;
    }
    regular.min(seven_pairs13(&c.0).shanten)
}

/// [`standard_or_seven_pairs_number`] with useful tiles (those of each shape at the minimum).
pub fn standard_or_seven_pairs(c: &TileCounts, melds: usize) -> Result<ShapeShanten, ShantenError> {
    let full = check(c, 0, melds)?;
    let regular = per_shape(&c.0, full, |c| regular13(c, 4 - melds));
    if melds > 0 {
        return Ok(regular);
    }
    let pairs = per_shape(&c.0, full, seven_pairs13);
    Ok(merge_shapes(regular, pairs))
}

/// [`standard_or_seven_pairs`] after each discard in `which` from a 14-tile hand; kinds not
/// held or not in `which` stay at `i8::MAX` with no useful tiles.
pub fn standard_or_seven_pairs_after_each_discard(
    c: &TileCounts,
    melds: usize,
    which: u64,
) -> Result<[ShapeShanten; KINDS], ShantenError> {
    if !check(c, 0, melds)? {
        return Err(ShantenError::WrongSize(c.total() + 3 * melds));
    }
    let mut out = [ShapeShanten {
        shanten: i8::MAX,
        useful: TileSet::EMPTY,
    }; KINDS];
    let mut work = c.0;
    for i in 0..KINDS {
        if work[i] == 0 || which & (1 << i) == 0 {
            continue;
        }
        work[i] -= 1;
        let regular = regular13(&work, 4 - melds);
        out[i] = if melds == 0 {
            merge_shapes(regular, seven_pairs13(&work))
        } else {
            regular
        };
        work[i] += 1;
    }
    Ok(out)
}

/// The lower of two shapes' shanten, with the useful tiles of each shape at it.
fn merge_shapes(a: ShapeShanten, b: ShapeShanten) -> ShapeShanten {
    match a.shanten.cmp(&b.shanten) {
        std::cmp::Ordering::Less => a,
        std::cmp::Ordering::Greater => b,
        std::cmp::Ordering::Equal => ShapeShanten {
            shanten: a.shanten,
            useful: a.useful | b.useful,
        },
    }
}

/// Runs a 13-tile shape function, or for 14 tiles: −1 when complete, else the best discards.
fn per_shape(
    c: &[u8; KINDS],
    full: bool,
    f: impl Fn(&[u8; KINDS]) -> ShapeShanten,
) -> ShapeShanten {
    if !full {
        return f(c);
    }
    let mut best = ShapeShanten {
        shanten: i8::MAX,
        useful: TileSet::EMPTY,
    };
    let mut work = *c;
    for i in 0..KINDS {
        if c[i] == 0 {
            continue;
        }
        work[i] -= 1;
        let s = f(&work);
        work[i] += 1;
        // Ready after this discard and waiting on the discarded tile: the 14 are complete.
        if s.shanten == 0 && s.useful.contains(Tile::kind(i)) {
            return ShapeShanten {
                shanten: -1,
                useful: TileSet::EMPTY,
            };
        }
        if s.shanten < best.shanten {
            best = s;
        } else if s.shanten == best.shanten {
            best.useful |= s.useful;
        }
    }
    best
}

const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

const HONORS_MASK: u64 = 0x7f << 27;

/// The thirteen orphans as a mask over kinds.
const ORPHAN_MASK: u64 = {
    let mut m = 0u64;
    let mut i = 0;
    while i < 13 {
        m |= 1 << ORPHANS[i];
        i += 1;
    }
    m
};

/// The nine tiles of each knitted arrangement as a mask over kinds.
const KNIT_MASKS: [u64; 6] = {
    let mut out = [0u64; 6];
    let mut n = 0;
    while n < 6 {
        let mut j = 0;
        while j < 9 {
            out[n] |= 1 << KNIT_TILES[n][j];
            j += 1;
        }
        n += 1;
    }
    out
};

/// The nine tile indices of each knitted arrangement.
const KNIT_TILES: [[usize; 9]; 6] = {
    let mut out = [[0usize; 9]; 6];
    let mut n = 0;
    while n < 6 {
        let suits = KNITS[n].0;
        let mut pattern = 0;
        while pattern < 3 {
            let mut j = 0;
            while j < 3 {
                out[n][pattern * 3 + j] = suits[pattern] as usize * 9 + pattern + 3 * j;
                j += 1;
            }
            pattern += 1;
        }
        n += 1;
    }
    out
};

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Shanten {
        analyze(&TileCounts::parse(s).unwrap(), 0).unwrap()
    }

    #[test]
    fn known_hands() {
        // Cross-checked by hand: the example hand of the shanten interface.
        let s = a("123m456p789s1167z");
        assert_eq!(s.regular.shanten, 1);
        assert_eq!(s.regular.useful.to_notation(), "167z");
        assert_eq!(s.seven_pairs.unwrap().shanten, 5);
        assert_eq!(s.thirteen_orphans.unwrap().shanten, 7);
        assert_eq!(s.honors_knitted.unwrap().shanten, 7);
        assert_eq!(s.knitted_straight.unwrap().shanten, 6);
        assert_eq!(s.shanten, 1);
    }

    #[test]
    fn ready_and_complete() {
        let s = a("123m456p789s1122z");
        assert_eq!(s.regular.shanten, 0);
        assert_eq!(s.regular.useful.to_notation(), "12z");
        let s = a("123m456p789s11222z");
        assert_eq!(s.shanten, -1);
        assert_eq!(s.regular.shanten, -1);
    }

    #[test]
    fn four_held_is_never_useful() {
        let s = a("1111m333555777p");
        assert_eq!(s.regular.shanten, 0);
        assert!(s.regular.useful.is_empty());
    }

    #[test]
    fn every_discard_of_a_one_suit_hand() {
        // All 14 tiles in one suit: that group cannot take a fifteenth tile, and need not.
        for hand in ["11123456789999m", "11122233344455p", "22334455667788s"] {
            let c = TileCounts::parse(hand).unwrap();
            let each = best_after_each_discard(&c, 0, u64::MAX, i8::MAX).unwrap();
            for t in c.kinds() {
                let mut r = c;
                r.remove(t);
                assert_eq!(each[t.index()], best(&r, 0).unwrap(), "{hand} less {t}");
            }
        }
    }

    #[test]
    fn wrong_sizes_are_errors() {
        let c = TileCounts::parse("123m").unwrap();
        assert_eq!(analyze(&c, 0), Err(ShantenError::WrongSize(3)));
        assert_eq!(analyze(&c, 5), Err(ShantenError::TooManyMelds));
        let c = TileCounts::parse("1234m").unwrap();
        assert!(analyze(&c, 3).is_ok());
    }

    /// The Tongcheng shapes (standard, seven pairs) agree across the number, the full query
    /// and the per-discard pass, and are never closer than all the official shapes together.
    #[test]
    fn standard_or_seven_pairs_agrees_with_itself_and_bounds_the_official_shapes() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..400 {
            let mut deck: Vec<u8> = (0..KINDS as u8).flat_map(|k| [k; 4]).collect();
            let melds = (next() % 3) as usize * usize::from(next() % 2 == 0);
            let mut c = TileCounts::default();
            for _ in 0..14 - 3 * melds {
                let i = (next() % deck.len() as u64) as usize;
                c.add(Tile::from_index(deck.swap_remove(i)).unwrap());
            }
            let full = standard_or_seven_pairs(&c, melds).unwrap();
            assert_eq!(full.shanten, standard_or_seven_pairs_number(&c, melds));
            assert!(full.shanten >= best(&c, melds).unwrap().shanten);
            let each = standard_or_seven_pairs_after_each_discard(&c, melds, u64::MAX).unwrap();
            for t in c.kinds() {
                let mut d = c;
                d.remove(t);
                let one = standard_or_seven_pairs(&d, melds).unwrap();
                assert_eq!(each[t.index()].shanten, one.shanten);
                assert_eq!(each[t.index()].useful, one.useful);
                assert_eq!(one.shanten, standard_or_seven_pairs_number(&d, melds));
            }
        }
        // Thirteen orphans is ready under 国标 and six steps away here (no pairs).
        let orphans = TileCounts::parse("19m19p19s1234567z").unwrap();
        assert_eq!(best(&orphans, 0).unwrap().shanten, 0);
        assert_eq!(standard_or_seven_pairs_number(&orphans, 0), 6);
        // Seven pairs with a quad (two pairs) is complete.
        let pairs = TileCounts::parse("1111m22p33p44s55s66z").unwrap();
        assert_eq!(standard_or_seven_pairs_number(&pairs, 0), -1);
    }
}
