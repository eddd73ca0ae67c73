//! The render-ready models the shells draw, and their conversions from the core's types.
//! Everything here is plain data: strings in tile notation plus names, so a shell never needs
//! to know the core's encodings.

use tongcheng_core::game::{
    Action, Decision, DecisionKind, Discard, Event, HandResult, SeatView, TableMeld,
};
use tongcheng_core::hand::{KongKind, MeldKind};
use tongcheng_core::hint::Hint;
use tongcheng_core::tile::Tile;

use crate::TongchengError;

/// One tile, ready to draw. Kept small (the table holds a hundred of them and crosses the
/// boundary on every change); names for accessibility come from [`tile_names`].
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct TileModel {
    /// Notation, e.g. "5m", "7z", "1f".
    pub code: String,
    /// The Unicode mahjong glyph (U+1F000 block).
    pub glyph: String,
    /// "m", "p", "s", "z" or "f": the shells colour by suit.
    pub suit: String,
}

impl TileModel {
    pub fn of(t: Tile) -> TileModel {
        TileModel {
            code: t.to_string(),
            glyph: glyph(t).to_string(),
            suit: t.suit().letter().to_string(),
        }
    }
}

/// A tile's names, for labels and screen readers.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct TileNames {
    /// Chinese, e.g. 五万.
    pub zh: String,
    /// English, e.g. "5 Characters".
    pub en: String,
}

/// The names of the tile written `code` in notation.
#[uniffi::export]
pub fn tile_names(code: String) -> Result<TileNames, TongchengError> {
    let t = tile(&code)?;
    Ok(TileNames {
        zh: t.name_zh().to_string(),
        en: t.name_en(),
    })
}

/// The Unicode mahjong tile for `t`.
pub fn glyph(t: Tile) -> char {
    let r = t.rank() as u32 - 1;
    let code = match t.suit() {
        tongcheng_core::Suit::Characters => 0x1F007 + r,
        tongcheng_core::Suit::Bamboo => 0x1F010 + r,
        tongcheng_core::Suit::Dots => 0x1F019 + r,
        tongcheng_core::Suit::Honors => [
            0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004,
        ][r as usize],
        tongcheng_core::Suit::Flowers => [
            0x1F026, 0x1F027, 0x1F028, 0x1F029, 0x1F022, 0x1F023, 0x1F024, 0x1F025,
        ][r as usize],
    };
    char::from_u32(code).unwrap_or('?')
}

fn tile(code: &str) -> Result<Tile, TongchengError> {
    code.parse::<Tile>()
        .map_err(|e| TongchengError::InvalidInput {
            message: e.to_string(),
        })
}

/// An action the player can take, as the shells send it.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum ActionModel {
    Discard {
        tile: String,
    },
    /// Chow into the run starting at `low`.
    Chow {
        low: String,
    },
    Pung,
    Kong,
    ConcealedKong {
        tile: String,
    },
    AddedKong {
        tile: String,
    },
    Win,
    Pass,
}

impl ActionModel {
    pub fn of(a: Action) -> ActionModel {
        match a {
            Action::Discard(t) => ActionModel::Discard {
                tile: t.to_string(),
            },
            Action::Chow(t) => ActionModel::Chow { low: t.to_string() },
            Action::Pung => ActionModel::Pung,
            Action::Kong => ActionModel::Kong,
            Action::ConcealedKong(t) => ActionModel::ConcealedKong {
                tile: t.to_string(),
            },
            Action::AddedKong(t) => ActionModel::AddedKong {
                tile: t.to_string(),
            },
            Action::Win => ActionModel::Win,
            Action::Pass => ActionModel::Pass,
        }
    }

    pub fn to_core(&self) -> Result<Action, TongchengError> {
        Ok(match self {
            ActionModel::Discard { tile: t } => Action::Discard(tile(t)?),
            ActionModel::Chow { low } => Action::Chow(tile(low)?),
            ActionModel::Pung => Action::Pung,
            ActionModel::Kong => Action::Kong,
            ActionModel::ConcealedKong { tile: t } => Action::ConcealedKong(tile(t)?),
            ActionModel::AddedKong { tile: t } => Action::AddedKong(tile(t)?),
            ActionModel::Win => Action::Win,
            ActionModel::Pass => Action::Pass,
        })
    }
}

/// A meld on the table; `tiles` is empty for another seat's face-down kong.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct MeldModel {
    /// "chow", "pung", "kong", "concealed_kong" or "added_kong".
    pub kind: String,
    pub tiles: Vec<TileModel>,
    pub claimed: Option<TileModel>,
    pub from_seat: Option<u8>,
    /// 翻财神: how many of `tiles` (those showing the wild's face) are 白 playing that face;
    /// draw them as 白.
    pub whites: u8,
}

impl MeldModel {
    pub fn of(m: &TableMeld) -> MeldModel {
        let kind = match m.kind {
            MeldKind::Chow => "chow",
            MeldKind::Pung => "pung",
            MeldKind::Kong(KongKind::Exposed) => "kong",
            MeldKind::Kong(KongKind::Concealed) => "concealed_kong",
            MeldKind::Kong(KongKind::Added) => "added_kong",
        };
        let tiles = match m.tile {
            None => Vec::new(),
            Some(t) => match m.kind {
                MeldKind::Chow => (0..3)
                    .filter_map(|d| t.offset(d))
                    .map(TileModel::of)
                    .collect(),
                MeldKind::Pung => vec![TileModel::of(t); 3],
                MeldKind::Kong(_) => vec![TileModel::of(t); 4],
            },
        };
        MeldModel {
            kind: kind.into(),
            tiles,
            claimed: m.claimed.map(TileModel::of),
            from_seat: m.from.map(|s| s.0),
            whites: m.whites,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct DiscardModel {
    pub tile: TileModel,
    /// Taken into another seat's meld (drawn greyed out).
    pub claimed: bool,
}

impl DiscardModel {
    fn of(d: &Discard) -> DiscardModel {
        DiscardModel {
            tile: TileModel::of(d.tile),
            claimed: d.claimed,
        }
    }
}

/// One seat as the human sees it.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct SeatModel {
    pub seat: u8,
    /// "E", "S", "W" or "N".
    pub wind: String,
    pub is_you: bool,
    pub is_dealer: bool,
    pub is_turn: bool,
    /// Running match score of the player in this seat.
    pub score: i32,
    pub concealed_count: u32,
    pub melds: Vec<MeldModel>,
    pub discards: Vec<DiscardModel>,
    pub flowers: Vec<TileModel>,
}

/// The decision the human must make now.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct PendingModel {
    /// "turn", "claim" or "rob_kong".
    pub kind: String,
    /// The discard (or kong tile) in question, for claims.
    pub tile: Option<TileModel>,
    pub legal: Vec<ActionModel>,
    pub time_limit_secs: u32,
    /// What to send when the time runs out.
    pub on_timeout: ActionModel,
}

impl PendingModel {
    pub fn of(d: &Decision) -> PendingModel {
        let (kind, tile) = match d.kind {
            DecisionKind::Turn => ("turn", None),
            DecisionKind::Claim { tile } => ("claim", Some(TileModel::of(tile))),
            DecisionKind::RobKong { tile } => ("rob_kong", Some(TileModel::of(tile))),
        };
        PendingModel {
            kind: kind.into(),
            tile,
            legal: d.legal.iter().copied().map(ActionModel::of).collect(),
            time_limit_secs: d.limit_secs,
            on_timeout: ActionModel::of(d.on_timeout),
        }
    }
}

/// One fan of a breakdown.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct FanModel {
    pub id: u8,
    pub zh: String,
    pub en: String,
    pub points: u32,
    pub count: u32,
}

/// How a hand ended.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct ResultModel {
    pub winner: Option<u8>,
    pub discarder: Option<u8>,
    pub win_tile: Option<TileModel>,
    pub self_drawn: bool,
    pub fans: Vec<FanModel>,
    pub total: u32,
    /// Score change per seat.
    pub deltas: Vec<i32>,
    /// Every hand revealed, sorted.
    pub hands: Vec<Vec<TileModel>>,
}

impl ResultModel {
    pub fn of(r: &HandResult) -> ResultModel {
        ResultModel {
            winner: r.winner.map(|s| s.0),
            discarder: r.discarder.map(|s| s.0),
            win_tile: r.win_tile.map(TileModel::of),
            self_drawn: r.self_drawn,
            fans: r
                .score
                .as_ref()
                .map(|s| {
                    s.fans
                        .iter()
                        .map(|f| FanModel {
                            id: f.id,
                            zh: f.name().to_string(),
                            en: f.en().to_string(),
                            points: f.points,
                            count: f.count,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            total: r.score.as_ref().map_or(0, |s| s.total),
            deltas: r.deltas.to_vec(),
            hands: r
                .hands
                .iter()
                .map(|h| h.iter().copied().map(TileModel::of).collect())
                .collect(),
        }
    }
}

/// Everything the table screen draws.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct TableModel {
    /// 1-based number of the hand in the match.
    pub hand_number: u32,
    pub prevalent_wind: String,
    pub wall_remaining: u32,
    pub your_seat: u8,
    pub seats: Vec<SeatModel>,
    /// Your concealed tiles, sorted, without the drawn tile.
    pub hand: Vec<TileModel>,
    /// The tile you just drew, drawn apart.
    pub drawn: Option<TileModel>,
    pub pending: Option<PendingModel>,
    pub finished: bool,
    pub result: Option<ResultModel>,
    pub match_finished: bool,
}

pub fn table(
    v: &SeatView,
    scores: [i32; 4],
    hand_number: u32,
    result: Option<&HandResult>,
    match_finished: bool,
) -> TableModel {
    TableModel {
        hand_number,
        prevalent_wind: v.prevalent.to_string(),
        wall_remaining: v.wall_remaining as u32,
        your_seat: v.seat.0,
        seats: v
            .seats
            .iter()
            .map(|s| SeatModel {
                seat: s.seat.0,
                wind: s.wind.to_string(),
                is_you: s.seat == v.seat,
                is_dealer: s.seat == v.dealer,
                is_turn: v.turn == Some(s.seat),
                score: scores[s.seat.index()],
                concealed_count: s.concealed_count as u32,
                melds: s.melds.iter().map(MeldModel::of).collect(),
                discards: s.discards.iter().map(DiscardModel::of).collect(),
                flowers: s.flowers.iter().copied().map(TileModel::of).collect(),
            })
            .collect(),
        hand: v.hand.iter().copied().map(TileModel::of).collect(),
        drawn: v.drawn.map(TileModel::of),
        pending: v.decision.as_ref().map(PendingModel::of),
        finished: v.finished,
        result: result.map(ResultModel::of),
        match_finished,
    }
}

/// A table event, as the listener receives it.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct EventModel {
    /// "dealt", "drew", "flower", "discarded", "claimed", "kong", "adding_kong", "won",
    /// "draw_game".
    pub kind: String,
    pub seat: Option<u8>,
    /// The tile involved, when this seat may know it.
    pub tile: Option<TileModel>,
    /// A one-line description for a log or accessibility.
    pub text: String,
}

impl EventModel {
    pub fn of(e: &Event) -> EventModel {
        let (kind, seat, tile, text) = match e {
            Event::DiceRolled { seat, dice, level } => (
                "dice_rolled",
                Some(*seat),
                None,
                format!(
                    "{seat} rolls {} and {} for the dealer level: {level}",
                    dice[0], dice[1]
                ),
            ),
            Event::Dealt { seat, .. } => ("dealt", Some(*seat), None, format!("{seat} is dealt")),
            Event::Drew { seat, tile, .. } => (
                "drew",
                Some(*seat),
                *tile,
                match tile {
                    Some(t) => format!("{seat} draws {t}"),
                    None => format!("{seat} draws"),
                },
            ),
            Event::Flower { seat, tile } => (
                "flower",
                Some(*seat),
                Some(*tile),
                format!("{seat} sets aside flower {t}", t = tile),
            ),
            Event::Discarded { seat, tile } => (
                "discarded",
                Some(*seat),
                Some(*tile),
                format!("{seat} discards {tile}"),
            ),
            Event::Claimed { seat, from, meld } => (
                "claimed",
                Some(*seat),
                meld.claimed,
                format!("{seat} claims from {from}: {}", MeldModel::of(meld).kind),
            ),
            Event::Kong { seat, meld } => (
                "kong",
                Some(*seat),
                meld.tile,
                format!("{seat} declares a kong"),
            ),
            Event::AddingKong { seat, tile } => (
                "adding_kong",
                Some(*seat),
                Some(*tile),
                format!("{seat} adds {tile} to a pung"),
            ),
            Event::Won {
                seat, tile, total, ..
            } => (
                "won",
                Some(*seat),
                Some(*tile),
                format!("{seat} wins on {tile} for {total} points"),
            ),
            Event::DrawGame => (
                "draw_game",
                None,
                None,
                "the wall is exhausted: a draw".to_string(),
            ),
        };
        EventModel {
            kind: kind.into(),
            seat: seat.map(|s| s.0),
            tile: tile.map(TileModel::of),
            text,
        }
    }
}

/// One ranked discard suggestion.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct DiscardHintModel {
    pub tile: TileModel,
    pub shanten: i8,
    /// Useful tile kinds in notation.
    pub useful: String,
    pub live: u32,
    pub fans: Vec<String>,
    pub reason: String,
}

/// Advice for the pending decision.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct HintModel {
    pub recommended: Option<ActionModel>,
    /// For a turn: every discard ranked, best first.
    pub discards: Vec<DiscardHintModel>,
    pub reason: String,
}

impl HintModel {
    pub fn of(h: &Hint) -> HintModel {
        match h {
            Hint::Win { reason } => HintModel {
                recommended: Some(ActionModel::Win),
                discards: vec![],
                reason: reason.clone(),
            },
            Hint::Turn {
                recommended,
                discards,
            } => HintModel {
                recommended: Some(ActionModel::of(*recommended)),
                reason: discards
                    .first()
                    .map(|d| d.reason.clone())
                    .unwrap_or_default(),
                discards: discards
                    .iter()
                    .map(|d| DiscardHintModel {
                        tile: TileModel::of(d.tile),
                        shanten: d.shanten,
                        useful: d.useful.clone(),
                        live: d.live,
                        fans: d.fans.clone(),
                        reason: d.reason.clone(),
                    })
                    .collect(),
            },
            Hint::Claim {
                recommended,
                reason,
            } => HintModel {
                recommended: Some(ActionModel::of(*recommended)),
                discards: vec![],
                reason: reason.clone(),
            },
        }
    }
}
