//! Reading one decomposition: which fans it scores.
//!
//! What does not depend on the reading (the tiles' suits and ranks, the win conditions) is
//! worked out once per hand in [`Prepared`]; each reading then adds its set-based fans, and
//! [`finish`] applies the exclusions and the Chicken Hand rule. Counts live in a fixed array
//! indexed by fan id: nothing is allocated.
//!
//! The combination rules follow the reference calculators the rules file was checked against
//! (mcr-scoring.md §3): the chow and pung fans of four sets are found the way a player reads
//! them, the biggest pattern first, and a set outside a three-set pattern combines with it
//! only once (套算一次).

use std::cell::Cell;

use super::table::{EXCLUDERS, EXCLUDES, POINTS, SLOTS, id, present};
use super::wait;
use crate::hand::{Decomposition, KongKind, MeldKind, OnlyReading, Set, SetKind, Shape};
use crate::tile::{KINDS, Tile, nonzero_bytes};

/// Fan counts by id.
pub(crate) type Counts = [u8; SLOTS];

const TERMINALS: u64 = 1 | 1 << 8 | 1 << 9 | 1 << 17 | 1 << 18 | 1 << 26;
const HONORS: u64 = 0x7f << 27;
const WINDS: u64 = 0xf << 27;
const DRAGONS: u64 = 0x7 << 31;
/// 绿一色: 2 3 4 6 8 of bamboo and the Green dragon.
const GREEN: u64 = 1 << 19 | 1 << 20 | 1 << 21 | 1 << 23 | 1 << 25 | 1 << 32;
/// 推不倒: dots 1 2 3 4 5 8 9, bamboo 2 4 5 6 8 9, White dragon.
const REVERSIBLE: u64 = 1 << 9
    | 1 << 10
    | 1 << 11
    | 1 << 12
    | 1 << 13
    | 1 << 16
    | 1 << 17
    | 1 << 19
    | 1 << 21
    | 1 << 22
    | 1 << 23
    | 1 << 25
    | 1 << 26
    | 1 << 31;

/// The facts of one winning hand that every reading shares.
pub(crate) struct Prepared {
    /// The concealed tiles with the winning tile: what the readings are made of (the 13 held
    /// before the win are these less the winning tile).
    pub(crate) c14: [u8; KINDS],
    melds: usize,
    win: Tile,
    self_drawn: bool,
    seat: Tile,
    round: Tile,
    /// Melds shown face up (a concealed kong keeps the hand concealed).
    exposed: usize,
    /// Fans of tile content and win conditions, the same in every reading, as a mask of ids:
    /// each counts once, but for 四归一 ([`Prepared::hogs`]). Kept as a mask rather than a
    /// counts array so that starting a reading writes its counts without reading an array
    /// just written byte by byte (a stall).
    base_held: u128,
    /// How many times 四归一 counts.
    pub(crate) hogs: u8,
    /// 九莲宝灯: the 13 held tiles are 1112345678999 of one suit.
    nine_gates: bool,
    /// 明暗杠 instead of 明杠 + 暗杠 (an option).
    mixed_kong_5: bool,
    /// Whether only one kind wins (独听), worked out when a reading first needs it.
    unique_wait: Cell<Option<bool>>,
    /// The hand's one reading, when it is concealed and that reading special (looked for only
    /// when asked). Thirteen orphans and honors and knitted exclude every fan of tile content
    /// their tiles can have (五门齐, 混幺九; they hold no four alike), seven shifted pairs all
    /// but 断幺, so those are not looked for; `shortcuts_match_every_reading` compares with
    /// looking.
    pub(crate) only: Option<OnlyReading>,
}

impl Prepared {
    #[inline(always)]
    pub(crate) fn new(
        c14: [u8; KINDS],
        (all, kinds, any_four): ([u8; KINDS], u64, bool),
        meld_kinds: &[MeldKind],
        win: Tile,
        conditions: &Conditions,
        only: Option<OnlyReading>,
    ) -> Prepared {
        let kongs = meld_kinds
            .iter()
            .filter(|k| matches!(k, MeldKind::Kong(_)))
            .count();
        let exposed = meld_kinds
            .iter()
            .filter(|&&k| k != MeldKind::Kong(KongKind::Concealed))
            .count();
        let mut base_held = 0u128;
        let hogs = match only {
            Some(OnlyReading::ThirteenOrphans | OnlyReading::HonorsKnitted { .. }) => 0,
            // Seven pairs in a row of one suit: 清一色 and 无字 are excluded, no rank fan fits
            // seven ranks, no four alike; 断幺 alone remains (2 to 8).
            Some(OnlyReading::SevenShiftedPairs) => {
                base_held |= u128::from(kinds & (TERMINALS | HONORS) == 0) << id::ALL_SIMPLES;
                0
            }
            _ => content_fans(&all, kinds, any_four, kongs, &mut base_held),
        };
        conditions.fans(&mut base_held);
        // Nine gates is one suit with no melds: only a full flush is looked at.
        let nine_gates = meld_kinds.is_empty()
            && base_held >> id::FULL_FLUSH & 1 == 1
            && is_nine_gates(&c14, win);
        Prepared {
            c14,
            melds: meld_kinds.len(),
            win,
            self_drawn: conditions.self_drawn,
            seat: conditions.seat,
            round: conditions.round,
            exposed,
            base_held,
            hogs,
            nine_gates,
            mixed_kong_5: conditions.mixed_kong_5,
            unique_wait: Cell::new(None),
            only,
        }
    }

    fn unique_wait(&self) -> bool {
        if let Some(u) = self.unique_wait.get() {
            return u;
        }
        let mut c13 = self.c14;
        c13[self.win.index()] -= 1;
        let u = wait::only_wait_is(&c13, self.melds, self.win.index());
        self.unique_wait.set(Some(u));
        u
    }
}

/// The win conditions after the corrections of [`super`] (flags that cannot be true dropped).
pub(crate) struct Conditions {
    pub(crate) self_drawn: bool,
    pub(crate) last_copy: bool,
    pub(crate) on_kong: bool,
    pub(crate) robbing_kong: bool,
    pub(crate) last_tile: bool,
    pub(crate) seat: Tile,
    pub(crate) round: Tile,
    pub(crate) kong_flower_with_last_tile_draw: bool,
    pub(crate) mixed_kong_5: bool,
}

impl Conditions {
    /// Marks the fans of the win conditions in the mask `held`.
    fn fans(&self, held: &mut u128) {
        let mut mark = |fan: u8, on: bool| *held |= u128::from(on) << fan;
        mark(id::LAST_TILE, self.last_copy);
        if self.self_drawn {
            mark(id::SELF_DRAWN, true);
            mark(id::LAST_TILE_DRAW, self.last_tile);
            // §7 item 10: both by default; the option drops 杠上开花 beside 妙手回春.
            mark(
                id::OUT_WITH_REPLACEMENT_TILE,
                self.on_kong && (!self.last_tile || self.kong_flower_with_last_tile_draw),
            );
        } else {
            mark(id::LAST_TILE_CLAIM, self.last_tile);
            mark(id::ROBBING_THE_KONG, self.robbing_kong);
        }
    }
}

/// Counts a fan once and marks it in the mask of ids counted.
#[inline(always)]
fn set(f: &mut Counts, held: &mut u128, fan: u8) {
    f[fan as usize] = 1;
    *held |= 1 << fan;
}

/// Fans judged on the tiles alone (suits, ranks, kinds): they hold for every reading, seven
/// pairs included, and are marked in the mask `counted`. `all` counts every tile of the hand,
/// a kong as four, and `held` is the mask of its kinds. Returns how many times 四归一 counts.
/// `any_four`: some kind is held four times.
fn content_fans(
    all: &[u8; KINDS],
    held: u64,
    any_four: bool,
    kongs: usize,
    counted: &mut u128,
) -> u8 {
    let mut mark = |fan: u8| *counted |= 1 << fan;
    // Kinds held four times, eight at a time: where the count xor 4 is zero (the padding
    // past the last kind is zero, so never four). Rare, so only looked for when there is one.
    let mut four = 0u64;
    if any_four {
        let mut padded = [0u8; KINDS.next_multiple_of(8)];
        padded[..KINDS].copy_from_slice(all);
        for (i, chunk) in padded.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            four |= (!nonzero_bytes(x ^ 0x0404_0404_0404_0404) & 0xff) << (8 * i);
        }
    }
    let fours = four.count_ones() as usize;
    let suits = (0..3).filter(|s| held >> (9 * s) & 0x1ff != 0).count();
    let no_honors = held & HONORS == 0;
    if no_honors {
        mark(id::NO_HONORS);
    }
    match suits {
        2 => mark(id::ONE_VOIDED_SUIT),
        1 if no_honors => mark(id::FULL_FLUSH),
        1 => mark(id::HALF_FLUSH),
        3 if held & WINDS != 0 && held & DRAGONS != 0 => mark(id::ALL_TYPES),
        _ => {}
    }
    let simples = held & (TERMINALS | HONORS) == 0;
    if simples {
        mark(id::ALL_SIMPLES);
    }
    if held & !REVERSIBLE == 0 {
        mark(id::REVERSIBLE_TILES);
    }
    if held & !GREEN == 0 {
        mark(id::ALL_GREEN);
    }
    if !simples {
        if held & !HONORS == 0 {
            mark(id::ALL_HONORS);
        } else if held & !TERMINALS == 0 {
            mark(id::ALL_TERMINALS);
        } else if held & !(TERMINALS | HONORS) == 0 {
            mark(id::ALL_TERMINALS_AND_HONORS);
        }
    }
    if no_honors {
        let mut ranks = 0u16;
        for s in 0..3 {
            ranks |= ((held >> (9 * s)) & 0x1ff) as u16;
        }
        // Bit r-1 for rank r.
        if ranks & !0b111 == 0 {
            mark(id::LOWER_TILES);
        } else if ranks & !0b1111 == 0 {
            mark(id::LOWER_FOUR);
        } else if ranks & !0b1_1100_0000 == 0 {
            mark(id::UPPER_TILES);
        } else if ranks & !0b1_1110_0000 == 0 {
            mark(id::UPPER_FOUR);
        } else if ranks & !0b0_0011_1000 == 0 {
            mark(id::MIDDLE_TILES);
        }
    }
    // 四归一: four copies used without being a kong.
    let hogs = fours.saturating_sub(kongs) as u8;
    if hogs > 0 {
        mark(id::TILE_HOG);
    }
    hogs
}

/// The 13 held tiles (`c14` less the winning tile) are exactly 1112345678999 of one suit.
fn is_nine_gates(c14: &[u8; KINDS], win: Tile) -> bool {
    const GATES: [u8; 9] = [3, 1, 1, 1, 1, 1, 1, 1, 3];
    if !win.is_suited() {
        return false;
    }
    let s = win.index() / 9 * 9;
    let mut c13 = [0u8; 9];
    c13.copy_from_slice(&c14[s..s + 9]);
    c13[win.index() - s] -= 1;
    c13 == GATES
}

/// Scores one reading into `f`: the fan counts after exclusions; returns their total (flowers
/// aside) and the ids counted.
#[inline(always)]
pub(crate) fn evaluate(p: &Prepared, d: &Decomposition, f: &mut Counts) -> Reading {
    *f = [0; SLOTS];
    let mut todo = p.base_held;
    while todo != 0 {
        f[todo.trailing_zeros() as usize] = 1;
        todo &= todo - 1;
    }
    f[id::TILE_HOG as usize] = p.hogs;
    // The ids counted: the special shapes add known ones; a set reading adds many, so its
    // counts are scanned.
    let mut held = p.base_held;
    match d.shape {
        Shape::Regular => {
            set_fans(p, d, false, f);
            held = present(f);
        }
        Shape::KnittedStraight => {
            f[id::KNITTED_STRAIGHT as usize] = 1;
            set_fans(p, d, true, f);
            held = present(f);
        }
        Shape::SevenPairs => {
            let fan = if shifted_pairs(&p.c14) {
                id::SEVEN_SHIFTED_PAIRS
            } else {
                id::SEVEN_PAIRS
            };
            set(f, &mut held, fan);
        }
        Shape::ThirteenOrphans => set(f, &mut held, id::THIRTEEN_ORPHANS),
        Shape::HonorsKnitted => {
            let honors = p.c14[27..].iter().filter(|&&x| x > 0).count();
            if honors == 7 {
                set(f, &mut held, id::GREATER_HONORS_AND_KNITTED_TILES);
            } else {
                set(f, &mut held, id::LESSER_HONORS_AND_KNITTED_TILES);
                // Five honors leave room for all nine knitted tiles.
                if honors == 5 {
                    set(f, &mut held, id::KNITTED_STRAIGHT);
                }
            }
        }
    }
    debug_assert_eq!(held, present(f));
    finish(f, held)
}

/// 连七对: seven consecutive pairs of one suit.
fn shifted_pairs(c: &[u8; KINDS]) -> bool {
    let Some(i) = c.iter().position(|&x| x > 0) else {
        return false;
    };
    let t = Tile::kind(i);
    t.is_suited() && t.rank() <= 3 && c[i..i + 7].iter().all(|&x| x == 2)
}

/// The fans of a regular reading, or of a knitted straight (`knitted`: its one set and pair).
fn set_fans(p: &Prepared, d: &Decomposition, knitted: bool, f: &mut Counts) {
    let Some(pair) = d.pair else {
        return;
    };
    let sets = d.sets();
    let win = p.win;
    // A pung completed by the winning discard counts as melded, unless the winning tile can be
    // read as completing a concealed chow instead (§1).
    let win_in_chow = sets
        .iter()
        .any(|s| !s.melded && s.kind == SetKind::Chow && s.contains(win));
    let mut chows = [0usize; 4];
    let mut nc = 0;
    let mut pungs = [0usize; 4];
    let mut np = 0;
    let (mut melded_kongs, mut concealed_kongs, mut concealed_pungs) = (0, 0, 0);
    let (mut terminal_pungs, mut wind_pungs, mut plain_wind_pungs) = (0u8, 0, 0u8);
    for s in sets {
        let t = s.tile;
        match s.kind {
            SetKind::Chow => {
                chows[nc] = t.index();
                nc += 1;
                continue;
            }
            SetKind::Kong if s.concealed => concealed_kongs += 1,
            SetKind::Kong => melded_kongs += 1,
            SetKind::Pung => {
                let by_discard = !p.self_drawn && !s.melded && t == win && !win_in_chow;
                if s.concealed && !by_discard {
                    concealed_pungs += 1;
                }
            }
        }
        pungs[np] = t.index();
        np += 1;
        if t.is_dragon() {
            f[id::DRAGON_PUNG as usize] += 1;
        } else if t.is_wind() {
            wind_pungs += 1;
            let mut own = false;
            if t == p.round {
                f[id::PREVALENT_WIND as usize] = 1;
                own = true;
            }
            if t == p.seat {
                f[id::SEAT_WIND as usize] = 1;
                own = true;
            }
            if !own {
                plain_wind_pungs += 1;
            }
        } else if t.is_terminal() {
            terminal_pungs += 1;
        }
    }
    // 幺九刻, set-scoped: wind pungs inside 三风刻 / 小四喜 / 大四喜 and the seat or prevalent
    // wind pungs score their own fans instead; dragon pungs are 箭刻.
    f[id::PUNG_OF_TERMINALS_OR_HONORS as usize] =
        terminal_pungs + if wind_pungs >= 3 { 0 } else { plain_wind_pungs };

    kong_fans(p, melded_kongs, concealed_kongs, concealed_pungs, f);
    if np == 4 {
        f[id::ALL_PUNGS as usize] = 1;
    }
    let pungs = &mut pungs[..np];
    pungs.sort_unstable();
    pung_fans(pungs, f);
    let chows = &mut chows[..nc];
    chows.sort_unstable();
    chow_fans(chows, pair, f);

    if knitted {
        if nc == 1 && pair.is_suited() {
            f[id::ALL_CHOWS as usize] = 1;
        }
    } else {
        if nc == 4 && pair.is_suited() {
            f[id::ALL_CHOWS as usize] = 1;
        }
        outside_fives_even(sets, pair, f);
        // 双箭刻 with a dragon pair is 小三元; 三风刻 with a wind pair is 小四喜.
        if f[id::TWO_DRAGON_PUNGS as usize] > 0 && pair.is_dragon() {
            f[id::TWO_DRAGON_PUNGS as usize] = 0;
            f[id::LITTLE_THREE_DRAGONS as usize] = 1;
        } else if f[id::BIG_THREE_WINDS as usize] > 0 && pair.is_wind() {
            f[id::BIG_THREE_WINDS as usize] = 0;
            f[id::LITTLE_FOUR_WINDS as usize] = 1;
        }
        if p.nine_gates {
            f[id::NINE_GATES as usize] = 1;
        }
    }

    match p.exposed {
        0 if p.self_drawn => f[id::FULLY_CONCEALED_HAND as usize] = 1,
        0 => f[id::CONCEALED_HAND as usize] = 1,
        4 if !p.self_drawn => f[id::MELDED_HAND as usize] = 1,
        _ => {}
    }

    wait_fans(p, d, pair, f);
}

/// Kong fans take the one that describes all the kongs; concealed kongs also count as
/// concealed pungs (§3.5).
fn kong_fans(p: &Prepared, melded: u8, concealed: u8, concealed_pungs: u8, f: &mut Counts) {
    let set = |f: &mut Counts, fan: u8| f[fan as usize] = 1;
    match (melded + concealed, melded) {
        (4, _) => set(f, id::FOUR_KONGS),
        (3, _) => set(f, id::THREE_KONGS),
        (2, 2) => set(f, id::TWO_MELDED_KONGS),
        (2, 0) => set(f, id::TWO_CONCEALED_KONGS),
        (2, _) if p.mixed_kong_5 => set(f, id::MIXED_KONG),
        (2, _) => {
            set(f, id::MELDED_KONG);
            set(f, id::CONCEALED_KONG);
        }
        (1, 1) => set(f, id::MELDED_KONG),
        (1, _) => set(f, id::CONCEALED_KONG),
        _ => {}
    }
    match concealed_pungs + concealed {
        2 => set(f, id::TWO_CONCEALED_PUNGS),
        3 => set(f, id::THREE_CONCEALED_PUNGS),
        4 => set(f, id::FOUR_CONCEALED_PUNGS),
        _ => {}
    }
}

fn suit_of(i: usize) -> usize {
    i / 9
}

fn rank_of(i: usize) -> usize {
    i % 9 + 1
}

/// The fan of three pungs (sorted kinds), if any.
fn pungs3(a: usize, b: usize, c: usize) -> u8 {
    if c < 27 {
        let (sa, sb, sc) = (suit_of(a), suit_of(b), suit_of(c));
        if sa != sb && sa != sc && sb != sc {
            let mut r = [rank_of(a), rank_of(b), rank_of(c)];
            r.sort_unstable();
            if r[1] == r[0] + 1 && r[2] == r[1] + 1 {
                return id::MIXED_SHIFTED_PUNGS;
            }
            if r[0] == r[2] {
                return id::TRIPLE_PUNG;
            }
        } else if sa == sb && sb == sc && b == a + 1 && c == b + 1 {
            return id::PURE_SHIFTED_PUNGS;
        }
    } else if a >= 27 && c < 31 {
        return id::BIG_THREE_WINDS;
    } else if a >= 31 {
        return id::BIG_THREE_DRAGONS;
    }
    0
}

/// The fan of two pungs, if any.
fn pungs2(a: usize, b: usize) -> u8 {
    if a < 27 && b < 27 {
        if rank_of(a) == rank_of(b) {
            return id::DOUBLE_PUNG;
        }
    } else if a >= 31 && b >= 31 {
        return id::TWO_DRAGON_PUNGS;
    }
    0
}

/// The three-of-four index choices, each with the one left out, in the order they are tried.
const TRIPLES: [([usize; 3], usize); 4] = [
    ([0, 1, 2], 3),
    ([0, 1, 3], 2),
    ([0, 2, 3], 1),
    ([1, 2, 3], 0),
];

/// Pung fans (sorted kinds): a four-pung pattern uses all four; else a three-pung pattern, with
/// the fourth pung combining once; else every pair.
fn pung_fans(p: &[usize], f: &mut Counts) {
    if p.len() == 4 {
        if suit_of(p[0]) == suit_of(p[3])
            && p[3] < 27
            && p[1] == p[0] + 1
            && p[2] == p[1] + 1
            && p[3] == p[2] + 1
        {
            f[id::FOUR_PURE_SHIFTED_PUNGS as usize] = 1;
            return;
        }
        if p[0] >= 27 && p[3] < 31 {
            f[id::BIG_FOUR_WINDS as usize] = 1;
            return;
        }
        for (t, free) in TRIPLES {
            let fan = pungs3(p[t[0]], p[t[1]], p[t[2]]);
            if fan != 0 {
                f[fan as usize] = 1;
                if let Some(extra) = t.iter().map(|&i| pungs2(p[i], p[free])).find(|&x| x != 0) {
                    f[extra as usize] += 1;
                }
                return;
            }
        }
    } else if p.len() == 3 {
        let fan = pungs3(p[0], p[1], p[2]);
        if fan != 0 {
            f[fan as usize] = 1;
            return;
        }
    }
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            let fan = pungs2(p[i], p[j]);
            if fan != 0 {
                f[fan as usize] += 1;
            }
        }
    }
}

/// The 1-point fan of two chows (lowest kinds), if any.
fn chows2(a: usize, b: usize) -> u8 {
    if suit_of(a) != suit_of(b) {
        if rank_of(a) == rank_of(b) {
            return id::MIXED_DOUBLE_CHOW;
        }
        return 0;
    }
    let (lo, hi) = (a.min(b), a.max(b));
    if hi == lo + 3 {
        id::SHORT_STRAIGHT
    } else if rank_of(lo) == 1 && rank_of(hi) == 7 {
        id::TWO_TERMINAL_CHOWS
    } else if lo == hi {
        id::PURE_DOUBLE_CHOW
    } else {
        0
    }
}

/// The fan of three chows (sorted lowest kinds), if any.
fn chows3(a: usize, b: usize, c: usize) -> u8 {
    let (sa, sb, sc) = (suit_of(a), suit_of(b), suit_of(c));
    if sa != sb && sa != sc && sb != sc {
        let mut r = [rank_of(a), rank_of(b), rank_of(c)];
        r.sort_unstable();
        if r[1] == r[0] + 1 && r[2] == r[1] + 1 {
            return id::MIXED_SHIFTED_CHOWS;
        }
        if r[0] == r[2] {
            return id::MIXED_TRIPLE_CHOW;
        }
        if r == [1, 4, 7] {
            return id::MIXED_STRAIGHT;
        }
    } else if sa == sb && sb == sc {
        if b == a + 3 && c == b + 3 {
            return id::PURE_STRAIGHT;
        }
        if (b == a + 1 && c == b + 1) || (b == a + 2 && c == b + 2) {
            return id::PURE_SHIFTED_CHOWS;
        }
        if a == c {
            return id::PURE_TRIPLE_CHOW;
        }
    }
    0
}

/// Chow fans (sorted lowest kinds) with the pair (for the terminal-chow patterns).
fn chow_fans(c: &[usize], pair: Tile, f: &mut Counts) {
    match c.len() {
        4 => {
            if terminal_chows(c, pair, f) {
                return;
            }
            if suit_of(c[0]) == suit_of(c[3]) {
                let steps = [c[1] - c[0], c[2] - c[1], c[3] - c[2]];
                if steps == [1, 1, 1] || steps == [2, 2, 2] {
                    f[id::FOUR_PURE_SHIFTED_CHOWS as usize] = 1;
                    return;
                }
                if steps == [0, 0, 0] {
                    f[id::QUADRUPLE_CHOW as usize] = 1;
                    return;
                }
            }
            for (t, free) in TRIPLES {
                let fan = chows3(c[t[0]], c[t[1]], c[t[2]]);
                if fan != 0 {
                    f[fan as usize] = 1;
                    // The fourth chow pairs once with one of the three (套算一次).
                    let rel = t.map(|i| chows2(c[i], c[free]));
                    let extra = [
                        id::PURE_DOUBLE_CHOW,
                        id::MIXED_DOUBLE_CHOW,
                        id::SHORT_STRAIGHT,
                        id::TWO_TERMINAL_CHOWS,
                    ]
                    .into_iter()
                    .find(|x| rel.contains(x));
                    if let Some(x) = extra {
                        f[x as usize] = 1;
                    }
                    return;
                }
            }
            let rel = [
                chows2(c[0], c[1]),
                chows2(c[0], c[2]),
                chows2(c[0], c[3]),
                chows2(c[1], c[2]),
                chows2(c[1], c[3]),
                chows2(c[2], c[3]),
            ];
            // Each chow related to another links in once: at most chows − groups edges.
            let isolated = [[0, 1, 2], [0, 3, 4], [1, 3, 5], [2, 4, 5]]
                .iter()
                .filter(|edges| edges.iter().all(|&e| rel[e] == 0))
                .count();
            if isolated < 3 {
                limit_pairs(&rel, 3 - isolated, f);
            }
        }
        3 => {
            let fan = chows3(c[0], c[1], c[2]);
            if fan != 0 {
                f[fan as usize] = 1;
                return;
            }
            let rel = [chows2(c[0], c[1]), chows2(c[0], c[2]), chows2(c[1], c[2])];
            limit_pairs(&rel, 2, f);
        }
        2 => {
            let fan = chows2(c[0], c[1]);
            if fan != 0 {
                f[fan as usize] += 1;
            }
        }
        _ => {}
    }
}

/// Counts the 1-point chow relations, at most `max` of them: when there are too many, repeats
/// go first (不得相同), from 老少副 back to 一般高, then the distinct ones in the same order.
fn limit_pairs(rel: &[u8], max: usize, f: &mut Counts) {
    let mut table = [0usize; 4];
    let mut count = 0;
    for &r in rel {
        if r != 0 {
            table[(r - id::PURE_DOUBLE_CHOW) as usize] += 1;
            count += 1;
        }
    }
    for keep in [1, 0] {
        for slot in (0..4).rev() {
            while table[slot] > keep && count > max {
                table[slot] -= 1;
                count -= 1;
            }
        }
    }
    for (slot, &n) in table.iter().enumerate() {
        f[id::PURE_DOUBLE_CHOW as usize + slot] = n as u8;
    }
}

/// 三色双龙会 and 一色双龙会: 123 and 789 chows around a pair of 5s.
fn terminal_chows(c: &[usize], pair: Tile, f: &mut Counts) -> bool {
    if !pair.is_suited() || pair.rank() != 5 {
        return false;
    }
    let ps = suit_of(pair.index());
    let mut low = [0u8; 3];
    let mut high = [0u8; 3];
    for &x in c {
        match rank_of(x) {
            1 => low[suit_of(x)] += 1,
            7 => high[suit_of(x)] += 1,
            _ => return false,
        }
    }
    if low[ps] == 2 && high[ps] == 2 {
        f[id::PURE_TERMINAL_CHOWS as usize] = 1;
        return true;
    }
    let (o1, o2) = ((ps + 1) % 3, (ps + 2) % 3);
    if low[ps] == 0
        && high[ps] == 0
        && low[o1] == 1
        && high[o1] == 1
        && low[o2] == 1
        && high[o2] == 1
    {
        f[id::THREE_SUITED_TERMINAL_CHOWS as usize] = 1;
        return true;
    }
    false
}

/// 全带幺, 全带五, 全双刻: a property of every set and the pair.
fn outside_fives_even(sets: &[Set], pair: Tile, f: &mut Counts) {
    let mut outside = pair.is_terminal_or_honor();
    let mut fives = pair.is_suited() && pair.rank() == 5;
    let mut even = pair.is_suited() && pair.rank().is_multiple_of(2);
    for s in sets {
        let t = s.tile;
        if s.kind == SetKind::Chow {
            let r = t.rank();
            outside &= r == 1 || r == 7;
            fives &= (3..=5).contains(&r);
            even = false;
        } else {
            outside &= t.is_terminal_or_honor();
            fives &= t.is_suited() && t.rank() == 5;
            even &= t.is_suited() && t.rank().is_multiple_of(2);
        }
    }
    if outside {
        f[id::OUTSIDE_HAND as usize] = 1;
    } else if fives {
        f[id::ALL_FIVES as usize] = 1;
    } else if even {
        f[id::ALL_EVEN_PUNGS as usize] = 1;
    }
}

/// 边张 / 坎张 / 单钓将: only with a single winning kind, and only if this reading can put the
/// winning tile there; at most one of them (edge before closed before single).
fn wait_fans(p: &Prepared, d: &Decomposition, pair: Tile, f: &mut Counts) {
    let win = p.win;
    let (mut edge, mut closed) = (false, false);
    for s in d.sets() {
        if s.melded || s.kind != SetKind::Chow || !s.contains(win) {
            continue;
        }
        let (low, r) = (s.tile.rank(), win.rank());
        if (low == 1 && r == 3) || (low == 7 && r == 7) {
            edge = true;
        } else if r == low + 1 {
            closed = true;
        }
    }
    let single = pair == win;
    if !(edge || closed || single) || !p.unique_wait() {
        return;
    }
    let fan = if edge {
        id::EDGE_WAIT
    } else if closed {
        id::CLOSED_WAIT
    } else {
        id::SINGLE_WAIT
    };
    f[fan as usize] = 1;
}

/// The fans of `held` that others present remove, applied in id order (a fan removed by
/// another removes nothing itself).
#[inline(always)]
fn excluded(held: u128) -> u128 {
    let mut removed = 0u128;
    let mut todo = held & EXCLUDERS;
    while todo != 0 {
        let fan = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        if removed >> fan & 1 == 0 {
            removed |= EXCLUDES[fan];
        }
    }
    removed & held
}

/// Applies the exclusions, 九莲宝灯's one 幺九刻, and Chicken Hand; returns the total without
/// flowers. Only the fans present (`held`, the ids of nonzero counts) are visited.
#[inline(always)]
pub(crate) fn finish(f: &mut Counts, mut held: u128) -> Reading {
    let mut removed = excluded(held);
    held &= !removed;
    while removed != 0 {
        let i = removed.trailing_zeros() as usize;
        f[i] = 0;
        removed &= removed - 1;
    }
    let gates = id::NINE_GATES as usize;
    let pung = id::PUNG_OF_TERMINALS_OR_HONORS as usize;
    if f[gates] > 0 {
        f[pung] = f[pung].saturating_sub(1);
        if f[pung] == 0 {
            held &= !(1 << pung);
        }
    }
    let mut total = 0u32;
    let mut todo = held;
    while todo != 0 {
        let i = todo.trailing_zeros() as usize;
        total += f[i] as u32 * POINTS[i] as u32;
        todo &= todo - 1;
    }
    if total == 0 {
        f[id::CHICKEN_HAND as usize] = 1;
        held |= 1 << id::CHICKEN_HAND;
        total = POINTS[id::CHICKEN_HAND as usize] as u32;
    }
    Reading { total, held }
}

/// Scores a concealed hand whose one reading is the special `reading`, from masks alone:
/// every fan of such a hand counts once but 四归一 (seven pairs may hold four alike twice),
/// which counts `p.hogs` times, so no counts array is written and cleared. The shape's own
/// fan is always worth points, so Chicken Hand never applies.
#[inline(always)]
pub(crate) fn evaluate_only(p: &Prepared, reading: OnlyReading) -> Reading {
    let shape = match reading {
        OnlyReading::ThirteenOrphans => 1u128 << id::THIRTEEN_ORPHANS,
        OnlyReading::HonorsKnitted { honors: 7 } => 1 << id::GREATER_HONORS_AND_KNITTED_TILES,
        // Five honors leave room for all nine knitted tiles.
        OnlyReading::HonorsKnitted { honors: 5 } => {
            1 << id::LESSER_HONORS_AND_KNITTED_TILES | 1 << id::KNITTED_STRAIGHT
        }
        OnlyReading::HonorsKnitted { .. } => 1 << id::LESSER_HONORS_AND_KNITTED_TILES,
        OnlyReading::SevenShiftedPairs => 1 << id::SEVEN_SHIFTED_PAIRS,
        OnlyReading::SevenPairs => 1 << id::SEVEN_PAIRS,
    };
    let mut held = p.base_held | shape;
    held &= !excluded(held);
    let mut total = 0u32;
    let mut todo = held;
    while todo != 0 {
        let i = todo.trailing_zeros() as usize;
        total += POINTS[i] as u32;
        todo &= todo - 1;
    }
    if held >> id::TILE_HOG & 1 == 1 {
        total += (p.hogs as u32).saturating_sub(1) * POINTS[id::TILE_HOG as usize] as u32;
    }
    Reading { total, held }
}

/// One reading's total (flowers aside) and the ids counted, as a mask; the counts themselves
/// are left in the array the reading was scored into.
#[derive(Clone, Copy)]
pub(crate) struct Reading {
    pub(crate) total: u32,
    pub(crate) held: u128,
}
