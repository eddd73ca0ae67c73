//! The JSON-line scoring interface of `tongcheng fan` (docs/play.md),
//! without the I/O: one line of JSON in, one answer out.
//!
//! Under Chinese Official rules a line is [`McrInput`] and the answer
//! `{"total","valid","fans":[{"id","name","en","points","count"}...]}`; under Hangzhou rules
//! a line is [`HzInput`] and the answer [`HzAnswer`]. A line that is not a complete hand, or is
//! malformed, gets `{"error": "..."}`. Every input object refuses unknown keys (a typo such
//! as `"selfdrawn"` must not silently score a discard win) and every number is checked, so
//! no line can panic, overflow or make payments that do not sum to zero.
//! [`INPUT_SCHEMA`] is the field reference printed by `tongcheng fan --help`.

use serde::{Deserialize, Serialize};

use crate::hand::{HandError, KongKind, Meld, MeldKind};
use crate::rules::{RuleSet, WildRule};
use crate::score::hangzhou::{self, Element, HzError, HzShape, HzWin, Liable};
use crate::score::mcr::{self, Breakdown, McrOptions, ScoreError, WinContext};
use crate::score::tongcheng::{self, TcError, TcShape, TcWin, TongchengTable};
use crate::seat::{NoSuchSeat, Seat, Wind};
use crate::tile::{Tile, TileCounts, TileError, parse_hand_tiles, parse_tiles, to_notation};

/// The longest input line `tongcheng fan` reads (1 MiB); a real one is under 1 KB.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The input fields of both rule families, as printed by `tongcheng fan --help`.
pub const INPUT_SCHEMA: &str = "\
Input: one JSON object per line (at most 1 MiB). Unknown keys are errors. Tiles are in notation (digits then a
suit letter m p s z f, e.g. \"123m55z\"); a single tile is exactly two characters (\"5m\").

Chinese Official (--rules guobiao, the default):
  concealed       string, required   concealed tiles WITHOUT the winning tile (\"\" for none)
  win_tile        string, required   the winning tile
  melds           array, default []  each {\"kind\": \"chow\"|\"pung\"|\"kong\", \"tiles\": string,
                                     \"claimed\": string (default none), \"concealed\": bool
                                     (default false; kongs only)}
  self_drawn      bool, default false
  last_copy       bool, default false  和绝张: the winning tile is the last of its four
  on_kong         bool, default false  杠上开花: self-drawn on a kong's replacement
  robbing_kong    bool, default false  抢杠和
  last_tile       bool, default false  the last tile of the wall (妙手回春 / 海底捞月)
  seat_wind       \"E\"|\"S\"|\"W\"|\"N\", default \"E\"
  round_wind      \"E\"|\"S\"|\"W\"|\"N\", default \"E\"
  flowers         integer 0-8, default 0
  options         object, default {}: per-line overrides of the flags
                    mixed_kong_5 bool, kong_flower_with_last_tile_draw bool,
                    min_points integer (default 8)
Answer: {\"total\", \"valid\", \"fans\": [{\"id\", \"name\", \"en\", \"points\", \"count\"}]}

Hangzhou (--rules hangzhou or hangzhou-mil):
  concealed       string, required   concealed tiles, wilds included; with or without the
                                     winning tile (it is added when 13 are given)
  win_tile        string, required   the winning tile
  melds           array, default []  as above (a wild is never melded)
  self_drawn      bool, default true   false with a discarder: a discard win
  wild            string, default \"5z\"  the wild kind (a flipped wild: its face)
  white_plays_wild_face  bool, default true when the wild is not 5z (翻财神)
  piao            integer 0-4, default 0  consecutive wild discards (财飘) before the win
  kongs           integer 0-4, default 0  kongs in the unbroken run that led to the win
  on_kong         bool, default false  the winning tile is a kong replacement (杠开)
  ten_honors      bool, default none   a 十风 win; true when a 白 was among the ten honors
  wilds_discarded integer 0-4, default 0  wilds the winner discarded (for --four-whites);
                                     with the wilds held at most 4
  winner          seat 0-3, default 1
  dealer          seat 0-3, default 0
  discarder       seat 0-3, default none (self-drawn); not the winner
  dealer_level    integer 0 to the rules' highest level (3), default 1: N = 2^level
  liable          {\"contract\": seat} (承包) or {\"reverse\": seat} (反承包), default none;
                  not the winner
Answer: {\"shape\", \"baotou\", \"wilds\", \"elements\": [{\"key\", \"zh\", \"en\", \"value\",
\"count\"}], \"fans\", \"multiplier\", \"capped\", \"dealer_multiplier\", \"payments\": [4 seats]}

Tongcheng (--rules tongcheng-dianpao, alias tongcheng, or tongcheng-paofeng):
  concealed       string, required   concealed tiles; with or without the winning tile (it is
                                     added when 13 are given)
  win_tile        string, required   the winning tile
  melds           array, default []  pungs and kongs only (no chow in these games)
  discarder       seat 0-3, default none (self-drawn); not the winner. 点炮 only
  winner          seat 0-3, default 1
  robbing_kong    bool, default false  抢杠胡 (点炮; give the kong maker as discarder): worth 3
  flowers         integer 0-4, default 0  flowers (发, or 中 under a 中 indicator) set aside
  green_flowers   bool, default false  点炮 补花 option: a hand holding a 发 cannot win
  indicator       string, 跑风 required  the turned-up tile; the next face is wild (9->1,
                                     E>S>W>N>E, 中>发>白>中), 中 plays its face (not when
                                     the indicator is 中 or 白), 发 is the flower (中 under a 中)
  paofeng         bool, default false  跑风: the hand waited on any tile (+2)
  piao            [4 integers 0-10], default [0,0,0,0]  each seat's 飘, added both ways
Answer: {\"shape\", \"elements\": [{\"key\", \"zh\", \"en\", \"value\", \"count\"}], \"value\" (名堂
or points), \"per_payer\" (before 飘), \"payments\": [4 seats]}
点炮: 平胡 1, 七小对 2, ×2 per concealed quad (4/8/16), 抢杠胡 3; a self-draw is paid 2 × value + flowers
by each other seat, a discard value + flowers by the discarder. 跑风: self-draw only, each loser pays
1 + flowers + kongs + 2 for 跑风; shapes standard, seven pairs, 碰碰胡, 全九幺, 十三烂.
";

/// The rules a line is scored under: Chinese Official with its options, or a Hangzhou rule set.
#[derive(Clone, Debug)]
pub struct FanRules(Family);

#[derive(Clone, Debug)]
enum Family {
    Guobiao(McrOptions),
    Hangzhou(Box<RuleSet>),
    Tongcheng(TongchengTable),
}

impl FanRules {
    /// Chinese Official scoring; `defaults` apply where a line's `options` say nothing.
    pub fn guobiao(defaults: McrOptions) -> FanRules {
        FanRules(Family::Guobiao(defaults))
    }

    /// Hangzhou scoring under `rules`; `None` when they do not score the Hangzhou way.
    pub fn hangzhou(rules: RuleSet) -> Option<FanRules> {
        rules.hangzhou_scoring()?;
        Some(FanRules(Family::Hangzhou(Box::new(rules))))
    }

    /// Tongcheng scoring under `rules`; `None` when they do not score the Tongcheng way.
    pub fn tongcheng(rules: &RuleSet) -> Option<FanRules> {
        Some(FanRules(Family::Tongcheng(rules.tongcheng_table()?)))
    }

    /// Scores Hangzhou wins.
    pub fn is_hangzhou(&self) -> bool {
        matches!(self.0, Family::Hangzhou(_))
    }
}

/// Why a line got no score. The message is what `{"error": ...}` says.
#[derive(Debug, thiserror::Error)]
pub enum FanError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("{field}: {source}")]
    Tiles {
        field: &'static str,
        source: TileError,
    },
    #[error("meld {index}: {source}")]
    Meld { index: usize, source: MeldError },
    #[error("{0}")]
    Mcr(#[from] ScoreError),
    #[error("{0}")]
    Hangzhou(#[from] HzError),
    #[error("{field}: {source}")]
    Seat {
        field: &'static str,
        source: NoSuchSeat,
    },
    #[error("these rules have no wild")]
    NoWild,
    #[error("win_tile is not in the hand")]
    WinTileNotHeld,
    #[error("more than four copies of {0}")]
    FifthCopy(Tile),
    #[error("wilds_discarded: {held} held and {discarded} discarded is more than four {wild}")]
    TooManyWilds { held: u8, discarded: u8, wild: Tile },
    #[error("dealer_level {level} is above these rules' highest level, {max}")]
    DealerLevel { level: u8, max: u8 },
    #[error("{0}")]
    Tongcheng(#[from] TcError),
    #[error("{0}")]
    Invalid(&'static str),
}

/// Why a meld of a line was refused.
#[derive(Debug, thiserror::Error)]
pub enum MeldError {
    #[error("{0}")]
    Tiles(TileError),
    #[error("claimed: {0}")]
    Claimed(TileError),
    #[error("kind '{0}' is not a meld kind (chow, pung or kong)")]
    Kind(String),
    #[error("only a kong can be declared concealed, not a {0}")]
    ConcealedNotKong(&'static str),
    #[error("{0}")]
    Shape(#[from] HandError),
    #[error("'{tiles}' is not a {kind}")]
    WrongKind { tiles: String, kind: &'static str },
}

/// One Chinese Official line. Missing optional fields: no melds, flags false, winds East, no
/// flowers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McrInput {
    pub concealed: String,
    #[serde(default)]
    pub melds: Vec<MeldInput>,
    pub win_tile: String,
    #[serde(default)]
    pub self_drawn: bool,
    #[serde(default)]
    pub last_copy: bool,
    #[serde(default)]
    pub on_kong: bool,
    #[serde(default)]
    pub robbing_kong: bool,
    #[serde(default)]
    pub last_tile: bool,
    #[serde(default = "east")]
    pub seat_wind: Wind,
    #[serde(default = "east")]
    pub round_wind: Wind,
    #[serde(default)]
    pub flowers: u8,
    /// Per-line options; a field given here overrides the command-line flag.
    #[serde(default)]
    pub options: OptionsInput,
}

fn east() -> Wind {
    Wind::East
}

/// `{"kind": "chow"|"pung"|"kong", "tiles", "claimed"?, "concealed"?}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeldInput {
    pub kind: String,
    pub tiles: String,
    #[serde(default)]
    pub claimed: Option<String>,
    #[serde(default)]
    pub concealed: bool,
}

/// Per-line overrides of the Chinese Official options.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct OptionsInput {
    pub mixed_kong_5: Option<bool>,
    pub kong_flower_with_last_tile_draw: Option<bool>,
    pub min_points: Option<u32>,
}

/// One Hangzhou line: the guobiao fields `concealed` (wilds included), `melds`, `win_tile`,
/// `self_drawn` (default true here), plus the wild, the 飘 count, the kong run, the seats and
/// the dealer level.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HzInput {
    pub concealed: String,
    #[serde(default)]
    pub melds: Vec<MeldInput>,
    pub win_tile: String,
    #[serde(default = "yes")]
    pub self_drawn: bool,
    /// The wild kind (default: 5z, the 白板 财神; for a flipped wild, its face).
    #[serde(default)]
    pub wild: Option<String>,
    /// 翻财神: 白 plays as the wild's face (default: true when the wild is not 白); a meld
    /// showing the face then holds a 白 there.
    #[serde(default)]
    pub white_plays_wild_face: Option<bool>,
    /// Consecutive wild discards (财飘) before the win.
    #[serde(default)]
    pub piao: u8,
    /// Kongs in the unbroken run that led to the win.
    #[serde(default)]
    pub kongs: u8,
    /// The winning tile is a kong replacement (杠开).
    #[serde(default)]
    pub on_kong: bool,
    /// A 十风 win; `true` when a 白 was among the ten honors.
    #[serde(default)]
    pub ten_honors: Option<bool>,
    /// Wilds the winner discarded earlier in the hand (for `--four-whites`).
    #[serde(default)]
    pub wilds_discarded: u8,
    /// Seats 0–3: the winner, the dealer, the discarder (discard wins).
    #[serde(default = "one_seat")]
    pub winner: u8,
    #[serde(default)]
    pub dealer: u8,
    #[serde(default)]
    pub discarder: Option<u8>,
    /// The dealer's level (老庄) 1–3: multiplier 2, 4, 8.
    #[serde(default = "one_level")]
    pub dealer_level: u8,
    /// `{"contract": seat}` (承包) or `{"reverse": seat}` (反承包).
    #[serde(default)]
    pub liable: Option<Liable>,
}

fn yes() -> bool {
    true
}

/// One Tongcheng line (点炮 or 跑风).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcInput {
    pub concealed: String,
    #[serde(default)]
    pub melds: Vec<MeldInput>,
    pub win_tile: String,
    #[serde(default = "one_seat")]
    pub winner: u8,
    #[serde(default)]
    pub discarder: Option<u8>,
    #[serde(default)]
    pub robbing_kong: bool,
    #[serde(default)]
    pub flowers: u8,
    #[serde(default)]
    pub green_flowers: bool,
    /// 跑风: the turned-up tile.
    #[serde(default)]
    pub indicator: Option<String>,
    #[serde(default)]
    pub paofeng: bool,
    #[serde(default)]
    pub piao: [u8; 4],
}

/// One Tongcheng element of an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TcElement {
    pub key: &'static str,
    pub zh: &'static str,
    pub en: &'static str,
    pub value: u32,
    pub count: u32,
}

/// One Tongcheng answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TcAnswer {
    pub shape: &'static str,
    pub elements: Vec<TcElement>,
    /// 名堂 (点炮) or the point count (跑风).
    pub value: u32,
    /// What each paying seat pays, before 飘.
    pub per_payer: u32,
    /// Score change per seat 0–3 (base 1); sums to zero.
    pub payments: [i32; 4],
}

fn one_seat() -> u8 {
    1
}

fn one_level() -> u8 {
    1
}

/// One Hangzhou answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HzAnswer {
    pub shape: HzShape,
    pub baotou: bool,
    pub wilds: u8,
    pub elements: Vec<Element>,
    /// Fan sum before the cap (MIL table; 0 with the doubling table).
    pub fans: u32,
    /// The hand multiplier M (after the cap).
    pub multiplier: u32,
    pub capped: bool,
    /// N = 2^level, applied between the dealer and a non-dealer.
    pub dealer_multiplier: i64,
    /// Score change per seat 0–3 (base 1); sums to zero.
    pub payments: [i32; 4],
}

/// A scored line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FanAnswer {
    Guobiao(Breakdown),
    Hangzhou(HzAnswer),
    Tongcheng(TcAnswer),
}

#[derive(Serialize)]
struct McrOutput<'a> {
    total: u32,
    valid: bool,
    fans: &'a [mcr::FanCount],
}

impl Serialize for FanAnswer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FanAnswer::Guobiao(b) => McrOutput {
                total: b.total,
                valid: b.valid,
                fans: &b.fans,
            }
            .serialize(s),
            FanAnswer::Hangzhou(h) => h.serialize(s),
            FanAnswer::Tongcheng(t) => t.serialize(s),
        }
    }
}

/// The answer line (no newline) for one line of input: the score, or `{"error": "..."}`.
pub fn score_line(line: &str, rules: &FanRules) -> String {
    let answer = score(line, rules).and_then(|a| serde_json::to_string(&a).map_err(FanError::Json));
    match answer {
        Ok(s) => s,
        Err(e) => error_line(&e.to_string()),
    }
}

/// `{"error": message}`.
pub fn error_line(message: &str) -> String {
    serde_json::json!({ "error": message }).to_string()
}

/// Scores one line of JSON.
pub fn score(line: &str, rules: &FanRules) -> Result<FanAnswer, FanError> {
    match &rules.0 {
        Family::Guobiao(defaults) => score_mcr(line, defaults).map(FanAnswer::Guobiao),
        Family::Hangzhou(r) => score_hangzhou(line, r).map(FanAnswer::Hangzhou),
        Family::Tongcheng(t) => score_tongcheng(line, *t).map(FanAnswer::Tongcheng),
    }
}

fn concealed_tiles(s: &str) -> Result<Vec<Tile>, FanError> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    parse_hand_tiles(s).map_err(|source| FanError::Tiles {
        field: "concealed",
        source,
    })
}

/// One tile of a field; spaces around it are allowed here, as ever.
fn tile_field(s: &str, field: &'static str) -> Result<Tile, FanError> {
    s.trim()
        .parse()
        .map_err(|source| FanError::Tiles { field, source })
}

fn melds(input: &[MeldInput]) -> Result<Vec<Meld>, FanError> {
    input
        .iter()
        .enumerate()
        .map(|(i, m)| {
            meld(m).map_err(|source| FanError::Meld {
                index: i + 1,
                source,
            })
        })
        .collect()
}

fn score_mcr(line: &str, defaults: &McrOptions) -> Result<Breakdown, FanError> {
    let input: McrInput = serde_json::from_str(line)?;
    let concealed = concealed_tiles(&input.concealed)?;
    let win_tile = tile_field(&input.win_tile, "win_tile")?;
    let melds = melds(&input.melds)?;
    let o = &input.options;
    let opts = McrOptions {
        mixed_kong_5: o.mixed_kong_5.unwrap_or(defaults.mixed_kong_5),
        kong_flower_with_last_tile_draw: o
            .kong_flower_with_last_tile_draw
            .unwrap_or(defaults.kong_flower_with_last_tile_draw),
        min_points: o.min_points.unwrap_or(defaults.min_points),
    };
    let ctx = WinContext {
        concealed: &concealed,
        melds: &melds,
        win_tile,
        self_drawn: input.self_drawn,
        last_copy: input.last_copy,
        on_kong: input.on_kong,
        robbing_kong: input.robbing_kong,
        last_tile: input.last_tile,
        seat_wind: input.seat_wind,
        round_wind: input.round_wind,
        flowers: input.flowers,
    };
    Ok(mcr::score(&ctx, &opts)?)
}

fn seat(n: u8, field: &'static str) -> Result<Seat, FanError> {
    Seat::checked(n).map_err(|source| FanError::Seat { field, source })
}

fn score_hangzhou(line: &str, rules: &RuleSet) -> Result<HzAnswer, FanError> {
    let input: HzInput = serde_json::from_str(line)?;
    let opts = rules.hangzhou_scoring().ok_or(FanError::NoWild)?;
    let concealed = concealed_tiles(&input.concealed)?;
    let win_tile = tile_field(&input.win_tile, "win_tile")?;
    if win_tile.is_flower() {
        return Err(HzError::FlowerWinTile(win_tile).into());
    }
    let mut melds = melds(&input.melds)?;
    let wild: Tile = match &input.wild {
        Some(w) => tile_field(w, "wild")?,
        None if rules.wild == WildRule::None => return Err(FanError::NoWild),
        None => Tile::WHITE,
    };
    if wild.is_flower() {
        return Err(HzError::FlowerWild(wild).into());
    }
    let white_as = match input.white_plays_wild_face {
        Some(false) => None,
        _ if wild == Tile::WHITE => None,
        _ => Some(wild),
    };
    // Wilds are never melded: under a flipped wild a meld showing its face holds 白 there.
    if let Some(face) = white_as {
        for m in &mut melds {
            m.whites = m.tiles().iter().filter(|&&x| x == face).count() as u8;
        }
    }
    let mut counts = TileCounts::from_tiles(&concealed);
    // The winning tile is part of `concealed` when it lists 14 tiles; else it is added.
    if counts.total() + 3 * melds.len() == 13 {
        counts.add(win_tile);
    }
    if counts.get(win_tile) == 0 {
        return Err(FanError::WinTileNotHeld);
    }
    if let Some(t) = counts.over_four() {
        return Err(FanError::FifthCopy(t));
    }
    if input.wilds_discarded > hangzhou::MAX_WILDS {
        return Err(HzError::TooManyWildsDiscarded(input.wilds_discarded).into());
    }
    let held = counts.get(wild);
    if held + input.wilds_discarded > 4 {
        return Err(FanError::TooManyWilds {
            held,
            discarded: input.wilds_discarded,
            wild,
        });
    }
    let winner = seat(input.winner, "winner")?;
    let dealer = seat(input.dealer, "dealer")?;
    let discarder = input.discarder.map(|d| seat(d, "discarder")).transpose()?;
    if discarder == Some(winner) {
        return Err(HzError::DiscarderWinner.into());
    }
    if input.liable.is_some_and(|l| l.seat() == winner) {
        return Err(HzError::LiableWinner(winner).into());
    }
    let max = rules.dealer_max_level.max(1);
    if input.dealer_level > max {
        return Err(FanError::DealerLevel {
            level: input.dealer_level,
            max,
        });
    }
    let level = input.dealer_level;
    let self_drawn = input.self_drawn && discarder.is_none();
    let s = hangzhou::score(
        &HzWin {
            concealed: &counts,
            melds: &melds,
            win_tile,
            wild: Some(wild),
            white_as,
            self_drawn,
            piao: input.piao,
            kongs: input.kongs,
            on_kong: input.on_kong,
            ten_honors: input.ten_honors,
            wilds_discarded: input.wilds_discarded,
        },
        opts,
    )?;
    let payments =
        hangzhou::try_payments(s.multiplier, winner, dealer, level, discarder, input.liable)?;
    Ok(HzAnswer {
        shape: s.shape,
        baotou: s.baotou,
        wilds: s.wilds,
        elements: s.elements,
        fans: s.fans,
        multiplier: s.multiplier,
        capped: s.capped,
        dealer_multiplier: hangzhou::try_dealer_multiplier(level)?,
        payments,
    })
}

fn score_tongcheng(line: &str, table: TongchengTable) -> Result<TcAnswer, FanError> {
    let input: TcInput = serde_json::from_str(line)?;
    let concealed = concealed_tiles(&input.concealed)?;
    let win_tile = tile_field(&input.win_tile, "win_tile")?;
    if win_tile.is_flower() || concealed.iter().any(|t| t.is_flower()) {
        return Err(FanError::Invalid(
            "flower tiles (f) are not played in the Tongcheng games",
        ));
    }
    let melds = melds(&input.melds)?;
    if melds.iter().any(|m| m.kind == MeldKind::Chow) {
        return Err(FanError::Invalid("the Tongcheng games have no chow"));
    }
    let mut counts = TileCounts::from_tiles(&concealed);
    if counts.total() + 3 * melds.len() == 13 {
        counts.add(win_tile);
    }
    if counts.get(win_tile) == 0 {
        return Err(FanError::WinTileNotHeld);
    }
    let mut all = counts;
    for m in &melds {
        m.add_to(&mut all);
    }
    if let Some(t) = all.over_four() {
        return Err(FanError::FifthCopy(t));
    }
    if input.flowers > 4 {
        return Err(FanError::Invalid("flowers: at most 4"));
    }
    if input.piao.iter().any(|&p| p > crate::rules::MAX_PIAO) {
        return Err(FanError::Invalid("piao: each at most 10"));
    }
    let winner = seat(input.winner, "winner")?;
    let discarder = input.discarder.map(|d| seat(d, "discarder")).transpose()?;
    if discarder == Some(winner) {
        return Err(HzError::DiscarderWinner.into());
    }
    if input.robbing_kong && discarder.is_none() {
        return Err(FanError::Invalid(
            "robbing_kong needs the kong maker as discarder",
        ));
    }
    let (wild, stand_in, flower) = match (table, &input.indicator) {
        (TongchengTable::Paofeng, Some(i)) => {
            let t = tile_field(i, "indicator")?;
            let (w, s, f) = tongcheng::paofeng_tiles(t);
            (Some(w), s, Some(f))
        }
        (TongchengTable::Paofeng, None) => {
            return Err(FanError::Invalid("indicator: required under 跑风 rules"));
        }
        (TongchengTable::Dianpao, Some(_)) => {
            return Err(FanError::Invalid("indicator: 点炮 has no wild"));
        }
        (TongchengTable::Dianpao, None) => (None, None, input.green_flowers.then_some(Tile::GREEN)),
    };
    if input.paofeng && table == TongchengTable::Dianpao {
        return Err(FanError::Invalid("paofeng: only under 跑风 rules"));
    }
    let s = tongcheng::score(
        &TcWin {
            concealed: &counts,
            melds: &melds,
            wild,
            stand_in,
            flower,
            self_drawn: discarder.is_none(),
            robbing_kong: input.robbing_kong,
            flowers: input.flowers,
            paofeng: input.paofeng,
        },
        table,
    )?;
    let payments = tongcheng::payments(&[(winner, s.per_payer)], discarder, input.piao);
    Ok(TcAnswer {
        shape: match s.shape {
            TcShape::Standard => "standard",
            TcShape::SevenPairs(_) => "seven_pairs",
            TcShape::AllPungs => "all_pungs",
            TcShape::AllTerminalsHonors => "all_terminals_honors",
            TcShape::ThirteenUnrelated => "thirteen_unrelated",
        },
        elements: s
            .elements
            .iter()
            .map(|&(id, value, count)| {
                let e = tongcheng::ELEMENTS[usize::from(id) - 1];
                TcElement {
                    key: e.0,
                    zh: e.1,
                    en: e.2,
                    value,
                    count,
                }
            })
            .collect(),
        value: s.value,
        per_payer: s.per_payer,
        payments,
    })
}

/// A meld from `{"kind": "chow"|"pung"|"kong", "tiles", "claimed"?, "concealed"?}`.
fn meld(m: &MeldInput) -> Result<Meld, MeldError> {
    let tiles = parse_tiles(&m.tiles).map_err(MeldError::Tiles)?;
    let claimed = match &m.claimed {
        Some(c) => Some(c.trim().parse::<Tile>().map_err(MeldError::Claimed)?),
        None => None,
    };
    let (want, kong_kind, kind) = match m.kind.as_str() {
        "chow" => (MeldKind::Chow, KongKind::Exposed, "chow"),
        "pung" => (MeldKind::Pung, KongKind::Exposed, "pung"),
        "kong" if m.concealed => (
            MeldKind::Kong(KongKind::Concealed),
            KongKind::Concealed,
            "kong",
        ),
        "kong" => (MeldKind::Kong(KongKind::Exposed), KongKind::Exposed, "kong"),
        other => {
            let mut quoted: String = other.chars().take(16).collect();
            if quoted.len() < other.len() {
                quoted.push('…');
            }
            return Err(MeldError::Kind(quoted));
        }
    };
    if m.concealed && want != MeldKind::Kong(KongKind::Concealed) {
        return Err(MeldError::ConcealedNotKong(kind));
    }
    let claimed = if kong_kind == KongKind::Concealed {
        None
    } else {
        claimed
    };
    let meld = Meld::from_tiles(&tiles, kong_kind, claimed, None)?;
    if meld.kind != want {
        return Err(MeldError::WrongKind {
            tiles: to_notation(&tiles),
            kind,
        });
    }
    Ok(meld)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str, opts: &McrOptions) -> Result<Breakdown, String> {
        score_mcr(line, opts).map_err(|e| e.to_string())
    }

    fn one_hangzhou(line: &str, rules: &RuleSet) -> Result<HzAnswer, String> {
        score_hangzhou(line, rules).map_err(|e| e.to_string())
    }

    fn run_one(line: &str) -> Result<Breakdown, String> {
        one(line, &McrOptions::default())
    }

    fn ids(b: &Breakdown) -> Vec<(u8, u8)> {
        b.fans.iter().map(|f| (f.id, f.count)).collect()
    }

    #[test]
    fn scores_a_line_with_defaults() {
        let b = run_one(
            r#"{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m","claimed":"2m"}],"win_tile":"6s"}"#,
        )
        .unwrap();
        assert_eq!(ids(&b), [(50, 1), (63, 1)]);
        assert_eq!((b.total, b.valid), (8, true));
        let json = serde_json::to_string(&FanAnswer::Guobiao(b)).unwrap();
        assert_eq!(
            json,
            r#"{"total":8,"valid":true,"fans":[{"id":50,"name":"三色三步高","en":"Mixed Shifted Chows","points":6,"count":1},{"id":63,"name":"平和","en":"All Chows","points":2,"count":1}]}"#
        );
    }

    #[test]
    fn reads_every_field() {
        let b = run_one(
            r#"{"concealed":"234m678m23s88s","melds":[{"kind":"kong","tiles":"5555p"}],"win_tile":"4s",
                "self_drawn":true,"on_kong":true,"last_tile":true,"seat_wind":"S","round_wind":"W","flowers":2}"#,
        )
        .unwrap();
        assert_eq!(
            ids(&b),
            [(44, 1), (46, 1), (68, 1), (70, 1), (74, 1), (81, 2)]
        );
        assert_eq!(b.total, 22);
        let b = run_one(
            r#"{"concealed":"234m678m23s88s","melds":[{"kind":"kong","tiles":"5555p"}],"win_tile":"4s",
                "self_drawn":true,"on_kong":true,"last_tile":true,
                "options":{"kong_flower_with_last_tile_draw":false,"min_points":30}}"#,
        )
        .unwrap();
        assert_eq!(ids(&b), [(44, 1), (68, 1), (70, 1), (74, 1)]);
        assert!(!b.valid);
    }

    #[test]
    fn concealed_kongs_and_mixed_kong_flag() {
        let line = r#"{"concealed":"234m23s88s","melds":[{"kind":"kong","tiles":"5555p"},{"kind":"kong","tiles":"1111m","concealed":true}],"win_tile":"4s"}"#;
        let b = run_one(line).unwrap();
        assert_eq!(b.count(67), 1);
        assert_eq!(b.count(74), 1);
        let opts = McrOptions {
            mixed_kong_5: true,
            ..McrOptions::default()
        };
        let b = one(line, &opts).unwrap();
        assert_eq!((b.count(82), b.count(67), b.count(74)), (1, 0, 0));
    }

    fn hz(line: &str, rules: &RuleSet) -> HzAnswer {
        one_hangzhou(line, rules).unwrap()
    }

    #[test]
    fn hangzhou_worked_examples() {
        let house = RuleSet::hangzhou();
        let mil = RuleSet::hangzhou_mil();
        // H1: non-dealer self-draw at L1.
        let h1 = r#"{"concealed":"123m456m789p234s5s","win_tile":"5s"}"#;
        assert_eq!(hz(h1, &house).payments, [-2, 4, -1, -1]);
        let m = hz(h1, &mil);
        assert_eq!((m.fans, m.multiplier, m.payments), (1, 2, [-4, 8, -2, -2]));
        // H1 on the dealer's discard at L3 (庄三放炮).
        let d =
            r#"{"concealed":"123m456m789p234s5s","win_tile":"5s","discarder":0,"dealer_level":3}"#;
        assert_eq!(hz(d, &house).payments, [-10, 10, 0, 0]);
        // H2: dealer 爆头 at L2.
        let h2 =
            r#"{"concealed":"123m456m789p234s5z","win_tile":"9s","winner":0,"dealer_level":2}"#;
        let o = hz(h2, &house);
        assert!(o.baotou);
        assert_eq!((o.multiplier, o.payments), (2, [24, -8, -8, -8]));
        assert_eq!(hz(h2, &mil).payments, [24, -8, -8, -8]);
        // H3: 财飘.
        let h3 = r#"{"concealed":"123m456m789p234s5z","win_tile":"7p","piao":1}"#;
        assert_eq!(hz(h3, &house).payments, [-8, 16, -4, -4]);
        assert_eq!(hz(h3, &mil).payments, [-8, 16, -4, -4]);
        // H4: 杠暴 and 杠飘.
        let gb = r#"{"concealed":"123m456m234s5z","melds":[{"kind":"kong","tiles":"9999p","concealed":true}],"win_tile":"5z","kongs":1,"on_kong":true}"#;
        assert_eq!(hz(gb, &house).payments, [-8, 16, -4, -4]);
        assert_eq!(hz(gb, &mil).payments, [-8, 16, -4, -4]);
        let gp = r#"{"concealed":"123m456m234s5z","melds":[{"kind":"kong","tiles":"9999p","concealed":true}],"win_tile":"5m","kongs":1,"piao":1}"#;
        assert_eq!(hz(gp, &house).payments, [-16, 32, -8, -8]);
        assert_eq!(hz(gp, &mil).payments, [-8, 16, -4, -4]);
        // H5: 豪华七对 爆头, dealer at L3; liability on the non-dealer version.
        let h5 =
            r#"{"concealed":"1111m22p33p66s77s5z","win_tile":"9s","winner":0,"dealer_level":3}"#;
        let o = hz(h5, &house);
        assert_eq!((o.multiplier, o.payments), (8, [192, -64, -64, -64]));
        let o = hz(h5, &mil);
        assert_eq!((o.fans, o.multiplier, o.capped), (5, 16, true));
        assert_eq!(o.payments, [384, -128, -128, -128]);
        let nd = r#"{"concealed":"1111m22p33p66s77s5z","win_tile":"9s","dealer_level":3,"liable":{"contract":0}}"#;
        assert_eq!(hz(nd, &house).payments, [-80, 80, 0, 0]);
        let rv = r#"{"concealed":"1111m22p33p66s77s5z","win_tile":"9s","dealer_level":3,"liable":{"reverse":0}}"#;
        assert_eq!(hz(rv, &house).payments, [-160, 160, 0, 0]);
        // 4个白板 (--four-whites): one 白 held, three discarded, on top of 爆头 and 双财飘.
        let mut egb = RuleSet::hangzhou();
        if let crate::rules::Scoring::Hangzhou(h) = &mut egb.scoring {
            h.four_whites_bonus = true;
        }
        let four =
            r#"{"concealed":"123m456m789p234s5z","win_tile":"7p","piao":2,"wilds_discarded":3}"#;
        assert_eq!(hz(four, &house).multiplier, 8);
        assert_eq!(hz(four, &egb).multiplier, 16);
        let five = r#"{"concealed":"123m456m789p234s5z","win_tile":"7p","wilds_discarded":4}"#;
        assert!(one_hangzhou(five, &egb).is_err_and(|e| e.contains("more than four")));
        // 翻财神 (5m wild, 白 plays 5m): a chow 456m holds a 白, so it is no wild in a meld.
        let flip = r#"{"concealed":"123p456p789s1z","melds":[{"kind":"chow","tiles":"456m"}],"win_tile":"1z","wild":"5m"}"#;
        assert_eq!(hz(flip, &house).multiplier, 1);
        let json = serde_json::to_string(&hz(h3, &house)).unwrap();
        assert!(json.contains(r#""key":"cai_piao","zh":"财飘""#), "{json}");
        assert!(
            one_hangzhou(
                r#"{"concealed":"123m456m789p235s5s","win_tile":"5s"}"#,
                &house
            )
            .is_err()
        );
    }

    #[test]
    fn bad_lines_are_errors() {
        let cases = [
            ("not json", "expected"),
            (r#"{"win_tile":"1m"}"#, "missing field `concealed`"),
            (r#"{"concealed":"123m"}"#, "missing field `win_tile`"),
            (r#"{"concealed":"12x","win_tile":"1m"}"#, "'x'"),
            (
                r#"{"concealed":"1112345678999m","win_tile":"1f"}"#,
                "flower",
            ),
            (
                r#"{"concealed":"1112345678999m","win_tile":"5m","seat_wind":"Q"}"#,
                "unknown variant",
            ),
            (
                r#"{"concealed":"1112345678999m","win_tile":"5m","flowers":9}"#,
                "only eight",
            ),
            (
                r#"{"concealed":"1112345678999m","win_tile":"5p"}"#,
                "not a complete hand",
            ),
            (
                r#"{"concealed":"111123456789m9p","win_tile":"1m"}"#,
                "more than four copies",
            ),
            (r#"{"concealed":"123m","win_tile":"1m"}"#, "wrong hand size"),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"pung","tiles":"999m","concealed":true}],"win_tile":"5m"}"#,
                "only a kong",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"chow","tiles":"999m"}],"win_tile":"5m"}"#,
                "is not a chow",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"set","tiles":"999m"}],"win_tile":"5m"}"#,
                "not a meld kind",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"pung","tiles":"999m"}],"win_tile":"5m","self_drawn":true,"robbing_kong":true}"#,
                "cannot be self-drawn",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"pung","tiles":"999m"}],"win_tile":"5m","on_kong":true}"#,
                "self-drawn win",
            ),
        ];
        for (line, want) in cases {
            let err = run_one(line).unwrap_err();
            assert!(err.contains(want), "{line}: {err}");
        }
    }

    fn hz_err(line: &str) -> String {
        let err = one_hangzhou(line, &RuleSet::hangzhou()).unwrap_err();
        assert_eq!(
            one_hangzhou(line, &RuleSet::hangzhou_mil()).unwrap_err(),
            err,
            "{line}"
        );
        err
    }

    const H1: &str = r#""concealed":"123m456m789p234s5s","win_tile":"5s""#;

    #[test]
    fn hangzhou_flowers_are_errors_not_panics() {
        assert_eq!(
            hz_err(r#"{"concealed":"1112345678999m","win_tile":"1f"}"#),
            "the winning tile 1f is a flower: flowers are never part of a hand"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"wild":"1f"}}"#)),
            "1f is a flower: a flower cannot be the wild or the face 白 plays"
        );
        let e = hz_err(&format!(r#"{{{H1},"liable":{{"contract":4}}}}"#));
        assert!(
            e.starts_with("seat 4 does not exist (seats are 0–3)"),
            "{e}"
        );
        let e = hz_err(&format!(r#"{{{H1},"liable":{{"reverse":255}}}}"#));
        assert!(
            e.starts_with("seat 255 does not exist (seats are 0–3)"),
            "{e}"
        );
    }

    #[test]
    fn hangzhou_counts_are_bounded() {
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"piao":255}}"#)),
            "piao 255 is more than the 4 wilds in play"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"kongs":255,"on_kong":true}}"#)),
            "kongs 255 is more than the 4 kongs a hand can make"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"wilds_discarded":255}}"#)),
            "wilds_discarded 255 is more than the 4 wilds in play"
        );
        // The wrap case: 1 held + 255 discarded used to be 0 in a u8.
        assert_eq!(
            hz_err(r#"{"concealed":"123m456m789p234s5z","win_tile":"7p","wilds_discarded":255}"#),
            "wilds_discarded 255 is more than the 4 wilds in play"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"dealer_level":255}}"#)),
            "dealer_level 255 is above these rules' highest level, 3"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"dealer_level":4}}"#)),
            "dealer_level 4 is above these rules' highest level, 3"
        );
        let e = hz_err(&format!(r#"{{{H1},"piao":256}}"#));
        assert!(e.contains("expected u8"), "{e}");
        // A rule set whose highest level is absurd: the multiplier refuses it.
        let mut wide = RuleSet::hangzhou();
        wide.dealer_max_level = 255;
        let e = one_hangzhou(&format!(r#"{{{H1},"dealer_level":255}}"#), &wide).unwrap_err();
        assert_eq!(e, "dealer level 255 is above the highest level, 8");
        let o = one_hangzhou(&format!(r#"{{{H1},"dealer_level":8}}"#), &wide).unwrap();
        assert_eq!(
            (o.dealer_multiplier, o.payments),
            (256, [-256, 258, -1, -1])
        );
    }

    #[test]
    fn hangzhou_payments_sum_to_zero_at_every_bound() {
        let mut egb = RuleSet::hangzhou();
        if let crate::rules::Scoring::Hangzhou(h) = &mut egb.scoring {
            h.four_whites_bonus = true;
            h.cap = 0;
        }
        for rules in [RuleSet::hangzhou(), RuleSet::hangzhou_mil(), egb] {
            for piao in 0..=4 {
                for kongs in 0..=4 {
                    for level in 0..=3 {
                        let line = format!(
                            r#"{{"concealed":"123m456m234s5z","melds":[{{"kind":"kong","tiles":"9999p","concealed":true}}],"win_tile":"5m","piao":{piao},"kongs":{kongs},"dealer_level":{level},"winner":0}}"#
                        );
                        let o = one_hangzhou(&line, &rules).unwrap();
                        assert_eq!(o.payments.iter().sum::<i32>(), 0, "{line}");
                        assert!(o.multiplier <= 1 << 12, "{line}: {}", o.multiplier);
                    }
                }
            }
        }
    }

    #[test]
    fn the_liable_seat_cannot_be_the_winner() {
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"liable":{{"contract":1}}}}"#)),
            "the liable seat 1 is the winner: a winner cannot pay itself"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"winner":2,"liable":{{"reverse":2}}}}"#)),
            "the liable seat 2 is the winner: a winner cannot pay itself"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"discarder":1}}"#)),
            "the winner cannot be the discarder"
        );
        assert_eq!(
            hz_err(&format!(r#"{{{H1},"winner":7}}"#)),
            "winner: seat 7 does not exist (seats are 0–3)"
        );
    }

    #[test]
    fn unknown_keys_are_errors_naming_them() {
        let mcr = |line: &str| run_one(line).unwrap_err();
        let e = mcr(
            r#"{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m"}],"win_tile":"6s","selfdrawn":true}"#,
        );
        assert!(e.starts_with("unknown field `selfdrawn`"), "{e}");
        let e = mcr(
            r#"{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m","claim":"2m"}],"win_tile":"6s"}"#,
        );
        assert!(e.starts_with("unknown field `claim`"), "{e}");
        let e = mcr(
            r#"{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m"}],"win_tile":"6s","options":{"min_point":9}}"#,
        );
        assert!(e.starts_with("unknown field `min_point`"), "{e}");
        let e = hz_err(&format!(r#"{{{H1},"dealer_lvl":2}}"#));
        assert!(e.starts_with("unknown field `dealer_lvl`"), "{e}");
        // Guobiao-only fields are unknown to a Hangzhou line, and the other way round.
        let e = hz_err(&format!(r#"{{{H1},"seat_wind":"S"}}"#));
        assert!(e.starts_with("unknown field `seat_wind`"), "{e}");
        let e = mcr(r#"{"concealed":"345p45s678s99p234m","win_tile":"6s","piao":1}"#);
        assert!(e.starts_with("unknown field `piao`"), "{e}");
        let e = hz_err(&format!(
            r#"{{{H1},"melds":[],"liable":{{"contract":0,"reverse":2}}}}"#
        ));
        assert!(!e.is_empty());
    }

    #[test]
    fn score_line_writes_the_answer_or_an_error_object() {
        let g = FanRules::guobiao(McrOptions::default());
        assert!(!g.is_hangzhou());
        assert_eq!(
            score_line(r#"{"concealed":"12x","win_tile":"1m"}"#, &g),
            r#"{"error":"concealed: unexpected character 'x' at position 2 (expected a digit or one of m p s z f)"}"#
        );
        assert!(
            score_line(
                r#"{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m","claimed":"2m"}],"win_tile":"6s"}"#,
                &g
            )
            .starts_with(r#"{"total":8,"valid":true,"fans":[{"id":50,"#)
        );
        assert!(FanRules::hangzhou(RuleSet::preset("guobiao").unwrap()).is_none());
        let h = FanRules::hangzhou(RuleSet::hangzhou()).unwrap();
        assert!(h.is_hangzhou());
        assert!(
            score_line(&format!("{{{H1}}}"), &h).ends_with(r#""payments":[-2,4,-1,-1]}"#),
            "{}",
            score_line(&format!("{{{H1}}}"), &h)
        );
        assert!(score_line("", &h).starts_with(r#"{"error":"EOF"#));
    }

    #[test]
    fn huge_tile_strings_are_refused_early() {
        let g = FanRules::guobiao(McrOptions::default());
        let line = format!(
            r#"{{"concealed":"{}","win_tile":"1m"}}"#,
            "1".repeat(1 << 20)
        );
        assert_eq!(
            score_line(&line, &g),
            r#"{"error":"concealed: more than 144 tiles (position 144): no hand or meld list holds that many"}"#
        );
        let line = format!(
            r#"{{"concealed":"1112345678999m","win_tile":"{}5m"}}"#,
            " ".repeat(1 << 20)
        );
        assert!(
            score(&line, &g).is_ok(),
            "a field's single tile may be padded"
        );
        let line = format!(
            r#"{{"concealed":"1112345678m","melds":[{{"kind":"{}","tiles":"999m"}}],"win_tile":"5m"}}"#,
            "x".repeat(1 << 20)
        );
        assert!(score_line(&line, &g).len() < 200);
    }

    #[test]
    fn the_schema_names_every_field() {
        for f in [
            "concealed",
            "win_tile",
            "melds",
            "claimed",
            "self_drawn",
            "last_copy",
            "on_kong",
            "robbing_kong",
            "last_tile",
            "seat_wind",
            "round_wind",
            "flowers",
            "options",
            "mixed_kong_5",
            "kong_flower_with_last_tile_draw",
            "min_points",
            "wild",
            "white_plays_wild_face",
            "piao",
            "kongs",
            "ten_honors",
            "wilds_discarded",
            "winner",
            "dealer",
            "discarder",
            "dealer_level",
            "liable",
        ] {
            assert!(INPUT_SCHEMA.contains(f), "{f}");
        }
    }
}

#[cfg(test)]
mod tongcheng_tests {
    use super::*;

    fn tc(line: &str, rules: &str) -> Result<TcAnswer, String> {
        let r = FanRules::tongcheng(&RuleSet::preset(rules).unwrap()).unwrap();
        match score(line, &r).map_err(|e| e.to_string())? {
            FanAnswer::Tongcheng(t) => Ok(t),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn worked_examples_t1_to_t3_through_json() {
        // T1: D (seat 3) discards 5s, A (seat 0) wins: 1; with 飘 A 1, D 2: 4.
        let t1 = r#"{"concealed":"123m456m789p111z5s","win_tile":"5s","winner":0,"discarder":3"#;
        let a = tc(&format!("{t1}}}"), "tongcheng").unwrap();
        assert_eq!((a.value, a.payments), (1, [1, 0, 0, -1]));
        let a = tc(&format!(r#"{t1},"piao":[1,0,0,2]}}"#), "tongcheng").unwrap();
        assert_eq!(a.payments, [4, 0, 0, -4]);
        // T2: seven pairs self-drawn, one flower: 5 from each; the quad version 8 each.
        let a = tc(
            r#"{"concealed":"11m33m55p77p22s88s4z","win_tile":"4z","winner":0,"flowers":1,"green_flowers":true}"#,
            "tongcheng-dianpao",
        )
        .unwrap();
        assert_eq!(a.payments, [15, -5, -5, -5]);
        let a = tc(
            r#"{"concealed":"2222p11m33m66s88s7z","win_tile":"7z","winner":0}"#,
            "tongcheng-dianpao",
        )
        .unwrap();
        assert_eq!((a.value, a.payments), (4, [24, -8, -8, -8]));
        // T3: B (seat 1) robs A's (seat 0) kong of 5m: 3 from A.
        let a = tc(
            r#"{"concealed":"123s456s789s22z46m","win_tile":"5m","winner":1,"discarder":0,"robbing_kong":true}"#,
            "tongcheng-dianpao",
        )
        .unwrap();
        assert_eq!(a.payments, [-3, 3, 0, 0]);
        // No chow, no wild under 点炮, a held 发 with 补花 on.
        assert!(
            tc(r#"{"concealed":"123m456m111z5s","melds":[{"kind":"chow","tiles":"789p"}],"win_tile":"5s"}"#, "tongcheng")
                .unwrap_err()
                .contains("no chow")
        );
        assert!(
            tc(
                r#"{"concealed":"11m33m55p77p22s88s6z","win_tile":"6z","green_flowers":true}"#,
                "tongcheng"
            )
            .is_err()
        );
    }

    #[test]
    fn worked_example_t5_through_json() {
        let line = r#"{"concealed":"123m456m789s8p5z","melds":[{"kind":"kong","tiles":"3333s","concealed":true}],"win_tile":"5z","winner":0,"flowers":2,"indicator":"7p","paofeng":true}"#;
        let a = tc(line, "tongcheng-paofeng").unwrap();
        assert_eq!((a.value, a.payments), (6, [18, -6, -6, -6]));
        let plain = line.replace(r#","paofeng":true"#, "");
        assert_eq!(
            tc(&plain, "tongcheng-paofeng").unwrap().payments,
            [12, -4, -4, -4]
        );
        // Self-draw only; the indicator is required.
        let discard = line.replace(r#""winner":0"#, r#""winner":0,"discarder":2"#);
        assert!(tc(&discard, "tongcheng-paofeng").is_err());
        let no_indicator = line.replace(r#","indicator":"7p""#, "");
        assert!(
            tc(&no_indicator, "tongcheng-paofeng")
                .unwrap_err()
                .contains("indicator")
        );
    }
}
