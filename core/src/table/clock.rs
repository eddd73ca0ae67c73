//! The decision clock, one for every host: people's time limits, bank time (时间银行),
//! timeouts and 托管 (auto-play), driven by the time the host passes in (milliseconds on any
//! monotonic clock it likes; the core reads none).
//!
//! A person's decision opens when a [`Table::step`] first sees it (the step whose move made
//! it, or the next one) and runs for its limit under the table's
//! [`Clock`], plus what is left of the person's bank time. Answered in time, the time used
//! over the limit comes out of the bank; missed, the decision's timeout action is played and
//! the bank is spent. The second timeout in a row puts the seat on 托管: a stand-in bot
//! plays it at once until the person acts again (or the host takes 托管 off). Hosts also
//! put seats on 托管 (a person who asks for it) or mark a person away (disconnected): an
//! away person's seat is played by the stand-in too, without 托管 being announced.

use serde::{Deserialize, Serialize};

use super::{Mover, Step, Table, bot_seed};
use crate::bot::{Level, LevelBot};
use crate::game::{Action, Decision, DecisionKind};
use crate::seat::Seat;

/// How people's decisions are timed: the same meaning for every host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// No limits: the table waits for people as long as they like.
    Off,
    /// For learning: the rules' limits, but at least [`RELAXED_TURN_SECS`] for a turn and
    /// [`RELAXED_CLAIM_SECS`] for a claim, so a claim offer can be read.
    Relaxed,
    /// The rules' own limits, as online. Saves written before the rename say `"rules"`.
    #[default]
    #[serde(alias = "rules")]
    Match,
}

/// The least a turn gets under [`Clock::Relaxed`].
pub const RELAXED_TURN_SECS: u32 = 30;
/// The least a claim (or a chance to rob a kong) gets under [`Clock::Relaxed`].
pub const RELAXED_CLAIM_SECS: u32 = 10;

impl Clock {
    pub const ALL: [Clock; 3] = [Clock::Off, Clock::Relaxed, Clock::Match];

    pub fn name(self) -> &'static str {
        match self {
            Clock::Off => "off",
            Clock::Relaxed => "relaxed",
            Clock::Match => "match",
        }
    }

    /// Seconds a person has for `decision` (before bank time); `None` when untimed.
    pub fn limit_secs(self, decision: &Decision) -> Option<u32> {
        match self {
            Clock::Off => None,
            Clock::Match => Some(decision.limit_secs),
            Clock::Relaxed => Some(decision.limit_secs.max(match decision.kind {
                DecisionKind::Turn => RELAXED_TURN_SECS,
                DecisionKind::Claim { .. } | DecisionKind::RobKong { .. } => RELAXED_CLAIM_SECS,
            })),
        }
    }

    /// [`Clock::limit_secs`] in milliseconds.
    pub fn limit_ms(self, decision: &Decision) -> Option<u64> {
        self.limit_secs(decision).map(|s| u64::from(s) * 1000)
    }
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Clock {
    type Err = String;
    fn from_str(s: &str) -> Result<Clock, String> {
        Clock::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("'{s}' is not a clock (off, relaxed, match)"))
    }
}

/// What the clock of a saved table keeps: each player's bank time left, timeouts in a row
/// and 托管, by player slot. Open decisions are not kept (a time on another process's clock
/// means nothing here): a resumed decision starts afresh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockKept {
    pub bank_ms: [u64; 4],
    pub timeouts: [u32; 4],
    pub auto_play: [bool; 4],
}

/// What a person's accepted answer did to the clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answered {
    /// The seat was on 托管 and is not any more: the person is back.
    pub auto_play_ended: bool,
}

/// A person's pending decision as the clock times it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Timer {
    /// The hand's event count when it opened: with the seat pending, the decision's identity
    /// (other seats' silent passes do not make it another decision).
    events: usize,
    opened_ms: u64,
    /// Its own limit, bank time aside; `None` under [`Clock::Off`].
    limit_ms: Option<u64>,
}

/// The clock's state in a table.
#[derive(Clone, Debug)]
pub(super) struct Timing {
    /// Open decisions by seat.
    timers: [Option<Timer>; 4],
    /// By player slot, for the whole match.
    bank_ms: [u64; 4],
    timeouts: [u32; 4],
    auto_play: [bool; 4],
    away: [bool; 4],
    /// The (host) time the clock was stopped at.
    paused_at: Option<u64>,
    /// Some player slot is a person's (bot-only tables skip the clock entirely).
    people: bool,
}

impl Timing {
    pub(super) fn new(bank_secs: u32, people: bool) -> Timing {
        Timing {
            timers: [None; 4],
            bank_ms: [u64::from(bank_secs) * 1000; 4],
            timeouts: [0; 4],
            auto_play: [false; 4],
            away: [false; 4],
            paused_at: None,
            people,
        }
    }

    /// A new hand, or the hand dealt again: no decision is open.
    pub(super) fn close_all(&mut self) {
        self.timers = [None; 4];
    }

    /// The kept state, or `None` when it is as a new match's.
    pub(super) fn kept(&self, bank_secs: u32) -> Option<ClockKept> {
        let fresh = self.bank_ms == [u64::from(bank_secs) * 1000; 4]
            && self.timeouts == [0; 4]
            && self.auto_play == [false; 4];
        (!fresh).then_some(ClockKept {
            bank_ms: self.bank_ms,
            timeouts: self.timeouts,
            auto_play: self.auto_play,
        })
    }

    pub(super) fn restore(&mut self, kept: &ClockKept) {
        self.bank_ms = kept.bank_ms;
        self.timeouts = kept.timeouts;
        self.auto_play = kept.auto_play;
    }

    /// The time the clock reads when the host's is `now_ms`: standing still while paused.
    fn read(&self, now_ms: u64) -> u64 {
        self.paused_at.map_or(now_ms, |p| p.min(now_ms))
    }
}

impl Table {
    pub fn clock(&self) -> Clock {
        self.config.clock
    }

    /// Changes how people are timed from now on (a player's setting; a resumed match on
    /// another host). Open decisions keep their start and take the new limit.
    pub fn set_clock(&mut self, clock: Clock) {
        self.config.clock = clock;
        for seat in Seat::ALL {
            let limit = self.game().decision(seat).and_then(|d| clock.limit_ms(&d));
            if let Some(t) = &mut self.timing.timers[seat.index()] {
                t.limit_ms = limit;
            }
        }
    }

    /// The open timer of `seat`'s pending decision.
    fn timer(&self, seat: Seat) -> Option<&Timer> {
        self.timing.timers[seat.index()]
            .as_ref()
            .filter(|t| t.events == self.game().events().len() && self.game().is_pending(seat))
    }

    /// When `seat`'s open decision times out: opened, plus its limit, plus the bank left.
    fn timer_deadline(&self, seat: Seat) -> Option<u64> {
        let t = self.timer(seat)?;
        let bank = self.timing.bank_ms[self.player_at(seat)];
        Some(t.opened_ms.saturating_add(t.limit_ms?).saturating_add(bank))
    }

    /// A person's seat the stand-in plays: on 托管, or its person away.
    pub(super) fn stands_in(&self, player: usize) -> bool {
        let p = player % 4;
        self.config.players[p].is_person() && (self.timing.auto_play[p] || self.timing.away[p])
    }

    /// When player `player`'s pending decision times out (on the host's clock, moved on by
    /// any pause when the clock resumes): its limit plus the bank time left. `None` when
    /// untimed, not pending, not opened yet, or played by the stand-in.
    pub fn deadline(&self, player: usize) -> Option<u64> {
        if self.stands_in(player) {
            return None;
        }
        self.timer_deadline(self.seat_of(player))
    }

    /// Milliseconds player `player` has left at `now_ms` (standing still while paused);
    /// `None` as for [`Table::deadline`].
    pub fn remaining_ms(&self, player: usize, now_ms: u64) -> Option<u64> {
        let at = self.deadline(player)?;
        Some(at.saturating_sub(self.timing.read(now_ms)))
    }

    /// Bank time player `player` has left (ms).
    pub fn bank_ms(&self, player: usize) -> u64 {
        self.timing.bank_ms[player % 4]
    }

    /// Timeouts in a row of player `player` (reset when the player acts).
    pub fn timeouts(&self, player: usize) -> u32 {
        self.timing.timeouts[player % 4]
    }

    /// Player `player`'s seat is on 托管.
    pub fn auto_play(&self, player: usize) -> bool {
        self.timing.auto_play[player % 4]
    }

    /// Puts a person's seat on 托管 or takes it off (the person asked; the host decides).
    /// True when that changed something; a bot's slot never changes. Off, the timeouts in a
    /// row start again from none.
    pub fn set_auto_play(&mut self, player: usize, on: bool) -> bool {
        let p = player % 4;
        if !self.config.players[p].is_person() || self.timing.auto_play[p] == on {
            return false;
        }
        self.timing.auto_play[p] = on;
        if !on {
            self.timing.timeouts[p] = 0;
        }
        true
    }

    /// Player `player`'s person is away (the host lost their connection).
    pub fn away(&self, player: usize) -> bool {
        self.timing.away[player % 4]
    }

    /// Marks a person away (their seat is played by the stand-in at once, without 托管 being
    /// announced) or back.
    pub fn set_away(&mut self, player: usize, away: bool) {
        self.timing.away[player % 4] = away;
    }

    /// Stops people's clocks at `now_ms` (a host showing a hint, a chooser or a question in
    /// an offline game). Bots and stand-ins still play; nobody times out.
    pub fn pause_clock(&mut self, now_ms: u64) {
        if self.timing.paused_at.is_none() {
            self.timing.paused_at = Some(now_ms);
        }
    }

    /// Starts people's clocks again at `now_ms`: every open decision's deadline moves on by
    /// the time the clock stood still.
    pub fn resume_clock(&mut self, now_ms: u64) {
        let Some(at) = self.timing.paused_at.take() else {
            return;
        };
        let stood = now_ms.saturating_sub(at);
        for t in self.timing.timers.iter_mut().flatten() {
            t.opened_ms = t.opened_ms.saturating_add(stood);
        }
    }

    pub fn clock_paused(&self) -> bool {
        self.timing.paused_at.is_some()
    }

    /// Opens the clock of every person's pending decision not open yet; true when a
    /// stand-in's seat was among them (its move is told to the host before it is played).
    pub(super) fn open_timers(&mut self, now_ms: u64) -> bool {
        if !self.timing.people {
            return false;
        }
        let now = self.timing.read(now_ms);
        let events = self.game().events().len();
        let mut stand_in_opened = false;
        for seat in Seat::ALL {
            let p = self.player_at(seat);
            if !self.config.players[p].is_person()
                || !self.game().is_pending(seat)
                || self.timer(seat).is_some()
            {
                continue;
            }
            let limit_ms = self
                .game()
                .decision(seat)
                .and_then(|d| self.config.clock.limit_ms(&d));
            self.timing.timers[seat.index()] = Some(Timer {
                events,
                opened_ms: now,
                limit_ms,
            });
            stand_in_opened |= self.stands_in(p);
        }
        stand_in_opened
    }

    /// [`Table::step`] once no bot is due: a stand-in's move, a timeout, or the wait.
    pub(super) fn step_people(&mut self, now_ms: u64) -> Step {
        let stand_in_opened = self.open_timers(now_ms);
        let now = self.timing.read(now_ms);
        let before = self.game().events().len();
        let mut next: Option<u64> = None;
        let mut due = |at: u64| next = Some(next.map_or(at, |n| n.min(at)));
        for seat in Seat::ALL {
            let p = self.player_at(seat);
            if !self.config.players[p].is_person() || !self.game().is_pending(seat) {
                continue;
            }
            if self.stands_in(p) {
                if stand_in_opened {
                    // Opened just now: the host tells the person before the stand-in plays.
                    due(now_ms);
                    continue;
                }
                let action = self.play_bot(seat);
                return self.acted(seat, action, Mover::StandIn, before, now_ms);
            }
            if self.timing.paused_at.is_some() {
                continue;
            }
            match self.timer_deadline(seat) {
                Some(at) if now >= at => {
                    let (action, auto_play) = self.time_out(seat);
                    return self.acted(seat, action, Mover::Timeout { auto_play }, before, now_ms);
                }
                Some(at) => due(at),
                None => {}
            }
        }
        Step::Waiting { deadline_ms: next }
    }

    /// Plays `seat`'s timeout action and counts it: the bank is spent, and the second in a
    /// row puts the seat on 托管 (true then).
    fn time_out(&mut self, seat: Seat) -> (Action, bool) {
        let action = self
            .game()
            .decision(seat)
            .map_or(Action::Pass, |d| d.on_timeout);
        self.play
            .apply(seat, action)
            .expect("a decision's timeout action is legal");
        let p = self.player_at(seat);
        let t = &mut self.timing;
        t.bank_ms[p] = 0;
        t.timeouts[p] = t.timeouts[p].saturating_add(1);
        let auto_play = t.timeouts[p] >= 2 && !t.auto_play[p];
        t.auto_play[p] |= auto_play;
        (action, auto_play)
    }

    /// Books a person's accepted answer, given before it was applied: the time over the
    /// decision's limit comes out of the bank, the timeouts in a row start again, 托管 ends.
    pub(super) fn answered(
        &mut self,
        player: usize,
        timer: Option<(u64, Option<u64>)>,
        now_ms: u64,
    ) -> Answered {
        let p = player % 4;
        let now = self.timing.read(now_ms);
        let t = &mut self.timing;
        if let Some((opened, Some(limit))) = timer {
            let over = now.saturating_sub(opened).saturating_sub(limit);
            t.bank_ms[p] = t.bank_ms[p].saturating_sub(over);
        }
        t.timeouts[p] = 0;
        let auto_play_ended = std::mem::take(&mut t.auto_play[p]);
        Answered { auto_play_ended }
    }

    /// The open timer of `seat` as [`Table::answered`] needs it: (opened, limit).
    pub(super) fn open_timer(&self, seat: Seat) -> Option<(u64, Option<u64>)> {
        self.timer(seat).map(|t| (t.opened_ms, t.limit_ms))
    }

    /// The stand-in for player `player`'s current decision: a Normal bot seeded from the
    /// table's seed, the hand, the player and the decision, so its choices depend on the
    /// table alone (a resumed table's stand-in plays as the original's would).
    pub(super) fn stand_in(&self, player: usize) -> LevelBot {
        const STAND_IN: u64 = 0x5354_414e_445f_494e;
        let hand = bot_seed(
            self.config.bot_seed ^ STAND_IN,
            self.play.hand_index(),
            player,
        );
        let events = self.game().events().len() as u64;
        LevelBot::new(Level::Normal, hand.wrapping_add(events))
    }

    fn acted(&mut self, seat: Seat, action: Action, by: Mover, before: usize, now_ms: u64) -> Step {
        let visible = self.game().events().len() != before;
        self.open_timers(now_ms);
        Step::Acted {
            seat,
            action,
            by,
            visible,
        }
    }
}
