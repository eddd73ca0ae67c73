//! One online table: a tokio task that owns the core's [`Table`] and talks to its people's
//! connections through channels. Everything about the match happens here, in order, so there
//! are no locks around the game: connections only send commands in and read frames out.
//!
//! Per hand: commit to a secret seed, collect contributions (until every connected person
//! sent one, or the deadline), deal from the fair seed, then play. The decision clock is the
//! core table's ([`tongcheng_core::table::clock`]), driven by the process's clock
//! ([`super::clock`]): bots and seats on auto-play (托管) or whose person is away answer at
//! once, people get their decision with the time the table gives them (the rules' limit plus
//! bank time), a missed one plays the decision's timeout action and two in a row put the seat
//! on 托管 until its person acts again. The task only passes the time in, says who is away and
//! tells people what the table did. At the end every person gets the record with the reveal,
//! and the hand is stored in each person's synced records.
//!
//! By concern: the task loop (this file), the people's streams and joins ([`stream`]), the
//! commit–reveal of each wall ([`fair`]), playing a hand on the core's clock ([`playing`]),
//! checkpoints for several nodes ([`checkpoint`]), the hands' and match's end and their
//! storage ([`storage`]), and ratings ([`rating`]).

mod barred;
mod checkpoint;
mod fair;
mod piao;
mod playing;
mod rating;
mod storage;
mod stream;

pub use checkpoint::SaveOutcome;
pub use rating::rate_accounts;

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tongcheng_core::bot::Level;
use tongcheng_core::protocol::{ClientMsg, ErrorCode, RoundTable};
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::table::{Clock, Deal, Player, Table, TableConfig};
use tongcheng_core::wall::Seed;

use super::clock;
use super::config::OnlineConfig;
use crate::cluster::Cluster;
use crate::store::Store;
use checkpoint::SaveJob;
use storage::PendingEnd;
use stream::Slot;

/// A connection asking for a seat (its account's, or a free one).
pub struct Joining {
    pub account: i64,
    pub device: i64,
    pub name: String,
    /// On reconnect: the last stream `seq` the client holds.
    pub after: Option<u64>,
    pub conn: u64,
    /// Where the seat's frames go.
    pub out: mpsc::Sender<String>,
}

/// What a connection asks of its table.
pub enum Cmd {
    /// A seat: the player slot taken, or why not.
    Join(Joining, oneshot::Sender<Result<u8, (ErrorCode, String)>>),
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
    /// A sanction on `account` came into force (`Some`: the frame its answers get) or was
    /// lifted (`None`).
    Bar {
        account: i64,
        device: Option<i64>,
        refusal: Option<(ErrorCode, String)>,
    },
}

/// How the table reaches its host when it closes: to leave the lobby, and to forget the
/// table in the store unless (false) another node owns it now.
pub type OnClose = Box<dyn FnOnce(bool) + Send>;

/// Where the table is in its cycle.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Lobby,
    Contributing,
    /// Dealt, waiting for the people's 飘 ([`piao`]).
    Staking,
    Playing,
    /// A finished hand waits for its checkpoint before anyone is told (several nodes).
    Saving,
    BetweenHands,
    Over,
}

/// The longest a tournament round's table waits for its entrants to connect (ms).
const ROUND_LOBBY_MS: u64 = 20_000;

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
    /// When the task must wake (process clock, ms): a phase's end, or the table's next step.
    wake_ms: Option<u64>,
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
    /// A table restored here waits until then (process clock, ms) for its people to reconnect
    /// before the next hand.
    grace_ms: Option<u64>,
    /// Restored with its match already over: it only has to be rated.
    restored_over: bool,
    /// Another node owns the table now: it closes without touching the store's rows.
    fenced: bool,
    /// The pause after the last discard, while it lasts (see [`playing`]).
    pause: Option<playing::ClaimPause>,
    /// Events of the hand already looked at for discards to pause after.
    pause_checked: usize,
    /// The pauses' jitter (xorshift from the OS's randomness: nobody must predict it).
    jitter: u64,
    /// The people's think times in the hand in play (see [`crate::sanctions::assist`]).
    think: Vec<crate::store::Think>,
    /// A tournament round's table: its seats, its walls from the round's seed, and where
    /// its result goes.
    round: Option<RoundSeating>,
    /// A round table's hands so far, for the round's published record.
    round_hands: Vec<HandRecord>,
}

/// A tournament round's table, as the round's runner sets it (see [`crate::play::tournament`]).
pub struct RoundSeating {
    /// What the welcome tells its people.
    pub seat: RoundTable,
    /// The match's seed: every hand's wall derives from it ([`tongcheng_core::game::Match`]).
    pub match_seed: Seed,
    /// Each player slot's entrant; `None`: a bot.
    pub entrants: [Option<RoundEntrant>; 4],
    /// The table's result goes here when its match is over (and to the store in any case,
    /// where a runner on another node reads it).
    pub done: Option<mpsc::UnboundedSender<TableDone>>,
}

/// An entrant at a round's table.
#[derive(Clone, Debug)]
pub struct RoundEntrant {
    pub account: i64,
    /// Where his hands are kept if he never joins (the device he signed up from).
    pub device: i64,
    pub name: String,
}

/// A round table's finished match.
#[derive(Debug)]
pub struct TableDone {
    pub table: u32,
    /// The match scores by player slot.
    pub scores: [i32; 4],
    pub hands: Vec<HandRecord>,
}

/// A random 32-byte value; the OS's CSPRNG, else (never seen in practice) a time-based one
/// so that a table is never stuck — the commitment still binds whatever was chosen.
fn random32() -> [u8; 32] {
    let mut b = [0u8; 32];
    if getrandom::getrandom(&mut b).is_err() {
        b[..16].copy_from_slice(&tongcheng_core::clock::unix_nanos().to_le_bytes());
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
        let slots = (0..4).map(Slot::empty).collect();
        let lobby_ends = clock::now_ms() + config.lobby_ms;
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
            wake_ms: Some(lobby_ends),
            rx,
            cluster: None,
            me: None,
            saver: None,
            revision: None,
            pending_end: None,
            grace_ms: None,
            restored_over: false,
            fenced: false,
            pause: None,
            pause_checked: 0,
            jitter: u64::from_le_bytes(random32()[..8].try_into().unwrap_or([7; 8])) | 1,
            think: Vec::new(),
            round: None,
            round_hands: Vec::new(),
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

    /// A tournament round's table: its entrants' seats are theirs from the start (one who
    /// never comes is away, and the stand-in plays his seat: 托管), the match starts when
    /// they are all connected or the lobby time is up, and every wall comes from the round.
    pub fn tournament(mut self, round: RoundSeating) -> TableTask {
        let mut accounts = Vec::new();
        for (slot, entrant) in self.slots.iter_mut().zip(&round.entrants) {
            if let Some(e) = entrant {
                slot.account = Some(e.account);
                slot.device = e.device;
                slot.name = e.name.clone();
                accounts.push(e.account);
            }
        }
        self.people = accounts.len() as u8;
        self.reserved = Some(accounts);
        self.round = Some(round);
        // Its entrants were told their table at once: a no-show should not hold the round up
        // for the lobby time of a table the queue waits on.
        self.wake_ms = Some(clock::now_ms() + self.config.lobby_ms.min(ROUND_LOBBY_MS));
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
            if self.phase == Phase::Over && self.wake_ms.is_none() {
                break;
            }
            let cmd = match self.wake_ms {
                Some(at) => match tokio::time::timeout_at(clock::instant(at), self.rx.recv()).await
                {
                    Ok(c) => c,
                    Err(_) => {
                        self.on_wake();
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
            Cmd::Join(joining, reply) => {
                let _ = reply.send(self.join(joining));
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
            Cmd::Bar {
                account,
                device,
                refusal,
            } => self.bar(account, device, refusal),
        }
    }

    /// The wake-up time came: the lobby fills with bots, contributions close, the pause
    /// between hands ends, or the table is due a step (a person's time ran out).
    fn on_wake(&mut self) {
        self.wake_ms = None;
        match self.phase {
            Phase::Lobby if self.room && !self.slots.iter().any(Slot::connected) => {
                // An empty room expires: no match, no linger.
                self.phase = Phase::Over;
            }
            Phase::Lobby => self.start_match(),
            Phase::Contributing => self.deal(),
            Phase::Staking => self.piao_done(),
            Phase::BetweenHands => self.start_hand(),
            // The next `advance` steps the table at the time now.
            Phase::Playing | Phase::Saving => {}
            // The linger time is up: the connections go with the table.
            Phase::Over => {}
        }
    }

    /// Moves the table on as far as it can go without anyone: the state machine's heart.
    fn advance(&mut self) {
        loop {
            match self.phase {
                Phase::Lobby => {
                    let ready = if self.round.is_some() {
                        self.slots.iter().all(|s| !s.person() || s.connected())
                    } else {
                        self.joined_people() >= usize::from(self.people)
                    };
                    if ready {
                        self.start_match();
                        continue;
                    }
                    return;
                }
                Phase::Contributing => {
                    // Every person's contribution is waited for until the deadline, a seat
                    // whose connection dropped included: dealing at once without it made
                    // that seat's walls the server's alone, when a reconnect a moment later
                    // would have brought it. Seats on auto-play still contribute (their
                    // client does it unasked).
                    let waiting = self
                        .slots
                        .iter()
                        .any(|s| s.person() && s.contribution.is_none());
                    if !waiting {
                        self.deal();
                        continue;
                    }
                    return;
                }
                Phase::BetweenHands => {
                    let waiting = if self.grace_ms.is_some() {
                        // Restored here: wait for everyone to come back (or the grace to end).
                        self.slots.iter().any(|s| s.person() && !s.connected())
                    } else {
                        let auto_play = |p| self.table.as_ref().is_some_and(|t| t.auto_play(p));
                        self.slots
                            .iter()
                            .enumerate()
                            .any(|(p, s)| s.person() && s.connected() && !auto_play(p) && !s.ready)
                    };
                    if !waiting {
                        self.start_hand();
                        continue;
                    }
                    return;
                }
                Phase::Staking => {
                    if !self.piao_waiting() {
                        self.piao_done();
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
        let seed = self
            .round
            .as_ref()
            .map_or_else(random32, |r| r.match_seed.0);
        let config = TableConfig {
            deal: Deal::Match {
                rules: self.rules.clone(),
                seed: Seed(seed),
            },
            players,
            bot_seed: u64::from_le_bytes(seed[..8].try_into().unwrap_or([0; 8])),
            // Online, people have the rules' own limits (and their bank time).
            clock: Clock::Match,
        };
        match Table::try_new(config) {
            Ok(t) => {
                self.table = Some(t);
                self.hand = 0;
                self.apply_bars();
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
