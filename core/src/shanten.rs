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

use crate::hand::KNITS;
use crate::hand::table::{self, Dist, POW5, tables};
use crate::tile::{KINDS, Tile, TileCounts, TileSet};

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

/// Shanten of a hand with wild tiles: only the regular shape and seven pairs take wilds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WildShanten {
    pub shanten: i8,
    pub regular: ShapeShanten,
    pub seven_pairs: Option<ShapeShanten>,
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

/// For a hand of 14 (counting melds as 3): after each discard in `which` (a mask over kinds),
/// the overall shanten, with the useful tiles of every shape at that shanten where it is
/// within `slack` of the best of these discards — exactly [`best`] after that discard. Kinds
/// not held or not in `which` stay at `i8::MAX`; discards beyond the slack get no useful
/// tiles. A turn's whole discard choice in one call: the hand's groups are read once, every
/// added kind once, and each discard rereads only its own group.
pub fn best_after_each_discard(
    c: &TileCounts,
    melds: usize,
    which: u64,
    slack: i8,
) -> Result<[ShapeShanten; KINDS], ShantenError> {
    if !check(c, 0, melds)? {
        return Err(ShantenError::WrongSize(c.total() + 3 * melds));
    }
    Ok(table::with_sets!(
        4 - melds,
        best_after_each_discard_k(&c.0, melds, which, slack)
    ))
}

/// Every discard's shanten for a 14-tile hand, with what the useful-tile pass reuses.
struct EachDiscard<const K: usize> {
    groups: Groups,
    /// The discard's group after the discard, and the regular distance of the hand after it.
    removed: [Dist; KINDS],
    base: [u8; KINDS],
    special: [Special; KINDS],
    /// The discards examined (held and asked for).
    held: u64,
}

impl<const K: usize> EachDiscard<K> {
    fn of(c: &[u8; KINDS], melds: usize, which: u64) -> EachDiscard<K> {
        let t = tables();
        let groups = Groups::of::<K>(c);
        let masks = SpecialMasks::of(c);
        let held = which & masks.held;
        // A discard never brings a special shape closer (pairs, kinds and knitted tiles held
        // can only go down), so the whole hand's counts bound them all from below: a discard
        // whose regular shanten is under that bound needs no special shape counted.
        let mut floor = masks.shanten_but_straight(melds, i8::MAX).min;
        if melds <= 1 {
            for have in masks.knit {
                floor = floor.min(9 - have - 1);
            }
        }
        let mut each = EachDiscard {
            groups,
            removed: [[[0; 5]; 2]; KINDS],
            base: [u8::MAX; KINDS],
            special: [Special::NONE; KINDS],
            held,
        };
        let sides = each.groups.others.map(|o| table::FinalSide::of::<K>(&o));
        let mut pending = held;
        while pending != 0 {
            let d = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            let (a, r) = group_of(d);
            let removed = t.with_removed_rows(a, each.groups.keys[a], r);
            let base = table::final_against(removed, &sides[a]);
            each.removed[d] = table::dist_of_rows(removed);
            each.base[d] = base;
            let regular = base as i8 - 1;
            each.special[d] = if regular < floor {
                Special {
                    min: regular,
                    ..Special::NONE
                }
            } else {
                // The special shapes from the masks, updated for the discard.
                masks.without(d, c[d]).shanten_but_straight(melds, regular)
            };
        }
        if melds <= 1 {
            straight_after_each_discard(c, &masks, held, melds, &mut each.special);
        }
        each
    }
}

fn best_after_each_discard_k<const K: usize>(
    c: &[u8; KINDS],
    melds: usize,
    which: u64,
    slack: i8,
) -> [ShapeShanten; KINDS] {
    let t = tables();
    let each = EachDiscard::<K>::of(c, melds, which);
    let Groups {
        keys, others, g, ..
    } = each.groups;
    let mut out = [ShapeShanten {
        shanten: i8::MAX,
        useful: TileSet::EMPTY,
    }; KINDS];
    let mut best = i8::MAX;
    let mut pending = each.held;
    while pending != 0 {
        let d = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        out[d].shanten = each.special[d].min;
        best = best.min(each.special[d].min);
    }
    let limit = best.saturating_add(slack);
    // untouched[a][b]: the merge of the two groups other than `a` (the discard's) and `b`.
    let mut untouched = [[table::EMPTY; 4]; 4];
    for a in 0..4 {
        for b in a + 1..4 {
            let mut rest = (0..4).filter(|&j| j != a && j != b);
            let (x, y) = (rest.next().unwrap_or(0), rest.next().unwrap_or(0));
            untouched[a][b] = table::merge_upto::<K>(&g[x], &g[y]);
            untouched[b][a] = untouched[a][b];
        }
    }
    // Adding a tile lowers each of its group's distances by one at most. improvers[b][p][k]:
    // the kinds of group `b` whose addition lowers the entry for `k` sets and `p` pairs.
    // They serve discards from other groups only, so a group holding all 14 tiles (which the
    // tables do not extend to 15) is never asked.
    let mut sizes = [0u8; 4];
    for x in 0..KINDS {
        sizes[group_of(x).0] += c[x];
    }
    let mut improvers = [[[0u64; 5]; 2]; 4];
    for x in 0..KINDS {
        let (b, r) = group_of(x);
        if c[x] < 4 && sizes[b] < 14 {
            let added = t.with_added(b, keys[b], r);
            for p in 0..2 {
                for k in 0..=K {
                    if added[p][k] < g[b][p][k] {
                        improvers[b][p][k] |= 1 << x;
                    }
                }
            }
        }
    }
    // (group, what a discard leaves of it, the kinds of other groups that then help).
    let mut seen = [(0usize, table::EMPTY, 0u64); 14];
    let mut seen_len = 0;
    let mut pending = each.held;
    while pending != 0 {
        let d = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        let special = each.special[d];
        if special.min > limit {
            continue;
        }
        let (a, rd) = group_of(d);
        let (removed, base) = (each.removed[d], each.base[d]);
        let mut useful = 0u64;
        if base as i8 - 1 == special.min {
            // A kind of another group helps exactly when it lowers an entry of its group that
            // some best spread of sets and pair over the four groups uses. That depends only
            // on what the discard leaves of its group: discards leaving the same (several
            // loose tiles of a group, typically) share the answer.
            let known = seen[..seen_len]
                .iter()
                .find(|(g_a, dist, _)| *g_a == a && *dist == removed);
            if let Some(&(_, _, cross)) = known {
                useful |= cross;
            } else {
                let mut cross = 0u64;
                for b in (0..4).filter(|&b| b != a) {
                    let rest = table::merge_upto::<K>(&removed, &untouched[a][b]);
                    for k in 0..=K {
                        if g[b][0][k] + rest[1][K - k] == base {
                            cross |= improvers[b][0][k];
                        }
                        if g[b][1][k] + rest[0][K - k] == base {
                            cross |= improvers[b][1][k];
                        }
                    }
                }
                seen[seen_len] = (a, removed, cross);
                seen_len += 1;
                useful |= cross;
            }
            // A kind of the discard's own group: read that group again, and compare the
            // same way, one byte per entry (the gain of a tile is 0 or 1 in each).
            let (mut used0, mut used1) = (0u64, 0u64);
            for k in 0..=K {
                used0 |= u64::from(removed[0][k] + others[a][1][K - k] == base) << (8 * k);
                used1 |= u64::from(removed[1][k] + others[a][0][K - k] == base) << (8 * k);
            }
            let (left0, left1) = table::rows(&removed);
            let (start, len) = if a == 3 { (27, 7) } else { (a * 9, 9) };
            for r in 0..len {
                let x = start + r;
                if c[x] - u8::from(x == d) >= 4 {
                    continue;
                }
                let (with0, with1) = if x == d {
                    table::rows(&g[a])
                } else {
                    t.rows_by_key(a, keys[a] - POW5[rd] + POW5[r])
                };
                if ((left0 - with0) & used0) | ((left1 - with1) & used1) != 0 {
                    useful |= 1 << x;
                }
            }
        }
        if special.any_at_min() {
            let mut rest = *c;
            rest[d] -= 1;
            useful |= special.useful(&rest, melds).0;
        }
        out[d].useful = TileSet(useful);
    }
    out
}

/// The group (0–2 suits, 3 honors) of a kind and its rank within the group.
#[inline(always)]
fn group_of(i: usize) -> (usize, usize) {
    // A table: the division by nine showed up in profiles of the discard loops.
    const GROUPS: [(u8, u8); KINDS] = {
        let mut out = [(0u8, 0u8); KINDS];
        let mut i = 0;
        while i < KINDS {
            out[i] = if i >= 27 {
                (3, (i - 27) as u8)
            } else {
                ((i / 9) as u8, (i % 9) as u8)
            };
            i += 1;
        }
        out
    };
    let (g, r) = GROUPS[i];
    (g as usize, r as usize)
}

/// The overall shanten number alone (no useful tiles): the cheapest whole-hand query.
pub fn shanten_number(c: &TileCounts, melds: usize) -> i8 {
    let melds = melds.min(4);
    // The same formulas hold for 13 and 14 tiles (a surplus tile just goes unused).
    let regular = crate::hand::shapes_regular_distance(&c.0, 4 - melds) as i8 - 1;
    special_shanten(&c.0, melds, regular)
}

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

/// For a hand of 14 (counting melds as 3), the overall shanten after discarding each kind
/// held (`i8::MAX` for kinds not held). The regular shape is computed incrementally — the
/// discard changes one group, merged with the precomputed other three — so choosing a
/// discard costs little more than one whole-hand query.
pub fn after_each_discard(c: &TileCounts, melds: usize) -> [i8; KINDS] {
    table::with_sets!(4 - melds.min(4), after_each_discard_k(c, melds))
}

fn after_each_discard_k<const K: usize>(c: &TileCounts, melds: usize) -> [i8; KINDS] {
    let each = EachDiscard::<K>::of(&c.0, melds, u64::MAX);
    each.special.map(|s| s.min)
}

/// The minimum of `regular` and the special shapes' shanten for a hand.
fn special_shanten(c: &[u8; KINDS], melds: usize, regular: i8) -> i8 {
    SpecialMasks::of(c).shanten(c, melds, regular).min
}

/// A hand's kinds as bit masks: enough to count every special shape with a few popcounts,
/// and cheap to update for one discard.
#[derive(Clone, Copy)]
struct SpecialMasks {
    held: u64,
    doubled: u64,
    pairs: i8,
    /// Kinds held among the thirteen orphans, among the honors, and among the nine tiles of
    /// each knitted arrangement.
    orphans: i8,
    honors: i8,
    knit: [i8; 6],
}

/// The special shapes' shanten numbers for one hand (`i8::MAX` where the melds rule a shape
/// out) and the overall minimum with the regular shape.
#[derive(Clone, Copy)]
struct Special {
    seven: i8,
    orphans: i8,
    knitted: i8,
    straight: i8,
    min: i8,
}

impl SpecialMasks {
    #[inline]
    fn of(c: &[u8; KINDS]) -> SpecialMasks {
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
    fn without(self, i: usize, count: u8) -> SpecialMasks {
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
    fn shanten(&self, c: &[u8; KINDS], melds: usize, regular: i8) -> Special {
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
    fn shanten_but_straight(&self, melds: usize, regular: i8) -> Special {
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

/// Sets the knitted-straight (组合龙) shanten after each discard in `held` where it can reach
/// that discard's minimum so far, and lowers the minimum. Per arrangement in reach, the rest
/// of the hand is looked up once and each discard only rereads its own group, instead of a
/// whole-hand query per discard.
fn straight_after_each_discard(
    c: &[u8; KINDS],
    masks: &SpecialMasks,
    held: u64,
    melds: usize,
    out: &mut [Special; KINDS],
) {
    let mut worst = i8::MIN;
    let mut pending = held;
    while pending != 0 {
        let i = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        worst = worst.max(out[i].min);
    }
    for (n, &m) in KNIT_MASKS.iter().enumerate() {
        // The whole hand's kinds, not just the discards asked about, decide what is missing.
        let missing = 9 - masks.knit[n];
        // A discard never lowers the missing count: nothing here can beat any discard's best.
        if missing - 1 > worst {
            continue;
        }
        let rest = knit_rest(c, n);
        if melds == 0 {
            straight_rest_k::<1>(c, &rest, held, m, missing, out);
        } else {
            straight_rest_k::<0>(c, &rest, held, m, missing, out);
        }
    }
}

fn straight_rest_k<const K: usize>(
    c: &[u8; KINDS],
    rest: &[u8; KINDS],
    held: u64,
    knit: u64,
    missing: i8,
    out: &mut [Special; KINDS],
) {
    let t = tables();
    let groups = Groups::of::<K>(rest);
    let whole = groups.distance::<K>() as i8;
    let Groups { keys, others, .. } = groups;
    let sides = others.map(|o| table::FinalSide::of::<K>(&o));
    let mut pending = held;
    while pending != 0 {
        let i = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        // A knitted tile held once leaves the arrangement; any other discard leaves the rest.
        let (miss, dist) = if knit & (1 << i) != 0 && c[i] == 1 {
            (missing + 1, whole)
        } else {
            // Taking a tile from the rest never brings it closer: the whole rest bounds it.
            if missing + whole - 1 > out[i].min {
                continue;
            }
            let (j, r) = group_of(i);
            let d = t.with_removed_rows(j, keys[j], r);
            (missing, table::final_against(d, &sides[j]) as i8)
        };
        let s = &mut out[i];
        s.straight = s.straight.min(miss + dist - 1);
        s.min = s.min.min(s.straight);
    }
}

impl Special {
    const NONE: Special = Special {
        seven: i8::MAX,
        orphans: i8::MAX,
        knitted: i8::MAX,
        straight: i8::MAX,
        min: i8::MAX,
    };

    #[inline]
    fn any_at_min(&self) -> bool {
        [self.seven, self.orphans, self.knitted, self.straight].contains(&self.min)
    }

    /// Useful tiles of the special shapes at the minimum, for the 13-tile hand `c`.
    fn useful(&self, c: &[u8; KINDS], melds: usize) -> TileSet {
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

/// Shanten with wilds: `real` holds the non-wild tiles, `wilds` how many wilds the hand holds,
/// `wild` the wild kind (drawing one is always useful while fewer than four are held).
pub fn analyze_wild(
    real: &TileCounts,
    wilds: u8,
    wild: Tile,
    melds: usize,
) -> Result<WildShanten, ShantenError> {
    let full = check(real, wilds as usize, melds)?;
    if wilds > 0 && real.get(wild) > 0 {
        // The wild kind's tiles are the wilds: they must not also be counted as real.
        return Err(ShantenError::FifthCopy(wild));
    }
    let regular = per_shape_wild(&real.0, wilds, wild, full, |c, w| {
        crate::hand::shapes_regular_distance(c, 4 - melds) as i8 - w as i8 - 1
    });
    let seven_pairs = (melds == 0).then(|| {
        per_shape_wild(&real.0, wilds, wild, full, |c, w| {
            let pairs: u8 = c.iter().map(|&x| x / 2).sum();
            let singles = c.iter().filter(|&&x| x % 2 == 1).count() as u8;
            let matched = singles.min(w);
            let total = pairs + matched + (w - matched) / 2;
            6 - total.min(7) as i8
        })
    });
    let shanten = seven_pairs.map_or(regular.shanten, |s| s.shanten.min(regular.shanten));
    Ok(WildShanten {
        shanten,
        regular,
        seven_pairs,
    })
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

/// The wild-hand counterpart of [`per_shape`]: `f(real, wilds)` gives the shanten number.
fn per_shape_wild(
    c: &[u8; KINDS],
    wilds: u8,
    wild: Tile,
    full: bool,
    f: impl Fn(&[u8; KINDS], u8) -> i8,
) -> ShapeShanten {
    let useful13 = |c: &[u8; KINDS], w: u8| -> ShapeShanten {
        let base = f(c, w);
        let mut useful = TileSet::EMPTY;
        if w < 4 && f(c, w + 1) < base {
            useful.insert(wild);
        }
        let mut work = *c;
        for i in 0..KINDS {
            if i == wild.index() || c[i] >= 4 {
                continue;
            }
            work[i] += 1;
            if f(&work, w) < base {
                useful.insert(Tile::kind(i));
            }
            work[i] -= 1;
        }
        ShapeShanten {
            shanten: base,
            useful,
        }
    };
    if !full {
        return useful13(c, wilds);
    }
    let base = f(c, wilds);
    if base < 0 {
        return ShapeShanten {
            shanten: -1,
            useful: TileSet::EMPTY,
        };
    }
    let mut best = ShapeShanten {
        shanten: i8::MAX,
        useful: TileSet::EMPTY,
    };
    let mut consider = |s: ShapeShanten| {
        if s.shanten < best.shanten {
            best = s;
        } else if s.shanten == best.shanten {
            best.useful |= s.useful;
        }
    };
    let mut work = *c;
    for i in 0..KINDS {
        if c[i] > 0 {
            work[i] -= 1;
            consider(useful13(&work, wilds));
            work[i] += 1;
        }
    }
    if wilds > 0 {
        consider(useful13(c, wilds - 1));
    }
    best
}

/// Regular shape of a 3n+1 hand needing `sets` sets: shanten and the kinds that lower it.
fn regular13(c: &[u8; KINDS], sets: usize) -> ShapeShanten {
    let (base, useful) = distance_and_improvers(c, sets);
    ShapeShanten {
        shanten: base as i8 - 1,
        useful: TileSet(useful & below_four(c)),
    }
}

/// Kinds held fewer than four times, as a mask.
#[inline]
fn below_four(c: &[u8; KINDS]) -> u64 {
    let mut m = 0u64;
    for (i, &x) in c.iter().enumerate() {
        if x < 4 {
            m |= 1 << i;
        }
    }
    m
}

/// The distance of `c` to `sets` sets and a pair, and the kinds whose addition shortens it.
/// Each group is looked up once; for each kind only its own group is looked up again and
/// merged with the precomputed merge of the other three.
fn distance_and_improvers(c: &[u8; KINDS], sets: usize) -> (u8, u64) {
    table::with_sets!(sets, distance_and_improvers_k(c))
}

fn distance_and_improvers_k<const K: usize>(c: &[u8; KINDS]) -> (u8, u64) {
    let t = tables();
    let groups = Groups::of::<K>(c);
    let base = groups.distance::<K>();
    let Groups {
        keys,
        others,
        g01,
        g23,
        ..
    } = groups;
    // A tile with nothing within two ranks of it (any unheld honor) joins no block with the
    // hand: adding it is like adding a separate one-tile group, the same for all such tiles.
    // One merge answers for all of them, instead of a table read each.
    let all = table::merge_upto::<K>(&g01, &g23);
    let lone_helps = table::merge_final::<K>(&all, &table::LONE_TILE) < base;
    let lone = lone_tiles(c);
    let mut useful = if lone_helps { lone } else { 0 };
    for (j, other) in others.iter().enumerate() {
        let (start, len) = if j == 3 { (27, 7) } else { (j * 9, 9) };
        let side = table::FinalSide::of::<K>(other);
        for r in 0..len {
            if c[start + r] >= 4 || lone & (1 << (start + r)) != 0 {
                continue;
            }
            let d = t.with_added_rows(j, keys[j], r);
            if table::final_against(d, &side) < base {
                useful |= 1 << (start + r);
            }
        }
    }
    (base, useful)
}

/// A hand's four groups (three suits, honors) looked up once: their keys, the merges of the
/// suit pairs, and for each group the merge of the other three — what every "add or remove
/// one tile" query needs.
#[derive(Clone, Copy)]
struct Groups {
    keys: [usize; 4],
    g: [Dist; 4],
    others: [Dist; 4],
    g01: Dist,
    g23: Dist,
}

impl Groups {
    /// The whole hand's distance to `K` sets and a pair.
    #[inline]
    fn distance<const K: usize>(&self) -> u8 {
        table::merge_final::<K>(&self.g01, &self.g23)
    }

    #[inline]
    fn of<const K: usize>(c: &[u8; KINDS]) -> Groups {
        let t = tables();
        let keys = [
            table::key(&c[0..9]),
            table::key(&c[9..18]),
            table::key(&c[18..27]),
            table::key(&c[27..34]),
        ];
        let g: [Dist; 4] = std::array::from_fn(|j| t.by_key(j, keys[j]));
        let merge = |a: &Dist, b: &Dist| table::merge_upto::<K>(a, b);
        let g01 = merge(&g[0], &g[1]);
        let g23 = merge(&g[2], &g[3]);
        let others = [
            merge(&g[1], &g23),
            merge(&g[0], &g23),
            merge(&g01, &g[3]),
            merge(&g01, &g[2]),
        ];
        Groups {
            keys,
            g,
            others,
            g01,
            g23,
        }
    }
}

/// Kinds not held with no held tile of the same suit within two ranks (honors: not held).
#[inline]
fn lone_tiles(c: &[u8; KINDS]) -> u64 {
    let mut held = 0u64;
    for (i, &x) in c.iter().enumerate() {
        held |= u64::from(x > 0) << i;
    }
    let mut near = held & HONORS_MASK;
    for s in 0..3 {
        let m = (held >> (9 * s)) & 0x1ff;
        let spread = (m | m << 1 | m << 2 | m >> 1 | m >> 2) & 0x1ff;
        near |= spread << (9 * s);
    }
    !near & ((1u64 << KINDS) - 1)
}

fn seven_pairs13(c: &[u8; KINDS]) -> ShapeShanten {
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

const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

fn orphans13(c: &[u8; KINDS]) -> ShapeShanten {
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

fn knitted13(c: &[u8; KINDS]) -> ShapeShanten {
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

fn knitted_straight13(c: &[u8; KINDS], sets: usize) -> ShapeShanten {
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
fn knit_rest(c: &[u8; KINDS], n: usize) -> [u8; KINDS] {
    let mut rest = *c;
    for &i in &KNIT_TILES[n] {
        rest[i] = rest[i].saturating_sub(1);
    }
    rest
}

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
}
