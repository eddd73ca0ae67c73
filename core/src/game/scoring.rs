//! The game's bridge to the scorer: builds the scorer's context from the table and keeps the
//! breakdown in a serializable, owned form for results and records.

use serde::{Deserialize, Serialize};

use crate::hand::Meld;
use crate::rules::RuleSet;
use crate::score::mcr;
use crate::seat::{Seat, Wind};
use crate::tile::{Tile, TileCounts};

/// One fan of a breakdown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanLine {
    pub id: u8,
    /// Chinese name.
    pub name: String,
    /// English name.
    pub en: String,
    /// Points per occurrence.
    pub points: u32,
    pub count: u32,
}

/// The score of a win: its fans, total (flowers included) and whether it reaches the minimum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinScore {
    pub fans: Vec<FanLine>,
    pub total: u32,
    pub flowers: u8,
    pub valid: bool,
}

pub(super) struct WinQuery<'a> {
    pub concealed: &'a TileCounts,
    pub melds: &'a [Meld],
    pub win: Tile,
    pub self_drawn: bool,
    pub last_copy: bool,
    pub on_kong: bool,
    pub robbing_kong: bool,
    pub last_tile: bool,
    pub seat_wind: Wind,
    pub round_wind: Wind,
    pub flowers: u8,
}

/// Scores the win, or `None` when the tiles are not a complete hand.
pub(super) fn evaluate(rules: &RuleSet, q: &WinQuery) -> Option<WinScore> {
    let tiles = q.concealed.tiles();
    let mut ctx = mcr::WinContext::new(&tiles, q.melds, q.win);
    ctx.self_drawn = q.self_drawn;
    ctx.last_copy = q.last_copy && !q.robbing_kong;
    ctx.on_kong = q.on_kong;
    ctx.robbing_kong = q.robbing_kong;
    ctx.last_tile = q.last_tile;
    ctx.seat_wind = q.seat_wind;
    ctx.round_wind = q.round_wind;
    ctx.flowers = q.flowers.min(mcr::MAX_FLOWERS);
    let mut opts = rules.mcr;
    opts.min_points = rules.min_points;
    let b = mcr::score(&ctx, &opts).ok()?;
    Some(WinScore {
        fans: b
            .fans
            .iter()
            .map(|f| FanLine {
                id: f.id,
                name: f.fan().zh.to_string(),
                en: f.fan().en.to_string(),
                points: f.fan().points as u32,
                count: f.count as u32,
            })
            .collect(),
        total: b.total,
        flowers: b.flowers,
        valid: b.valid,
    })
}

/// Score changes per seat for a win worth `total`.
pub(super) fn payments(total: u32, winner: Seat, discarder: Option<Seat>) -> [i32; 4] {
    mcr::payments(total, winner, discarder)
}

/// A Hangzhou score in the table's breakdown form: each element a line (`points` is its factor
/// or fans), `total` the hand multiplier M.
pub(super) fn from_hangzhou(s: &crate::score::hangzhou::HzScore, valid: bool) -> WinScore {
    WinScore {
        fans: s
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| FanLine {
                id: i as u8,
                name: e.zh.to_string(),
                en: e.en.to_string(),
                points: e.value,
                count: e.count,
            })
            .collect(),
        total: s.multiplier,
        flowers: 0,
        valid,
    }
}
