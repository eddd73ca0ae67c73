//! The full-screen game: ratatui on crossterm, laid out to fit 80×24 and use more if there.
//!
//! One loop: draw, wait for a key (or the next tick), act. Bots move on ticks with a short
//! pause after every move that changes the table, so the player can follow. The human's time
//! is the core table's clock ([`tongcheng_core::table::Clock`]), driven by the time this
//! screen passes in: the countdown is the table's, and when it runs out the table plays the
//! decision's timeout action (twice in a row: 托管, until a key is pressed).

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::DefaultTerminal;
use ratatui::Frame;
use ratatui::crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use signal_hook::consts::{SIGHUP, SIGTERM};
use tongcheng_core::game::events::SeatPublic;
use tongcheng_core::game::{Action, Decision, DecisionKind, HandResult, SeatView, TableMeld};
use tongcheng_core::hand::{KongKind, MeldKind};
use tongcheng_core::hint::hint;
use tongcheng_core::seat::Seat;
use tongcheng_core::tile::Tile;

use super::Setup;
use super::command::action_text;
use super::store::{Kept, KeptMatch, Store, describe_unfinished, load_unfinished};
use super::table::{Step, Table, Unfinished};
use super::text::{display_width, event_line, hint_block, meld_text, who};
use super::tiles::{Hue, TileFace, ascii_words, hue};

/// Pause after a bot's move that changes the table.
const BOT_DELAY: Duration = Duration::from_millis(700);
/// Pause after the human's own move before the bots go on.
const AFTER_HUMAN: Duration = Duration::from_millis(300);
/// Longest wait for a key before redrawing (keeps the countdown ticking).
const FRAME: Duration = Duration::from_millis(200);
/// Width of the hint box (borders included): fits an 80-column terminal.
const HINT_WIDTH: u16 = 80;
/// Event lines kept for the log.
const LOG_KEEP: usize = 40;
/// A key that arrives this soon after a new decision came up was typed for the one before
/// (a chooser that timed out, say) and must not act on this one.
const KEY_GRACE: Duration = Duration::from_millis(400);

pub fn run(setup: Setup, store: Store) -> io::Result<()> {
    let mut app = App::new(setup, store);
    // A closed terminal window (SIGHUP) or a `kill` (SIGTERM) ends the game as a quit does,
    // keeping the match; the flag is read between frames.
    let hang_up = Arc::new(AtomicBool::new(false));
    for signal in [SIGHUP, SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&hang_up))?;
    }
    let mut terminal = ratatui::try_init()?;
    let result = app.run(&mut terminal, &hang_up);
    if result.is_err() && !app.done {
        // The terminal went away under us: keep the match all the same.
        app.quit();
    }
    ratatui::restore();
    result?;
    for l in &app.farewell {
        println!("{l}");
    }
    Ok(())
}

enum Screen {
    /// A saved match exists: resume it or discard it?
    AskResume(Box<Unfinished>),
    Play,
    /// A hand just ended: the result, pre-rendered with the hand's own winds.
    HandOver {
        lines: Vec<Line<'static>>,
        match_over: bool,
    },
    MatchOver,
}

enum Overlay {
    Hint {
        lines: Vec<String>,
        scroll: u16,
    },
    /// Several chows or kongs: which one?
    Choose {
        title: String,
        actions: Vec<Action>,
        sel: usize,
    },
    ConfirmQuit,
    /// 飘 chosen each hand: the stake for the hand about to start.
    Piao {
        sel: u8,
    },
}

/// The human's pending decision.
struct Pending {
    decision: Decision,
    /// When it came up: keys in the first [`KEY_GRACE`] were meant for the decision before.
    opened: Instant,
    /// (hand, actions so far): a new pair is a new decision with a fresh clock.
    id: (u32, usize),
}

struct App {
    setup: Setup,
    store: Store,
    /// The kept match's save file.
    kept: KeptMatch,
    table: Table,
    screen: Screen,
    overlay: Option<Overlay>,
    /// Selected tile: an index into the hand followed by the drawn tile.
    sel: usize,
    pending: Option<Pending>,
    next_bot: Instant,
    /// The start of the table clock's time (it reads milliseconds since).
    epoch: Instant,
    /// Tests set the table clock's time themselves.
    #[cfg(test)]
    test_now_ms: Option<u64>,
    log: Vec<String>,
    /// Events of the current hand already in the log.
    seen: usize,
    message: Option<(String, bool)>,
    /// Printed on the normal screen after the TUI closes.
    farewell: Vec<String>,
    done: bool,
    /// The terminal is too small to show the table: the clock waits, as under an overlay.
    too_small: bool,
    /// 飘 chosen each hand: this hand's stake was asked for.
    piao_asked: bool,
}

impl App {
    fn new(setup: Setup, store: Store) -> App {
        let mut table = Table::new(setup.rules.clone(), setup.seed, setup.level);
        table.set_clock(setup.clock);
        let mut app = App {
            table,
            store,
            kept: KeptMatch::new(setup.unfinished.clone()),
            screen: Screen::Play,
            overlay: None,
            sel: 0,
            pending: None,
            next_bot: Instant::now(),
            epoch: Instant::now(),
            #[cfg(test)]
            test_now_ms: None,
            log: Vec::new(),
            seen: 0,
            message: None,
            farewell: Vec::new(),
            done: false,
            too_small: false,
            piao_asked: false,
            setup,
        };
        match load_unfinished(&app.setup.unfinished) {
            Ok(Some(u)) if app.setup.resume => app.resume(&u),
            Ok(Some(u)) => app.screen = Screen::AskResume(Box::new(u)),
            Ok(None) => app.start_note(),
            Err(e) => app.say(format!("{e}; it is left untouched"), true),
        }
        app
    }

    fn start_note(&mut self) {
        if self.setup.seed_from_clock {
            self.say(
                format!("New match, seed {} (from the clock).", self.table.seed()),
                false,
            );
        }
    }

    fn say(&mut self, m: String, error: bool) {
        self.message = Some((m, error));
    }

    fn resume(&mut self, u: &Unfinished) {
        match Table::resume(u) {
            Ok(mut t) => {
                t.set_clock(self.setup.clock);
                self.table = t;
                self.store.adopt_match(u.match_id);
                // The save stays until the match ends: it is rewritten after every hand.
                self.kept.adopt();
                self.say(format!("Resumed: {}.", describe_unfinished(u)), false);
                if self.table.is_over() {
                    self.screen = Screen::MatchOver;
                    return;
                }
                self.seen = 0;
                self.piao_asked = false;
            }
            Err(e) => self.say(
                format!("Cannot resume the saved match ({e}); it is left untouched."),
                true,
            ),
        }
        self.screen = Screen::Play;
    }

    fn run(&mut self, terminal: &mut DefaultTerminal, hang_up: &AtomicBool) -> io::Result<()> {
        while !self.done {
            if hang_up.load(Ordering::Relaxed) {
                self.quit();
                break;
            }
            self.too_small = terminal
                .size()
                .is_ok_and(|s| too_small(Rect::new(0, 0, s.width, s.height)));
            self.tick();
            terminal.draw(|f| self.draw(f))?;
            let now = Instant::now();
            let mut wait = FRAME;
            if self.pending.is_none() && matches!(self.screen, Screen::Play) {
                wait = wait.min(self.next_bot.saturating_duration_since(now));
            }
            if event::poll(wait)?
                && let TermEvent::Key(k) = event::read()?
                && k.kind == KeyEventKind::Press
            {
                self.key(k);
            }
        }
        Ok(())
    }

    // ----- the game moving on -----

    /// The table clock's time now (ms).
    fn now_ms(&self) -> u64 {
        #[cfg(test)]
        if let Some(t) = self.test_now_ms {
            return t;
        }
        self.epoch.elapsed().as_millis() as u64
    }

    /// Runs the person's clock only while their decision is on the screen: not while the
    /// bots' moves are shown one by one before it, nor while a chooser, the hint or the quit
    /// question is open, nor while the table cannot be seen (an offline game; the online
    /// table's clock is the server's). True when it runs.
    fn sync_clock(&mut self, now_ms: u64) -> bool {
        let shown = matches!(self.screen, Screen::Play)
            && self.pending.is_some()
            && self.overlay.is_none()
            && !self.too_small;
        self.table.set_clock_paused(!shown, now_ms);
        shown
    }

    /// Lets the bots play (one visible move per pause), opens the human's decisions and
    /// steps the table's clock, which plays the timeout action when it runs out.
    fn tick(&mut self) {
        let now = Instant::now();
        let now_ms = self.now_ms();
        let shown = self.sync_clock(now_ms);
        if !matches!(self.screen, Screen::Play) {
            return;
        }
        if self.pending.is_some() {
            if !shown {
                return;
            }
            match self.table.advance(now_ms) {
                Ok(Step::Human(_)) => {}
                Ok(step) => self.moved(step, now),
                Err(e) => self.say(format!("The game cannot go on: {e}"), true),
            }
            return;
        }
        // 飘 chosen each hand: the person stakes before anyone acts; the bots have already.
        if matches!(self.overlay, Some(Overlay::Piao { .. })) {
            return;
        }
        if !self.piao_asked && self.table.piao_open() {
            self.piao_asked = true;
            self.overlay = Some(Overlay::Piao { sel: 0 });
            return;
        }
        if now < self.next_bot {
            return;
        }
        // Silent answers (passes) cost no time; stop at the first move that shows.
        for _ in 0..64 {
            match self.table.advance(now_ms) {
                Ok(Step::Moved { visible: false, .. }) => self.pull_events(),
                Ok(Step::Human(d)) => {
                    self.pull_events();
                    self.open_decision(d, now);
                    return;
                }
                Ok(step) => return self.moved(step, now),
                Err(e) => {
                    self.say(format!("The game cannot go on: {e}"), true);
                    self.next_bot = now + Duration::from_secs(3600);
                    return;
                }
            }
        }
    }

    /// Shows a move that changed the table (a bot's, the stand-in's, the human's timeout)
    /// or the hand's end, and pauses before the next.
    fn moved(&mut self, step: Step, now: Instant) {
        self.pull_events();
        match step {
            Step::TimedOut { action, auto_play } => {
                self.pending = None;
                self.overlay = None;
                self.next_bot = now + AFTER_HUMAN;
                let m = format!("Time is up: auto-played {}.", action_text(action));
                if auto_play {
                    self.say(
                        format!("{m} Twice in a row: auto-play (托管), your seat plays itself — press any key to take it back."),
                        true,
                    );
                } else {
                    self.say(m, false);
                }
            }
            Step::HandOver => self.hand_over(),
            Step::Moved { .. } | Step::Human(_) => self.next_bot = now + BOT_DELAY,
        }
    }

    fn open_decision(&mut self, d: Decision, now: Instant) {
        let id = (self.table.hand_number(), self.table.game().actions().len());
        if self.pending.as_ref().is_some_and(|p| p.id == id) {
            return;
        }
        let v = self.table.view();
        // The drawn tile (shown apart, last) is selected first; otherwise the rightmost.
        self.sel = v.hand.len() + usize::from(v.drawn.is_some());
        self.sel = self.sel.saturating_sub(1);
        self.pending = Some(Pending {
            opened: now,
            decision: d,
            id,
        });
    }

    fn pull_events(&mut self) {
        let me = self.table.human_seat();
        let events = self.table.game().events();
        for e in &events[self.seen.min(events.len())..] {
            if let Some(l) = event_line(&self.table, &e.for_seat(me), self.setup.face) {
                self.log.push(l);
            }
        }
        self.seen = events.len();
        if self.log.len() > LOG_KEEP {
            self.log.drain(..self.log.len() - LOG_KEEP);
        }
    }

    fn act(&mut self, a: Action) {
        match self.table.apply_human(a, self.now_ms()) {
            Ok(()) => {
                self.pending = None;
                self.overlay = None;
                self.message = None;
                self.next_bot = Instant::now() + AFTER_HUMAN;
                self.pull_events();
            }
            Err(e) => self.say(e.to_string(), true),
        }
    }

    /// Saves the hand, renders its result while the hand's winds still hold, and books it.
    fn hand_over(&mut self) {
        let Some(r) = self.table.game().result().cloned() else {
            return;
        };
        let mut lines = self.result_lines(&r);
        let saved = match self.store.save_hand(&self.table) {
            Ok(id) => format!("Saved to the history as hand {}.", id.0),
            Err(e) => format!("Not saved to the history: {e}"),
        };
        let label = "Standings: ".to_string();
        let match_over = !self.table.next_hand();
        let mut standings = vec![Span::raw(label)];
        for (i, (name, s)) in self.table.standings().iter().enumerate() {
            if i > 0 {
                standings.push(Span::raw(" · "));
            }
            standings.push(Span::raw(format!("{}. {name} ", i + 1)));
            standings.push(score_span(*s));
        }
        lines.push(Line::from(standings));
        lines.push(Line::from(saved));
        if let Err(e) = self.kept.keep(&self.table, self.store.match_id()) {
            lines.push(Line::from(format!("The match could not be kept: {e}")));
        }
        if match_over && let Err(e) = self.store.finish_match(&self.table) {
            lines.push(Line::from(format!(
                "The match could not be closed in the history: {e}"
            )));
        }
        lines.push(Line::default());
        let next = if match_over {
            "final standings"
        } else {
            "next hand"
        };
        lines.push(
            Line::from(format!("[Enter] {next} · [q] quit"))
                .style(Style::default().add_modifier(Modifier::BOLD)),
        );
        self.pending = None;
        self.overlay = None;
        self.screen = Screen::HandOver { lines, match_over };
    }

    fn next_hand(&mut self, match_over: bool) {
        if match_over {
            self.screen = Screen::MatchOver;
            return;
        }
        self.screen = Screen::Play;
        self.seen = 0;
        self.piao_asked = false;
        self.log.clear();
        self.message = None;
        self.next_bot = Instant::now() + BOT_DELAY;
    }

    /// Stakes `n` (飘) on this hand and says what everyone staked.
    fn stake(&mut self, n: u8) {
        match self.table.choose_piao(n) {
            Ok(()) => {
                let all = self.table.piao_chosen();
                let others: Vec<String> = Seat::ALL
                    .into_iter()
                    .filter(|&s| s != self.table.human_seat())
                    .map(|s| format!("{} {}", self.table.name(s), all[s.index()]))
                    .collect();
                self.say(
                    format!("飘 {n} on this hand (the bots: {}).", others.join(", ")),
                    false,
                );
            }
            Err(e) => self.say(e, true),
        }
    }

    // ----- keys -----

    // ----- drawing -----
}

mod draw;
mod keys;
#[cfg(test)]
mod tests;

use draw::*;
