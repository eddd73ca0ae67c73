//! Chinese Official (国标, MCR) scoring: the fan (番) breakdown of a winning hand.
//!
//! The rules are `docs/rules/mcr-fans.tsv` (the 81 fans) and `docs/rules/mcr-scoring.md` (how
//! they combine). A hand is read in every way its tiles allow — every regular decomposition and
//! every special shape — and the reading with the highest total counts (就高不就低). Within a
//! reading each fan's `excludes` list is applied as written (never closed transitively), some
//! of them only to the fan's own sets (§3.2); the four 1-point chow fans are limited by the
//! account-once principle (§3.3); the wait fans need a single winning kind (§3.4).
//!
//! Where practice differs from the 1998 text (§7), [`McrOptions`] holds the choice; its
//! default is the 1998 reading. Scoring allocates nothing: counts are a fixed array by fan id.
//!
//! Flags that cannot be true of the hand are dropped rather than rejected, as the reference
//! calculators do: 和绝张 when the winner holds another copy (and it is implied when three
//! copies lie in the winner's own melds), 抢杠和 when the winner holds a copy of the robbed
//! tile, 杠上开花 without a kong. Flags that contradict each other are errors.

mod eval;
mod table;
mod wait;

/// Builds the tables of complete arrangements now (see [`crate::prepare`]).
pub(crate) fn build_tables() {
    wait::prepare();
}

use std::ops::Deref;

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};

pub use table::{FANS, Fan, FanId, MIXED_KONG, fan_by_id, id, set_scoped};

use crate::hand::{Decomposition, Meld, MeldKind, SetKind, Shape, for_each_decomposition};
use crate::seat::{Seat, Wind};
use crate::tile::{KINDS, Tile, TileCounts};
use eval::{Conditions, Counts, Prepared, Reading};
use table::SLOTS;

/// Base payment (底分) each loser pays the winner.
pub const BASE_PAYMENT: i32 = 8;
/// At most eight flower tiles exist.
pub const MAX_FLOWERS: u8 = 8;

/// Where practice differs from the 1998 rules text (mcr-scoring.md §7). The default is the
/// 1998 reading; a `RuleSet` embeds these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McrOptions {
    /// Score exactly one melded plus one concealed kong as the 5-point 明暗杠 of later drafts
    /// and pymahjonggb, instead of 明杠 1 + 暗杠 2 (§7 item 6).
    pub mixed_kong_5: bool,
    /// Score 杠上开花 together with 妙手回春 when the last wall tile is a kong's replacement
    /// (§7 item 10 recommends both); `false` keeps only 妙手回春.
    pub kong_flower_with_last_tile_draw: bool,
    /// The minimum a win must reach without flowers (起和分).
    pub min_points: u32,
}

impl Default for McrOptions {
    fn default() -> McrOptions {
        McrOptions {
            mixed_kong_5: false,
            kong_flower_with_last_tile_draw: true,
            min_points: 8,
        }
    }
}

/// A winning hand and how it was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WinContext<'a> {
    /// The concealed tiles WITHOUT the winning tile, in any order (13 minus 3 per meld).
    pub concealed: &'a [Tile],
    /// The declared melds (concealed kongs included).
    pub melds: &'a [Meld],
    /// The winning tile.
    pub win_tile: Tile,
    /// Drawn by the winner (自摸) rather than taken from a discard (点和).
    pub self_drawn: bool,
    /// 和绝张: the other three copies of the winning tile are already visible.
    pub last_copy: bool,
    /// 杠上开花: self-drawn as the replacement tile of a kong.
    pub on_kong: bool,
    /// 抢杠和: won on the tile another player added to an exposed pung.
    pub robbing_kong: bool,
    /// The last tile of the wall (妙手回春 self-drawn, 海底捞月 on the discard after it).
    pub last_tile: bool,
    /// The winner's seat wind (门风).
    pub seat_wind: Wind,
    /// The prevalent wind (圈风).
    pub round_wind: Wind,
    /// Flower tiles the winner has laid out (0–8).
    pub flowers: u8,
}

impl<'a> WinContext<'a> {
    /// A discard win with no special conditions, seat and round East, no flowers.
    pub fn new(concealed: &'a [Tile], melds: &'a [Meld], win_tile: Tile) -> WinContext<'a> {
        WinContext {
            concealed,
            melds,
            win_tile,
            self_drawn: false,
            last_copy: false,
            on_kong: false,
            robbing_kong: false,
            last_tile: false,
            seat_wind: Wind::East,
            round_wind: Wind::East,
            flowers: 0,
        }
    }
}

/// Why a hand could not be scored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    #[error("not a complete hand: the tiles with the winning tile form no winning shape")]
    NotComplete,
    #[error(
        "wrong hand size: before the winning tile a hand holds 13 tiles counting each meld as 3, this one has {concealed} concealed + {melds} melds"
    )]
    WrongSize { concealed: usize, melds: usize },
    #[error("more than four melds ({0})")]
    TooManyMelds(usize),
    #[error("more than four copies of {0} between the hand, its melds and the winning tile")]
    FifthCopy(Tile),
    #[error("the winning tile {0} is a flower: flowers are never part of a hand")]
    FlowerWinTile(Tile),
    #[error("flower {0} among the concealed tiles: flowers are laid out, not held")]
    FlowerInHand(Tile),
    #[error("bad meld: {0}")]
    BadMeld(String),
    #[error("{0} flowers: there are only eight flower tiles")]
    TooManyFlowers(u8),
    #[error("robbing a kong (抢杠和) wins on another player's tile, so it cannot be self-drawn")]
    RobbingSelfDrawn,
    #[error("winning on a kong's replacement tile (杠上开花) is a self-drawn win")]
    OnKongNotSelfDrawn,
    #[error("the reading given is not one of this hand's decompositions")]
    ForeignReading,
}

/// A fan and how many times it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FanCount {
    pub id: FanId,
    pub count: u8,
}

impl FanCount {
    /// The fan's table entry.
    pub fn fan(&self) -> &'static Fan {
        fan_by_id(self.id).unwrap_or(&MIXED_KONG)
    }

    /// Points of this entry: the fan's points times the count.
    pub fn points(&self) -> u32 {
        self.fan().points as u32 * self.count as u32
    }
}

/// `{"id", "name", "en", "points", "count"}`, `points` being per occurrence.
impl Serialize for FanCount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.fan();
        let mut st = s.serialize_struct("FanCount", 5)?;
        st.serialize_field("id", &f.id)?;
        st.serialize_field("name", f.zh)?;
        st.serialize_field("en", f.en)?;
        st.serialize_field("points", &f.points)?;
        st.serialize_field("count", &self.count)?;
        st.end()
    }
}

/// At most this many fans make one breakdown. Fans that exclude each other or share one
/// pattern never meet, so the count is bounded by the groups of fans one reading can hold:
/// tile content 8 (无字; one of 缺一门 / 清一色 / 混一色 / 五门齐; 断幺; 推不倒; 绿一色; one of
/// 字一色 / 清幺九 / 混幺九; one of the five rank fans; 四归一), win conditions 4, flowers 1,
/// and of a regular reading's sets 20 (箭刻, 圈风刻, 门风刻, 幺九刻; two kong fans; one
/// concealed-pung fan; 碰碰和; two pung patterns; four chow patterns; 平和; one of 全带幺 / 全带五 /
/// 全双刻; 九莲宝灯; 组合龙; one of 不求人 / 门前清 / 全求人; one wait fan) — 33 in all (a special
/// shape adds at most two fans to content, conditions and flowers). A list this short is
/// copied with a few moves rather than a call.
const FAN_CAPACITY: usize = 40;

/// The fans of a breakdown in id order, held in a fixed array (no allocation).
#[derive(Clone, Copy)]
pub struct FanList {
    items: [FanCount; FAN_CAPACITY],
    len: u8,
}

impl FanList {
    const EMPTY: FanList = FanList {
        items: [FanCount { id: 0, count: 0 }; FAN_CAPACITY],
        len: 0,
    };

    /// Sets the list to the ids of `held`, each with its count. Filled in place: the list is
    /// written two bytes an entry, and copying it whole right after would stall on those
    /// writes.
    #[inline(always)]
    fn fill(&mut self, held: u128, count: impl Fn(usize) -> u8) {
        let mut held = held;
        let mut len = 0;
        while held != 0 {
            let i = held.trailing_zeros() as usize;
            held &= held - 1;
            debug_assert!(len < FAN_CAPACITY, "more fans than FAN_CAPACITY");
            // Never reached past the bound above; checked rather than indexed, so that a
            // mistake in it could not panic.
            if let Some(slot) = self.items.get_mut(len) {
                *slot = FanCount {
                    id: i as FanId,
                    count: count(i),
                };
                len += 1;
            }
        }
        self.len = len as u8;
    }

    /// How many times the fan `id` counts (0 when absent).
    pub fn count(&self, id: FanId) -> u8 {
        self.iter().find(|f| f.id == id).map_or(0, |f| f.count)
    }
}

impl Deref for FanList {
    type Target = [FanCount];
    fn deref(&self) -> &[FanCount] {
        &self.items[..self.len as usize]
    }
}

impl PartialEq for FanList {
    fn eq(&self, other: &FanList) -> bool {
        **self == **other
    }
}

impl Eq for FanList {}

impl std::fmt::Debug for FanList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for FanList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for f in self.iter() {
            seq.serialize_element(f)?;
        }
        seq.end()
    }
}

/// The score of a winning hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Breakdown {
    /// The fans of the best reading in id order, flowers (花牌, #81) included.
    pub fans: FanList,
    /// The hand value: the fans' points, flowers included (基本分).
    pub total: u32,
    /// Flower points (one per flower).
    pub flowers: u8,
    /// The total without flowers reaches the minimum: the win may be declared.
    pub valid: bool,
}

impl Breakdown {
    const EMPTY: Breakdown = Breakdown {
        fans: FanList::EMPTY,
        total: 0,
        flowers: 0,
        valid: false,
    };

    /// Sets the breakdown to a reading whose fans count `count(id)` times, flowers added.
    #[inline(always)]
    fn set(&mut self, r: Reading, flowers: u8, opts: &McrOptions, count: impl Fn(usize) -> u8) {
        let flower = id::FLOWER_TILES as usize;
        let held = r.held | u128::from(flowers > 0) << flower;
        self.fans
            .fill(held, |i| if i == flower { flowers } else { count(i) });
        self.total = r.total + flowers as u32;
        self.flowers = flowers;
        self.valid = r.total >= opts.min_points;
    }

    /// Sets the breakdown to a reading whose counts are `counts`.
    #[inline(always)]
    fn fill(&mut self, counts: &Counts, r: Reading, flowers: u8, opts: &McrOptions) {
        self.set(r, flowers, opts, |i| counts[i]);
    }

    /// Sets the breakdown to a reading whose fans each count once but 四归一 (`hogs` times):
    /// no counts array to read.
    #[inline(always)]
    fn fill_once(&mut self, r: Reading, hogs: u8, flowers: u8, opts: &McrOptions) {
        let hog = id::TILE_HOG as usize;
        self.set(r, flowers, opts, |i| if i == hog { hogs } else { 1 });
    }

    /// How many times the fan `id` counts (0 when absent).
    pub fn count(&self, id: FanId) -> u8 {
        self.fans.count(id)
    }

    /// The total without flower points: what the minimum is checked against.
    pub fn points_without_flowers(&self) -> u32 {
        self.total - self.flowers as u32
    }
}

/// Checks the hand and gathers what every reading shares. With `shortcut`, a concealed hand
/// whose one reading is special is recognised on the way (see [`Prepared`]'s `only`).
#[inline(always)]
fn prepare(ctx: &WinContext, opts: &McrOptions, shortcut: bool) -> Result<Prepared, ScoreError> {
    if ctx.flowers > MAX_FLOWERS {
        return Err(ScoreError::TooManyFlowers(ctx.flowers));
    }
    let win = ctx.win_tile;
    if win.is_flower() {
        return Err(ScoreError::FlowerWinTile(win));
    }

    // Counted while checked for flowers; wrapping, as the size is checked only below. The
    // winning tile first: the counts are then complete before they are first read as a whole
    // (a byte written just before a wide read of the array stalls it).
    let w = win.index();
    // The kinds held are gathered as a mask on the way (cheaper than from the counts after).
    let mut c14 = [0u8; KINDS];
    c14[w] = 1;
    let mut kinds = 1u64 << w;
    for &t in ctx.concealed {
        if t.is_flower() {
            return Err(ScoreError::FlowerInHand(t));
        }
        c14[t.index()] = c14[t.index()].wrapping_add(1);
        kinds |= 1 << t.index();
    }
    if ctx.melds.len() > 4 {
        return Err(ScoreError::TooManyMelds(ctx.melds.len()));
    }
    if ctx.concealed.len() + 3 * ctx.melds.len() != 13 {
        return Err(ScoreError::WrongSize {
            concealed: ctx.concealed.len(),
            melds: ctx.melds.len(),
        });
    }
    let mut meld_kinds = [MeldKind::Chow; 4];
    let mut in_melds = [0u8; KINDS];
    for (i, m) in ctx.melds.iter().enumerate() {
        let t = m.tile;
        let ok = match m.kind {
            MeldKind::Chow => t.is_suited() && t.rank() <= 7,
            _ => !t.is_flower(),
        };
        if !ok {
            return Err(ScoreError::BadMeld(format!("{:?} of {t}", m.kind)));
        }
        meld_kinds[i] = m.kind;
        let mut c = TileCounts(in_melds);
        m.add_to(&mut c);
        in_melds = c.0;
        let run: u64 = if m.kind == MeldKind::Chow { 0b111 } else { 1 };
        kinds |= run << t.index();
    }
    // Held before the win.
    let held = c14[w] > 1;
    let mut all = c14;
    if !ctx.melds.is_empty() {
        for (a, &m) in all.iter_mut().zip(&in_melds) {
            *a += m;
        }
    }
    // One pass for the maximum (it vectorises); the culprit is looked for only when over.
    let most = all.iter().fold(0, |m, &x| m.max(x));
    if most > 4 {
        let i = all.iter().position(|&x| x > 4).unwrap_or(0);
        return Err(ScoreError::FifthCopy(Tile::kind(i)));
    }
    if ctx.robbing_kong && ctx.self_drawn {
        return Err(ScoreError::RobbingSelfDrawn);
    }
    if ctx.on_kong && !ctx.self_drawn {
        return Err(ScoreError::OnKongNotSelfDrawn);
    }
    let robbing = ctx.robbing_kong && !held && in_melds[w] == 0;
    let conditions = Conditions {
        self_drawn: ctx.self_drawn,
        // The robbed tile is always the fourth copy, yet 抢杠和 absorbs 和绝张 (§5).
        last_copy: !robbing && !held && (ctx.last_copy || in_melds[w] == 3),
        on_kong: ctx.on_kong
            && meld_kinds[..ctx.melds.len()]
                .iter()
                .any(|k| matches!(k, MeldKind::Kong(_))),
        robbing_kong: robbing,
        last_tile: ctx.last_tile,
        seat: ctx.seat_wind.tile(),
        round: ctx.round_wind.tile(),
        kong_flower_with_last_tile_draw: opts.kong_flower_with_last_tile_draw,
        mixed_kong_5: opts.mixed_kong_5,
    };
    let only = if shortcut && ctx.melds.is_empty() {
        crate::hand::only_special_reading(&c14, kinds)
    } else {
        None
    };
    Ok(Prepared::new(
        c14,
        (all, kinds, most == 4),
        &meld_kinds[..ctx.melds.len()],
        win,
        &conditions,
        only,
    ))
}

/// Tie-break between readings of equal total, so the choice is stable and matches the
/// reference calculator: special shapes first, then regular readings in the order a player
/// lists them (sets sorted; characters, bamboo, dots, honors with 中 发 白 last; a pung before
/// the chow starting on the same tile).
fn reading_order(d: &Decomposition) -> u32 {
    if d.shape != Shape::Regular {
        return 0;
    }
    let order = |i: usize| match i {
        9..=17 => i + 9,
        18..=26 => i - 9,
        31 => 33,
        33 => 31,
        _ => i,
    };
    let mut codes = [0u32; 4];
    let mut n = 0;
    for s in d.sets().iter().filter(|s| !s.melded) {
        codes[n] = (order(s.tile.index()) * 2 + usize::from(s.kind == SetKind::Chow)) as u32;
        n += 1;
    }
    codes[..n].sort_unstable();
    codes[..n].iter().fold(1, |acc, &c| acc << 7 | c)
}

/// Whether reading `a` (total, order, counts) is preferred to `b`. The higher total wins
/// (就高不就低). Equal totals are a free choice; to match the reference calculator it prefers a
/// reading with 一色三同顺 (222333444s as three chows rather than three pungs) and, when the
/// tiles also form seven pairs, a regular reading over the seven pairs; among those it keeps
/// the last reading it meets, among the others the first (see [`reading_order`]).
fn preferred(a: (u32, u32, &Counts), b: (u32, u32, &Counts), seven_pairs: bool) -> bool {
    if a.0 != b.0 {
        return a.0 > b.0;
    }
    let favoured = |c: &Counts| seven_pairs || c[id::PURE_TRIPLE_CHOW as usize] > 0;
    match (favoured(a.2), favoured(b.2)) {
        (true, false) => true,
        (false, true) => false,
        (true, true) => a.1 > b.1,
        (false, false) => a.1 < b.1,
    }
}

/// Scores a winning hand: the breakdown of its best reading.
///
/// A concealed hand of thirteen orphans or honors and knitted has one reading, scored at once.
/// Seven shifted pairs (88) are scored as seven pairs without trying their regular readings:
/// those are four chows and a pair of one suit (no pung fits seven pairs), worth at most
/// full flush 24 + pure straight or shifted chows 16 + a few small fans, and the win
/// conditions add the same to both; `shortcuts_match_every_reading` checks all such hands.
#[inline]
pub fn score(ctx: &WinContext, opts: &McrOptions) -> Result<Breakdown, ScoreError> {
    // Filled in place by a call that the caller's copy of the result can be merged with.
    let mut b = Breakdown::EMPTY;
    score_into(ctx, opts, &mut b)?;
    Ok(b)
}

/// [`score`] into `out`.
fn score_into(ctx: &WinContext, opts: &McrOptions, out: &mut Breakdown) -> Result<(), ScoreError> {
    let p = prepare(ctx, opts, true)?;
    if let Some(only) = p.only {
        let r = eval::evaluate_only(&p, only);
        out.fill_once(r, p.hogs, ctx.flowers, opts);
        return Ok(());
    }
    score_every_reading(ctx, &p, opts, out)
}

/// The best of every reading of the hand, into `out`.
fn score_every_reading(
    ctx: &WinContext,
    p: &Prepared,
    opts: &McrOptions,
    out: &mut Breakdown,
) -> Result<(), ScoreError> {
    let seven_pairs = ctx.melds.is_empty() && p.c14.iter().all(|&x| x % 2 == 0);
    // Each reading is scored into `f`; the best so far is kept in `best_counts`.
    let mut f = [0; SLOTS];
    let mut best_counts = [0; SLOTS];
    let mut best: Option<(u32, Reading)> = None;
    for_each_decomposition(&TileCounts(p.c14), ctx.melds, |d| {
        let r = eval::evaluate(p, d, &mut f);
        let order = reading_order(d);
        let better = match &best {
            None => true,
            Some((o, b)) => preferred(
                (r.total, order, &f),
                (b.total, *o, &best_counts),
                seven_pairs,
            ),
        };
        if better {
            best = Some((order, r));
            best_counts = f;
        }
    });
    let (_, r) = best.ok_or(ScoreError::NotComplete)?;
    out.fill(&best_counts, r, ctx.flowers, opts);
    Ok(())
}

/// Scores one reading of the hand alone, as if it were the only one. `reading` must be one of
/// the hand's decompositions (see [`crate::hand::for_each_decomposition`], fed the concealed
/// tiles with the winning tile).
pub fn score_decomposition(
    ctx: &WinContext,
    reading: &Decomposition,
    opts: &McrOptions,
) -> Result<Breakdown, ScoreError> {
    let p = prepare(ctx, opts, false)?;
    let mut found = false;
    for_each_decomposition(&TileCounts(p.c14), ctx.melds, |d| found |= d == reading);
    if !found {
        return Err(ScoreError::ForeignReading);
    }
    let mut f = [0; SLOTS];
    let r = eval::evaluate(&p, reading, &mut f);
    let mut b = Breakdown::EMPTY;
    b.fill(&f, r, ctx.flowers, opts);
    Ok(b)
}

/// Whether the hand may be declared a win: complete, consistent and worth the minimum without
/// flowers.
pub fn is_valid_win(ctx: &WinContext, opts: &McrOptions) -> bool {
    score(ctx, opts).is_ok_and(|b| b.valid)
}

/// Competition payments for a hand worth `total` (flowers included), indexed by seat; they sum
/// to zero. On a discard the discarder pays 8 + total and the two others 8 each; on a
/// self-draw each of the three pays 8 + total. A discarder equal to the winner is read as a
/// self-draw.
pub fn payments(total: u32, winner: Seat, discarder: Option<Seat>) -> [i32; 4] {
    let value = i32::try_from(total).unwrap_or(i32::MAX / 8);
    let mut pay = [0i32; 4];
    let discarder = discarder.filter(|&d| d != winner);
    for seat in Seat::ALL {
        if seat == winner {
            continue;
        }
        let owed = match discarder {
            Some(d) if d != seat => BASE_PAYMENT,
            _ => BASE_PAYMENT + value,
        };
        pay[seat.index()] -= owed;
        pay[winner.index()] += owed;
    }
    pay
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand::KongKind;
    use crate::tile::parse_tiles;

    fn t(s: &str) -> Tile {
        s.parse().unwrap()
    }

    #[test]
    fn table_matches_the_rules_file() {
        // The 81 fans as the rules state them (name, points, what each excludes): the code's
        // table is checked against the rules' own list on every run.
        let text = include_str!("../../../../docs/rules/mcr-fans.tsv");
        let mut n = 0;
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            let id: u8 = cols[0].parse().unwrap();
            let f = fan_by_id(id).unwrap();
            assert_eq!((f.zh, f.en), (cols[1], cols[2]), "fan {id}");
            assert_eq!(f.points.to_string(), cols[3], "fan {id}");
            let ex: Vec<u8> = cols[4]
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            assert_eq!(f.excludes, ex.as_slice(), "fan {id}");
            n += 1;
        }
        assert_eq!(n, 81);
    }

    /// Thirteen orphans, honors and knitted (5–7 honors), seven shifted pairs and seven pairs,
    /// every winning tile, under varied conditions: the shortcuts of [`score`] give what
    /// scoring every reading gives. For seven shifted pairs this is all of them.
    #[test]
    fn shortcuts_match_every_reading() {
        let opts = McrOptions::default();
        let mut hands: Vec<[u8; KINDS]> = Vec::new();
        for low in (0..27).filter(|i| i % 9 <= 2) {
            let mut c = [0u8; KINDS];
            (low..low + 7).for_each(|k| c[k] = 2);
            hands.push(c);
        }
        let orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];
        for &pair in &orphans {
            let mut c = [0u8; KINDS];
            orphans.iter().for_each(|&k| c[k] = 1);
            c[pair] = 2;
            hands.push(c);
        }
        for knit in crate::hand::KNITS {
            let tiles = knit.tiles();
            // Honors kept: all seven, or all but one or two (drop those and add knit tiles).
            for skip in 0..9usize {
                let mut c = [0u8; KINDS];
                (27..34).for_each(|k| c[k] = 1);
                let dropped = [27 + skip % 7, 27 + (skip + 3) % 7];
                let n = skip % 3;
                for &d in &dropped[..n] {
                    c[d] = 0;
                }
                for t in tiles.iter().take(7 + n) {
                    c[t.index()] = 1;
                }
                hands.push(c);
            }
        }
        // Seven pairs, four alike now and then, many of them also regular hands (those take
        // the full path; the others have seven pairs as their only reading).
        let mut state = 0x0DDB_1A5E_5BAD_5EEDu64;
        for n in 0..400 {
            let mut c = [0u8; KINDS];
            let mut pairs = 0;
            while pairs < 7 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Every other hand keeps to one suit, where regular readings are common.
                let k = if n % 2 == 0 {
                    (state % 34) as usize
                } else {
                    (state % 9) as usize + 9
                };
                if c[k] <= 2 {
                    c[k] += 2;
                    pairs += 1;
                }
            }
            hands.push(c);
        }
        let mut checked = 0;
        for c in hands {
            assert_eq!(c.iter().map(|&x| x as usize).sum::<usize>(), 14, "{c:?}");
            for (w, _) in c.iter().enumerate().filter(|(_, x)| **x > 0) {
                let mut rest = TileCounts(c);
                rest.remove(Tile::kind(w));
                let concealed = rest.tiles();
                for flags in 0..16u8 {
                    let ctx = WinContext {
                        self_drawn: flags & 1 != 0,
                        last_copy: flags & 2 != 0,
                        last_tile: flags & 4 != 0,
                        seat_wind: Wind::from_index(usize::from(flags >> 3) * 2),
                        round_wind: Wind::from_index(w % 4),
                        flowers: flags % 3,
                        ..WinContext::new(&concealed, &[], Tile::kind(w))
                    };
                    // Every reading, with every fan looked for: what the shortcuts must match.
                    let p = prepare(&ctx, &opts, false).unwrap();
                    let mut every = Breakdown::EMPTY;
                    score_every_reading(&ctx, &p, &opts, &mut every).unwrap();
                    assert_eq!(score(&ctx, &opts), Ok(every), "{c:?} winning on {w}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 5_000, "{checked}");
    }

    #[test]
    fn present_matches_the_plain_loop() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for n in 0..20_000 {
            let mut counts = [0u8; SLOTS];
            for c in counts.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Mostly zeros, some small counts, some values with the top bit set.
                *c = match state % (4 + n % 20) {
                    0 => (state >> 32) as u8,
                    1 => 1,
                    2 => 0x80,
                    _ => 0,
                };
            }
            let plain = counts
                .iter()
                .enumerate()
                .fold(0u128, |m, (i, &c)| m | (u128::from(c > 0) << i));
            assert_eq!(table::present(&counts), plain, "{counts:?}");
        }
    }

    #[test]
    fn payments_sum_to_zero() {
        assert_eq!(payments(8, Seat(0), Some(Seat(2))), [32, -8, -16, -8]);
        assert_eq!(payments(10, Seat(1), None), [-18, 54, -18, -18]);
        assert_eq!(payments(11, Seat(3), Some(Seat(3))), [-19, -19, -19, 57]);
    }

    #[test]
    fn flags_are_checked() {
        let concealed = parse_tiles("123456789m23s88s").unwrap();
        let mut ctx = WinContext::new(&concealed, &[], t("4s"));
        ctx.robbing_kong = true;
        ctx.self_drawn = true;
        assert_eq!(
            score(&ctx, &McrOptions::default()),
            Err(ScoreError::RobbingSelfDrawn)
        );
        ctx.robbing_kong = false;
        ctx.self_drawn = false;
        ctx.on_kong = true;
        assert_eq!(
            score(&ctx, &McrOptions::default()),
            Err(ScoreError::OnKongNotSelfDrawn)
        );
        ctx.on_kong = false;
        ctx.flowers = 9;
        assert_eq!(
            score(&ctx, &McrOptions::default()),
            Err(ScoreError::TooManyFlowers(9))
        );
    }

    #[test]
    fn no_allocation_types_are_small_enough_to_copy() {
        let kong = Meld::kong(t("5p"), KongKind::Exposed, None).unwrap();
        let concealed = parse_tiles("234678m23s88s").unwrap();
        let ctx = WinContext {
            self_drawn: true,
            on_kong: true,
            ..WinContext::new(&concealed, std::slice::from_ref(&kong), t("4s"))
        };
        let b = score(&ctx, &McrOptions::default()).unwrap();
        assert_eq!(b.total, 12);
        assert!(size_of::<Breakdown>() < 512);
    }
}
