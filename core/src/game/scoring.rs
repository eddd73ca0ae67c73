//! The game's bridge to the scorer: builds the scorer's context from the table and keeps the
//! breakdown in a serializable, owned form for results and records.

use serde::{Deserialize, Serialize};

use crate::hand::Meld;
use crate::rules::RuleSet;
use crate::score::{hangzhou, mcr, tongcheng};
use crate::seat::{Seat, Wind};
use crate::tile::{Tile, TileCounts};

/// Which scorer a fan line comes from: with the fan's id, the line's stable key. Ids are
/// numbered per scorer, so a Hangzhou element and a Chinese Official fan never share a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scorer {
    /// Chinese Official (国标): ids 1–81 of `mcr-fans.tsv`, 82 for the 5-point 明暗杠.
    Mcr,
    /// Hangzhou elements: ids from [`hangzhou::ELEMENTS`] (1-based, append-only).
    Hangzhou,
    /// Tongcheng elements: ids from [`tongcheng::ELEMENTS`] (1-based, append-only).
    Tongcheng,
}

impl Scorer {
    /// The key's text form, as the history stores it: `mcr` or `hangzhou`.
    pub fn name(self) -> &'static str {
        match self {
            Scorer::Mcr => "mcr",
            Scorer::Hangzhou => "hangzhou",
            Scorer::Tongcheng => "tongcheng",
        }
    }

    /// The scorer named `s` ([`Scorer::name`]).
    pub fn from_name(s: &str) -> Option<Scorer> {
        match s {
            "mcr" => Some(Scorer::Mcr),
            "hangzhou" => Some(Scorer::Hangzhou),
            "tongcheng" => Some(Scorer::Tongcheng),
            _ => None,
        }
    }

    /// Chinese and English names of fan `id`, or `None` for an id this scorer does not have.
    pub fn fan_names(self, id: u8) -> Option<(&'static str, &'static str)> {
        match self {
            Scorer::Mcr => mcr::fan_by_id(id).map(|f| (f.zh, f.en)),
            Scorer::Hangzhou => hangzhou::ELEMENTS
                .get(usize::from(id).checked_sub(1)?)
                .map(|e| (e.1, e.2)),
            Scorer::Tongcheng => tongcheng::ELEMENTS
                .get(usize::from(id).checked_sub(1)?)
                .map(|e| (e.1, e.2)),
        }
    }
}

/// One fan of a breakdown. Records keep only stable values (scorer, id, points, count);
/// names are looked up for display, so a renamed fan never breaks an old record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FanLine {
    pub scorer: Scorer,
    pub id: u8,
    /// Points per occurrence (Hangzhou: the element's factor or fans).
    pub points: u32,
    pub count: u32,
}

impl FanLine {
    /// Chinese name.
    pub fn name(&self) -> &'static str {
        self.scorer.fan_names(self.id).map_or("?", |n| n.0)
    }

    /// English name.
    pub fn en(&self) -> &'static str {
        self.scorer.fan_names(self.id).map_or("?", |n| n.1)
    }
}

/// The score of a win: its fans, total (flowers included) and whether it reaches the minimum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    let b = mcr::score(&ctx, &rules.mcr).ok()?;
    Some(WinScore {
        fans: b
            .fans
            .iter()
            .map(|f| FanLine {
                scorer: Scorer::Mcr,
                id: f.id,
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
pub(super) fn from_hangzhou(s: &hangzhou::HzScore, valid: bool) -> WinScore {
    WinScore {
        fans: s
            .elements
            .iter()
            .map(|e| FanLine {
                scorer: Scorer::Hangzhou,
                id: hangzhou::element_id(e.key),
                points: e.value,
                count: e.count,
            })
            .collect(),
        total: s.multiplier,
        flowers: 0,
        valid,
    }
}

/// A Tongcheng score in the table's breakdown form: each element a line, `total` what each
/// paying seat pays before 飘.
pub(super) fn from_tongcheng(s: &tongcheng::TcScore, flowers: u8) -> WinScore {
    WinScore {
        fans: s
            .elements
            .iter()
            .map(|&(id, points, count)| FanLine {
                scorer: Scorer::Tongcheng,
                id,
                points,
                count,
            })
            .collect(),
        total: s.per_payer,
        flowers,
        valid: true,
    }
}
