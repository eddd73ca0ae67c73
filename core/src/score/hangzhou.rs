//! Hangzhou scoring (杭州麻将, regional-rules §1.6–1.7): pure functions from a described win
//! to its named elements, the hand multiplier M, and the payments per seat.
//!
//! Two tables: the house doubling table (every element doubles, optional cap on M) and the
//! MIL 2025 fan sum (fans added, capped, M = 2^fans). The dealer multiplier N = 2^level
//! applies only to money moving between the dealer and a non-dealer.
//!
//! A win is read both as the standard shape and as seven pairs (wilds fill any gap); the
//! better reading counts. 爆头 is judged on the hand before the winning draw: it holds a wild
//! whose removal leaves four sets (or six pairs), so every draw would have won.

// Index arithmetic over per-kind arrays reads clearer as ranges.
#![allow(clippy::needless_range_loop)]

use serde::{Deserialize, Serialize};

use crate::hand::{Meld, MeldKind, shapes_regular_distance};
use crate::seat::Seat;
use crate::tile::{KINDS, Tile, TileCounts};

/// The Hangzhou hand tables (regional-rules §1.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HangzhouTable {
    /// House / app doubling: every element doubles the hand (§1.7 a).
    Doubling,
    /// MIL 2025: fans are added and capped, the hand is worth 2^fans (§1.7 b).
    FanSum,
}

/// Hangzhou scoring options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HangzhouScoring {
    pub table: HangzhouTable,
    /// Cap: the largest multiplier (doubling) or fan count (fan sum); 0 for none.
    pub cap: u32,
    /// 无财神: a win with no wild in hand scores extra (×2 or +1 fan).
    pub no_wild_bonus: bool,
    /// 清七对: seven pairs with no wild score an extra ×2 (doubling only).
    pub clean_seven_pairs_bonus: bool,
    /// Every kong of an unbroken run doubles (双杠开 …); otherwise 杠开 counts once.
    pub kong_chain_stacks: bool,
    /// 財飘 and kongs of the same unbroken run multiply together (杠飘, 飘杠).
    pub chain_mixes_kong_and_piao: bool,
    /// 4个白板 (fixed 白 only): holding all four wilds, or having discarded the rest of them
    /// as 财飘, doubles the win; a hand holding all four is then not a 爆头 (EGB's server).
    #[serde(default, skip_serializing_if = "is_default")]
    pub four_whites_bonus: bool,
}

fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// A win as the Hangzhou scorer needs it.
#[derive(Clone, Copy, Debug)]
pub struct HzWin<'a> {
    /// Every concealed tile, wilds and the winning tile included.
    pub concealed: &'a TileCounts,
    pub melds: &'a [Meld],
    pub win_tile: Tile,
    /// The wild kind (财神), if any.
    pub wild: Option<Tile>,
    /// 翻财神: 白 plays as this face.
    pub white_as: Option<Tile>,
    pub self_drawn: bool,
    /// Consecutive wild discards (财飘) right before this win.
    pub piao: u8,
    /// Kongs in the unbroken run (no ordinary discard between them) that led to this win.
    pub kongs: u8,
    /// The winning tile is a kong's replacement (杠开).
    pub on_kong: bool,
    /// A 十风 win: `Some(true)` when a 白 was among the ten honors.
    pub ten_honors: Option<bool>,
    /// Wilds this seat discarded earlier in the hand (for 4个白板).
    pub wilds_discarded: u8,
}

/// One element of a Hangzhou score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Element {
    /// Stable id, e.g. `bao_tou`.
    pub key: &'static str,
    pub zh: &'static str,
    pub en: &'static str,
    /// Doubling: the factor per occurrence (2); fan sum: the fans per occurrence.
    pub value: u32,
    pub count: u32,
}

/// The reading of the winning hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HzShape {
    Standard,
    SevenPairs,
    TenHonors,
}

/// A scored Hangzhou win.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HzScore {
    pub shape: HzShape,
    pub baotou: bool,
    /// Wilds in the winning hand.
    pub wilds: u8,
    pub elements: Vec<Element>,
    /// Fan sum before the cap (fan-sum table; 0 for doubling).
    pub fans: u32,
    /// The hand multiplier M after the cap.
    pub multiplier: u32,
    pub capped: bool,
}

/// Why a described win is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HzError {
    #[error("the tiles are not a complete hand (standard or seven pairs, with wilds)")]
    NotComplete,
    #[error("wrong hand size: {0} tiles counting melds as three, expected 14")]
    Size(usize),
    #[error("a wild cannot be part of a meld")]
    WildInMeld,
    #[error("a discard win cannot have 爆头, 财飘 or a kong run")]
    NotSelfDrawn,
    #[error("the winning tile {0} is a flower: flowers are never part of a hand")]
    FlowerWinTile(Tile),
    #[error("{0} is a flower: a flower cannot be the wild or the face 白 plays")]
    FlowerWild(Tile),
    #[error("piao {0} is more than the {MAX_WILDS} wilds in play")]
    TooManyPiao(u8),
    #[error("wilds_discarded {0} is more than the {MAX_WILDS} wilds in play")]
    TooManyWildsDiscarded(u8),
    #[error("kongs {0} is more than the {MAX_KONGS} kongs a hand can make")]
    TooManyKongs(u8),
    #[error("dealer level {0} is above the highest level, {MAX_DEALER_LEVEL}")]
    DealerLevel(u8),
    #[error("{0} does not exist (seats are 0–3)")]
    NoSuchSeat(Seat),
    #[error("the liable {0} is the winner: a winner cannot pay itself")]
    LiableWinner(Seat),
    #[error("the winner cannot be the discarder")]
    DiscarderWinner,
    #[error("a payment of this win does not fit in 32 bits")]
    PaymentOverflow,
}

/// Wild tiles in play at most (the four 白; a flipped wild leaves three).
pub const MAX_WILDS: u8 = 4;
/// Kongs one hand can make.
pub const MAX_KONGS: u8 = 4;
/// The highest dealer level (老庄) payments accept: N = 2^8. Tables stop at 3.
pub const MAX_DEALER_LEVEL: u8 = 8;

/// Splits a hand into its real tiles and its number of wilds (白 counted as its face when
/// the wild was flipped).
pub fn split_wilds(c: &TileCounts, wild: Option<Tile>, white_as: Option<Tile>) -> (TileCounts, u8) {
    let mut real = *c;
    let mut wilds = 0;
    if let Some(w) = wild {
        wilds = real.0[w.index()];
        real.0[w.index()] = 0;
    }
    if let Some(face) = white_as {
        let whites = real.0[Tile::WHITE.index()];
        real.0[Tile::WHITE.index()] = 0;
        real.0[face.index()] += whites;
    }
    (real, wilds)
}

fn singles(real: &TileCounts) -> usize {
    real.0.iter().filter(|&&c| c % 2 == 1).count()
}

/// Complete as the standard shape with wilds.
pub fn standard_complete(real: &TileCounts, wilds: u8, melds: usize) -> bool {
    melds <= 4
        && real.total() + wilds as usize + 3 * melds == 14
        && shapes_regular_distance(&real.0, 4 - melds) <= wilds
}

/// Complete as seven pairs with wilds (no melds; a concealed quad is two pairs).
pub fn seven_pairs_complete(real: &TileCounts, wilds: u8, melds: usize) -> bool {
    melds == 0 && real.total() + wilds as usize == 14 && singles(real) <= wilds as usize
}

/// Can `c` (real tiles) plus `wilds` be split into exactly `sets` sets, no pair?
pub fn sets_only(c: &mut [u8; KINDS], wilds: u8, sets: usize) -> bool {
    let Some(i) = c.iter().position(|&x| x > 0) else {
        return wilds as usize == 3 * sets;
    };
    if sets == 0 {
        return false;
    }
    // A pung of tile i, short tiles filled by wilds.
    let have = c[i].min(3);
    let need = 3 - have;
    if need <= wilds {
        c[i] -= have;
        let ok = sets_only(c, wilds - need, sets - 1);
        c[i] += have;
        if ok {
            return true;
        }
    }
    // A chow through tile i (the lowest real tile: the tiles below it are wilds).
    let t = Tile::kind(i);
    if t.is_suited() {
        let rank = t.rank() as i8;
        for start in [rank - 2, rank - 1, rank] {
            if !(1..=7).contains(&start) {
                continue;
            }
            let base = i as i8 - (rank - start);
            let mut used = [false; 3];
            let mut need = 0u8;
            for d in 0..3 {
                let k = (base + d) as usize;
                if c[k] > 0 && k >= i {
                    used[d as usize] = true;
                } else {
                    need += 1;
                }
            }
            if need > wilds {
                continue;
            }
            for d in 0..3 {
                if used[d] {
                    c[(base as usize) + d] -= 1;
                }
            }
            let ok = sets_only(c, wilds - need, sets - 1);
            for d in 0..3 {
                if used[d] {
                    c[(base as usize) + d] += 1;
                }
            }
            if ok {
                return true;
            }
        }
    }
    false
}

/// Which 爆头 waits the hand before a draw has: `before` is the 13-tile-equivalent hand
/// (wilds included). Returns (standard, seven pairs).
pub fn baotou_state(
    before: &TileCounts,
    melds: usize,
    wild: Option<Tile>,
    white_as: Option<Tile>,
) -> (bool, bool) {
    let (real, wilds) = split_wilds(before, wild, white_as);
    if wilds == 0 || real.total() + wilds as usize + 3 * melds != 13 {
        return (false, false);
    }
    let rest = wilds - 1;
    let mut c = real.0;
    let standard = melds <= 4 && sets_only(&mut c, rest, 4 - melds);
    let pairs = melds == 0 && singles(&real) <= rest as usize;
    (standard, pairs)
}

/// Is the hand before a draw in 爆头 state (any draw wins, paired with a wild)?
pub fn is_baotou_state(
    before: &TileCounts,
    melds: usize,
    wild: Option<Tile>,
    white_as: Option<Tile>,
) -> bool {
    let (a, b) = baotou_state(before, melds, wild, white_as);
    a || b
}

const PING_HU: (&str, &str, &str) = ("ping_hu", "平胡", "Plain win");
const QI_DUI: (&str, &str, &str) = ("qi_dui", "七对", "Seven pairs");
const HAO_HUA: (&str, &str, &str) = ("hao_hua", "豪华七对", "Luxury seven pairs (concealed quad)");
const BAO_TOU: (&str, &str, &str) = ("bao_tou", "爆头", "Wild pair wait (any draw wins)");
const CAI_PIAO: (&str, &str, &str) = ("cai_piao", "财飘", "Wild discarded from a 爆头 wait");
const GANG_KAI: (&str, &str, &str) = ("gang_kai", "杠开", "Win on a kong replacement");
const GANG_PIAO: (&str, &str, &str) = ("gang_piao", "杠飘", "Kong in a 财飘 chain");
const WU_CAI: (&str, &str, &str) = ("wu_cai", "无财神", "No wild in hand");
const QING_QI_DUI: (&str, &str, &str) = ("qing_qi_dui", "清七对", "Seven pairs without wilds");
const SHI_FENG: (&str, &str, &str) = ("shi_feng", "十风", "Ten honor discards");
const SI_BAI: (&str, &str, &str) = ("si_bai", "4个白板", "All four 白 held or discarded as 财飘");

/// Every element as `(key, zh, en)`; an element's stable id is its position here plus one.
/// Records and histories store that id, so this list is append-only.
pub const ELEMENTS: [(&str, &str, &str); 11] = [
    PING_HU,
    QI_DUI,
    HAO_HUA,
    BAO_TOU,
    CAI_PIAO,
    GANG_KAI,
    GANG_PIAO,
    WU_CAI,
    QING_QI_DUI,
    SHI_FENG,
    SI_BAI,
];

/// The stable id (1-based position in [`ELEMENTS`]) of the element keyed `key`; 0 for a key
/// that is not there (never for an element this scorer makes).
pub fn element_id(key: &str) -> u8 {
    ELEMENTS
        .iter()
        .position(|e| e.0 == key)
        .map_or(0, |i| i as u8 + 1)
}

fn el(e: (&'static str, &'static str, &'static str), value: u32, count: u32) -> Element {
    Element {
        key: e.0,
        zh: e.1,
        en: e.2,
        value,
        count,
    }
}

/// Concealed quads of a seven-pairs reading: four real copies of a kind, or the four wild 白.
fn quads(real: &TileCounts, wilds: u8) -> u32 {
    real.0.iter().filter(|&&c| c == 4).count() as u32 + u32::from(wilds == 4)
}

/// Scores a win. Errors when the tiles are no win.
pub fn score(w: &HzWin, opts: &HangzhouScoring) -> Result<HzScore, HzError> {
    if w.win_tile.is_flower() {
        return Err(HzError::FlowerWinTile(w.win_tile));
    }
    if let Some(t) = [w.wild, w.white_as]
        .into_iter()
        .flatten()
        .find(|t| t.is_flower())
    {
        return Err(HzError::FlowerWild(t));
    }
    if w.piao > MAX_WILDS {
        return Err(HzError::TooManyPiao(w.piao));
    }
    if w.wilds_discarded > MAX_WILDS {
        return Err(HzError::TooManyWildsDiscarded(w.wilds_discarded));
    }
    if w.kongs > MAX_KONGS {
        return Err(HzError::TooManyKongs(w.kongs));
    }
    // A meld may show the wild's face only where a 白 plays it (翻财神).
    if w.wild.is_some_and(|t| {
        w.melds.iter().any(|m| {
            let faces = m.tiles().iter().filter(|&&x| x == t).count();
            faces > 0 && (w.white_as != Some(t) || faces > m.whites as usize)
        })
    }) {
        return Err(HzError::WildInMeld);
    }
    let size = w.concealed.total() + 3 * w.melds.len();
    if size != 14 && w.ten_honors.is_none() {
        return Err(HzError::Size(size));
    }
    if !w.self_drawn && (w.piao > 0 || w.kongs > 0 || w.on_kong) {
        return Err(HzError::NotSelfDrawn);
    }
    let (real, wilds) = split_wilds(w.concealed, w.wild, w.white_as);
    let mut best: Option<HzScore> = None;
    let mut consider = |s: HzScore| {
        if best.as_ref().is_none_or(|b| s.multiplier > b.multiplier) {
            best = Some(s);
        }
    };
    if let Some(white) = w.ten_honors {
        consider(build(
            w,
            opts,
            HzShape::TenHonors,
            false,
            0,
            wilds,
            Some(white),
        ));
    }
    let melds = w.melds.len();
    if size == 14 {
        // 4个白板: a hand holding all four 白 scores that instead of 爆头.
        let four_held = four_whites(w, opts) && wilds == 4;
        let (bt_std, bt_pairs) = if w.self_drawn && !four_held {
            let mut before = *w.concealed;
            before.remove(w.win_tile);
            baotou_state(&before, melds, w.wild, w.white_as)
        } else {
            (false, false)
        };
        if standard_complete(&real, wilds, melds) {
            consider(build(w, opts, HzShape::Standard, bt_std, 0, wilds, None));
        }
        if seven_pairs_complete(&real, wilds, melds) {
            let q = quads(&real, wilds);
            consider(build(
                w,
                opts,
                HzShape::SevenPairs,
                bt_pairs,
                q,
                wilds,
                None,
            ));
        }
    }
    best.ok_or(HzError::NotComplete)
}

/// Does the 4个白板 bonus apply to this win (fixed 白 wilds, all four held or discarded)?
fn four_whites(w: &HzWin, opts: &HangzhouScoring) -> bool {
    if !opts.four_whites_bonus || w.wild != Some(Tile::WHITE) || w.white_as.is_some() {
        return false;
    }
    u32::from(w.concealed.get(Tile::WHITE)) + u32::from(w.wilds_discarded) >= 4
}

fn build(
    w: &HzWin,
    opts: &HangzhouScoring,
    shape: HzShape,
    baotou: bool,
    quads: u32,
    wilds: u8,
    ten_white: Option<bool>,
) -> HzScore {
    let piao = if baotou { w.piao as u32 } else { 0 };
    // Kongs count when the win is on a replacement, or (chains) when a 财飘 follows them.
    let mut kongs = if w.on_kong || (baotou && piao > 0 && opts.chain_mixes_kong_and_piao) {
        w.kongs.max(u8::from(w.on_kong)) as u32
    } else {
        0
    };
    if !opts.kong_chain_stacks {
        kongs = kongs.min(1);
    }
    let no_wild = wilds == 0 && opts.no_wild_bonus && shape != HzShape::TenHonors;
    let mut elements = Vec::new();
    let mut fans = 0u32;
    let multiplier;
    let mut capped = false;
    match opts.table {
        HangzhouTable::Doubling => {
            let mut exp = 0u32;
            match shape {
                HzShape::Standard => elements.push(el(PING_HU, 1, 1)),
                HzShape::SevenPairs => {
                    elements.push(el(QI_DUI, 2, 1));
                    exp += 1;
                    if quads > 0 {
                        elements.push(el(HAO_HUA, 2, quads));
                        exp += quads;
                    }
                    if wilds == 0 && opts.clean_seven_pairs_bonus {
                        elements.push(el(QING_QI_DUI, 2, 1));
                        exp += 1;
                    }
                }
                HzShape::TenHonors => {
                    let f = if ten_white == Some(true) { 4 } else { 3 };
                    elements.push(el(SHI_FENG, 1 << f, 1));
                    exp += f;
                }
            }
            if baotou {
                elements.push(el(BAO_TOU, 2, 1));
                exp += 1;
            }
            if piao > 0 {
                elements.push(el(CAI_PIAO, 2, piao));
                exp += piao;
            }
            if kongs > 0 {
                let key = if w.on_kong { GANG_KAI } else { GANG_PIAO };
                elements.push(el(key, 2, kongs));
                exp += kongs;
            }
            if no_wild {
                elements.push(el(WU_CAI, 2, 1));
                exp += 1;
            }
            if four_whites(w, opts) {
                elements.push(el(SI_BAI, 2, 1));
                exp += 1;
            }
            let m = 1u64 << exp.min(62);
            multiplier = if opts.cap > 0 && m > opts.cap as u64 {
                capped = true;
                opts.cap
            } else {
                m.min(u32::MAX as u64) as u32
            };
        }
        HangzhouTable::FanSum => {
            match shape {
                HzShape::Standard => elements.push(el(PING_HU, 0, 1)),
                HzShape::SevenPairs if quads > 0 => elements.push(el(HAO_HUA, 4, 1)),
                HzShape::SevenPairs => elements.push(el(QI_DUI, 2, 1)),
                HzShape::TenHonors => {
                    let f = if ten_white == Some(true) { 4 } else { 3 };
                    elements.push(el(SHI_FENG, f, 1));
                }
            }
            if baotou {
                elements.push(el(BAO_TOU, 1, 1));
            }
            if piao > 0 {
                elements.push(el(CAI_PIAO, 1, piao));
            }
            if w.on_kong && kongs > 0 {
                elements.push(el(GANG_KAI, 1, kongs));
            }
            if no_wild {
                elements.push(el(WU_CAI, 1, 1));
            }
            fans = elements.iter().map(|e| e.value * e.count).sum();
            let f = if opts.cap > 0 && fans > opts.cap {
                capped = true;
                opts.cap
            } else {
                fans
            };
            multiplier = 1u32 << f.min(31);
        }
    }
    HzScore {
        shape,
        baotou,
        wilds,
        elements,
        fans,
        multiplier,
        capped,
    }
}

/// Who pays alone under the three-takings rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Liable {
    /// 承包: the winner took three sets from this seat: it pays the whole win.
    Contract(Seat),
    /// 反承包: this seat took three sets from the winner: it pays twice the whole win.
    Reverse(Seat),
}

impl Liable {
    /// The seat that pays.
    pub const fn seat(self) -> Seat {
        match self {
            Liable::Contract(s) | Liable::Reverse(s) => s,
        }
    }
}

/// Sets `to` took from `from` (chows; pungs and exposed kongs too with `count_pungs`).
pub fn takings(melds_of_to: &[Meld], from: Seat, count_pungs: bool) -> usize {
    melds_of_to
        .iter()
        .filter(|m| m.from == Some(from) && m.claimed.is_some())
        .filter(|m| match m.kind {
            MeldKind::Chow => true,
            MeldKind::Pung | MeldKind::Kong(_) => count_pungs,
        })
        .count()
}

/// The liability for `winner`'s win given every seat's melds, if any (承包 before 反承包).
pub fn liability(melds: [&[Meld]; 4], winner: Seat, count_pungs: bool) -> Option<Liable> {
    let others = (1..4).map(|d| winner.after(d));
    for p in others.clone() {
        if takings(melds[winner.index()], p, count_pungs) >= 3 {
            return Some(Liable::Contract(p));
        }
    }
    others
        .into_iter()
        .find(|&q| takings(melds[q.index()], winner, count_pungs) >= 3)
        .map(Liable::Reverse)
}

/// The dealer multiplier N = 2^level (level 0: no dealer multiplier), the level taken as at
/// most [`MAX_DEALER_LEVEL`]; [`try_dealer_multiplier`] refuses a higher one instead.
pub fn dealer_multiplier(level: u8) -> i64 {
    1 << level.min(MAX_DEALER_LEVEL)
}

/// The dealer multiplier N = 2^level, or an error for a level above [`MAX_DEALER_LEVEL`].
pub fn try_dealer_multiplier(level: u8) -> Result<i64, HzError> {
    if level > MAX_DEALER_LEVEL {
        return Err(HzError::DealerLevel(level));
    }
    Ok(1 << level)
}

/// Score changes per seat for a win worth `m` (base 1). Self-draw: each other seat pays
/// M (× N between the dealer and a non-dealer). A discard win: the discarder pays the whole
/// self-draw total. Liability overrides both. Sums to zero.
///
/// Never fails: for input [`try_payments`] would refuse, a seat above 3 gives no payments,
/// a liable winner is ignored, the level is taken as at most [`MAX_DEALER_LEVEL`], and
/// payments too big for 32 bits are clamped — payers first, so the sum stays zero.
pub fn payments(
    m: u32,
    winner: Seat,
    dealer: Seat,
    level: u8,
    discarder: Option<Seat>,
    liable: Option<Liable>,
) -> [i32; 4] {
    let seats = [
        Some(winner),
        Some(dealer),
        discarder,
        liable.map(Liable::seat),
    ];
    if seats.iter().flatten().any(|s| s.0 > 3) || discarder == Some(winner) {
        return [0; 4];
    }
    let liable = liable.filter(|l| l.seat() != winner);
    let deltas = settle(
        m,
        winner,
        dealer,
        dealer_multiplier(level),
        discarder,
        liable,
    );
    // Each of at most three payers within a third of i32::MAX: the winner's sum fits.
    let mut out = [0i32; 4];
    for i in 0..4 {
        if i != winner.index() {
            out[i] = deltas[i].clamp(-(i32::MAX as i64) / 3, 0) as i32;
        }
    }
    out[winner.index()] = -out.iter().sum::<i32>();
    out
}

/// [`payments`], checked: every seat must exist, the discarder and the liable seat must not
/// be the winner, the level at most [`MAX_DEALER_LEVEL`], and every payment must fit in
/// 32 bits.
pub fn try_payments(
    m: u32,
    winner: Seat,
    dealer: Seat,
    level: u8,
    discarder: Option<Seat>,
    liable: Option<Liable>,
) -> Result<[i32; 4], HzError> {
    let seats = [
        Some(winner),
        Some(dealer),
        discarder,
        liable.map(Liable::seat),
    ];
    if let Some(&bad) = seats.iter().flatten().find(|s| s.0 > 3) {
        return Err(HzError::NoSuchSeat(bad));
    }
    if discarder == Some(winner) {
        return Err(HzError::DiscarderWinner);
    }
    if liable.is_some_and(|l| l.seat() == winner) {
        return Err(HzError::LiableWinner(winner));
    }
    let n = try_dealer_multiplier(level)?;
    let deltas = settle(m, winner, dealer, n, discarder, liable);
    let mut out = [0i32; 4];
    for i in 0..4 {
        out[i] = i32::try_from(deltas[i]).map_err(|_| HzError::PaymentOverflow)?;
    }
    Ok(out)
}

/// The payments in i64 for valid seats (no liable winner) and N ≤ 2^MAX_DEALER_LEVEL: at most
/// 2 × 3 × 2^32 × 2^8 in size, far inside i64. Sums to zero.
fn settle(
    m: u32,
    winner: Seat,
    dealer: Seat,
    n: i64,
    discarder: Option<Seat>,
    liable: Option<Liable>,
) -> [i64; 4] {
    let mut shares = [0i64; 4];
    for d in 1..4 {
        let p = winner.after(d);
        let dealer_money = p == dealer || winner == dealer;
        shares[p.index()] = i64::from(m) * if dealer_money { n } else { 1 };
    }
    let total: i64 = shares.iter().sum();
    let mut deltas = [0i64; 4];
    match (liable, discarder) {
        (Some(Liable::Contract(p)), _) => deltas[p.index()] = -total,
        (Some(Liable::Reverse(p)), _) => deltas[p.index()] = -2 * total,
        (None, Some(d)) => deltas[d.index()] = -total,
        (None, None) => {
            for i in 0..4 {
                deltas[i] = -shares[i];
            }
        }
    }
    deltas[winner.index()] = -deltas.iter().sum::<i64>();
    deltas
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand::KongKind;
    use crate::rules::RuleSet;

    fn house() -> HangzhouScoring {
        *RuleSet::hangzhou().hangzhou_scoring().unwrap()
    }

    fn mil() -> HangzhouScoring {
        *RuleSet::hangzhou_mil().hangzhou_scoring().unwrap()
    }

    fn c(s: &str) -> TileCounts {
        TileCounts::parse(s).unwrap()
    }

    fn t(s: &str) -> Tile {
        s.parse().unwrap()
    }

    struct W {
        hand: TileCounts,
        melds: Vec<Meld>,
        win: Tile,
        self_drawn: bool,
        piao: u8,
        kongs: u8,
        on_kong: bool,
        wilds_discarded: u8,
    }

    impl W {
        fn drawn(before: &str, win: &str) -> W {
            let mut hand = c(before);
            hand.add(t(win));
            W {
                hand,
                melds: Vec::new(),
                win: t(win),
                self_drawn: true,
                piao: 0,
                kongs: 0,
                on_kong: false,
                wilds_discarded: 0,
            }
        }
        fn score(&self, o: &HangzhouScoring) -> HzScore {
            score(
                &HzWin {
                    concealed: &self.hand,
                    melds: &self.melds,
                    win_tile: self.win,
                    wild: Some(Tile::WHITE),
                    white_as: None,
                    self_drawn: self.self_drawn,
                    piao: self.piao,
                    kongs: self.kongs,
                    on_kong: self.on_kong,
                    ten_honors: None,
                    wilds_discarded: self.wilds_discarded,
                },
                o,
            )
            .unwrap()
        }
    }

    const DEALER: Seat = Seat(0);

    /// A self-drawn win under 翻财神: `face` is wild and 白 plays it.
    fn flipped<'a>(hand: &'a TileCounts, melds: &'a [Meld], win: &str, face: &str) -> HzWin<'a> {
        HzWin {
            concealed: hand,
            melds,
            win_tile: t(win),
            wild: Some(t(face)),
            white_as: Some(t(face)),
            self_drawn: true,
            piao: 0,
            kongs: 0,
            on_kong: false,
            ten_honors: None,
            wilds_discarded: 0,
        }
    }

    /// 翻财神: a meld may show the wild's face only where a 白 lies in it.
    #[test]
    fn flipped_face_in_a_meld_only_as_white() {
        let mut chow = Meld::chow(t("3m"), Some(t("4m")), Some(Seat(0))).unwrap();
        let mut hand = c("123p456p789s1z");
        hand.add(t("1z"));
        let win = |melds: &[Meld]| score(&flipped(&hand, melds, "1z", "5m"), &house());
        assert_eq!(win(&[chow]), Err(HzError::WildInMeld));
        chow.whites = 1;
        assert_eq!(win(&[chow]).unwrap().shape, HzShape::Standard);
    }

    /// 4个白板 (EGB): holding all four 白 the hand scores ×2 for them instead of 爆头; holding
    /// fewer, the 白 discarded as 财飘 count towards the four, on top of 爆头 and 财飘.
    #[test]
    fn four_whites_bonus() {
        let egb = HangzhouScoring {
            four_whites_bonus: true,
            ..house()
        };
        // 123m 456m 789p + four 白, draws 1s: a 爆头 in the plain table.
        let w = W::drawn("123m456m789p5555z", "1s");
        let plain = w.score(&house());
        assert_eq!((plain.baotou, plain.multiplier), (true, 2));
        let bonus = w.score(&egb);
        assert_eq!(keys(&bonus), vec![("ping_hu", 1), ("si_bai", 1)]);
        assert_eq!((bonus.baotou, bonus.multiplier), (false, 2));
        // One 白 held, three discarded (双财飘 + one earlier): 爆头 ×2, 财飘 ×4, 4个白板 ×2.
        let mut w = W::drawn("123m456m789p234s5z", "7p");
        w.piao = 2;
        w.wilds_discarded = 3;
        assert_eq!(w.score(&house()).multiplier, 8);
        let s = w.score(&egb);
        assert_eq!(s.multiplier, 16);
        assert!(keys(&s).contains(&("si_bai", 1)));
        // Three in all: no bonus.
        w.wilds_discarded = 2;
        assert_eq!(w.score(&egb).multiplier, 8);
        // Not with a flipped wild: 白 is then a plain tile.
        let mut hand = c("123m456m789p5555z");
        hand.add(t("1s"));
        let s = score(&flipped(&hand, &[], "1s", "9s"), &egb);
        assert!(s.is_err() || !keys(&s.unwrap()).contains(&("si_bai", 1)));
    }

    fn keys(s: &HzScore) -> Vec<(&'static str, u32)> {
        s.elements.iter().map(|e| (e.key, e.count)).collect()
    }

    #[test]
    fn h1_plain_hard_hand() {
        let w = W::drawn("123m456m789p234s5s", "5s");
        let h = w.score(&house());
        assert_eq!((h.multiplier, h.baotou), (1, false));
        assert_eq!(keys(&h), [("ping_hu", 1)]);
        // Non-dealer seat 1 self-draws, dealer at L1: dealer 2, others 1 and 1.
        assert_eq!(payments(1, Seat(1), DEALER, 1, None, None), [-2, 4, -1, -1]);
        let m = w.score(&mil());
        assert_eq!(keys(&m), [("ping_hu", 1), ("wu_cai", 1)]);
        assert_eq!((m.fans, m.multiplier), (1, 2));
        assert_eq!(payments(2, Seat(1), DEALER, 1, None, None), [-4, 8, -2, -2]);
        // 庄三放炮: dealer at L3 discards the 5s, the discarder pays 8 + 1 + 1.
        let mut d = W::drawn("123m456m789p234s5s", "5s");
        d.self_drawn = false;
        assert_eq!(d.score(&house()).multiplier, 1);
        assert_eq!(
            payments(1, Seat(1), DEALER, 3, Some(DEALER), None),
            [-10, 10, 0, 0]
        );
    }

    #[test]
    fn h2_dealer_baotou() {
        let w = W::drawn("123m456m789p234s5z", "9s");
        let h = w.score(&house());
        assert!(h.baotou);
        assert_eq!(keys(&h), [("ping_hu", 1), ("bao_tou", 1)]);
        assert_eq!(h.multiplier, 2);
        assert_eq!(payments(2, DEALER, DEALER, 2, None, None), [24, -8, -8, -8]);
        let m = w.score(&mil());
        assert_eq!((m.fans, m.multiplier), (1, 2));
        assert_eq!(
            payments(m.multiplier, DEALER, DEALER, 2, None, None),
            [24, -8, -8, -8]
        );
        // Drawing another 白 also wins as 爆头.
        assert!(W::drawn("123m456m789p234s5z", "5z").score(&house()).baotou);
    }

    #[test]
    fn h3_cai_piao() {
        let mut w = W::drawn("123m456m789p234s5z", "7p");
        w.piao = 1;
        let h = w.score(&house());
        assert_eq!(keys(&h), [("ping_hu", 1), ("bao_tou", 1), ("cai_piao", 1)]);
        assert_eq!(h.multiplier, 4);
        assert_eq!(
            payments(4, Seat(2), DEALER, 1, None, None),
            [-8, -4, 16, -4]
        );
        let m = w.score(&mil());
        assert_eq!((m.fans, m.multiplier), (2, 4));
        // 双飘 and 三飘 keep doubling.
        w.piao = 3;
        assert_eq!(w.score(&house()).multiplier, 16);
        // A 財飘 count without 爆头 is not scored.
        let mut plain = W::drawn("123m456m789p234s5s", "5s");
        plain.piao = 1;
        assert_eq!(plain.score(&house()).multiplier, 1);
    }

    #[test]
    fn h4_gang_bao_and_gang_piao() {
        let kong = Meld::kong(t("9p"), KongKind::Concealed, None).unwrap();
        // 杠暴: kong 9999p, the replacement is a 白.
        let mut w = W::drawn("123m456m234s5z", "5z");
        w.melds = vec![kong];
        w.kongs = 1;
        w.on_kong = true;
        let h = w.score(&house());
        assert_eq!(keys(&h), [("ping_hu", 1), ("bao_tou", 1), ("gang_kai", 1)]);
        assert_eq!(h.multiplier, 4);
        assert_eq!(
            payments(4, Seat(1), DEALER, 1, None, None),
            [-8, 16, -4, -4]
        );
        let m = w.score(&mil());
        assert_eq!((m.fans, m.multiplier), (2, 4));
        // 杠飘: the 白 is discarded, the next ordinary draw 5m wins.
        let mut w = W::drawn("123m456m234s5z", "5m");
        w.melds = vec![kong];
        w.kongs = 1;
        w.piao = 1;
        let h = w.score(&house());
        assert_eq!(
            keys(&h),
            [
                ("ping_hu", 1),
                ("bao_tou", 1),
                ("cai_piao", 1),
                ("gang_piao", 1)
            ]
        );
        assert_eq!(h.multiplier, 8);
        assert_eq!(
            payments(8, Seat(1), DEALER, 1, None, None),
            [-16, 32, -8, -8]
        );
        let m = w.score(&mil());
        assert_eq!((m.fans, m.multiplier), (2, 4));
        // 飘杠: 财飘 first, then a kong, the replacement wins: also ×8.
        let mut w = W::drawn("123m456m234s5z", "7s");
        w.melds = vec![kong];
        w.kongs = 1;
        w.piao = 1;
        w.on_kong = true;
        assert_eq!(w.score(&house()).multiplier, 8);
        // Chained kongs stack in the house table, not in MIL.
        let mut w = W::drawn("123m456m234s5z", "5z");
        w.melds = vec![kong];
        w.kongs = 2;
        w.on_kong = true;
        assert_eq!(w.score(&house()).multiplier, 8);
        assert_eq!(w.score(&mil()).multiplier, 4);
    }

    #[test]
    fn h5_luxury_seven_pairs_baotou_and_liability() {
        let w = W::drawn("1111m22p33p66s77s5z", "9s");
        let h = w.score(&house());
        assert_eq!(h.shape, HzShape::SevenPairs);
        assert_eq!(keys(&h), [("qi_dui", 1), ("hao_hua", 1), ("bao_tou", 1)]);
        assert_eq!(h.multiplier, 8);
        assert_eq!(
            payments(8, DEALER, DEALER, 3, None, None),
            [192, -64, -64, -64]
        );
        let m = w.score(&mil());
        assert_eq!(keys(&m), [("hao_hua", 1), ("bao_tou", 1)]);
        assert_eq!((m.fans, m.multiplier, m.capped), (5, 16, true));
        assert_eq!(
            payments(16, DEALER, DEALER, 3, None, None),
            [384, -128, -128, -128]
        );
        // A non-dealer (seat 1) with the same M = 8: normal payments 64 + 8 + 8 = 80.
        assert_eq!(
            payments(8, Seat(1), DEALER, 3, None, None),
            [-64, 80, -8, -8]
        );
        // 承包: he chi'd three times from the dealer, who pays the 80 alone.
        let chow = |low: &str| Meld::chow(t(low), Some(t(low)), Some(DEALER)).unwrap();
        let winner_melds = vec![chow("1m"), chow("4m"), chow("7m")];
        let none: Vec<Meld> = Vec::new();
        let l = liability([&none, &winner_melds, &none, &none], Seat(1), false);
        assert_eq!(l, Some(Liable::Contract(DEALER)));
        assert_eq!(payments(8, Seat(1), DEALER, 3, None, l), [-80, 80, 0, 0]);
        // 反承包: the dealer took three sets from the winner: he pays 2 × 80.
        let taken = |low: &str| Meld::chow(t(low), Some(t(low)), Some(Seat(1))).unwrap();
        let dealer_melds = vec![taken("1p"), taken("4p"), taken("7p")];
        let l = liability([&dealer_melds, &none, &none, &none], Seat(1), false);
        assert_eq!(l, Some(Liable::Reverse(DEALER)));
        assert_eq!(payments(8, Seat(1), DEALER, 3, None, l), [-160, 160, 0, 0]);
        // Pungs count only when the room says so (碰算摊).
        let pung = |x: &str| Meld::pung(t(x), Some(t(x)), Some(Seat(3))).unwrap();
        let pungs = vec![pung("1z"), pung("2z"), pung("3z")];
        assert_eq!(
            liability([&pungs, &none, &none, &none], DEALER, false),
            None
        );
        assert_eq!(
            liability([&pungs, &none, &none, &none], DEALER, true),
            Some(Liable::Contract(Seat(3)))
        );
    }

    #[test]
    fn luxury_grades_and_the_wild_quad() {
        // 双豪华: two concealed quads.
        let w = W::drawn("1111m2222p66s77s5z", "9s");
        assert_eq!(w.score(&house()).multiplier, 2 * 4 * 2);
        // 三豪华 without 爆头 (the pair is natural).
        let mut hand = c("1111m2222p6666s9s");
        hand.add(t("9s"));
        let w = W {
            hand,
            melds: Vec::new(),
            win: t("9s"),
            self_drawn: true,
            piao: 0,
            kongs: 0,
            on_kong: false,
            wilds_discarded: 0,
        };
        let h = w.score(&house());
        assert_eq!((h.multiplier, h.baotou), (16, false));
    }

    #[test]
    fn baotou_state_needs_four_sets_and_a_wild() {
        assert!(is_baotou_state(
            &c("123m456m789p234s5z"),
            0,
            Some(Tile::WHITE),
            None
        ));
        assert!(!is_baotou_state(
            &c("123m456m789p235s5z"),
            0,
            Some(Tile::WHITE),
            None
        ));
        // Two wilds: one fills a set, one waits.
        assert!(is_baotou_state(
            &c("123m456m789p24s55z"),
            0,
            Some(Tile::WHITE),
            None
        ));
        // Six pairs and a wild.
        assert!(is_baotou_state(
            &c("1122m3344p5566s5z"),
            0,
            Some(Tile::WHITE),
            None
        ));
        // A natural pair wait is not 爆头.
        assert!(!is_baotou_state(
            &c("123m456m789p234s1z"),
            0,
            Some(Tile::WHITE),
            None
        ));
        // A discard win is never 爆头.
        let mut w = W::drawn("123m456m789p234s5z", "9s");
        w.self_drawn = false;
        let h = w.score(&house());
        assert!(!h.baotou && h.multiplier == 1);
    }

    #[test]
    fn flipped_wild_white_plays_the_face() {
        // 5m is wild; 白 plays as 5m: 4m 白 6m is a chow.
        let mut hand = c("4m6m5z123p456p789s1z");
        hand.add(t("5m"));
        let h = score(&flipped(&hand, &[], "5m", "5m"), &house()).unwrap();
        assert_eq!((h.wilds, h.shape), (1, HzShape::Standard));
    }

    #[test]
    fn payments_always_sum_to_zero() {
        for m in [1, 2, 8, 16] {
            for level in 0..=3 {
                for w in Seat::ALL {
                    for d in [None, Some(w.next())] {
                        for l in [
                            None,
                            Some(Liable::Contract(w.next())),
                            Some(Liable::Reverse(w.next())),
                        ] {
                            let p = payments(m, w, DEALER, level, d, l);
                            assert_eq!(p.iter().sum::<i32>(), 0);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn out_of_range_counts_and_flowers_are_errors() {
        let hand = c("123m456m789p234s5z7p");
        let base = HzWin {
            concealed: &hand,
            melds: &[],
            win_tile: t("7p"),
            wild: Some(Tile::WHITE),
            white_as: None,
            self_drawn: true,
            piao: 0,
            kongs: 0,
            on_kong: false,
            ten_honors: None,
            wilds_discarded: 0,
        };
        let err = |w: HzWin| score(&w, &house()).unwrap_err();
        assert_eq!(
            err(HzWin { piao: 255, ..base }).to_string(),
            "piao 255 is more than the 4 wilds in play"
        );
        assert_eq!(err(HzWin { kongs: 5, ..base }), HzError::TooManyKongs(5));
        assert_eq!(
            err(HzWin {
                wilds_discarded: 255,
                ..base
            }),
            HzError::TooManyWildsDiscarded(255)
        );
        assert_eq!(
            err(HzWin {
                win_tile: t("1f"),
                ..base
            }),
            HzError::FlowerWinTile(t("1f"))
        );
        assert_eq!(
            err(HzWin {
                wild: Some(t("2f")),
                ..base
            }),
            HzError::FlowerWild(t("2f"))
        );
        assert_eq!(
            err(HzWin {
                white_as: Some(t("3f")),
                ..base
            }),
            HzError::FlowerWild(t("3f"))
        );
        // At the bounds the multiplier stays small: 爆头 × 财飘 4 × 杠飘 4 with four whites.
        let mut egb = house();
        egb.four_whites_bonus = true;
        let top = score(
            &HzWin {
                piao: 4,
                kongs: 4,
                wilds_discarded: 4,
                ..base
            },
            &egb,
        );
        assert!(top.is_ok_and(|s| s.multiplier <= 1 << 10));
    }

    #[test]
    fn checked_payments_refuse_what_cannot_be_paid() {
        let w = Seat(1);
        assert_eq!(
            try_payments(4, w, DEALER, 1, None, None),
            Ok(payments(4, w, DEALER, 1, None, None))
        );
        assert_eq!(
            try_payments(4, w, DEALER, 1, None, Some(Liable::Contract(w))),
            Err(HzError::LiableWinner(w))
        );
        assert_eq!(
            try_payments(4, w, DEALER, 1, None, Some(Liable::Reverse(w)))
                .unwrap_err()
                .to_string(),
            "the liable seat 1 is the winner: a winner cannot pay itself"
        );
        assert_eq!(
            try_payments(4, w, DEALER, 1, None, Some(Liable::Contract(Seat(9)))),
            Err(HzError::NoSuchSeat(Seat(9)))
        );
        assert_eq!(
            try_payments(4, w, Seat(4), 1, None, None),
            Err(HzError::NoSuchSeat(Seat(4)))
        );
        assert_eq!(
            try_payments(4, w, DEALER, 1, Some(w), None),
            Err(HzError::DiscarderWinner)
        );
        assert_eq!(
            try_payments(4, w, DEALER, 255, None, None)
                .unwrap_err()
                .to_string(),
            "dealer level 255 is above the highest level, 8"
        );
        assert_eq!(try_dealer_multiplier(8), Ok(256));
        assert_eq!(try_dealer_multiplier(9), Err(HzError::DealerLevel(9)));
        assert_eq!(dealer_multiplier(255), 256);
        // The biggest multiplier at the top level overflows i32: an error, not a wrap.
        assert_eq!(
            try_payments(u32::MAX, w, DEALER, 8, None, None),
            Err(HzError::PaymentOverflow)
        );
    }

    #[test]
    fn unchecked_payments_sum_to_zero_even_on_nonsense() {
        for m in [0, 1, 1 << 20, u32::MAX] {
            for level in [0, 3, 8, 9, 20, 255] {
                for w in Seat::ALL {
                    for d in [None, Some(w), Some(w.next()), Some(Seat(7))] {
                        for l in [
                            None,
                            Some(Liable::Contract(w)),
                            Some(Liable::Reverse(w)),
                            Some(Liable::Reverse(w.next())),
                            Some(Liable::Contract(Seat(200))),
                        ] {
                            let p = payments(m, w, Seat(level % 4), level, d, l);
                            assert_eq!(p.iter().map(|&x| i64::from(x)).sum::<i64>(), 0);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn ten_honors_and_cap() {
        let hand = c("123m456m789p");
        let w = HzWin {
            concealed: &hand,
            melds: &[],
            win_tile: t("1m"),
            wild: Some(Tile::WHITE),
            white_as: None,
            self_drawn: true,
            piao: 0,
            kongs: 0,
            on_kong: false,
            ten_honors: Some(true),
            wilds_discarded: 0,
        };
        let s = score(&w, &mil()).unwrap();
        assert_eq!((s.shape, s.fans, s.multiplier), (HzShape::TenHonors, 4, 16));
        let s = score(
            &HzWin {
                ten_honors: Some(false),
                ..w
            },
            &mil(),
        )
        .unwrap();
        assert_eq!(s.multiplier, 8);
        let capped = HangzhouScoring { cap: 4, ..house() };
        let w = W::drawn("1111m2222p66s77s5z", "9s");
        let s = w.score(&capped);
        assert_eq!((s.multiplier, s.capped), (4, true));
    }
}
