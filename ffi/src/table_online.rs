//! `OnlineSession`: a seat at a server-hosted table, for the phone shells. Mapping only: the
//! session, its stream and its fairness checks are `tongcheng-client`'s
//! ([`tongcheng_client::OnlineSession`]). Calls block (`nextUpdate` up to its timeout):
//! shells call them off the UI thread.

use std::sync::Arc;
use std::time::Duration;

use tongcheng_client::{OnlineOptions, OnlineUpdate};
use tongcheng_core::protocol::PlayerInfo;
use tongcheng_core::seat::Seat;

use crate::TongchengError;
use crate::model::{
    ActionModel, ClockShown, EventModel, HintModel, PendingModel, TableModel, table,
};
use crate::online::OnlineClient;

/// Something that happened at the online table, in order.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum OnlineUpdateModel {
    Joined {
        table: String,
        /// Your player slot (0–3).
        player: u8,
        /// The players' names, bots marked "(bot)".
        players: Vec<String>,
        resumed: bool,
    },
    /// A new hand's wall is committed; your random contribution is on its way.
    Committed {
        hand: u32,
    },
    Event {
        hand: u32,
        event: EventModel,
    },
    /// Your decision: answer with `act` (the table model has it too).
    Decision {
        pending: PendingModel,
    },
    AutoPlay {
        on: bool,
    },
    /// Another person took a seat: who sits at the table now (bots marked), by player slot.
    Players {
        players: Vec<String>,
    },
    /// 飘 is asked before hand `hand` starts (the rules ask it before every hand).
    PiaoAsked {
        hand: u32,
    },
    /// Every seat's 飘 on hand `hand`, by seat.
    Piao {
        hand: u32,
        stakes: Vec<u8>,
    },
    /// A hand ended. `fair` is false when its wall does not verify; `problem` says why.
    HandEnd {
        hand: u32,
        your_seat: u8,
        fair: bool,
        problem: Option<String>,
        /// The hand's record (with its wall proof), for the history store.
        record_json: String,
    },
    /// Final scores by player slot.
    MatchEnd {
        scores: Vec<i32>,
    },
    /// 下一桌: one's table in a tournament round (`state`: "seated", "bye", "out",
    /// "finished", "cancelled"; "commit" is answered by the session itself).
    NextTable {
        tournament: String,
        round: u32,
        state: String,
        table: Option<String>,
        server: String,
    },
    /// An error frame from the server (stable `code`, e.g. "stale_decision").
    Error {
        code: String,
        message: String,
    },
    Disconnected {
        reason: String,
    },
}

/// A seat at an online table.
#[derive(uniffi::Object)]
pub struct OnlineSession {
    inner: tongcheng_client::OnlineSession,
}

impl std::fmt::Debug for OnlineSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

/// The players' names by slot, bots marked.
fn names(players: Vec<PlayerInfo>) -> Vec<String> {
    players
        .into_iter()
        .map(|p| {
            if p.person {
                p.name
            } else {
                format!("{} (bot)", p.name)
            }
        })
        .collect()
}

fn update(u: OnlineUpdate, you: Option<Seat>) -> OnlineUpdateModel {
    match u {
        OnlineUpdate::Joined {
            table,
            player,
            players,
            resumed,
            ..
        } => OnlineUpdateModel::Joined {
            table,
            player,
            players: names(players),
            resumed,
        },
        OnlineUpdate::Players { players } => OnlineUpdateModel::Players {
            players: names(players),
        },
        OnlineUpdate::Committed { hand } => OnlineUpdateModel::Committed { hand },
        OnlineUpdate::Event { hand, event, .. } => OnlineUpdateModel::Event {
            hand,
            event: EventModel::seen(&event, you, &|s: Seat| {
                if Some(s) == you {
                    "You".into()
                } else {
                    s.to_string()
                }
            }),
        },
        OnlineUpdate::Decision { decision, .. } => OnlineUpdateModel::Decision {
            pending: PendingModel::of(&decision),
        },
        OnlineUpdate::AutoPlay { on } => OnlineUpdateModel::AutoPlay { on },
        OnlineUpdate::PiaoAsked { hand } => OnlineUpdateModel::PiaoAsked { hand },
        OnlineUpdate::Piao { hand, stakes } => OnlineUpdateModel::Piao {
            hand,
            stakes: stakes.to_vec(),
        },
        OnlineUpdate::HandEnd {
            hand,
            record,
            seat,
            fair,
        } => OnlineUpdateModel::HandEnd {
            hand,
            your_seat: seat.0,
            fair: fair.is_ok(),
            problem: fair.err().map(|e| e.to_string()),
            record_json: record.to_json(),
        },
        OnlineUpdate::MatchEnd { scores } => OnlineUpdateModel::MatchEnd {
            scores: scores.to_vec(),
        },
        OnlineUpdate::Error { code, message } => OnlineUpdateModel::Error {
            code: serde_json::to_value(code)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            message,
        },
        OnlineUpdate::NextTable(n) => OnlineUpdateModel::NextTable {
            state: serde_json::to_value(n.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            tournament: n.tournament,
            round: n.round,
            table: n.table,
            server: n.server,
        },
        OnlineUpdate::Disconnected { reason } => OnlineUpdateModel::Disconnected { reason },
    }
}

#[uniffi::export]
impl OnlineClient {
    /// Sits down at an online table with this client's session (log in first): `table` to
    /// join or make (none: a table of one's own), `people` a new table waits for (1–4, bots
    /// take the rest), `rules` a preset name for a new table.
    pub fn play(
        &self,
        table: Option<String>,
        people: u8,
        rules: Option<String>,
    ) -> Result<Arc<OnlineSession>, TongchengError> {
        let token = self.token().ok_or_else(|| TongchengError::NotLoggedIn {
            code: None,
            detail: "log in before playing online".into(),
        })?;
        let inner = tongcheng_client::OnlineSession::connect(
            &self.server(),
            &token,
            OnlineOptions {
                table,
                people: Some(people),
                rules,
                capture_frames: false,
            },
        )?;
        Ok(Arc::new(OnlineSession { inner }))
    }
}

#[uniffi::export]
impl OnlineSession {
    /// The next update, waiting up to `timeout_ms`; `None` when nothing happened.
    pub fn next_update(&self, timeout_ms: u64) -> Option<OnlineUpdateModel> {
        let u = self.inner.next_update(Duration::from_millis(timeout_ms))?;
        Some(update(u, self.inner.table().map(|v| v.seat)))
    }

    /// Answers the pending decision. Not legal now: `IllegalAction`, nothing sent.
    pub fn act(&self, action: ActionModel) -> Result<(), TongchengError> {
        let action = action.to_core()?;
        self.inner
            .act(action)
            .map_err(|e| TongchengError::IllegalAction {
                detail: e.to_string(),
            })
    }

    /// The table as you last saw it (at your last decision); scores are by player slot in
    /// `scores()`, not here. The time left is the server's clock's, as of now.
    pub fn table(&self) -> Option<TableModel> {
        let v = self.inner.table()?;
        let clock = ClockShown {
            remaining_ms: self.inner.time_left().map(|d| d.as_millis() as u64),
            auto_play: self.inner.auto_play(),
            ..ClockShown::default()
        };
        Some(table(
            &v,
            [0; 4],
            self.inner.hand() + 1,
            None,
            self.inner.is_over(),
            clock,
        ))
    }

    pub fn hint(&self) -> Option<HintModel> {
        self.inner.hint().map(|h| HintModel::of(&h))
    }

    /// Running scores by player slot.
    pub fn scores(&self) -> Vec<i32> {
        self.inner.scores().to_vec()
    }

    pub fn is_over(&self) -> bool {
        self.inner.is_over()
    }

    /// Hands whose walls verified, and hands that did not.
    pub fn hands_verified(&self) -> u32 {
        self.inner.stats().hands_verified
    }

    pub fn hands_unfair(&self) -> u32 {
        self.inner.stats().hands_unfair
    }

    /// After a `Disconnected` update: takes the seat back (missed events, then the table).
    pub fn reconnect(&self) -> Result<(), TongchengError> {
        Ok(self.inner.reconnect()?)
    }
}
