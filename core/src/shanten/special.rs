//! The irregular shapes: seven pairs (七对), thirteen orphans (十三幺), honors and knitted
//! (全不靠) and the knitted straight (组合龙), counted directly rather than by tables.

#![allow(clippy::needless_range_loop)]

use super::*;

/// Shanten of honors and knitted tiles (全不靠) alone, for a concealed hand of 13 or 14 tiles
/// (`None` for other sizes): a few popcounts, for callers that need just this shape.
pub fn honors_knitted_shanten(c: &TileCounts) -> Option<i8> {
    if !matches!(c.total(), 13 | 14) {
        return None;
    }
    SpecialMasks::of(&c.0)
        .shanten_but_straight(0, i8::MAX)
        .knitted
        .into()
}

/// The minimum of `regular` and the special shapes' shanten for a hand.
pub(super) fn special_shanten(c: &[u8; KINDS], melds: usize, regular: i8) -> i8 {
    SpecialMasks::of(c).shanten(c, melds, regular).min
}

/// A hand's kinds as bit masks: enough to count every special shape with a few popcounts,
/// and cheap to update for one discard.
#[derive(Clone, Copy)]
pub(super) struct SpecialMasks {
    pub(super) held: u64,
    pub(super) doubled: u64,
    pub(super) pairs: i8,
    /// Kinds held among the thirteen orphans, among the honors, and among the nine tiles of
    /// each knitted arrangement.
    pub(super) orphans: i8,
    pub(super) honors: i8,
    pub(super) knit: [i8; 6],
}

/// The special shapes' shanten numbers for one hand (`i8::MAX` where the melds rule a shape
/// out) and the overall minimum with the regular shape.
#[derive(Clone, Copy)]
pub(super) struct Special {
    pub(super) seven: i8,
    pub(super) orphans: i8,
    pub(super) knitted: i8,
    pub(super) straight: i8,
    pub(super) min: i8,
}

impl SpecialMasks {
    #[inline]
    pub(super) fn of(c: &[u8; KINDS]) -> SpecialMasks {
        let mut m = SpecialMasks {
            held: 0,
            doubled: 0,
            pairs: 0,
            orphans: 0,
            honors: 0,
            knit: [0; 6],
        };
        for (i, &x) in c.iter().enumerate() {
            m.held |= u64::from(x > 0) << i;
            m.doubled |= u64::from(x >= 2) << i;
            m.pairs += (x / 2) as i8;
        }
        m.orphans = (m.held & ORPHAN_MASK).count_ones() as i8;
        m.honors = (m.held & HONORS_MASK).count_ones() as i8;
        for (n, k) in KNIT_MASKS.iter().enumerate() {
            m.knit[n] = (m.held & k).count_ones() as i8;
        }
        m
    }

    /// The masks after one tile of kind `i` (held `count` times) is discarded: counts are
    /// adjusted, not recounted.
    #[inline]
    pub(super) fn without(self, i: usize, count: u8) -> SpecialMasks {
        let bit = 1u64 << i;
        let mut m = self;
        m.pairs -= i8::from(count.is_multiple_of(2));
        if count == 2 {
            m.doubled &= !bit;
        }
        if count == 1 {
            m.held &= !bit;
            m.orphans -= i8::from(ORPHAN_MASK & bit != 0);
            m.honors -= i8::from(HONORS_MASK & bit != 0);
            for (have, k) in m.knit.iter_mut().zip(KNIT_MASKS) {
                *have -= i8::from(k & bit != 0);
            }
        }
        m
    }

    /// The special shapes of the hand `c` these masks describe. `regular` is the regular
    /// shape's shanten, which bounds the knitted-straight search.
    #[inline]
    pub(super) fn shanten(&self, c: &[u8; KINDS], melds: usize, regular: i8) -> Special {
        let mut s = self.shanten_but_straight(melds, regular);
        if melds <= 1 {
            for n in 0..KNIT_MASKS.len() {
                let missing = 9 - self.knit[n];
                // The rest needs at least one tile more unless it is complete: out of reach.
                if missing - 1 > s.min {
                    continue;
                }
                let rest = knit_rest(c, n);
                let d = crate::hand::shapes_regular_distance(&rest, 1 - melds) as i8;
                s.straight = s.straight.min(missing + d - 1);
                s.min = s.min.min(s.straight);
            }
        }
        s
    }

    /// Every special shape but the knitted straight (which needs the counts, not just masks).
    #[inline]
    pub(super) fn shanten_but_straight(&self, melds: usize, regular: i8) -> Special {
        let mut s = Special {
            min: regular,
            ..Special::NONE
        };
        if melds == 0 {
            s.seven = 6 - self.pairs.min(7);
            s.orphans = 13 - self.orphans - i8::from(self.doubled & ORPHAN_MASK != 0);
            for have in self.knit {
                s.knitted = s.knitted.min(13 - (have + self.honors).min(14));
            }
            s.min = s.min.min(s.seven).min(s.orphans).min(s.knitted);
        }
        s
    }
}

impl Special {
    pub(super) const NONE: Special = Special {
        seven: i8::MAX,
        orphans: i8::MAX,
        knitted: i8::MAX,
        straight: i8::MAX,
        min: i8::MAX,
    };

    #[inline]
    pub(super) fn any_at_min(&self) -> bool {
        [self.seven, self.orphans, self.knitted, self.straight].contains(&self.min)
    }

    /// Useful tiles of the special shapes at the minimum, for the 13-tile hand `c`.
    pub(super) fn useful(&self, c: &[u8; KINDS], melds: usize) -> TileSet {
        let mut useful = TileSet::EMPTY;
        if self.seven == self.min {
            useful |= seven_pairs13(c).useful;
        }
        if self.orphans == self.min {
            useful |= orphans13(c).useful;
        }
        if self.knitted == self.min {
            useful |= knitted13(c).useful;
        }
        if self.straight == self.min {
            useful |= knitted_straight13(c, 1 - melds).useful;
        }
        useful
    }
}

pub(super) fn seven_pairs13(c: &[u8; KINDS]) -> ShapeShanten {
    let mut pairs = 0i8;
    let mut useful = 0u64;
    for (i, &x) in c.iter().enumerate() {
        pairs += (x / 2) as i8;
        if x % 2 == 1 {
            useful |= 1 << i;
        }
    }
    ShapeShanten {
        shanten: 6 - pairs.min(7),
        useful: TileSet(useful),
    }
}

pub(super) fn orphans13(c: &[u8; KINDS]) -> ShapeShanten {
    let mut kinds = 0i8;
    let mut pair = false;
    let mut missing = 0u64;
    let mut all = 0u64;
    for &i in &ORPHANS {
        if c[i] > 0 {
            kinds += 1;
        } else {
            missing |= 1 << i;
        }
        if c[i] >= 2 {
            pair = true;
        }
        if c[i] < 4 {
            all |= 1 << i;
        }
    }
    ShapeShanten {
        shanten: 13 - kinds - i8::from(pair),
        useful: TileSet(if pair { missing } else { all }),
    }
}

pub(super) fn knitted13(c: &[u8; KINDS]) -> ShapeShanten {
    let mut held = 0u64;
    for (i, &x) in c.iter().enumerate() {
        if x > 0 {
            held |= 1 << i;
        }
    }
    let mut best = i8::MAX;
    let mut useful = 0u64;
    for m in KNIT_MASKS {
        let allowed = m | HONORS_MASK;
        let have = (held & allowed).count_ones() as i8;
        let s = 13 - have.min(14);
        if s < best {
            best = s;
            useful = allowed & !held;
        } else if s == best {
            useful |= allowed & !held;
        }
    }
    ShapeShanten {
        shanten: best,
        useful: TileSet(useful),
    }
}

pub(super) fn knitted_straight13(c: &[u8; KINDS], sets: usize) -> ShapeShanten {
    // Count the missing knitted tiles of each arrangement (cheap), then look at arrangements
    // from the fewest missing up: one missing more than the best so far can no longer win.
    // Useful tiles come only from the best arrangements: a draw lowers the overall shanten
    // only through an arrangement that is already best.
    let mut missing = [0i8; 6];
    let mut order = [0usize, 1, 2, 3, 4, 5];
    for (n, tiles) in KNIT_TILES.iter().enumerate() {
        missing[n] = tiles.iter().filter(|&&i| c[i] == 0).count() as i8;
    }
    order.sort_unstable_by_key(|&n| missing[n]);
    let mut shanten = [i8::MAX; 6];
    let mut best = i8::MAX;
    for &n in &order {
        if missing[n] - 1 > best {
            break;
        }
        let rest = knit_rest(c, n);
        shanten[n] = missing[n] + crate::hand::shapes_regular_distance(&rest, sets) as i8 - 1;
        best = best.min(shanten[n]);
    }
    let mut useful = 0u64;
    for n in 0..6 {
        if shanten[n] == best {
            let mut missing_mask = 0u64;
            for &i in &KNIT_TILES[n] {
                if c[i] == 0 {
                    missing_mask |= 1 << i;
                }
            }
            // Drawing a missing knitted tile, or a tile that shortens the rest, gains a step.
            useful |= missing_mask | distance_and_improvers(&knit_rest(c, n), sets).1;
        }
    }
    ShapeShanten {
        shanten: best,
        useful: TileSet(useful & below_four(c)),
    }
}

/// The hand less one copy of each knitted tile of arrangement `n` that it holds.
#[inline]
pub(super) fn knit_rest(c: &[u8; KINDS], n: usize) -> [u8; KINDS] {
    let mut rest = *c;
    for &i in &KNIT_TILES[n] {
        rest[i] = rest[i].saturating_sub(1);
    }
    rest
}
