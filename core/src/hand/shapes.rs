//! Winning shapes and every decomposition of a complete hand.
//!
//! Shapes: regular (four sets and a pair, melds counting as sets), seven pairs (七对), thirteen
//! orphans (十三幺), honors and knitted tiles (全不靠, 七星不靠 when all seven honors are in) and
//! the knitted straight (组合龙) with one more set and a pair. The fast check
//! ([`is_complete_counts`]) uses the suit tables; the enumeration
//! ([`for_each_decomposition`]) lists every reading, because the scorer must try them all.

// Index arithmetic over parallel per-kind arrays reads clearer as ranges.
#![allow(clippy::needless_range_loop)]

use serde::Serialize;

use super::table::{self, tables};
use super::{KongKind, Meld, MeldKind};
use crate::tile::{KINDS, Tile, TileCounts};

/// A winning shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Four sets and a pair.
    Regular,
    /// 七对: seven pairs; four alike count as two pairs.
    SevenPairs,
    /// 十三幺: one of each terminal and honor, one of them doubled.
    ThirteenOrphans,
    /// 全不靠 (七星不靠 with all seven honors): fourteen distinct knitted tiles and honors.
    HonorsKnitted,
    /// 组合龙 plus one set and a pair.
    KnittedStraight,
}

/// What a set in a decomposition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SetKind {
    Chow,
    Pung,
    Kong,
}

/// A set (面子) within a decomposition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Set {
    pub kind: SetKind,
    /// The lowest tile.
    pub tile: Tile,
    /// Made of self-drawn tiles (concealed tiles, or a concealed kong). A pung completed by a
    /// winning discard is still marked concealed here; the scorer decides that.
    pub concealed: bool,
    /// Declared as a meld (as opposed to read from the concealed tiles).
    pub melded: bool,
}

impl Set {
    /// The set contains `t`.
    pub fn contains(&self, t: Tile) -> bool {
        match self.kind {
            SetKind::Chow => {
                t.suit() == self.tile.suit()
                    && (self.tile.index()..self.tile.index() + 3).contains(&t.index())
            }
            _ => t == self.tile,
        }
    }

    /// A pung or a kong.
    pub fn is_pung_like(&self) -> bool {
        self.kind != SetKind::Chow
    }

    /// A set read from concealed tiles.
    pub(crate) fn concealed(kind: SetKind, tile: Tile) -> Set {
        Set {
            kind,
            tile,
            concealed: true,
            melded: false,
        }
    }

    fn from_meld(m: &Meld) -> Set {
        let kind = match m.kind {
            MeldKind::Chow => SetKind::Chow,
            MeldKind::Pung => SetKind::Pung,
            MeldKind::Kong(_) => SetKind::Kong,
        };
        Set {
            kind,
            tile: m.tile,
            concealed: m.kind == MeldKind::Kong(KongKind::Concealed),
            melded: true,
        }
    }
}

/// A knitted arrangement: which suit (0 m, 1 p, 2 s) carries 147, 258 and 369.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Knit(pub [u8; 3]);

/// The six knitted arrangements.
pub const KNITS: [Knit; 6] = [
    Knit([0, 1, 2]),
    Knit([0, 2, 1]),
    Knit([1, 0, 2]),
    Knit([1, 2, 0]),
    Knit([2, 0, 1]),
    Knit([2, 1, 0]),
];

impl Knit {
    /// The nine tiles of the arrangement.
    pub fn tiles(&self) -> [Tile; 9] {
        let mut out = [Tile::kind(0); 9];
        for (pattern, &suit) in self.0.iter().enumerate() {
            for j in 0..3 {
                out[pattern * 3 + j] = Tile::kind(suit as usize * 9 + pattern + 3 * j);
            }
        }
        out
    }

    /// The nine tiles as a bit mask over kinds 0–26.
    pub const fn mask(&self) -> u32 {
        let mut m = 0u32;
        let mut pattern = 0;
        while pattern < 3 {
            let mut j = 0;
            while j < 3 {
                m |= 1 << (self.0[pattern] as usize * 9 + pattern + 3 * j);
                j += 1;
            }
            pattern += 1;
        }
        m
    }
}

/// [`Knit::mask`] of each of [`KNITS`], computed once at compile time.
const KNIT_MASKS: [u32; 6] = {
    let mut out = [0u32; 6];
    let mut n = 0;
    while n < 6 {
        out[n] = KNITS[n].mask();
        n += 1;
    }
    out
};

/// One reading of a complete hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Decomposition {
    pub shape: Shape,
    sets: [Set; 4],
    set_count: u8,
    /// The pair (regular and knitted straight), or the doubled tile (thirteen orphans).
    pub pair: Option<Tile>,
    /// Seven pairs: the pairs in notation order, a four-of-a-kind twice.
    pub pairs: Option<[Tile; 7]>,
    /// Knitted straight, or honors-and-knitted: the arrangement.
    pub knit: Option<Knit>,
}

const NO_SET: Set = Set {
    kind: SetKind::Chow,
    tile: Tile::EAST,
    concealed: true,
    melded: false,
};

impl Decomposition {
    fn empty(shape: Shape) -> Decomposition {
        Decomposition {
            shape,
            sets: [NO_SET; 4],
            set_count: 0,
            pair: None,
            pairs: None,
            knit: None,
        }
    }

    /// The sets: four in a regular hand, one in a knitted straight, none otherwise. Melds come
    /// first, in the order declared.
    pub fn sets(&self) -> &[Set] {
        &self.sets[..self.set_count as usize]
    }

    /// An empty regular reading with the melds as its first sets.
    pub(crate) fn regular_with(melds: &[Meld]) -> Decomposition {
        let mut d = Decomposition::empty(Shape::Regular);
        for m in melds {
            d.push(Set::from_meld(m));
        }
        d
    }

    pub(crate) fn push_set(&mut self, s: Set) {
        self.push(s);
    }

    pub(crate) fn pop_set(&mut self) {
        self.pop();
    }

    fn push(&mut self, s: Set) {
        self.sets[self.set_count as usize] = s;
        self.set_count += 1;
    }

    fn pop(&mut self) {
        self.set_count -= 1;
    }
}

/// Is this a complete hand in any shape? `concealed` includes the winning tile; `melds` is the
/// number of declared melds. Allocation-free; the fast path of every win check.
pub fn is_complete_counts(concealed: &TileCounts, melds: usize) -> bool {
    let c = &concealed.0;
    let total: usize = c.iter().map(|&x| x as usize).sum();
    if melds > 4 || total + 3 * melds != 14 {
        return false;
    }
    if regular_complete(c, 4 - melds) {
        return true;
    }
    if melds == 0 {
        if seven_pairs(c) {
            return true;
        }
        let distinct = c.iter().filter(|&&x| x > 0).count();
        if (distinct == 13 && thirteen_orphans(c))
            || (distinct == 14 && honors_knitted(c).is_some())
        {
            return true;
        }
    }
    melds <= 1 && knitted_straight_complete(c, 1 - melds)
}

/// Is this hand complete in any shape? The hand's concealed tiles include the winning tile.
pub fn is_complete(hand: &super::Hand) -> bool {
    is_complete_counts(&hand.concealed_counts(), hand.melds().len())
}

/// The fewest tiles to add so that `c` holds `sets` sets and a pair (block counting, see
/// [`table`]).
#[inline]
pub(crate) fn regular_distance(c: &[u8; KINDS], sets: usize) -> u8 {
    table::with_sets!(sets, regular_distance_k(c))
}

#[inline]
fn regular_distance_k<const K: usize>(c: &[u8; KINDS]) -> u8 {
    let t = tables();
    let m = t.suit(&c[0..9]);
    let p = t.suit(&c[9..18]);
    let s = t.suit(&c[18..27]);
    let z = t.honors(&c[27..34]);
    let mps = table::merge_upto::<K>(&table::merge_upto::<K>(&m, &p), &s);
    table::merge_final::<K>(&mps, &z)
}

/// Regular shape: every group must be complete on its own, holding a multiple of three tiles,
/// one of them three-plus-two (the pair). Four packed-table reads, no merging.
#[inline]
fn regular_complete(c: &[u8; KINDS], _sets: usize) -> bool {
    const RANGES: [std::ops::Range<usize>; 4] = [0..9, 9..18, 18..27, 27..34];
    // The group sizes first: most hands that are not regular fail on them, before any table
    // is read.
    // Eight counts summed at once: multiplying by 0x0101… adds every byte into the top one
    // (no carries while they add up to less than 256). The honors' seven are the top of the
    // word at 26.
    let word = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().unwrap_or([0; 8]));
    let sum8 = |x: u64| (x.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u8;
    let n = [
        sum8(word(0)).wrapping_add(c[8]),
        sum8(word(9)).wrapping_add(c[17]),
        sum8(word(18)).wrapping_add(c[26]),
        sum8(word(26) >> 8),
    ];
    let mut pairs = 0;
    for &x in &n {
        match x % 3 {
            0 => {}
            2 => pairs += 1,
            _ => return false,
        }
    }
    if pairs != 1 {
        return false;
    }
    let t = tables();
    (0..4).all(|g| {
        n[g] == 0 || t.group_complete(g, &c[RANGES[g].clone()], (n[g] / 3) as usize, n[g] % 3 == 2)
    })
}

#[inline]
fn seven_pairs(c: &[u8; KINDS]) -> bool {
    c.iter().fold(0, |acc, &x| acc | x) & 1 == 0
}

const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

/// The thirteen orphans as a mask over kinds.
const ORPHAN_MASK: u64 = {
    let mut m = 0u64;
    let mut i = 0;
    while i < ORPHANS.len() {
        m |= 1 << ORPHANS[i];
        i += 1;
    }
    m
};

#[inline]
fn thirteen_orphans(c: &[u8; KINDS]) -> bool {
    ORPHANS.iter().all(|&i| c[i] >= 1) && ORPHANS.iter().map(|&i| c[i]).sum::<u8>() == 14
}

/// The arrangement of a complete honors-and-knitted hand, if it is one (14 tiles assumed).
#[inline]
fn honors_knitted(c: &[u8; KINDS]) -> Option<Knit> {
    if c.iter().any(|&x| x > 1) {
        return None;
    }
    let mask = suit_mask(c);
    KNITS
        .into_iter()
        .zip(KNIT_MASKS)
        .find(|(_, km)| mask & !km == 0)
        .map(|(k, _)| k)
}

#[inline]
fn suit_mask(c: &[u8; KINDS]) -> u32 {
    let mut mask = 0u32;
    for (i, &x) in c[..27].iter().enumerate() {
        mask |= u32::from(x > 0) << i;
    }
    mask
}

#[inline]
fn knitted_straight_complete(c: &[u8; KINDS], sets: usize) -> bool {
    let mask = suit_mask(c);
    KNITS.iter().zip(KNIT_MASKS).any(|(k, km)| {
        if mask & km != km {
            return false;
        }
        let mut rest = *c;
        for t in k.tiles() {
            rest[t.index()] -= 1;
        }
        regular_distance(&rest, sets) == 0
    })
}

/// Calls `f` with every decomposition of a complete hand; nothing when it is not complete.
/// `concealed` includes the winning tile. Allocation-free.
pub fn for_each_decomposition(
    concealed: &TileCounts,
    melds: &[Meld],
    mut f: impl FnMut(&Decomposition),
) {
    let c = concealed.0;
    let total: usize = c.iter().map(|&x| x as usize).sum();
    if melds.len() > 4 || total + 3 * melds.len() != 14 {
        return;
    }
    let needed = 4 - melds.len();
    if regular_complete(&c, needed) {
        let mut d = Decomposition::empty(Shape::Regular);
        for m in melds {
            d.push(Set::from_meld(m));
        }
        let mut work = c;
        regular(&mut work, 0, &mut d, &mut f);
    }
    if melds.is_empty() {
        if seven_pairs(&c) {
            f(&seven_pairs_reading(&c));
        }
        if thirteen_orphans(&c) {
            f(&orphans_reading(&c));
        }
        if let Some(k) = honors_knitted(&c) {
            let mut d = Decomposition::empty(Shape::HonorsKnitted);
            d.knit = Some(k);
            f(&d);
        }
    }
    if melds.len() <= 1 {
        let mask = suit_mask(&c);
        for (k, km) in KNITS.into_iter().zip(KNIT_MASKS) {
            if mask & km != km {
                continue;
            }
            let mut rest = c;
            for t in k.tiles() {
                rest[t.index()] -= 1;
            }
            if regular_distance(&rest, 1 - melds.len()) != 0 {
                continue;
            }
            let mut d = Decomposition::empty(Shape::KnittedStraight);
            d.knit = Some(k);
            for m in melds {
                d.push(Set::from_meld(m));
            }
            regular(&mut rest, 0, &mut d, &mut f);
        }
    }
}

fn seven_pairs_reading(c: &[u8; KINDS]) -> Decomposition {
    let mut d = Decomposition::empty(Shape::SevenPairs);
    let mut pairs = [Tile::EAST; 7];
    let mut n = 0;
    for (i, &x) in c.iter().enumerate() {
        for _ in 0..x / 2 {
            // Seven pairs hold fourteen tiles: never more than seven pairs.
            if n < 7 {
                pairs[n] = Tile::kind(i);
                n += 1;
            }
        }
    }
    d.pairs = Some(pairs);
    d
}

fn orphans_reading(c: &[u8; KINDS]) -> Decomposition {
    let mut d = Decomposition::empty(Shape::ThirteenOrphans);
    d.pair = ORPHANS.iter().find(|&&i| c[i] == 2).map(|&i| Tile::kind(i));
    d
}

/// The one reading of a concealed 14-tile hand that has a single reading, a special one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnlyReading {
    /// 十三幺.
    ThirteenOrphans,
    /// 全不靠 / 七星不靠, holding this many honors (5–7).
    HonorsKnitted { honors: u8 },
    /// 连七对: its other readings are regular ones, which never score as much (see the
    /// scoring), so it counts as the only one.
    SevenShiftedPairs,
    /// 七对 of a hand with no regular reading.
    SevenPairs,
}

/// Which single special reading a concealed 14-tile hand has, found from the kinds held
/// (`kinds`, a mask) without building it; `None` when the hand has another reading or none.
/// Thirteen orphans and honors and knitted hold single tiles (but the orphans' one pair) and a
/// knitted straight nine distinct kinds besides a set and a pair, so no other shape fits
/// them; seven pairs fit no special shape.
pub(crate) fn only_special_reading(c: &[u8; KINDS], kinds: u64) -> Option<OnlyReading> {
    // Fourteen tiles of the thirteen orphan kinds and no other: one is doubled.
    if kinds == ORPHAN_MASK {
        return Some(OnlyReading::ThirteenOrphans);
    }
    let n = kinds.count_ones();
    // Honors and knitted holds fourteen kinds once each (fourteen kinds in fourteen tiles:
    // once each), its suited ones within one knitted arrangement.
    if n == 14 {
        let suited = (kinds & ((1 << 27) - 1)) as u32;
        return KNIT_MASKS.iter().any(|km| suited & !km == 0).then_some(
            OnlyReading::HonorsKnitted {
                honors: (kinds >> 27).count_ones() as u8,
            },
        );
    }
    let first = kinds.trailing_zeros() as usize;
    // Seven kinds in a row from `first`, two of each and nothing else.
    if first < 27
        && kinds == 0x7f << first
        && first % 9 <= 2
        && c[first..first + 7].iter().all(|&x| x == 2)
    {
        return Some(OnlyReading::SevenShiftedPairs);
    }
    (n <= 7 && seven_pairs(c) && !regular_complete(c, 4)).then_some(OnlyReading::SevenPairs)
}

/// Every decomposition of a complete hand, collected.
pub fn decompositions(concealed: &TileCounts, melds: &[Meld]) -> Vec<Decomposition> {
    let mut v = Vec::new();
    for_each_decomposition(concealed, melds, |d| v.push(*d));
    v
}

/// Enumerates the regular readings of `c` from index `i` on: at each tile kind, decide at once
/// how many of its copies go to the pair, a pung, and chows starting there, so every reading
/// comes out exactly once.
fn regular(
    c: &mut [u8; KINDS],
    mut i: usize,
    d: &mut Decomposition,
    f: &mut impl FnMut(&Decomposition),
) {
    while i < KINDS && c[i] == 0 {
        i += 1;
    }
    if i == KINDS {
        if d.pair.is_some() {
            f(d);
        }
        return;
    }
    let n = c[i];
    let t = Tile::kind(i);
    let can_chow = t.is_suited() && t.rank() <= 7;
    for pair in 0..=u8::from(d.pair.is_none()) {
        for pung in 0..=1u8 {
            let used = 2 * pair + 3 * pung;
            if used > n {
                continue;
            }
            let chows = n - used;
            if chows > 0 && (!can_chow || c[i + 1] < chows || c[i + 2] < chows) {
                continue;
            }
            if d.set_count as usize + pung as usize + chows as usize > 4 {
                continue;
            }
            c[i] = 0;
            if chows > 0 {
                c[i + 1] -= chows;
                c[i + 2] -= chows;
            }
            if pair == 1 {
                d.pair = Some(t);
            }
            if pung == 1 {
                d.push(Set {
                    kind: SetKind::Pung,
                    tile: t,
                    concealed: true,
                    melded: false,
                });
            }
            for _ in 0..chows {
                d.push(Set {
                    kind: SetKind::Chow,
                    tile: t,
                    concealed: true,
                    melded: false,
                });
            }
            regular(c, i + 1, d, f);
            for _ in 0..chows + pung {
                d.pop();
            }
            if pair == 1 {
                d.pair = None;
            }
            c[i] = n;
            if chows > 0 {
                c[i + 1] += chows;
                c[i + 2] += chows;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_special_reading_names_the_one_reading() {
        let kinds = |c: &[u8; KINDS]| (0..KINDS).fold(0u64, |m, i| m | u64::from(c[i] > 0) << i);
        let only = |c: &[u8; KINDS]| only_special_reading(c, kinds(c));
        let shapes = |c: &[u8; KINDS]| {
            decompositions(&TileCounts(*c), &[])
                .iter()
                .map(|d| d.shape)
                .collect::<Vec<_>>()
        };
        for low in (0..27).filter(|i| i % 9 <= 2) {
            let mut c = [0u8; KINDS];
            (low..low + 7).for_each(|k| c[k] = 2);
            assert_eq!(only(&c), Some(OnlyReading::SevenShiftedPairs));
            assert!(shapes(&c).contains(&Shape::SevenPairs));
            // A gap at the second pair leaves no regular reading.
            c[low + 1] = 0;
            c[33] = 2;
            assert_eq!(only(&c), Some(OnlyReading::SevenPairs));
            assert_eq!(shapes(&c), [Shape::SevenPairs]);
        }
        let orphans = counts("19m19p19s1234567z1z");
        assert_eq!(only(&orphans.0), Some(OnlyReading::ThirteenOrphans));
        assert_eq!(shapes(&orphans.0), [Shape::ThirteenOrphans]);
        let knitted = counts("147m258p369s12346z");
        assert_eq!(
            only(&knitted.0),
            Some(OnlyReading::HonorsKnitted { honors: 5 })
        );
        assert_eq!(shapes(&knitted.0), [Shape::HonorsKnitted]);
        // Pairs that also read as a regular hand, and a regular hand: not a single special
        // reading.
        assert_eq!(
            only(&counts("11223344556677m").0),
            Some(OnlyReading::SevenShiftedPairs)
        );
        assert_eq!(only(&counts("11223344m556677p").0), None);
        assert_eq!(only(&counts("123456789m23455s").0), None);
    }
    use crate::hand::{KongKind, Meld};

    fn counts(s: &str) -> TileCounts {
        TileCounts::parse(s).unwrap()
    }

    fn shapes(s: &str, melds: &[Meld]) -> Vec<Shape> {
        decompositions(&counts(s), melds)
            .iter()
            .map(|d| d.shape)
            .collect()
    }

    #[test]
    fn regular_hand_has_all_readings() {
        // 111222333m: three pungs or three chows.
        let ds = decompositions(&counts("111222333m456p99s"), &[]);
        assert_eq!(ds.len(), 2);
        assert!(
            ds.iter()
                .all(|d| d.shape == Shape::Regular && d.sets().len() == 4)
        );
        assert!(is_complete_counts(&counts("111222333m456p99s"), 0));
        assert!(!is_complete_counts(&counts("111222333m456p91s"), 0));
    }

    #[test]
    fn seven_pairs_with_four_alike_and_regular_overlap() {
        assert_eq!(
            shapes("11112233m445566p", &[]),
            vec![Shape::Regular, Shape::SevenPairs]
        );
        assert_eq!(shapes("1111m225588p3399s", &[]), vec![Shape::SevenPairs]);
        let d = decompositions(&counts("1111m225588p3399s"), &[]);
        assert_eq!(d[0].pairs.unwrap()[0], d[0].pairs.unwrap()[1]);
    }

    #[test]
    fn special_shapes() {
        assert_eq!(
            shapes("19m19p19s12345677z", &[]),
            vec![Shape::ThirteenOrphans]
        );
        assert_eq!(
            shapes("147m258p369s12345z", &[]),
            vec![Shape::HonorsKnitted]
        );
        assert_eq!(
            shapes("147m25p36s1234567z", &[]),
            vec![Shape::HonorsKnitted]
        );
        assert_eq!(
            shapes("147m258p369s23455s", &[]),
            vec![Shape::KnittedStraight]
        );
        assert!(shapes("147m258p369s12344z", &[]).is_empty());
        // A knitted straight beside one exposed set.
        let pung = Meld::pung(Tile::RED, Some(Tile::RED), None).unwrap();
        assert_eq!(
            shapes("147m258p369s22s", &[pung]),
            vec![Shape::KnittedStraight]
        );
    }

    #[test]
    fn melds_count_as_sets() {
        let kong = Meld::kong(Tile::kind(0), KongKind::Concealed, None).unwrap();
        let ds = decompositions(&counts("234m456p789s55z"), &[kong]);
        assert_eq!(ds.len(), 1);
        assert!(ds[0].sets()[0].melded && ds[0].sets()[0].concealed);
        assert_eq!(ds[0].pair, Some(Tile::WHITE));
    }
}
