//! The seat stream: one seat's side of an online table's protocol, with no socket, no clock
//! and no randomness of its own. Frames go in as text with the time; updates for the shell
//! and the frames to send come out. Drivers own the connection: the client crate's blocking
//! session (terminal, FFI) and async seat (load generator), and the app model (whose face,
//! the browser's included, holds the socket), share this one machine.
//!
//! The stream keeps the order: frames carry sequence numbers, a frame already held is
//! dropped and a gap is counted (the tests assert there is none), and a resumed join asks for
//! exactly the frames after the last one held. Every hand is checked for fairness when it
//! ends ([`verify_hand`]): our own random contribution goes out after the server's
//! commitment, and the reveal, the wall seed, the replay and every event we were shown are
//! checked. A mismatch is reported, never hidden.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use super::{
    ClientMsg, ErrorCode, NextTable, NextTableState, PROTOCOL_VERSION, PlayerInfo, RoundTable,
    ServerMsg, verify_hand, verify_replay,
};
use crate::fair::{Bytes32, Commitment, Contribution, FairnessError};
use crate::game::{Action, Decision, Event, SeatView};
use crate::hint::{Hint, hint};
use crate::record::HandRecord;
use crate::rules::RuleSet;
use crate::seat::Seat;

/// Milliseconds on the driver's monotonic clock (any origin).
pub type Millis = u64;

/// How often a quiet connection is pinged, so proxies and the server keep it.
pub const PING_EVERY_MS: Millis = 15_000;

/// What to sit down at.
#[derive(Clone, Debug, Default)]
pub struct OnlineOptions {
    /// The table's id; none: a new table of one's own.
    pub table: Option<String>,
    /// A new table's people (1–4; the server's bots take the other seats).
    pub people: Option<u8>,
    /// A new table's rule-set preset.
    pub rules: Option<String>,
    /// Keep every frame received, as text (tests prove what went over the wire).
    pub capture_frames: bool,
}

/// Something that happened, in order, for the shell to show.
#[derive(Clone, Debug, PartialEq)]
pub enum OnlineUpdate {
    Joined {
        table: String,
        player: u8,
        players: Vec<PlayerInfo>,
        resumed: bool,
        /// The rules the table plays, as it announced them: every hand is checked against
        /// them (a private room's own hands and time limits included).
        rules: Box<RuleSet>,
    },
    /// A new hand's wall is committed (our contribution is already on its way).
    Committed {
        hand: u32,
    },
    Event {
        hand: u32,
        index: u32,
        event: Event,
    },
    /// Our decision: answer with the driver's `act`.
    Decision {
        id: u64,
        decision: Decision,
    },
    AutoPlay {
        on: bool,
    },
    /// Another person took a seat: who sits at the table now, by player slot.
    Players {
        players: Vec<PlayerInfo>,
    },
    /// 飘 is asked before hand `hand` starts: answer with [`SeatStream::piao`].
    PiaoAsked {
        hand: u32,
    },
    /// Every seat's 飘 on hand `hand`, by seat: the hand starts.
    Piao {
        hand: u32,
        stakes: [u8; 4],
    },
    /// A hand ended; `fair` says whether it verified.
    HandEnd {
        hand: u32,
        record: Box<HandRecord>,
        seat: Seat,
        fair: Result<(), FairnessError>,
    },
    MatchEnd {
        scores: [i32; 4],
    },
    /// The answer to [`SeatStream::ask_next_table`]: a commitment (the stream has sent our
    /// contribution with it already), then one's table in the round, a bye, or the end.
    NextTable(Box<NextTable>),
    /// An error frame from the server (the session goes on).
    Error {
        code: ErrorCode,
        message: String,
    },
    /// The connection is gone; the driver's reconnect takes the seat again.
    Disconnected {
        reason: String,
    },
}

/// Counters of the stream, for shells and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// The last stream frame held.
    pub last_seq: u64,
    /// Frames received again (dropped).
    pub duplicates: u64,
    /// Frames that skipped numbers.
    pub gaps: u64,
    pub hands_verified: u32,
    pub hands_unfair: u32,
}

/// Why an answer was not sent.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ActRefused {
    #[error("no decision is pending")]
    NoDecision,
    #[error("{0:?} is not legal now")]
    NotLegal(Action),
}

/// What one frame or tick gave: updates for the shell, frames for the server.
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    pub updates: Vec<OnlineUpdate>,
    pub send: Vec<ClientMsg>,
}

/// One hand as this client saw it, for the fairness check at its end.
#[derive(Debug, Default)]
struct HandSeen {
    hand: u32,
    commitment: Option<Commitment>,
    /// Our contribution, while the server has not refused it (it arrived after the deal:
    /// we were away); a refused one is expected to be absent from the proof.
    contribution: Option<Contribution>,
    refused: bool,
    events: Vec<(u32, Event)>,
    /// 飘 asked of this seat and not answered yet.
    piao_asked: bool,
    /// Every seat's 飘 this hand, by seat, once the server revealed them.
    piao: Option<[u8; 4]>,
}

/// One seat's stream: the state a shell reads, fed by the driver.
#[derive(Debug)]
pub struct SeatStream {
    options: OnlineOptions,
    table: Option<String>,
    player: Option<u8>,
    /// The table's rules as its welcome announced them.
    rules: Option<Box<RuleSet>>,
    /// A tournament round's table, as its welcome said.
    round: Option<Box<RoundTable>>,
    view: Option<SeatView>,
    /// Events of this hand the view reflects: later ones are followed into it
    /// ([`SeatView::follow`]), so the table is never behind what was shown.
    view_events: u32,
    decision: Option<(u64, Decision)>,
    deadline: Option<Millis>,
    auto_play: bool,
    scores: [i32; 4],
    match_over: bool,
    connected: bool,
    stats: StreamStats,
    seen: HandSeen,
    records: Vec<(HandRecord, Seat, Result<(), FairnessError>)>,
    frames: Vec<String>,
    /// Joins asked so far: the first may make a table, later ones resume.
    joins_sent: u64,
    /// Ready goes out as soon as a hand ends (a shell may rather wait for its player).
    auto_ready: bool,
    /// The tournament and round whose table was asked for (its commitment is answered).
    next_asked: Option<(String, u32)>,
    next_ping: Millis,
    nonce: u64,
    /// Our contributions to the walls: ChaCha20 keyed by the driver's entropy, so each is
    /// unpredictable to the server (it sees only outputs) and the stream reads no OS.
    contributions: ChaCha20Rng,
}

impl SeatStream {
    /// A stream whose wall contributions come from `entropy`: 32 bytes of the platform's
    /// secure randomness (the OS's, the browser's `crypto.getRandomValues`). Zeros make
    /// every wall as fair as the server's commitment alone, and the check still runs.
    pub fn new(options: OnlineOptions, entropy: [u8; 32]) -> SeatStream {
        SeatStream {
            contributions: ChaCha20Rng::from_seed(entropy),
            table: options.table.clone(),
            options,
            player: None,
            rules: None,
            round: None,
            view: None,
            view_events: 0,
            decision: None,
            deadline: None,
            auto_play: false,
            scores: [0; 4],
            match_over: false,
            connected: false,
            stats: StreamStats::default(),
            seen: HandSeen::default(),
            records: Vec::new(),
            frames: Vec::new(),
            joins_sent: 0,
            auto_ready: true,
            next_asked: None,
            next_ping: 0,
            nonce: 0,
        }
    }

    /// New entropy for the contributions from now on (a driver's new connection).
    pub fn rekey(&mut self, entropy: [u8; 32]) {
        self.contributions = ChaCha20Rng::from_seed(entropy);
    }

    /// Whether ready is sent by the stream itself when a hand ends (the default), or by the
    /// shell (then it sends `ClientMsg::Ready` when its player is ready).
    pub fn set_auto_ready(&mut self, on: bool) {
        self.auto_ready = on;
    }

    /// The join to send on a new connection: the first one makes or takes the seat, later
    /// ones resume after the last frame held.
    pub fn join(&mut self, now: Millis) -> ClientMsg {
        let first = self.joins_sent == 0;
        self.joins_sent += 1;
        self.next_ping = now + PING_EVERY_MS;
        ClientMsg::Join {
            version: PROTOCOL_VERSION,
            table: self.table.clone(),
            people: self.options.people.filter(|_| first),
            rules: self.options.rules.clone().filter(|_| first),
            after: (!first).then_some(self.stats.last_seq),
        }
    }

    /// 下一桌: asks for one's table in round `round` of `tournament` (on the connection open,
    /// whether or not it has a table). The answers come as [`OnlineUpdate::NextTable`]; the
    /// round's commitment is answered by the stream with a contribution of its own.
    pub fn ask_next_table(&mut self, tournament: &str, round: u32) -> ClientMsg {
        self.next_asked = Some((tournament.to_string(), round));
        ClientMsg::NextTable {
            tournament: tournament.to_string(),
            round,
            commitment: None,
            contribution: None,
        }
    }

    /// Moves this stream to table `table` (a tournament's next, on the same connection):
    /// the last match's state is dropped and the join for the new table is returned. The
    /// connection's keys, pings and settings stay.
    pub fn sit_at(&mut self, table: String, now: Millis) -> ClientMsg {
        let fresh = SeatStream {
            options: OnlineOptions {
                table: Some(table.clone()),
                people: None,
                rules: None,
                capture_frames: self.options.capture_frames,
            },
            table: Some(table),
            connected: self.connected,
            auto_ready: self.auto_ready,
            nonce: self.nonce,
            contributions: self.contributions.clone(),
            ..SeatStream::new(OnlineOptions::default(), [0; 32])
        };
        *self = fresh;
        self.join(now)
    }

    /// The connection ended: by the driver's choice (`reason` none), or lost.
    pub fn disconnected(&mut self, reason: Option<String>) -> Option<OnlineUpdate> {
        self.connected = false;
        reason.map(|reason| OnlineUpdate::Disconnected { reason })
    }

    /// When [`SeatStream::tick`] next has something to send.
    pub fn next_tick(&self) -> Millis {
        self.next_ping
    }

    /// A ping when one is due.
    pub fn tick(&mut self, now: Millis) -> Option<ClientMsg> {
        if now < self.next_ping {
            return None;
        }
        self.next_ping = now + PING_EVERY_MS;
        self.nonce += 1;
        Some(ClientMsg::Ping { nonce: self.nonce })
    }

    /// The answer to the pending decision. Refused here when it is not one of the legal
    /// actions (the server would refuse it too); the engine on the server has the last word.
    pub fn act(&mut self, action: Action) -> Result<ClientMsg, ActRefused> {
        let Some((id, d)) = &self.decision else {
            return Err(ActRefused::NoDecision);
        };
        if !d.legal.contains(&action) {
            return Err(ActRefused::NotLegal(action));
        }
        let msg = ClientMsg::Act {
            decision: *id,
            action,
        };
        self.decision = None;
        Ok(msg)
    }

    /// This hand's 飘, when the server asked for it and it is not answered yet.
    pub fn piao(&mut self, stake: u8) -> Option<ClientMsg> {
        if !std::mem::take(&mut self.seen.piao_asked) {
            return None;
        }
        Some(ClientMsg::Piao {
            hand: self.seen.hand,
            stake,
        })
    }

    /// 飘 is asked of this seat (and not answered yet).
    pub fn piao_asked(&self) -> bool {
        self.seen.piao_asked
    }

    /// Every seat's 飘 this hand, by seat, once revealed.
    pub fn piao_stakes(&self) -> Option<[u8; 4]> {
        self.seen.piao
    }

    /// 托管 on or off, asked of the server (its [`ServerMsg::AutoPlay`] says when it took).
    pub fn set_auto_play(&mut self, on: bool) -> ClientMsg {
        ClientMsg::AutoPlay { on }
    }

    /// Takes one frame received at `now`.
    pub fn receive(&mut self, text: &str, now: Millis) -> Step {
        let mut step = Step::default();
        if self.options.capture_frames {
            self.frames.push(text.to_string());
        }
        let msg = match ServerMsg::parse(text) {
            Ok(m) => m,
            Err(e) => {
                step.updates.push(OnlineUpdate::Error {
                    code: ErrorCode::BadMessage,
                    message: format!("from the server: {e}"),
                });
                return step;
            }
        };
        if let Some(seq) = msg.seq() {
            if seq <= self.stats.last_seq {
                self.stats.duplicates += 1;
                return step;
            }
            if seq != self.stats.last_seq + 1 {
                self.stats.gaps += 1;
            }
            self.stats.last_seq = seq;
        }
        self.take(msg, now, &mut step);
        step
    }

    fn take(&mut self, msg: ServerMsg, now: Millis, step: &mut Step) {
        let updates = &mut step.updates;
        match msg {
            ServerMsg::Welcome {
                table,
                player,
                players,
                resumed,
                rules,
                round,
                ..
            } => {
                self.rules = Some(rules.clone());
                self.round = round;
                self.table = Some(table.clone());
                self.player = Some(player);
                self.connected = true;
                updates.push(OnlineUpdate::Joined {
                    table,
                    player,
                    players,
                    resumed,
                    rules,
                });
            }
            ServerMsg::Players { players } => updates.push(OnlineUpdate::Players { players }),
            ServerMsg::Snapshot(snap) => {
                if let Some(v) = snap.view {
                    self.decision = snap.decision.zip(v.decision.clone());
                    self.view = Some(v);
                    self.view_events = snap.events;
                } else {
                    self.decision = None;
                }
                self.deadline = snap.deadline_ms.map(|ms| now.saturating_add(ms));
                self.scores = snap.scores;
                self.auto_play = snap.auto_play;
                self.match_over = snap.match_over;
                if self.seen.hand != snap.hand {
                    self.seen = HandSeen {
                        hand: snap.hand,
                        ..HandSeen::default()
                    };
                }
                if self.seen.commitment.is_none() {
                    self.seen.commitment = snap.commitment;
                }
                if let Some((id, decision)) = self.decision.clone() {
                    updates.push(OnlineUpdate::Decision { id, decision });
                }
            }
            ServerMsg::Commit {
                hand, commitment, ..
            } => {
                // A tournament table's walls are the round's: no contribution per hand.
                let contribution = self.round.is_none().then(|| {
                    let mut b = [0u8; 32];
                    self.contributions.fill_bytes(&mut b);
                    Bytes32(b)
                });
                self.seen = HandSeen {
                    hand,
                    commitment: Some(commitment),
                    contribution,
                    refused: false,
                    events: Vec::new(),
                    piao_asked: false,
                    piao: None,
                };
                self.view = None;
                self.view_events = 0;
                self.decision = None;
                if let Some(contribution) = contribution {
                    step.send.push(ClientMsg::Contribute { hand, contribution });
                }
                updates.push(OnlineUpdate::Committed { hand });
            }
            ServerMsg::Event {
                hand, index, event, ..
            } => {
                if hand == self.seen.hand {
                    self.seen.events.push((index, event.clone()));
                    if index >= self.view_events
                        && let Some(v) = self.view.as_mut()
                    {
                        v.follow(&event);
                        self.view_events = index + 1;
                    }
                }
                updates.push(OnlineUpdate::Event { hand, index, event });
            }
            ServerMsg::Decision {
                id,
                decision,
                view,
                deadline_ms,
                ..
            } => {
                self.view = Some(*view);
                // A decision's view reflects every event sent before it.
                self.view_events = self.seen.events.last().map_or(0, |(i, _)| i + 1);
                self.decision = Some((id, decision.clone()));
                self.deadline = deadline_ms.map(|ms| now.saturating_add(ms));
                updates.push(OnlineUpdate::Decision { id, decision });
            }
            ServerMsg::AutoPlay { on, .. } => {
                self.auto_play = on;
                updates.push(OnlineUpdate::AutoPlay { on });
            }
            ServerMsg::PiaoAsk {
                hand,
                view,
                deadline_ms,
                ..
            } => {
                if hand == self.seen.hand {
                    // Resent after a reconnect once the stakes are out: nothing to answer.
                    self.seen.piao_asked = self.seen.piao.is_none();
                }
                self.view = Some(*view);
                self.view_events = self.seen.events.last().map_or(0, |(i, _)| i + 1);
                self.decision = None;
                // The server's number: a hostile one must not overflow the clock.
                self.deadline = Some(now.saturating_add(deadline_ms));
                updates.push(OnlineUpdate::PiaoAsked { hand });
            }
            ServerMsg::Piao { hand, stakes, .. } => {
                if hand == self.seen.hand {
                    self.seen.piao = Some(stakes);
                    self.seen.piao_asked = false;
                    if let Some(v) = self.view.as_mut() {
                        v.rules.piao = crate::rules::Piao::Chosen(stakes);
                    }
                }
                updates.push(OnlineUpdate::Piao { hand, stakes });
            }
            ServerMsg::HandEnd(end) => {
                let fair = self.check_hand(&end.record, end.hand, end.seat);
                if fair.is_ok() {
                    self.stats.hands_verified += 1;
                } else {
                    self.stats.hands_unfair += 1;
                }
                self.scores = end.scores;
                self.decision = None;
                self.records
                    .push((end.record.clone(), end.seat, fair.clone()));
                updates.push(OnlineUpdate::HandEnd {
                    hand: end.hand,
                    record: Box::new(end.record),
                    seat: end.seat,
                    fair,
                });
                if self.auto_ready {
                    step.send.push(ClientMsg::Ready);
                }
            }
            ServerMsg::MatchEnd { scores, .. } => {
                self.scores = scores;
                self.match_over = true;
                self.decision = None;
                updates.push(OnlineUpdate::MatchEnd { scores });
            }
            ServerMsg::NextTable(next) => {
                let asked = self
                    .next_asked
                    .as_ref()
                    .is_some_and(|(t, r)| *t == next.tournament && *r <= next.round);
                if next.state == NextTableState::Commit {
                    if let (true, Some(commitment)) = (asked, next.commitment) {
                        let mut b = [0u8; 32];
                        self.contributions.fill_bytes(&mut b);
                        self.next_asked = Some((next.tournament.clone(), next.round));
                        step.send.push(ClientMsg::NextTable {
                            tournament: next.tournament.clone(),
                            round: next.round,
                            commitment: Some(commitment),
                            contribution: Some(Bytes32(b)),
                        });
                    }
                } else if asked {
                    self.next_asked = None;
                }
                updates.push(OnlineUpdate::NextTable(next));
            }
            ServerMsg::Pong { .. } | ServerMsg::Superseded { .. } => {}
            ServerMsg::Error { code, message } => {
                if code == ErrorCode::BadContribution {
                    self.seen.refused = true;
                }
                updates.push(OnlineUpdate::Error { code, message });
            }
        }
    }

    /// The fairness check of the hand that just ended.
    fn check_hand(&self, record: &HandRecord, hand: u32, seat: Seat) -> Result<(), FairnessError> {
        let Some(commitment) = self
            .seen
            .commitment
            .as_ref()
            .filter(|_| self.seen.hand == hand)
        else {
            return Err(FairnessError::Replay(
                "the wall's commitment for this hand was never received".into(),
            ));
        };
        if self.round.is_some() {
            // The round's commitment binds the walls; they are checked when it is revealed.
            return verify_replay(record, seat, &self.seen.events, self.rules.as_deref());
        }
        let refused = self.seen.refused;
        let ours = record
            .fairness
            .as_ref()
            .and_then(|f| f.contributions[seat.index()]);
        if refused && ours.is_some() {
            // Refused, yet "used": the server is not telling the truth.
            return Err(FairnessError::Contribution);
        }
        verify_hand(
            record,
            commitment,
            seat,
            self.seen.contribution.as_ref().filter(|_| !refused),
            &self.seen.events,
            self.rules.as_deref(),
        )
    }

    /// The tournament round this table belongs to, when it is a round's table.
    pub fn round(&self) -> Option<&RoundTable> {
        self.round.as_deref()
    }

    /// The table as this seat last saw it (at its last decision, or the snapshot).
    pub fn view(&self) -> Option<&SeatView> {
        self.view.as_ref()
    }

    /// The pending decision and its id.
    pub fn decision(&self) -> Option<&(u64, Decision)> {
        self.decision.as_ref()
    }

    /// When the pending decision's time runs out, on the driver's clock.
    pub fn deadline(&self) -> Option<Millis> {
        self.deadline
    }

    /// The core's hint for the pending decision.
    pub fn hint(&self) -> Option<Hint> {
        self.decision.as_ref()?;
        self.view.as_ref().and_then(hint)
    }

    /// The hand being played (0-based), or the last one.
    pub fn hand(&self) -> u32 {
        self.seen.hand
    }

    pub fn player(&self) -> Option<u8> {
        self.player
    }

    pub fn table_id(&self) -> Option<&str> {
        self.table.as_deref()
    }

    pub fn scores(&self) -> [i32; 4] {
        self.scores
    }

    pub fn is_over(&self) -> bool {
        self.match_over
    }

    pub fn is_connected(&self) -> bool {
        self.connected
    }

    pub fn auto_play(&self) -> bool {
        self.auto_play
    }

    pub fn stats(&self) -> &StreamStats {
        &self.stats
    }

    /// Every finished hand: its record, our seat in it, and its fairness check.
    pub fn records(&self) -> &[(HandRecord, Seat, Result<(), FairnessError>)] {
        &self.records
    }

    /// Every frame received, as text, when captured.
    pub fn frames(&self) -> &[String] {
        &self.frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, index: u32) -> String {
        ServerMsg::Event {
            seq,
            hand: 0,
            index,
            event: Event::DrawGame,
        }
        .to_json()
    }

    fn commit(seq: u64, hand: u32) -> String {
        ServerMsg::Commit {
            seq,
            hand,
            commitment: Bytes32([hand as u8 + 1; 32]),
            deadline_ms: 100,
        }
        .to_json()
    }

    #[test]
    fn the_stream_drops_doubles_and_counts_gaps() {
        let mut s = SeatStream::new(OnlineOptions::default(), [7; 32]);
        let mut shown = Vec::new();
        for (seq, index) in [(1, 0), (2, 1), (2, 1), (1, 0), (4, 3)] {
            for u in s.receive(&event(seq, index), 0).updates {
                if let OnlineUpdate::Event { index, .. } = u {
                    shown.push(index);
                }
            }
        }
        assert_eq!(s.stats().last_seq, 4);
        assert_eq!(s.stats().duplicates, 2);
        assert_eq!(s.stats().gaps, 1);
        assert_eq!(shown, [0, 1, 3]);
    }

    #[test]
    fn piao_asked_is_answered_once_and_the_stakes_show_when_revealed() {
        use crate::game::{Game, HandSetup};
        let mut s = SeatStream::new(OnlineOptions::default(), [7; 32]);
        s.receive(&commit(1, 0), 0);
        assert!(!s.piao_asked());
        assert_eq!(s.piao(3), None, "nothing is asked yet");
        let rules = RuleSet::tongcheng_dianpao().with_piao_each_hand().unwrap();
        let game = Game::new(HandSetup {
            rules,
            seed: crate::wall::Seed([5; 32]),
            dealer: Seat(0),
            prevalent: crate::seat::Wind::East,
            dealer_level: 0,
        });
        let ask = ServerMsg::PiaoAsk {
            seq: 2,
            hand: 0,
            view: Box::new(game.view(Seat(0))),
            deadline_ms: 15_000,
        };
        let step = s.receive(&ask.to_json(), 1_000);
        assert_eq!(step.updates, [OnlineUpdate::PiaoAsked { hand: 0 }]);
        assert!(
            s.piao_asked() && s.view().is_some(),
            "the dealt hand can be drawn"
        );
        assert_eq!(s.deadline(), Some(16_000));
        assert_eq!(s.piao(2), Some(ClientMsg::Piao { hand: 0, stake: 2 }));
        assert_eq!(s.piao(4), None, "answered once");
        let reveal = ServerMsg::Piao {
            seq: 3,
            hand: 0,
            stakes: [2, 0, 1, 0],
        };
        s.receive(&reveal.to_json(), 1_500);
        assert_eq!(s.piao_stakes(), Some([2, 0, 1, 0]));
        assert_eq!(
            s.view().unwrap().rules.piao,
            crate::rules::Piao::Chosen([2, 0, 1, 0])
        );
        // A new hand forgets them.
        s.receive(&commit(4, 1), 2_000);
        assert_eq!(s.piao_stakes(), None);
    }

    #[test]
    fn a_commitment_is_answered_with_a_fresh_contribution_and_garbage_is_an_error() {
        let mut s = SeatStream::new(OnlineOptions::default(), [7; 32]);
        let step = s.receive(&commit(1, 0), 0);
        let [
            ClientMsg::Contribute {
                hand: 0,
                contribution,
            },
        ] = step.send.as_slice()
        else {
            panic!("{step:?}");
        };
        assert_eq!(s.seen.contribution, Some(*contribution));
        assert_eq!(step.updates, [OnlineUpdate::Committed { hand: 0 }]);
        let garbage = s.receive("{not json", 0);
        assert!(garbage.send.is_empty());
        assert!(matches!(
            garbage.updates.as_slice(),
            [OnlineUpdate::Error {
                code: ErrorCode::BadMessage,
                ..
            }]
        ));
    }

    #[test]
    fn the_first_join_makes_the_table_and_later_ones_resume_after_the_last_frame() {
        let mut s = SeatStream::new(
            OnlineOptions {
                people: Some(2),
                rules: Some("guobiao".into()),
                ..OnlineOptions::default()
            },
            [7; 32],
        );
        let first = s.join(0);
        assert!(matches!(
            first,
            ClientMsg::Join {
                people: Some(2),
                after: None,
                ..
            }
        ));
        s.receive(&event(1, 0), 10);
        s.receive(&event(2, 1), 10);
        let again = s.join(20);
        assert!(matches!(
            again,
            ClientMsg::Join {
                people: None,
                rules: None,
                after: Some(2),
                ..
            }
        ));
    }

    #[test]
    fn pings_fall_due_on_the_drivers_clock_and_answers_need_a_decision() {
        let mut s = SeatStream::new(OnlineOptions::default(), [7; 32]);
        s.join(1_000);
        assert_eq!(s.next_tick(), 1_000 + PING_EVERY_MS);
        assert_eq!(s.tick(1_000 + PING_EVERY_MS - 1), None);
        assert_eq!(
            s.tick(1_000 + PING_EVERY_MS),
            Some(ClientMsg::Ping { nonce: 1 })
        );
        assert_eq!(s.next_tick(), 1_000 + 2 * PING_EVERY_MS);
        assert_eq!(s.act(Action::Pass), Err(ActRefused::NoDecision));
        assert_eq!(s.disconnected(None), None);
        assert!(matches!(
            s.disconnected(Some("gone".into())),
            Some(OnlineUpdate::Disconnected { .. })
        ));
    }
}
