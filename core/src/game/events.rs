//! What each seat may see: events and the seat's view of the table.
//!
//! Hidden information stays hidden by construction: a [`SeatView`] has no field that could
//! hold another seat's concealed tiles or the wall order, and [`Event::for_seat`] blanks every
//! tile a seat may not know (other seats' deals and draws, the face of a concealed kong, and
//! under 暗牌 other seats' discards).

use serde::{Deserialize, Serialize};

use super::{Action, Discard, Game};
use crate::hand::{KongKind, Meld, MeldKind};
use crate::rules::RuleSet;
use crate::seat::{Seat, Wind};
use crate::tile::Tile;

/// A meld as shown on the table: a concealed kong's face is hidden from other seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableMeld {
    pub kind: MeldKind,
    /// `None` for another seat's concealed kong (laid face down).
    pub tile: Option<Tile>,
    pub claimed: Option<Tile>,
    pub from: Option<Seat>,
    /// 翻财神: tiles of the meld that are 白 playing the wild's face (draw them as 白).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub whites: u8,
}

impl TableMeld {
    /// A meld as it lies on the table.
    pub fn of(m: &Meld) -> TableMeld {
        TableMeld {
            kind: m.kind,
            tile: Some(m.tile),
            claimed: m.claimed,
            from: m.from,
            whites: m.whites,
        }
    }

    fn hidden_for_others(mut self) -> TableMeld {
        if self.kind == MeldKind::Kong(KongKind::Concealed) {
            self.tile = None;
        }
        self
    }
}

/// Something that happened at the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// 笃老: the new dealer rolled `dice` for his starting level (`level`), before the deal.
    DiceRolled {
        seat: Seat,
        dice: [u8; 2],
        level: u8,
    },
    /// The deal (13 tiles, the dealer 14, flowers included); `None` for other seats.
    Dealt {
        seat: Seat,
        tiles: Option<Vec<Tile>>,
    },
    /// A draw from the wall (`replacement`: from the far end); the tile only for the drawer,
    /// except flowers, which everyone sees laid out.
    Drew {
        seat: Seat,
        tile: Option<Tile>,
        replacement: bool,
    },
    /// A flower set aside (补花).
    Flower { seat: Seat, tile: Tile },
    /// A discard. The record always holds its tile; under 暗牌 (`face_down`) other seats
    /// are shown `tile: None`.
    Discarded {
        seat: Seat,
        tile: Option<Tile>,
        /// Laid face down (暗牌): only the discarder sees it. Absent in older records.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        face_down: bool,
    },
    /// A chow, pung or kong made on `from`'s discard.
    Claimed {
        seat: Seat,
        from: Seat,
        meld: TableMeld,
    },
    /// A concealed kong, or an added kong that nobody robbed.
    Kong { seat: Seat, meld: TableMeld },
    /// A tile being added to a pung: the moment others may rob it.
    AddingKong { seat: Seat, tile: Tile },
    Won {
        seat: Seat,
        from: Option<Seat>,
        tile: Tile,
        total: u32,
    },
    /// The wall ran out (荒牌).
    DrawGame,
}

impl Event {
    /// The event as `viewer` may see it.
    pub fn for_seat(&self, viewer: Seat) -> Event {
        match self {
            Event::Dealt { seat, .. } if *seat != viewer => Event::Dealt {
                seat: *seat,
                tiles: None,
            },
            Event::Drew {
                seat,
                tile,
                replacement,
            } if *seat != viewer => Event::Drew {
                seat: *seat,
                tile: tile.filter(|t| t.is_flower()),
                replacement: *replacement,
            },
            Event::Discarded {
                seat,
                face_down: true,
                ..
            } if *seat != viewer => Event::Discarded {
                seat: *seat,
                tile: None,
                face_down: true,
            },
            Event::Kong { seat, meld } if *seat != viewer => Event::Kong {
                seat: *seat,
                meld: meld.hidden_for_others(),
            },
            e => e.clone(),
        }
    }
}

/// What a pending decision is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecisionKind {
    /// Your turn: discard, kong or win.
    Turn,
    /// Another seat discarded `tile`: claim it or pass.
    Claim { tile: Tile },
    /// Another seat is adding `tile` to a pung: rob it (抢杠和) or pass.
    RobKong { tile: Tile },
}

/// A decision a seat must make, with its time limit and what happens when time runs out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub kind: DecisionKind,
    pub legal: Vec<Action>,
    pub limit_secs: u32,
    /// The safe default a host applies on timeout.
    pub on_timeout: Action,
}

/// Another seat as a viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatPublic {
    pub seat: Seat,
    pub wind: Wind,
    /// How many concealed tiles it holds (not which).
    pub concealed_count: usize,
    pub melds: Vec<TableMeld>,
    pub discards: Vec<Discard>,
    pub flowers: Vec<Tile>,
}

/// Everything one seat may see, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: Seat,
    pub dealer: Seat,
    pub prevalent: Wind,
    /// Own concealed tiles, sorted, without the drawn tile.
    pub hand: Vec<Tile>,
    /// The tile just drawn, shown apart.
    pub drawn: Option<Tile>,
    /// All four seats' public side, in seat order (own included).
    pub seats: Vec<SeatPublic>,
    pub wall_remaining: usize,
    /// The seat whose turn it is, if a turn is pending.
    pub turn: Option<Seat>,
    /// The discard under claim (or the kong tile that may be robbed), and whose it is.
    pub claim: Option<(Seat, Tile)>,
    /// This seat's pending decision.
    pub decision: Option<Decision>,
    pub finished: bool,
    /// The wild kind (财神), if the rules have wilds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wild: Option<Tile>,
    /// 翻财神: the turned-up tile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wild_indicator: Option<Tile>,
    /// Locked by another seat's wild discard: draw and discard only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub locked: bool,
    /// The tile that plays the wild's natural face (白 under 翻财神, 中 under 跑风).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_in: Option<Tile>,
    /// The flower tile of a 136-tile game (补花 with 发; 跑风's flower): discarding it sets
    /// it aside and draws a replacement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flower_tile: Option<Tile>,
    /// Seats in 跑风 that this seat may know of: everyone's under 明跑, its own under 暗跑.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paofeng: Vec<Seat>,
    /// The dealer's level (老庄), 0 without dealer levels.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dealer_level: u8,
    /// The table's rules: bots and hints score a hand with them (the minimum points, the
    /// scorer's options), never with defaults.
    pub rules: RuleSet,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

pub(super) fn view(g: &Game, viewer: Seat) -> SeatView {
    let mut v = SeatView {
        seat: viewer,
        dealer: viewer,
        prevalent: Wind::East,
        hand: Vec::new(),
        drawn: None,
        seats: Vec::new(),
        wall_remaining: 0,
        turn: None,
        claim: None,
        decision: None,
        finished: false,
        wild: None,
        wild_indicator: None,
        locked: false,
        stand_in: None,
        flower_tile: None,
        paofeng: Vec::new(),
        dealer_level: 0,
        rules: g.rules().clone(),
    };
    refresh_view(g, viewer, &mut v);
    v
}

/// Rewrites `v` as `viewer`'s view of `g`, reusing its vectors: a host or arena that asks
/// for a view at every decision allocates nothing once its views have grown.
pub(super) fn refresh_view(g: &Game, viewer: Seat, v: &mut SeatView) {
    refresh_view_but_decision(g, viewer, v);
    g.decision_into(viewer, &mut v.decision);
}

/// [`refresh_view`] leaving `v.decision` as it is: for a host that has just computed the
/// decision and moves it in (the legal actions are the costly part of a view).
pub(super) fn refresh_view_but_decision(g: &Game, viewer: Seat, v: &mut SeatView) {
    let (turn, drawn) = match g.turn() {
        Some((s, d)) => (Some(s), if s == viewer { d } else { None }),
        None => (None, None),
    };
    v.hand.clear();
    g.concealed(viewer).extend_tiles(&mut v.hand);
    if let Some(i) = drawn.and_then(|d| v.hand.iter().position(|&t| t == d)) {
        v.hand.remove(i);
    }
    v.seats.truncate(4);
    while v.seats.len() < 4 {
        v.seats.push(SeatPublic {
            seat: viewer,
            wind: Wind::East,
            concealed_count: 0,
            melds: Vec::new(),
            discards: Vec::new(),
            flowers: Vec::new(),
        });
    }
    for (p, s) in v.seats.iter_mut().zip(Seat::ALL) {
        p.seat = s;
        p.wind = g.seat_wind(s);
        p.concealed_count = g.concealed(s).total();
        p.melds.clear();
        p.melds.extend(g.melds_of(s).iter().map(|m| {
            let tm = TableMeld::of(m);
            if s == viewer {
                tm
            } else {
                tm.hidden_for_others()
            }
        }));
        p.discards.clear();
        // 暗牌: another seat's discards lie face down.
        let shown = s == viewer || !g.rules().blind_discards;
        p.discards.extend(g.discards_of(s).iter().map(|d| Discard {
            tile: shown.then_some(d.tile),
            claimed: d.claimed,
        }));
        p.flowers.clear();
        p.flowers.extend_from_slice(g.flowers_of(s));
    }
    v.seat = viewer;
    v.dealer = g.setup().dealer;
    v.prevalent = g.setup().prevalent;
    v.drawn = drawn;
    v.wall_remaining = g.wall_remaining();
    v.turn = turn;
    v.claim = g.claim_tile();
    v.finished = g.is_finished();
    v.wild = g.wild();
    v.wild_indicator = g.wild_indicator();
    v.locked = g.locked(viewer);
    v.stand_in = g.stand_in().map(|s| s.0);
    v.flower_tile = g.flower_tile();
    v.paofeng.clear();
    let open = g.rules().paofeng == crate::rules::Paofeng::Open;
    v.paofeng.extend(
        Seat::ALL
            .into_iter()
            .filter(|&s| g.is_paofeng(s) && (open || s == viewer)),
    );
    v.dealer_level = g.dealer_level();
    // Same rules all match long: compared, not cloned, so a refresh stays allocation-free.
    if v.rules != *g.rules() {
        v.rules.clone_from(g.rules());
    }
}
