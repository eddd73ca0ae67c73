//! The render-ready models the shells draw, and their conversions from the core's types.
//! Everything here is plain data: strings in tile notation plus names, so a shell never needs
//! to know the core's encodings.

use tongcheng_core::describe;
use tongcheng_core::game::{
    Action, Decision, DecisionKind, Discard, Event, HandResult, SeatView, TableMeld,
};
use tongcheng_core::hand::{KongKind, MeldKind};
use tongcheng_core::hint::Hint;
use tongcheng_core::seat::Seat;
use tongcheng_core::tile::{Tile, to_notation};

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
    /// English, e.g. "5 of Characters".
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

/// The Unicode mahjong tile for `t` (the core's table, shared with the terminal).
pub use tongcheng_core::describe::glyph;

fn tile(code: &str) -> Result<Tile, TongchengError> {
    code.parse::<Tile>()
        .map_err(|e| TongchengError::InvalidInput {
            detail: e.to_string(),
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

/// What kind of meld.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum MeldKindModel {
    Chow,
    Pung,
    /// 明杠 on a discard.
    Kong,
    /// 暗杠.
    ConcealedKong,
    /// 补杠.
    AddedKong,
}

/// A meld on the table; `tiles` is empty for another seat's face-down kong.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct MeldModel {
    pub kind: MeldKindModel,
    pub tiles: Vec<TileModel>,
    pub claimed: Option<TileModel>,
    pub from_seat: Option<u8>,
    /// 翻财神: how many of the meld's tiles are 白 playing the wild's face (already listed
    /// as 白 in `tiles`).
    pub whites: u8,
}

impl MeldModel {
    /// The meld as it lies; `wild` is the 财神 face, whose 白 stand-ins are listed as 白.
    pub fn of(m: &TableMeld, wild: Option<Tile>) -> MeldModel {
        let kind = match m.kind {
            MeldKind::Chow => MeldKindModel::Chow,
            MeldKind::Pung => MeldKindModel::Pung,
            MeldKind::Kong(KongKind::Exposed) => MeldKindModel::Kong,
            MeldKind::Kong(KongKind::Concealed) => MeldKindModel::ConcealedKong,
            MeldKind::Kong(KongKind::Added) => MeldKindModel::AddedKong,
        };
        MeldModel {
            kind,
            tiles: describe::meld_tiles_laid(m, wild)
                .into_iter()
                .map(TileModel::of)
                .collect(),
            claimed: m.claimed.map(TileModel::of),
            from_seat: m.from.map(|s| s.0),
            whites: m.whites,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct DiscardModel {
    /// `None` for another seat's discard laid face down (暗牌): draw a tile back.
    pub tile: Option<TileModel>,
    /// Taken into another seat's meld (drawn greyed out).
    pub claimed: bool,
}

impl DiscardModel {
    fn of(d: &Discard) -> DiscardModel {
        DiscardModel {
            tile: d.tile.map(TileModel::of),
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

/// What a pending decision is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum DecisionKindModel {
    /// Your turn: discard, kong or win.
    Turn,
    /// Another seat's discard: claim it or pass.
    Claim,
    /// Another seat is adding to a pung: rob it (抢杠和) or pass.
    RobKong,
}

/// The decision the human must make now.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct PendingModel {
    pub kind: DecisionKindModel,
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
            DecisionKind::Turn => (DecisionKindModel::Turn, None),
            DecisionKind::Claim { tile } => (DecisionKindModel::Claim, Some(TileModel::of(tile))),
            DecisionKind::RobKong { tile } => {
                (DecisionKindModel::RobKong, Some(TileModel::of(tile)))
            }
        };
        PendingModel {
            kind,
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
    /// The scorer the fan's id belongs to: "mcr" or "hangzhou".
    pub scorer: String,
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
    /// 一炮多响: every winner when several won on one discard (the first is `winner`);
    /// empty otherwise.
    pub winners: Vec<u8>,
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
            winners: r.winners.iter().map(|s| s.0).collect(),
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
                            scorer: f.scorer.name().to_string(),
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
    /// The wild (财神) under Hangzhou rules: name it on the table and mark it in the hand.
    pub wild: Option<TileModel>,
    /// 翻财神: the tile turned up to choose the wild.
    pub wild_indicator: Option<TileModel>,
    /// When your pending decision times out, on the clock the shell passes in (offline); none
    /// when it is untimed or there is none. The table plays the timeout itself: the shell only
    /// draws the countdown.
    pub deadline_ms: Option<u64>,
    /// Time left for it, as of the time last passed in (online: as of now).
    pub remaining_ms: Option<u64>,
    /// Your bank time left (时间银行: spent when a decision runs over its limit).
    pub bank_ms: u64,
    /// 托管: your seat plays itself (after two timeouts in a row, or asked for) until you take
    /// it back.
    pub auto_play: bool,
}

/// The person's clock as the table screen draws it: the core table's (offline) or the
/// server's (online).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockShown {
    pub deadline_ms: Option<u64>,
    pub remaining_ms: Option<u64>,
    pub bank_ms: u64,
    pub auto_play: bool,
}

pub fn table(
    v: &SeatView,
    scores: [i32; 4],
    hand_number: u32,
    result: Option<&HandResult>,
    match_finished: bool,
    clock: ClockShown,
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
                melds: s.melds.iter().map(|m| MeldModel::of(m, v.wild)).collect(),
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
        wild: v.wild.map(TileModel::of),
        wild_indicator: v.wild_indicator.map(TileModel::of),
        deadline_ms: clock.deadline_ms,
        remaining_ms: clock.remaining_ms,
        bank_ms: clock.bank_ms,
        auto_play: clock.auto_play,
    }
}

/// What kind of event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum EventKind {
    /// 笃老: a new dealer's dice for his starting level.
    DiceRolled,
    Dealt,
    Drew,
    Flower,
    Discarded,
    Claimed,
    Kong,
    AddingKong,
    Won,
    /// 荒牌: the wall ran out.
    DrawGame,
}

/// A table event, as the listener receives it.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct EventModel {
    pub kind: EventKind,
    pub seat: Option<u8>,
    /// The tile involved, when this seat may know it.
    pub tile: Option<TileModel>,
    /// A one-line description for a log or accessibility (the core's words, in English).
    pub text: String,
    /// The same in 简体中文 (the viewer is 你; other seats as the names given).
    pub text_zh: String,
    /// A log may leave this event out (a deal, another seat's draw).
    pub quiet: bool,
}

impl EventModel {
    /// "You" for the person's own slot, else "Bot N".
    pub fn seat_name(player: usize, you: usize) -> String {
        if player == you {
            "You".into()
        } else {
            format!("Bot {player}")
        }
    }

    /// The event described with seats by number, as an open replay shows it.
    pub fn of(e: &Event) -> EventModel {
        EventModel::seen(e, None, &|s: Seat| s.to_string())
    }

    /// The event as `viewer` sees it described, seats named by `name`.
    pub fn seen(e: &Event, viewer: Option<Seat>, name: &dyn Fn(Seat) -> String) -> EventModel {
        let (kind, seat, tile) = match e {
            Event::DiceRolled { seat, .. } => (EventKind::DiceRolled, Some(*seat), None),
            Event::Dealt { seat, .. } => (EventKind::Dealt, Some(*seat), None),
            Event::Drew { seat, tile, .. } => (EventKind::Drew, Some(*seat), *tile),
            Event::Flower { seat, tile } => (EventKind::Flower, Some(*seat), Some(*tile)),
            Event::Discarded { seat, tile, .. } => (EventKind::Discarded, Some(*seat), *tile),
            Event::Claimed { seat, meld, .. } => (EventKind::Claimed, Some(*seat), meld.claimed),
            Event::Kong { seat, meld } => (EventKind::Kong, Some(*seat), meld.tile),
            Event::AddingKong { seat, tile } => (EventKind::AddingKong, Some(*seat), Some(*tile)),
            Event::Won { seat, tile, .. } => (EventKind::Won, Some(*seat), Some(*tile)),
            Event::DrawGame => (EventKind::DrawGame, None, None),
        };
        let tile_text = |t: Tile| t.to_string();
        let meld_text = |m: &TableMeld| {
            let tiles = describe::meld_tiles(m);
            if tiles.is_empty() {
                "[face down]".to_string()
            } else {
                to_notation(&tiles)
            }
        };
        let meld_zh = |m: &TableMeld| {
            let tiles = describe::meld_tiles(m);
            if tiles.is_empty() {
                "（扣着）".to_string()
            } else {
                to_notation(&tiles)
            }
        };
        let words = |meld| describe::Words {
            viewer,
            who: name,
            name,
            tile: &tile_text,
            meld,
        };
        let text = describe::event_text(e, &words(&meld_text));
        let text_zh = describe::event_text_zh(e, &words(&meld_zh));
        EventModel {
            kind,
            seat: seat.map(|s| s.0),
            tile: tile.map(TileModel::of),
            text,
            text_zh,
            quiet: match viewer {
                Some(v) => describe::is_quiet(e, v),
                None => matches!(e, Event::Dealt { .. }),
            },
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
    /// The fan target this discard keeps, if any.
    pub target: Option<String>,
    /// Roughly how many points the hand is worth on this line.
    pub points: u32,
    pub reason: String,
    /// For the top choices: why this one is ranked above the next.
    pub versus: Option<String>,
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
            Hint::Win { reason, .. } => HintModel {
                recommended: Some(ActionModel::Win),
                discards: vec![],
                reason: reason.clone(),
            },
            Hint::Turn {
                recommended,
                reason,
                discards,
                ..
            } => HintModel {
                recommended: Some(ActionModel::of(*recommended)),
                reason: reason.clone(),
                discards: discards
                    .iter()
                    .map(|d| DiscardHintModel {
                        tile: TileModel::of(d.tile),
                        shanten: d.shanten,
                        useful: d.useful.clone(),
                        live: d.live,
                        fans: d.fans.clone(),
                        target: d.target.clone(),
                        points: d.points,
                        reason: d.reason.clone(),
                        versus: d.versus.clone(),
                    })
                    .collect(),
            },
            Hint::Claim {
                recommended,
                reason,
                ..
            } => HintModel {
                recommended: Some(ActionModel::of(*recommended)),
                discards: vec![],
                reason: reason.clone(),
            },
        }
    }
}
