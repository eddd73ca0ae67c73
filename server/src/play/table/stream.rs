//! A person's stream: every frame numbered per player and match, kept (what a reconnect may
//! still need) for resending, and the join that takes a seat or takes it back — the missed
//! frames, then a snapshot of where things stand.

use std::sync::Arc;

use tokio::sync::mpsc;
use tongcheng_core::Seat;
use tongcheng_core::fair::Contribution;
use tongcheng_core::protocol::{ErrorCode, HandEnd, PlayerInfo, ServerMsg, Snapshot};
use tongcheng_core::record::HandRecord;

use super::super::clock;
use super::{Joining, Phase, TableTask};

/// The highest stream number a moved seat continues from: far above any real match's
/// frames, far below where adding to it could overflow.
const MAX_MOVED_SEQ: u64 = 1 << 40;

/// A person's slot (or a bot's, with no account).
pub(super) struct Slot {
    pub(super) account: Option<i64>,
    pub(super) device: i64,
    pub(super) name: String,
    /// The connection now holding the seat.
    pub(super) conn: Option<(u64, mpsc::Sender<String>)>,
    /// The stream's frames a reconnect may still need, by `seq`, in order; the others were
    /// made unnecessary by later frames and are resent as [`ServerMsg::Superseded`].
    outbox: Vec<(u64, Kept)>,
    /// Frames in the stream so far (the last `seq`).
    sent: u64,
    /// The `seq` of the last decision sent, while it may still be answered.
    open_decision: Option<u64>,
    /// The `seq` of this hand's first frame (its commitment).
    hand_start: u64,
    pub(super) contribution: Option<Contribution>,
    /// This hand's 飘, once the person chose it (rules asking it before every hand).
    pub(super) piao: Option<u8>,
    pub(super) ready: bool,
    /// Events of this hand already sent.
    pub(super) sent_events: usize,
    /// The id of the decision last sent, while it is pending (its answer must name it).
    pub(super) decision_sent: Option<u64>,
    /// When that decision was sent (process clock, ms): its answer's think time is kept
    /// for the assist report.
    pub(super) decision_at: u64,
    /// A suspension or ban in force on the account: the seat plays on 托管 and its person's
    /// answers are refused with this frame.
    pub(super) barred: Option<(ErrorCode, String)>,
    /// Restored on this node from another node's checkpoint, not joined here yet: the
    /// client's stream continues from the `seq` it holds.
    pub(super) moved: bool,
}

impl Slot {
    /// Player slot `p` before anyone sits in it (a bot's until a person joins).
    pub(super) fn empty(p: usize) -> Slot {
        Slot {
            account: None,
            device: 0,
            name: format!("bot {p}"),
            conn: None,
            outbox: Vec::new(),
            sent: 0,
            open_decision: None,
            hand_start: 0,
            contribution: None,
            piao: None,
            ready: false,
            sent_events: 0,
            decision_sent: None,
            decision_at: 0,
            barred: None,
            moved: false,
        }
    }

    pub(super) fn person(&self) -> bool {
        self.account.is_some()
    }

    pub(super) fn connected(&self) -> bool {
        self.conn.is_some()
    }

    /// Sends a frame outside the stream (errors, pongs, snapshots).
    pub(super) fn send(&mut self, text: String) {
        if let Some((_, out)) = &self.conn
            && out.try_send(text).is_err()
        {
            // A client that does not read its frames loses the seat's connection (it plays
            // on by itself) rather than making the table buffer without bound.
            self.conn = None;
        }
    }

    /// Appends a frame to the stream, with its `seq`, and sends it.
    pub(super) fn push(&mut self, make: impl FnOnce(u64) -> ServerMsg) {
        if !self.person() {
            return;
        }
        let msg = make(self.sent + 1);
        self.append(msg, None);
    }

    /// Appends a hand's end, its text made from the record's JSON, written once for the
    /// table; the kept copy shares the table's record instead of its text.
    pub(super) fn push_hand_end(
        &mut self,
        hand: u32,
        record: &Arc<HandRecord>,
        record_json: &str,
        scores: [i32; 4],
        seat: Seat,
    ) {
        if !self.person() {
            return;
        }
        let text = HandEnd::frame(self.sent + 1, hand, record_json, scores, seat);
        let kept = Kept::HandEnd {
            hand,
            record: record.clone(),
            scores,
            seat,
        };
        self.append_text(Frame::HandEnd, text, Some(kept));
    }

    fn append(&mut self, msg: ServerMsg, kept: Option<Kept>) {
        let frame = match &msg {
            ServerMsg::Decision { .. } => Frame::Decision,
            ServerMsg::Commit { .. } => Frame::Commit,
            ServerMsg::HandEnd(_) => Frame::HandEnd,
            ServerMsg::AutoPlay { .. } => Frame::AutoPlay,
            _ => Frame::Other,
        };
        self.append_text(frame, msg.to_json(), kept);
    }

    fn append_text(&mut self, frame: Frame, text: String, kept: Option<Kept>) {
        // A table keeps each person's stream for the whole match (reconnects resend it), so
        // what a later frame makes unnecessary is dropped from the copy: a decision once
        // anything but its seat's auto-play notice follows (its view is most of a stream's
        // bytes), and a hand's events once its end, which holds the whole record, is sent.
        if frame != Frame::AutoPlay
            && let Some(seq) = self.open_decision.take()
            && let Ok(i) = self.outbox.binary_search_by_key(&seq, |k| k.0)
        {
            self.outbox.remove(i);
        }
        let seq = self.sent + 1;
        match frame {
            Frame::Decision => self.open_decision = Some(seq),
            Frame::Commit => self.hand_start = seq,
            Frame::HandEnd => {
                let start = self.hand_start;
                self.outbox.retain(|(q, k)| {
                    *q < start
                        || !matches!(k, Kept::Text(t) if t.starts_with("{\"type\":\"event\""))
                });
            }
            Frame::AutoPlay | Frame::Other => {}
        }
        self.sent = seq;
        self.outbox.push((
            seq,
            kept.unwrap_or_else(|| Kept::Text(text.clone().into_boxed_str())),
        ));
        self.send(text);
    }

    /// The frames after `after`, as a reconnect resends them.
    fn resend_after(&self, after: u64) -> Vec<String> {
        let mut kept = self.outbox[self.outbox.partition_point(|k| k.0 <= after)..].iter();
        let mut next = kept.next();
        (after + 1..=self.sent)
            .map(|seq| match next {
                Some((q, k)) if *q == seq => {
                    next = kept.next();
                    match k {
                        Kept::Text(t) => t.to_string(),
                        Kept::HandEnd {
                            hand,
                            record,
                            scores,
                            seat,
                        } => ServerMsg::HandEnd(Box::new(HandEnd {
                            seq,
                            hand: *hand,
                            record: HandRecord::clone(record),
                            scores: *scores,
                            seat: *seat,
                        }))
                        .to_json(),
                    }
                }
                _ => ServerMsg::Superseded { seq }.to_json(),
            })
            .collect()
    }

    pub(super) fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        self.send(ServerMsg::error(code, message).to_json());
    }
}

/// What a frame of the stream is, for what a later frame makes unnecessary.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    Decision,
    Commit,
    HandEnd,
    AutoPlay,
    Other,
}

/// A frame of a person's stream as the table keeps it for resending.
enum Kept {
    Text(Box<str>),
    /// A hand's end: its record is shared by the table's seats and written out again only if
    /// a reconnect needs it.
    HandEnd {
        hand: u32,
        record: Arc<HandRecord>,
        scores: [i32; 4],
        seat: Seat,
    },
}

impl TableTask {
    pub(super) fn join(&mut self, joining: Joining) -> Result<u8, (ErrorCode, String)> {
        let Joining {
            account,
            device,
            name,
            after,
            conn,
            out,
        } = joining;
        let p = match self.slots.iter().position(|s| s.account == Some(account)) {
            Some(p) => p,
            None if self
                .reserved
                .as_ref()
                .is_some_and(|r| !r.contains(&account)) =>
            {
                return Err((
                    ErrorCode::TableFull,
                    "this table's seats are kept for the players the queue seated".into(),
                ));
            }
            None if self.phase == Phase::Lobby
                && self.joined_people() < usize::from(self.people) =>
            {
                let p = self.joined_people();
                let s = &mut self.slots[p];
                s.account = Some(account);
                s.name = name;
                p
            }
            None if self.phase == Phase::Over => {
                return Err((ErrorCode::MatchOver, "this table's match is over".into()));
            }
            None => return Err((ErrorCode::TableFull, "this table has no free seat".into())),
        };
        let moved = std::mem::take(&mut self.slots[p].moved);
        if moved && let Some(a) = after {
            // The client holds another node's stream up to `a`: this node's goes on from there
            // (bounded: `a` is the client's word, and the stream's numbers must not overflow).
            let s = &mut self.slots[p];
            s.sent = s.sent.max(a.min(MAX_MOVED_SEQ));
        }
        let resumed = moved || self.slots[p].conn.is_some() || self.slots[p].sent > 0;
        // One active connection per account and table: the newest takes the seat.
        if let Some((_, old)) = self.slots[p].conn.take() {
            let _ = old.try_send(
                ServerMsg::error(ErrorCode::Replaced, "another connection took this seat")
                    .to_json(),
            );
        }
        self.slots[p].device = device;
        self.slots[p].conn = Some((conn, out));
        let players: Vec<PlayerInfo> = self
            .slots
            .iter()
            .map(|s| PlayerInfo {
                name: s.name.clone(),
                person: s.person(),
            })
            .collect();
        if !resumed {
            // Those already seated were welcomed to the table as it was: a person sits down.
            let text = ServerMsg::Players {
                players: players.clone(),
            }
            .to_json();
            for (q, s) in self.slots.iter_mut().enumerate() {
                if q != p && s.conn.is_some() {
                    s.send(text.clone());
                }
            }
        }
        self.slots[p].send(
            ServerMsg::Welcome {
                version: tongcheng_core::protocol::PROTOCOL_VERSION,
                table: self.id.clone(),
                player: p as u8,
                players,
                resumed,
                rules: Box::new(self.rules.clone()),
                round: self.round.as_ref().map(|r| Box::new(r.seat.clone())),
            }
            .to_json(),
        );
        // The frames this client missed, as they were first sent; then where things stand.
        let sent = self.slots[p].sent;
        let missed = self.slots[p].resend_after(after.map_or(sent, |a| a.min(sent)));
        for f in missed {
            self.slots[p].send(f);
        }
        let snap = self.snapshot(p);
        self.slots[p].send(snap);
        if moved {
            let hand = self.hand.saturating_add(1);
            self.slots[p].error(
                ErrorCode::HandVoided,
                format!(
                    "the server running this table stopped; finished hands stand, and a hand \
                     in play then is void: hand {hand} is dealt here"
                ),
            );
        }
        Ok(p as u8)
    }

    pub(super) fn snapshot(&self, p: usize) -> String {
        let s = &self.slots[p];
        let (view, decision, deadline_ms) = match &self.table {
            Some(t) if matches!(self.phase, Phase::Playing | Phase::Staking | Phase::Over) => {
                let view = t.view(p);
                let decision = s.decision_sent.filter(|_| view.decision.is_some());
                let left = decision.and_then(|_| t.remaining_ms(p, clock::now_ms()));
                (Some(view), decision, left)
            }
            _ => (None, None, None),
        };
        ServerMsg::Snapshot(Box::new(Snapshot {
            seq: s.sent,
            hand: self.hand,
            events: s.sent_events as u32,
            view,
            decision,
            deadline_ms,
            scores: self
                .table
                .as_ref()
                .map_or([0; 4], |t| t.match_state().scores()),
            auto_play: self.table.as_ref().is_some_and(|t| t.auto_play(p)),
            commitment: (self.phase != Phase::Lobby).then(|| self.hand_commitment()),
            match_over: self.phase == Phase::Over,
        }))
        .to_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tongcheng_core::Wind;
    use tongcheng_core::game::{Action, Event, Game, HandSetup};
    use tongcheng_core::rules::RuleSet;
    use tongcheng_core::wall::Seed;

    fn slot() -> Slot {
        Slot {
            account: Some(1),
            device: 1,
            name: "p".into(),
            ..Slot::empty(0)
        }
    }

    /// The stream as kept: a frame's type, or "-" where it was dropped.
    fn kinds(s: &Slot) -> Vec<&str> {
        (1..=s.sent)
            .map(|seq| match s.outbox.iter().find(|k| k.0 == seq) {
                None => "-",
                Some((_, Kept::Text(t))) => t.split('"').nth(3).unwrap_or("?"),
                Some((_, Kept::HandEnd { .. })) => "hand_end",
            })
            .collect()
    }

    #[test]
    fn the_kept_stream_drops_what_later_frames_make_unnecessary() {
        let rules = RuleSet::default();
        let game = Game::new(HandSetup {
            rules: rules.clone(),
            seed: Seed([7; 32]),
            dealer: Seat(0),
            prevalent: Wind::East,
            dealer_level: 0,
        });
        let dealer = Seat(0);
        let view = game.view(dealer);
        let decision = game.decision(dealer).expect("the dealer discards first");
        let record = tongcheng_core::bot::simple_hand_records(&rules, 1, 3).remove(0);
        let Action::Discard(tile) = decision.on_timeout else {
            panic!("a turn times out with a discard")
        };
        let event = |seq| ServerMsg::Event {
            seq,
            hand: 0,
            index: 0,
            event: Event::Discarded {
                seat: dealer,
                tile: Some(tile),
                face_down: false,
            },
        };
        let mut s = slot();
        s.push(|seq| ServerMsg::Commit {
            seq,
            hand: 0,
            commitment: Default::default(),
            deadline_ms: 1,
        });
        s.push(event);
        let ask = |seq| ServerMsg::Decision {
            seq,
            hand: 0,
            id: seq,
            decision: decision.clone(),
            view: Box::new(view.clone()),
            deadline_ms: Some(1),
        };
        s.push(ask);
        // Its seat's auto-play notice leaves a decision standing; the next event ends it.
        s.push(|seq| ServerMsg::AutoPlay { seq, on: true });
        assert_eq!(kinds(&s)[2], "decision");
        s.push(event);
        s.push(ask);
        assert_eq!(
            kinds(&s),
            ["commit", "event", "-", "auto_play", "event", "decision"]
        );
        // The hand's end (with the whole record) makes its events unnecessary too.
        let record = Arc::new(record);
        s.push_hand_end(0, &record, &record.to_json(), [1, 2, 3, -6], dealer);
        assert_eq!(
            kinds(&s),
            ["commit", "-", "-", "auto_play", "-", "-", "hand_end"]
        );
        assert_eq!(s.outbox.len(), 3, "only what a reconnect needs is kept");
        // What a reconnect resends in their places: stubs, and the hand's end written again.
        let again: Vec<ServerMsg> = s
            .resend_after(0)
            .iter()
            .map(|f| ServerMsg::parse(f).unwrap())
            .collect();
        assert_eq!(again.len(), 7);
        assert_eq!(again[1], ServerMsg::Superseded { seq: 2 });
        assert!(matches!(
            &again[3],
            ServerMsg::AutoPlay { seq: 4, on: true }
        ));
        let ServerMsg::HandEnd(end) = &again[6] else {
            panic!("{:?}", again[6])
        };
        assert_eq!(
            (end.seq, end.scores, &end.record),
            (7, [1, 2, 3, -6], &*record)
        );
        assert!(s.resend_after(7).is_empty());
        assert_eq!(s.resend_after(5).len(), 2);
    }
}
