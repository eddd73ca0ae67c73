//! One online table: a tokio task that owns the core's [`Table`] and talks to its people's
//! connections through channels. Everything about the match happens here, in order, so there
//! are no locks around the game: connections only send commands in and read frames out.
//!
//! Per hand: commit to a secret seed, collect contributions (until every connected person
//! sent one, or the deadline), deal from the fair seed, then play: bots and seats on
//! auto-play answer at once, people get their decision with a deadline (the rules' limit plus
//! bank time), a missed deadline plays the decision's timeout action and two in a row put the
//! seat on auto-play until its person acts again. At the end every person gets the record
//! with the reveal, and the hand is stored in each person's synced records.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tongcheng_core::Seat;
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::fair::{Contribution, FairWall, commit};
use tongcheng_core::game::Action;
use tongcheng_core::protocol::{
    ClientMsg, ErrorCode, HandEnd, PlayerInfo, ServerMsg, Snapshot, decision_id, seat_events,
};
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::table::{Clock, Deal, Player, Step, Table, TableConfig};
use tongcheng_core::wall::Seed;

use super::checkpoint::{Checkpoint, FinishedHand, SeatKept};
use super::config::OnlineConfig;
use crate::cluster::{Cluster, ClusterError};
use crate::store::{NewRecord, RankedHand, Store};

/// What a connection asks of its table.
pub enum Cmd {
    Join {
        account: i64,
        device: i64,
        name: String,
        after: Option<u64>,
        conn: u64,
        out: mpsc::Sender<String>,
        reply: oneshot::Sender<Result<u8, (ErrorCode, String)>>,
    },
    Msg {
        player: u8,
        conn: u64,
        msg: ClientMsg,
    },
    Gone {
        player: u8,
        conn: u64,
    },
    /// A private room let this account in: one more reserved seat.
    Admit {
        account: i64,
    },
    /// The table's checkpoint was written (several nodes): a finished hand may be announced.
    Saved(SaveOutcome),
}

/// The highest stream number a moved seat continues from: far above any real match's
/// frames, far below where adding to it could overflow.
const MAX_MOVED_SEQ: u64 = 1 << 40;

/// How a checkpoint write ended.
#[derive(Debug)]
pub enum SaveOutcome {
    Written,
    /// Another node took the table over: this copy stops.
    Fenced,
    /// NATS failed: the table plays on (its hands are still stored), unprotected.
    Failed(String),
}

/// How the table reaches its host when it closes: to leave the lobby, and to forget the
/// table in the store unless (false) another node owns it now.
pub type OnClose = Box<dyn FnOnce(bool) + Send>;

/// A person's slot (or a bot's, with no account).
struct Slot {
    account: Option<i64>,
    device: i64,
    name: String,
    /// The connection now holding the seat.
    conn: Option<(u64, mpsc::Sender<String>)>,
    /// Every stream frame sent this match, as sent; `seq` is the index + 1.
    /// The stream's frames a reconnect may still need, by `seq`, in order; the others were
    /// made unnecessary by later frames and are resent as [`ServerMsg::Superseded`].
    outbox: Vec<(u64, Kept)>,
    /// Frames in the stream so far (the last `seq`).
    sent: u64,
    /// The `seq` of the last decision sent, while it may still be answered.
    open_decision: Option<u64>,
    /// The `seq` of this hand's first frame (its commitment).
    hand_start: u64,
    auto: bool,
    timeouts: u32,
    bank_ms: u64,
    contribution: Option<Contribution>,
    ready: bool,
    /// Events of this hand already sent.
    sent_events: usize,
    /// The decision last sent, and when its clock started.
    decision: Option<(u64, Instant, u64)>,
    /// Plays the seat on auto-play.
    auto_bot: LevelBot,
    /// Restored on this node from another node's checkpoint, not joined here yet: the
    /// client's stream continues from the `seq` it holds.
    moved: bool,
}

impl Slot {
    fn person(&self) -> bool {
        self.account.is_some()
    }

    fn connected(&self) -> bool {
        self.conn.is_some()
    }

    /// Sends a frame outside the stream (errors, pongs, snapshots).
    fn send(&mut self, text: String) {
        if let Some((_, out)) = &self.conn
            && out.try_send(text).is_err()
        {
            // A client that does not read its frames loses the seat's connection (it plays
            // on by itself) rather than making the table buffer without bound.
            self.conn = None;
        }
    }

    /// Appends a frame to the stream, with its `seq`, and sends it.
    fn push(&mut self, make: impl FnOnce(u64) -> ServerMsg) {
        if !self.person() {
            return;
        }
        let msg = make(self.sent + 1);
        self.append(msg, None);
    }

    /// Appends a hand's end; the kept copy shares the table's record instead of its text.
    fn push_hand_end(&mut self, hand: u32, record: &Arc<HandRecord>, scores: [i32; 4], seat: Seat) {
        if !self.person() {
            return;
        }
        let msg = ServerMsg::HandEnd(Box::new(HandEnd {
            seq: self.sent + 1,
            hand,
            record: HandRecord::clone(record),
            scores,
            seat,
        }));
        let kept = Kept::HandEnd {
            hand,
            record: record.clone(),
            scores,
            seat,
        };
        self.append(msg, Some(kept));
    }

    fn append(&mut self, msg: ServerMsg, kept: Option<Kept>) {
        // A table keeps each person's stream for the whole match (reconnects resend it), so
        // what a later frame makes unnecessary is dropped from the copy: a decision once
        // anything but its seat's auto-play notice follows (its view is most of a stream's
        // bytes), and a hand's events once its end, which holds the whole record, is sent.
        if !matches!(msg, ServerMsg::AutoPlay { .. })
            && let Some(seq) = self.open_decision.take()
            && let Ok(i) = self.outbox.binary_search_by_key(&seq, |k| k.0)
        {
            self.outbox.remove(i);
        }
        let seq = self.sent + 1;
        match &msg {
            ServerMsg::Decision { .. } => self.open_decision = Some(seq),
            ServerMsg::Commit { .. } => self.hand_start = seq,
            ServerMsg::HandEnd(_) => {
                let start = self.hand_start;
                self.outbox.retain(|(q, k)| {
                    *q < start
                        || !matches!(k, Kept::Text(t) if t.starts_with("{\"type\":\"event\""))
                });
            }
            _ => {}
        }
        let text = msg.to_json();
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

    fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        self.send(ServerMsg::error(code, message).to_json());
    }
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

/// Where the table is in its cycle.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Lobby,
    Contributing,
    Playing,
    /// A finished hand waits for its checkpoint before anyone is told (several nodes).
    Saving,
    BetweenHands,
    Over,
}

/// A finished hand, told to the players once its checkpoint is written.
struct PendingEnd {
    hand: u32,
    record: Arc<HandRecord>,
    scores: [i32; 4],
    seats: [Seat; 4],
    more: bool,
}

/// What a table asks its saver (one task per table, so writes keep their order).
enum SaveJob {
    /// Write the checkpoint, then keep the finished hand in the store, then (if `reply`)
    /// tell the table.
    Checkpoint {
        value: Vec<u8>,
        hand: Option<FinishedHand>,
        reply: bool,
    },
    /// The match is over: forget the checkpoint first (a node dying now leaves no match to
    /// finish twice), then rate it.
    Over { rate: Option<Rating> },
}

/// A ranked match's rating to write: its rule set, and each slot's account with its score.
type Rating = (String, Vec<(Option<i64>, i32)>);

pub struct TableTask {
    id: String,
    config: OnlineConfig,
    rules: RuleSet,
    people: u8,
    /// A ranked match: its end updates its people's ratings (see [`crate::rating`]).
    ranked: bool,
    /// A table the queue made: only these accounts may take its people's seats.
    reserved: Option<Vec<i64>>,
    /// The bots' levels, in the order the empty seats are taken (Normal past the end).
    bot_levels: Vec<Level>,
    /// A private room: when its lobby time is up with nobody connected, it closes instead
    /// of starting a match for bots.
    room: bool,
    store: Arc<dyn Store>,
    slots: Vec<Slot>,
    table: Option<Table>,
    phase: Phase,
    hand: u32,
    server_seed: Seed,
    deadline: Option<Instant>,
    rx: mpsc::Receiver<Cmd>,
    /// Several nodes: checkpoints go to NATS through the saver, under this node's URL.
    cluster: Option<(Arc<Cluster>, String)>,
    /// The table's own channel, weakly (the saver answers on it; it must not keep the table
    /// alive).
    me: Option<mpsc::WeakSender<Cmd>>,
    saver: Option<mpsc::UnboundedSender<SaveJob>>,
    /// The checkpoint revision a restored table starts from.
    revision: Option<u64>,
    pending_end: Option<PendingEnd>,
    /// A table restored here waits this long for its people to reconnect before the next hand.
    grace: Option<Instant>,
    /// Restored with its match already over: it only has to be rated.
    restored_over: bool,
    /// Another node owns the table now: it closes without touching the store's rows.
    fenced: bool,
}

/// A random 32-byte value; the OS's CSPRNG, else (never seen in practice) a time-based one
/// so that a table is never stuck — the commitment still binds whatever was chosen.
fn random32() -> [u8; 32] {
    let mut b = [0u8; 32];
    if getrandom::getrandom(&mut b).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        b[..16].copy_from_slice(&t.to_le_bytes());
    }
    b
}

impl TableTask {
    pub fn new(
        id: String,
        config: OnlineConfig,
        rules: RuleSet,
        people: u8,
        store: Arc<dyn Store>,
        rx: mpsc::Receiver<Cmd>,
    ) -> TableTask {
        let seed = u64::from_le_bytes(random32()[..8].try_into().unwrap_or([0; 8]));
        let slots = (0..4)
            .map(|p| Slot {
                account: None,
                device: 0,
                name: format!("bot {p}"),
                conn: None,
                outbox: Vec::new(),
                sent: 0,
                open_decision: None,
                hand_start: 0,
                auto: false,
                timeouts: 0,
                bank_ms: u64::from(rules.time.bank_secs) * 1000,
                contribution: None,
                ready: false,
                sent_events: 0,
                decision: None,
                auto_bot: LevelBot::new(Level::Normal, seed ^ p as u64),
                moved: false,
            })
            .collect();
        let lobby_deadline = Instant::now() + Duration::from_millis(config.lobby_ms);
        TableTask {
            id,
            config,
            rules,
            people,
            ranked: false,
            reserved: None,
            bot_levels: Vec::new(),
            room: false,
            store,
            slots,
            table: None,
            phase: Phase::Lobby,
            hand: 0,
            server_seed: Seed(random32()),
            deadline: Some(lobby_deadline),
            rx,
            cluster: None,
            me: None,
            saver: None,
            revision: None,
            pending_end: None,
            grace: None,
            restored_over: false,
            fenced: false,
        }
    }

    /// Several nodes: the table keeps a checkpoint in NATS after each finished hand (and
    /// announces the hand only then), so another node can finish its match if this one dies.
    /// `me` is the table's own channel.
    pub fn in_cluster(
        mut self,
        cluster: Option<(Arc<Cluster>, String)>,
        me: mpsc::WeakSender<Cmd>,
    ) -> TableTask {
        self.cluster = cluster;
        self.me = Some(me);
        self
    }

    /// A table rebuilt from another node's checkpoint (which this node has just taken over at
    /// `revision`): the match at the start of its next hand, whatever hand was in play voided.
    pub fn restore(
        cp: &Checkpoint,
        revision: u64,
        config: OnlineConfig,
        store: Arc<dyn Store>,
        rx: mpsc::Receiver<Cmd>,
    ) -> Result<TableTask, String> {
        let t = Table::resume(&cp.saved).map_err(|e| e.to_string())?;
        if t.game().is_finished() && !t.is_over() {
            return Err("the checkpoint stops inside a hand".into());
        }
        let mut task = TableTask::new(
            cp.table.clone(),
            config,
            t.rules().clone(),
            cp.people,
            store,
            rx,
        );
        task.ranked = cp.ranked;
        task.room = cp.room;
        task.reserved = cp.reserved.clone();
        for (s, k) in task.slots.iter_mut().zip(&cp.seats) {
            s.account = k.account;
            s.device = k.device;
            s.name = k.name.clone();
            s.moved = k.account.is_some();
        }
        task.hand = cp.hand;
        task.revision = Some(revision);
        task.restored_over = t.is_over();
        task.table = Some(t);
        task.phase = Phase::BetweenHands;
        let grace = Instant::now() + Duration::from_millis(task.config.ready_ms.max(1_000));
        task.grace = Some(grace);
        task.deadline = Some(grace);
        Ok(task)
    }

    /// The checkpoint of the table as it stands (its match begun), with the hand just
    /// finished to keep.
    fn checkpoint(&self, last: Option<FinishedHand>) -> Option<Vec<u8>> {
        let (cluster, url) = self.cluster.as_ref()?;
        let t = self.table.as_ref()?;
        let cp = Checkpoint {
            version: super::checkpoint::CHECKPOINT_VERSION,
            table: self.id.clone(),
            node_url: url.clone(),
            instance: cluster.instance.clone(),
            people: self.people,
            ranked: self.ranked,
            room: self.room,
            reserved: self.reserved.clone(),
            seats: self
                .slots
                .iter()
                .map(|s| SeatKept {
                    account: s.account,
                    device: s.device,
                    name: s.name.clone(),
                })
                .collect(),
            hand: self.hand,
            saved: t.saved(),
            last,
        };
        serde_json::to_vec(&cp).ok()
    }

    /// The table's saver, started at its first use (several nodes only).
    fn saver(&mut self) -> Option<&mpsc::UnboundedSender<SaveJob>> {
        if self.saver.is_none() {
            let (cluster, _) = self.cluster.clone()?;
            let me = self.me.clone()?;
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(saver(
                cluster,
                self.store.clone(),
                self.id.clone(),
                self.revision,
                me,
                rx,
            ));
            self.saver = Some(tx);
        }
        self.saver.as_ref()
    }

    /// Makes the table's match ranked: when it finishes, its people's ratings move.
    pub fn ranked(mut self) -> TableTask {
        self.ranked = true;
        self
    }

    /// Keeps the people's seats for these accounts (a table the queue seated).
    pub fn reserved_for(mut self, accounts: Vec<i64>) -> TableTask {
        self.reserved = Some(accounts);
        self
    }

    /// A private room's table: empty seats get bots of these levels, and the table closes
    /// if nobody is connected when its lobby time is up.
    pub fn room(mut self, accounts: Vec<i64>, bot_levels: Vec<Level>) -> TableTask {
        self.reserved = Some(accounts);
        self.bot_levels = bot_levels;
        self.room = true;
        self
    }

    /// Runs the table until its match is over and the linger time has passed (so a player
    /// who reconnects late still reads the end); then `on_close`.
    pub async fn run(mut self, on_close: OnClose) {
        if self.restored_over {
            // Its last hand was kept before the node running it stopped: only the end is left.
            self.finish();
        }
        loop {
            self.advance();
            if self.phase == Phase::Over && self.deadline.is_none() {
                break;
            }
            let cmd = match self.deadline {
                Some(at) => match tokio::time::timeout_at(at, self.rx.recv()).await {
                    Ok(c) => c,
                    Err(_) => {
                        self.on_deadline();
                        continue;
                    }
                },
                None => self.rx.recv().await,
            };
            match cmd {
                Some(c) => self.handle(c),
                None => break,
            }
        }
        on_close(!self.fenced);
    }

    fn joined_people(&self) -> usize {
        self.slots.iter().filter(|s| s.person()).count()
    }

    fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Join {
                account,
                device,
                name,
                after,
                conn,
                out,
                reply,
            } => {
                let r = self.join(account, device, name, after, conn, out);
                let _ = reply.send(r);
            }
            Cmd::Msg { player, conn, msg } => {
                let p = usize::from(player % 4);
                if self.slots[p].conn.as_ref().map(|c| c.0) != Some(conn) {
                    return; // a connection that lost its seat to a newer one
                }
                self.message(p, msg);
            }
            Cmd::Admit { account } => {
                if let Some(r) = self.reserved.as_mut()
                    && !r.contains(&account)
                {
                    r.push(account);
                }
            }
            Cmd::Gone { player, conn } => {
                let s = &mut self.slots[usize::from(player % 4)];
                if s.conn.as_ref().map(|c| c.0) == Some(conn) {
                    s.conn = None;
                }
            }
            Cmd::Saved(outcome) => self.saved(outcome),
        }
    }

    /// The checkpoint after a finished hand is written: the hand can be announced.
    fn saved(&mut self, outcome: SaveOutcome) {
        match outcome {
            SaveOutcome::Written => {}
            SaveOutcome::Failed(e) => {
                eprintln!("table {}: no checkpoint ({e}); playing on", self.id);
            }
            SaveOutcome::Fenced => {
                // Another node took the table over (this node was thought dead): its copy is
                // the match now. The people here are sent to find it.
                eprintln!(
                    "table {}: taken over by another node; closing here",
                    self.id
                );
                for s in &mut self.slots {
                    s.error(
                        ErrorCode::WrongNode,
                        "this table moved to another server node; join it again",
                    );
                    s.conn = None;
                }
                self.fenced = true;
                self.pending_end = None;
                self.phase = Phase::Over;
                self.deadline = None;
                return;
            }
        }
        if let Some(end) = self.pending_end.take() {
            self.announce_end(end);
        }
    }

    fn join(
        &mut self,
        account: i64,
        device: i64,
        name: String,
        after: Option<u64>,
        conn: u64,
        out: mpsc::Sender<String>,
    ) -> Result<u8, (ErrorCode, String)> {
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
        let players = self
            .slots
            .iter()
            .map(|s| PlayerInfo {
                name: s.name.clone(),
                person: s.person(),
            })
            .collect();
        self.slots[p].send(
            ServerMsg::Welcome {
                version: tongcheng_core::protocol::PROTOCOL_VERSION,
                table: self.id.clone(),
                player: p as u8,
                players,
                resumed,
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

    fn snapshot(&self, p: usize) -> String {
        let s = &self.slots[p];
        let (view, decision, deadline_ms) = match &self.table {
            Some(t) if matches!(self.phase, Phase::Playing | Phase::Over) => {
                let view = t.view(p);
                let decision = s.decision.filter(|_| view.decision.is_some());
                (
                    Some(view),
                    decision.map(|d| d.0),
                    decision.map(|(_, at, limit)| {
                        (at + Duration::from_millis(limit))
                            .saturating_duration_since(Instant::now())
                            .as_millis() as u64
                    }),
                )
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
            auto_play: s.auto,
            commitment: (self.phase != Phase::Lobby).then(|| commit(&self.server_seed)),
            match_over: self.phase == Phase::Over,
        }))
        .to_json()
    }

    fn message(&mut self, p: usize, msg: ClientMsg) {
        match msg {
            ClientMsg::Join { .. } => {
                self.slots[p].error(ErrorCode::AlreadyJoined, "already at this table");
            }
            ClientMsg::Ping { nonce } => self.slots[p].send(ServerMsg::Pong { nonce }.to_json()),
            ClientMsg::Contribute { hand, contribution } => {
                let s = &mut self.slots[p];
                if self.phase != Phase::Contributing
                    || hand != self.hand
                    || s.contribution.is_some()
                {
                    s.error(
                        ErrorCode::BadContribution,
                        format!("no contribution is expected for hand {hand} now"),
                    );
                } else {
                    s.contribution = Some(contribution);
                }
            }
            ClientMsg::Ready => self.slots[p].ready = true,
            ClientMsg::Leave => {
                let s = &mut self.slots[p];
                s.conn = None;
            }
            ClientMsg::Act { decision, action } => self.act(p, decision, action),
        }
    }

    fn act(&mut self, p: usize, id: u64, action: Action) {
        let Some(table) = self.table.as_mut() else {
            return self.slots[p].error(ErrorCode::StaleDecision, "no hand is being played");
        };
        if self.phase != Phase::Playing {
            return self.slots[p].error(ErrorCode::StaleDecision, "no hand is being played");
        }
        let pending = table.decision(p).is_some();
        let current = self.slots[p].decision.filter(|_| pending);
        match current {
            Some((cur, opened, limit)) if cur == id => {
                if let Err(e) = table.act(p, action) {
                    return self.slots[p].error(ErrorCode::IllegalAction, e.to_string());
                }
                let s = &mut self.slots[p];
                // Bank time pays for whatever went over the decision's own limit.
                let used = Instant::now().saturating_duration_since(opened).as_millis() as u64;
                let own = limit.saturating_sub(s.bank_ms);
                s.bank_ms = s.bank_ms.saturating_sub(used.saturating_sub(own));
                s.timeouts = 0;
                s.decision = None;
                if s.auto {
                    s.auto = false;
                    s.push(|seq| ServerMsg::AutoPlay { seq, on: false });
                }
            }
            _ => self.slots[p].error(
                ErrorCode::StaleDecision,
                format!("decision {id} is not pending (late, or already answered)"),
            ),
        }
    }

    /// A deadline passed: the lobby fills with bots, contributions close, the pause between
    /// hands ends, or a person's decision times out.
    fn on_deadline(&mut self) {
        self.deadline = None;
        match self.phase {
            Phase::Lobby if self.room && !self.slots.iter().any(Slot::connected) => {
                // An empty room expires: no match, no linger.
                self.phase = Phase::Over;
            }
            Phase::Lobby => self.start_match(),
            Phase::Contributing => self.deal(),
            Phase::BetweenHands => self.start_hand(),
            Phase::Playing => self.time_out(),
            Phase::Saving => {}
            // The linger time is up: the connections go with the table.
            Phase::Over => {}
        }
    }

    /// Moves the table on as far as it can go without anyone: the state machine's heart.
    fn advance(&mut self) {
        loop {
            match self.phase {
                Phase::Lobby => {
                    if self.joined_people() >= usize::from(self.people) {
                        self.start_match();
                        continue;
                    }
                    return;
                }
                Phase::Contributing => {
                    // Seats on auto-play still contribute (their client does it unasked).
                    let waiting = self
                        .slots
                        .iter()
                        .any(|s| s.person() && s.connected() && s.contribution.is_none());
                    if !waiting {
                        self.deal();
                        continue;
                    }
                    return;
                }
                Phase::BetweenHands => {
                    let waiting = if self.grace.is_some() {
                        // Restored here: wait for everyone to come back (or the grace to end).
                        self.slots.iter().any(|s| s.person() && !s.connected())
                    } else {
                        self.slots
                            .iter()
                            .any(|s| s.person() && s.connected() && !s.auto && !s.ready)
                    };
                    if !waiting {
                        self.start_hand();
                        continue;
                    }
                    return;
                }
                Phase::Playing => {
                    if self.play_on() {
                        continue;
                    }
                    return;
                }
                Phase::Saving | Phase::Over => return,
            }
        }
    }

    fn start_match(&mut self) {
        let persons: [bool; 4] = std::array::from_fn(|p| self.slots[p].person());
        let players = seat_players(persons, &self.bot_levels);
        let seed = random32();
        let config = TableConfig {
            deal: Deal::Match {
                rules: self.rules.clone(),
                seed: Seed(seed),
            },
            players,
            bot_seed: u64::from_le_bytes(seed[..8].try_into().unwrap_or([0; 8])),
            // The server keeps the clock itself (decision ids, bank time, auto-play).
            clock: Clock::Off,
        };
        match Table::try_new(config) {
            Ok(t) => {
                self.table = Some(t);
                self.hand = 0;
                // Who sits where and the match's seed: a node taking over needs them from
                // the first hand on.
                if let Some(value) = self.checkpoint(None)
                    && let Some(saver) = self.saver()
                {
                    let _ = saver.send(SaveJob::Checkpoint {
                        value,
                        hand: None,
                        reply: false,
                    });
                }
                self.start_hand();
            }
            Err(e) => {
                for s in &mut self.slots {
                    s.error(ErrorCode::Internal, format!("the table cannot start: {e}"));
                }
                self.finish();
            }
        }
    }

    /// Commits to this hand's secret seed and asks for contributions.
    fn start_hand(&mut self) {
        self.grace = None;
        self.phase = Phase::Contributing;
        self.server_seed = Seed(random32());
        let commitment = commit(&self.server_seed);
        let hand = self.hand;
        let ms = self.config.contribute_ms;
        for s in &mut self.slots {
            s.contribution = None;
            s.ready = false;
            s.sent_events = 0;
            s.decision = None;
            s.push(|seq| ServerMsg::Commit {
                seq,
                hand,
                commitment,
                deadline_ms: ms,
            });
        }
        self.deadline = Some(Instant::now() + Duration::from_millis(ms));
    }

    fn table_seats(&self) -> [usize; 4] {
        std::array::from_fn(|seat| {
            self.table
                .as_ref()
                .map_or(seat, |t| t.player_at(Seat(seat as u8)))
        })
    }

    /// Deals the hand from the fair seed.
    fn deal(&mut self) {
        let by_seat = self.table_seats();
        let contributions: [Option<Contribution>; 4] =
            std::array::from_fn(|seat| self.slots[by_seat[seat]].contribution);
        let proof = FairWall::new(self.server_seed, contributions);
        if let Some(t) = self.table.as_mut() {
            t.redeal(proof.wall_seed());
            let hand_seed = tongcheng_core::table::bot_seed(t.config().bot_seed, self.hand, 9);
            for (p, s) in self.slots.iter_mut().enumerate() {
                s.auto_bot.new_hand(hand_seed ^ p as u64);
            }
        }
        self.phase = Phase::Playing;
        self.deadline = None;
    }

    /// Plays everything that needs nobody: bots, seats on auto-play, and sends people the
    /// new events and decisions. True when something changed (call again).
    fn play_on(&mut self) -> bool {
        self.flush();
        let Some(t) = self.table.as_mut() else {
            return false;
        };
        if t.game().is_finished() {
            self.end_hand();
            return true;
        }
        if let Step::Acted { .. } = t.step(0) {
            return true;
        }
        // People who are away or on auto-play.
        for p in 0..4 {
            let s = &self.slots[p];
            if !s.person() || (s.connected() && !s.auto) {
                continue;
            }
            let t = self.table.as_mut().expect("checked above");
            if t.decision(p).is_none() {
                continue;
            }
            let view = t.view(p);
            let mut action = self.slots[p].auto_bot.choose(&view);
            if t.act(p, action).is_err() {
                action = view
                    .decision
                    .as_ref()
                    .map_or(Action::Pass, |d| d.on_timeout);
                if t.act(p, action).is_err() {
                    continue;
                }
            }
            self.slots[p].decision = None;
            return true;
        }
        self.arm_deadline();
        false
    }

    /// Sends each person the events they have not had and their new decision.
    fn flush(&mut self) {
        let Some(t) = self.table.as_ref() else {
            return;
        };
        let hand = self.hand;
        let game = t.game();
        let now = Instant::now();
        for (p, s) in self.slots.iter_mut().enumerate() {
            if !s.person() {
                continue;
            }
            let seat = t.seat_of(p);
            for (index, event) in seat_events(game, seat, s.sent_events) {
                s.push(|seq| ServerMsg::Event {
                    seq,
                    hand,
                    index,
                    event,
                });
            }
            s.sent_events = game.events().len();
            let Some(decision) = t.decision(p) else {
                s.decision = None;
                continue;
            };
            let id = decision_id(hand, game.events().len());
            if s.decision.map(|d| d.0) == Some(id) {
                continue;
            }
            let limit = u64::from(decision.limit_secs) * 1000 + s.bank_ms;
            s.decision = Some((id, now, limit));
            let auto = s.auto || !s.connected();
            let view = Box::new(t.view(p));
            s.push(|seq| ServerMsg::Decision {
                seq,
                hand,
                id,
                decision,
                view,
                deadline_ms: (!auto).then_some(limit),
            });
        }
    }

    /// The next moment a person's decision times out.
    fn arm_deadline(&mut self) {
        self.deadline = self
            .slots
            .iter()
            .filter_map(|s| {
                s.decision
                    .map(|(_, at, limit)| at + Duration::from_millis(limit))
            })
            .min();
    }

    /// Plays the timeout action of every person whose time is up; the second timeout in a
    /// row puts the seat on auto-play.
    fn time_out(&mut self) {
        let now = Instant::now();
        for p in 0..4 {
            let Some((_, at, limit)) = self.slots[p].decision else {
                continue;
            };
            if at + Duration::from_millis(limit) > now {
                continue;
            }
            let Some(t) = self.table.as_mut() else {
                return;
            };
            let Some(d) = t.decision(p) else {
                self.slots[p].decision = None;
                continue;
            };
            if t.act(p, d.on_timeout).is_err() {
                continue;
            }
            let s = &mut self.slots[p];
            s.decision = None;
            s.bank_ms = 0;
            s.timeouts += 1;
            if s.timeouts >= 2 && !s.auto {
                s.auto = true;
                s.push(|seq| ServerMsg::AutoPlay { seq, on: true });
            }
        }
    }

    /// The hand is over: reveal, send the records, store them, and go on.
    fn end_hand(&mut self) {
        let by_seat = self.table_seats();
        let contributions: [Option<Contribution>; 4] =
            std::array::from_fn(|seat| self.slots[by_seat[seat]].contribution);
        let Some(t) = self.table.as_mut() else {
            return;
        };
        let Some(mut record) = t.record() else {
            return;
        };
        let mut proof = FairWall::new(self.server_seed, contributions);
        if self.config.dishonest_reveal {
            // Test hook: a server that lies about its seed after the hand.
            proof.reveal = Seed(random32());
        }
        record.fairness = Some(proof);
        let hand = self.hand;
        let more = t.next_hand();
        let scores = t.match_state().scores();
        let seats: [Seat; 4] =
            std::array::from_fn(|p| Seat(by_seat.iter().position(|&q| q == p).unwrap_or(p) as u8));
        let json = record.to_json();
        let shared = Arc::new(record);
        let record = &*shared;
        let mut stored = Vec::new();
        for (p, s) in self.slots.iter_mut().enumerate() {
            if let Some(account) = s.account {
                stored.push((
                    account,
                    s.device,
                    NewRecord {
                        record_id: record.id.to_string(),
                        seat: seats[p].0,
                        played_at: crate::now(),
                        rules: record.setup.rules.name.clone(),
                        offline: false,
                        json: json.clone(),
                    },
                ));
            }
            s.decision = None;
        }
        // Ranked history for the collusion report: the account in each of the record's seats.
        let ranked = self.ranked.then(|| RankedHand {
            table_id: self.id.clone(),
            record_id: record.id.to_string(),
            rules: record.setup.rules.name.clone(),
            accounts: std::array::from_fn(|seat| self.slots[by_seat[seat]].account),
            played_at: crate::now(),
            json: json.clone(),
        });
        let finished = FinishedHand { stored, ranked };
        let end = PendingEnd {
            hand,
            record: shared,
            scores,
            seats,
            more,
        };
        if more {
            self.hand += 1;
        }
        if let Some(value) = self.checkpoint(Some(finished.clone()))
            && let Some(saver) = self.saver()
        {
            // Several nodes: nobody hears of the hand's end before its checkpoint (with its
            // records) is written, so a hand anyone saw finish survives this node.
            let _ = saver.send(SaveJob::Checkpoint {
                value,
                hand: Some(finished),
                reply: true,
            });
            self.pending_end = Some(end);
            self.phase = Phase::Saving;
            self.deadline = None;
            return;
        }
        // Stored off the table's task: a slow disk must not hold up the next hand.
        let store = self.store.clone();
        let table = self.id.clone();
        tokio::task::spawn_blocking(move || finished.keep(store.as_ref(), &table));
        self.announce_end(end);
    }

    /// Tells everyone the hand's end and goes on to the next hand or the match's end.
    fn announce_end(&mut self, end: PendingEnd) {
        for (p, s) in self.slots.iter_mut().enumerate() {
            s.push_hand_end(end.hand, &end.record, end.scores, end.seats[p]);
        }
        if end.more {
            self.phase = Phase::BetweenHands;
            self.deadline = Some(Instant::now() + Duration::from_millis(self.config.ready_ms));
        } else {
            self.finish();
        }
    }

    fn finish(&mut self) {
        let scores = self
            .table
            .as_ref()
            .map_or([0; 4], |t| t.match_state().scores());
        for s in &mut self.slots {
            s.push(|seq| ServerMsg::MatchEnd { seq, scores });
        }
        self.phase = Phase::Over;
        let rate = self.ranked.then(|| {
            let accounts: Vec<(Option<i64>, i32)> = self
                .slots
                .iter()
                .zip(scores)
                .map(|(s, score)| (s.account, score))
                .collect();
            (self.rules.name.clone(), accounts)
        });
        if let Some(saver) = self.saver() {
            let _ = saver.send(SaveJob::Over { rate });
        } else if let Some((rules, accounts)) = rate {
            self.rate(rules, accounts);
        }
        // Connections have a little while to read the end, then the table goes.
        self.deadline = Some(Instant::now() + Duration::from_millis(self.config.linger_ms));
    }
}

impl TableTask {
    /// Updates the people's ratings from the final scores, off the table's task. Bots' seats
    /// are not passed in as people, so no rating moves against a bot.
    fn rate(&self, rules: String, accounts: Vec<(Option<i64>, i32)>) {
        let store = self.store.clone();
        let table = self.id.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = rate_accounts(store.as_ref(), &rules, &accounts) {
                eprintln!("table {table}: rating the match: {e}");
            }
        });
    }
}

/// A table's saver: writes its checkpoints in order, keeping the revision, and tells the
/// table when a finished hand may be announced.
async fn saver(
    cluster: Arc<Cluster>,
    store: Arc<dyn Store>,
    id: String,
    mut revision: Option<u64>,
    me: mpsc::WeakSender<Cmd>,
    mut jobs: mpsc::UnboundedReceiver<SaveJob>,
) {
    while let Some(job) = jobs.recv().await {
        match job {
            SaveJob::Checkpoint { value, hand, reply } => {
                let outcome = match cluster.put_checkpoint(&id, value, revision).await {
                    Ok(r) => {
                        revision = Some(r);
                        SaveOutcome::Written
                    }
                    Err(ClusterError::Fenced) => SaveOutcome::Fenced,
                    Err(e) => SaveOutcome::Failed(e.to_string()),
                };
                let fenced = matches!(outcome, SaveOutcome::Fenced);
                // A fenced hand is not kept: the node that took the table over voided it.
                if let Some(h) = hand.filter(|_| !fenced) {
                    let (store, table) = (store.clone(), id.clone());
                    let _ =
                        tokio::task::spawn_blocking(move || h.keep(store.as_ref(), &table)).await;
                }
                if (reply || fenced)
                    && let Some(tx) = me.upgrade()
                {
                    let _ = tx.send(Cmd::Saved(outcome)).await;
                }
                if fenced {
                    return;
                }
            }
            SaveJob::Over { rate } => {
                if let Some(r) = revision
                    && let Err(e) = cluster.drop_checkpoint(&id, r).await
                {
                    // A checkpoint left behind could be restored and rated again: this
                    // match's rating change is lost instead (the README's rule).
                    eprintln!("table {id}: cannot forget its checkpoint ({e}); not rated");
                    continue;
                }
                if let Some((rules, accounts)) = rate {
                    let (store, table) = (store.clone(), id.clone());
                    let _ = tokio::task::spawn_blocking(move || {
                        if let Err(e) = rate_accounts(store.as_ref(), &rules, &accounts) {
                            eprintln!("table {table}: rating the match: {e}");
                        }
                    })
                    .await;
                }
            }
        }
    }
}

/// Who plays each slot: people where people sat down, else bots taking `levels` in slot
/// order (Normal once they run out, e.g. for an invited person who never came).
fn seat_players(persons: [bool; 4], levels: &[Level]) -> [Player; 4] {
    let mut levels = levels.iter().copied();
    persons.map(|person| {
        if person {
            Player::Remote
        } else {
            Player::Bot(levels.next().unwrap_or(Level::Normal))
        }
    })
}

/// Reads the ratings of a finished match's people, rates it and writes the new ones.
pub fn rate_accounts(
    store: &dyn Store,
    rules: &str,
    seats: &[(Option<i64>, i32)],
) -> crate::store::Result<Vec<crate::store::StoredRating>> {
    let mut results = Vec::with_capacity(seats.len());
    for &(account, score) in seats {
        let rating = match account {
            Some(a) => Some(
                store
                    .rating(a, rules)?
                    .unwrap_or_else(|| crate::rating::initial(a, rules)),
            ),
            None => None,
        };
        results.push(crate::rating::SeatResult { rating, score });
    }
    let new = crate::rating::rate_match(&results);
    if !new.is_empty() {
        store.put_ratings(&new, crate::now())?;
    }
    Ok(new)
}

/// Tables by id (the lobby).
pub type Tables = HashMap<String, mpsc::Sender<Cmd>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owners_bot_levels_take_the_empty_seats_in_order() {
        use Level::{Easy, Hard, Normal};
        assert_eq!(
            seat_players([true, false, true, false], &[Hard, Easy]),
            [
                Player::Remote,
                Player::Bot(Hard),
                Player::Remote,
                Player::Bot(Easy)
            ]
        );
        // An invited person who never came: a Normal bot after the owner's levels.
        assert_eq!(
            seat_players([true, false, false, false], &[Easy, Hard]),
            [
                Player::Remote,
                Player::Bot(Easy),
                Player::Bot(Hard),
                Player::Bot(Normal)
            ]
        );
    }
}

#[cfg(test)]
mod stream_tests {
    use super::*;
    use tongcheng_core::Wind;
    use tongcheng_core::game::{Event, Game, HandSetup};

    fn slot() -> Slot {
        Slot {
            account: Some(1),
            device: 1,
            name: "p".into(),
            conn: None,
            outbox: Vec::new(),
            sent: 0,
            open_decision: None,
            hand_start: 0,
            auto: false,
            timeouts: 0,
            bank_ms: 0,
            contribution: None,
            ready: false,
            sent_events: 0,
            decision: None,
            auto_bot: LevelBot::new(Level::Normal, 1),
            moved: false,
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
        let record = crate::bench::hands(&rules, 1, 3).remove(0);
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
        s.push_hand_end(0, &record, [1, 2, 3, -6], dealer);
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
