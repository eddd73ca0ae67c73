//! The full-screen game: ratatui on crossterm, laid out to fit 80×24 and use more if there.
//!
//! One loop: draw, wait for a key (or the next tick), act. Bots move on ticks with a short
//! pause after every move that changes the table, so the player can follow; the human's
//! decision shows its time limit as a countdown and, when it runs out, the decision's timeout
//! action is played for them (as the rules' time limits say).

use std::io;
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
use tongcheng_core::game::events::SeatPublic;
use tongcheng_core::game::{Action, Decision, DecisionKind, HandResult, SeatView, TableMeld};
use tongcheng_core::hand::{KongKind, MeldKind};
use tongcheng_core::hint::hint;
use tongcheng_core::seat::Seat;
use tongcheng_core::tile::Tile;

use super::Setup;
use super::command::action_text;
use super::store::{
    Store, describe_unfinished, load_unfinished, remove_unfinished, save_unfinished,
};
use super::table::{Step, Table, Unfinished};
use super::text::{display_width, event_line, hint_block, meld_text, who};
use super::tiles::{Hue, TileFace, hue};

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

pub fn run(setup: Setup, store: Store) -> io::Result<()> {
    let mut app = App::new(setup, store);
    let mut terminal = ratatui::try_init()?;
    let result = app.run(&mut terminal);
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
}

/// The human's pending decision and when it times out.
struct Pending {
    decision: Decision,
    deadline: Instant,
    /// (hand, actions so far): a new pair is a new decision with a fresh clock.
    id: (u32, usize),
}

struct App {
    setup: Setup,
    store: Store,
    table: Table,
    screen: Screen,
    overlay: Option<Overlay>,
    /// Selected tile: an index into the hand followed by the drawn tile.
    sel: usize,
    pending: Option<Pending>,
    next_bot: Instant,
    log: Vec<String>,
    /// Events of the current hand already in the log.
    seen: usize,
    message: Option<(String, bool)>,
    /// Printed on the normal screen after the TUI closes.
    farewell: Vec<String>,
    done: bool,
}

fn hue_color(h: Hue) -> Color {
    match h {
        Hue::Red => Color::LightRed,
        Hue::Blue => Color::LightBlue,
        Hue::Green => Color::LightGreen,
        Hue::Plain => Color::Reset,
        Hue::Magenta => Color::LightMagenta,
    }
}

fn tile_style(t: Tile) -> Style {
    Style::default().fg(hue_color(hue(t)))
}

impl App {
    fn new(setup: Setup, store: Store) -> App {
        let table = Table::new(setup.rules.clone(), setup.seed, setup.level);
        let mut app = App {
            table,
            store,
            screen: Screen::Play,
            overlay: None,
            sel: 0,
            pending: None,
            next_bot: Instant::now(),
            log: Vec::new(),
            seen: 0,
            message: None,
            farewell: Vec::new(),
            done: false,
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
            Ok(t) => {
                self.table = t;
                self.store.adopt_match(u.match_id);
                match remove_unfinished(&self.setup.unfinished) {
                    Ok(()) => self.say(format!("Resumed: {}.", describe_unfinished(u)), false),
                    Err(e) => self.say(e, true),
                }
                if self.table.is_over() {
                    self.screen = Screen::MatchOver;
                    return;
                }
                self.seen = 0;
            }
            Err(e) => self.say(
                format!("Cannot resume the saved match ({e}); it is left untouched."),
                true,
            ),
        }
        self.screen = Screen::Play;
    }

    fn run(&mut self, terminal: &mut DefaultTerminal) -> io::Result<()> {
        while !self.done {
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

    /// Lets the bots play (one visible move per pause), opens the human's decisions and plays
    /// the timeout action when the clock runs out.
    fn tick(&mut self) {
        if !matches!(self.screen, Screen::Play) {
            return;
        }
        let now = Instant::now();
        if let Some(p) = &self.pending {
            if now >= p.deadline {
                let a = p.decision.on_timeout;
                self.overlay = None;
                self.act(a);
                self.say(
                    format!("Time is up: auto-played {}.", action_text(a)),
                    false,
                );
            }
            return;
        }
        if now < self.next_bot {
            return;
        }
        // Silent answers (passes) cost no time; stop at the first move that shows.
        for _ in 0..64 {
            match self.table.advance() {
                Ok(Step::Bot { visible, .. }) => {
                    self.pull_events();
                    if visible {
                        self.next_bot = now + BOT_DELAY;
                        return;
                    }
                }
                Ok(Step::Human(d)) => {
                    self.pull_events();
                    self.open_decision(d, now);
                    return;
                }
                Ok(Step::HandOver) => {
                    self.pull_events();
                    self.hand_over();
                    return;
                }
                Err(e) => {
                    self.say(format!("The game cannot go on: {e}"), true);
                    self.next_bot = now + Duration::from_secs(3600);
                    return;
                }
            }
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
            deadline: now + Duration::from_secs(u64::from(d.limit_secs)),
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
        match self.table.apply_human(a) {
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
        self.log.clear();
        self.message = None;
        self.next_bot = Instant::now() + BOT_DELAY;
    }

    // ----- keys -----

    fn key(&mut self, k: KeyEvent) {
        if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
            self.overlay = Some(Overlay::ConfirmQuit);
            return;
        }
        if let Some(o) = self.overlay.take() {
            // The key may itself open another overlay (a hint closed by 'c' opens a chooser).
            if let Some(o) = self.overlay_key(o, k) {
                self.overlay = Some(o);
            }
            return;
        }
        match &self.screen {
            Screen::AskResume(u) => {
                let u = (**u).clone();
                match k.code {
                    KeyCode::Char('r') | KeyCode::Char('y') => self.resume(&u),
                    KeyCode::Char('d') | KeyCode::Char('n') => {
                        match remove_unfinished(&self.setup.unfinished) {
                            Ok(()) => self.say(
                                "The saved match was discarded: a new match starts.".into(),
                                false,
                            ),
                            Err(e) => self.say(e, true),
                        }
                        self.screen = Screen::Play;
                    }
                    KeyCode::Char('q') | KeyCode::Esc => {
                        self.farewell.push(format!(
                            "The unfinished match in {} was left as it is.",
                            self.setup.unfinished.display()
                        ));
                        self.done = true;
                    }
                    _ => {}
                }
            }
            Screen::HandOver { match_over, .. } => {
                let over = *match_over;
                match k.code {
                    KeyCode::Enter | KeyCode::Char(' ') => self.next_hand(over),
                    KeyCode::Char('q') | KeyCode::Esc => self.overlay = Some(Overlay::ConfirmQuit),
                    _ => {}
                }
            }
            Screen::MatchOver => {
                if matches!(
                    k.code,
                    KeyCode::Enter | KeyCode::Char('q') | KeyCode::Esc | KeyCode::Char(' ')
                ) {
                    self.farewell.extend(super::text::final_block(&self.table));
                    self.done = true;
                }
            }
            Screen::Play => self.play_key(k),
        }
    }

    /// Keys while an overlay is open; returns the overlay if it stays open.
    fn overlay_key(&mut self, o: Overlay, k: KeyEvent) -> Option<Overlay> {
        match o {
            Overlay::ConfirmQuit => {
                match k.code {
                    KeyCode::Char('y') | KeyCode::Enter => self.quit(),
                    KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => {}
                    _ => return Some(Overlay::ConfirmQuit),
                }
                None
            }
            Overlay::Hint { lines, scroll } => match k.code {
                KeyCode::Up => Some(Overlay::Hint {
                    lines,
                    scroll: scroll.saturating_sub(1),
                }),
                KeyCode::Down => Some(Overlay::Hint {
                    scroll: scroll
                        .saturating_add(1)
                        .min(lines.len().saturating_sub(1) as u16),
                    lines,
                }),
                KeyCode::Esc | KeyCode::Char('h') => None,
                _ => {
                    // Any other key closes the hint and does what it says.
                    self.play_key(k);
                    None
                }
            },
            Overlay::Choose {
                title,
                actions,
                sel,
            } => {
                let n = actions.len();
                match k.code {
                    KeyCode::Left | KeyCode::Up => Some(Overlay::Choose {
                        title,
                        actions,
                        sel: (sel + n - 1) % n.max(1),
                    }),
                    KeyCode::Right | KeyCode::Down | KeyCode::Tab => Some(Overlay::Choose {
                        title,
                        actions,
                        sel: (sel + 1) % n.max(1),
                    }),
                    KeyCode::Enter => {
                        if let Some(&a) = actions.get(sel) {
                            self.act(a);
                        }
                        None
                    }
                    KeyCode::Char(c) if c.is_ascii_digit() => {
                        let i = (c as usize).wrapping_sub('1' as usize);
                        match actions.get(i) {
                            Some(&a) => {
                                self.act(a);
                                None
                            }
                            None => Some(Overlay::Choose {
                                title,
                                actions,
                                sel,
                            }),
                        }
                    }
                    KeyCode::Esc => None,
                    _ => Some(Overlay::Choose {
                        title,
                        actions,
                        sel,
                    }),
                }
            }
        }
    }

    fn play_key(&mut self, k: KeyEvent) {
        if matches!(k.code, KeyCode::Char('q') | KeyCode::Esc) {
            self.overlay = Some(Overlay::ConfirmQuit);
            return;
        }
        let Some(p) = &self.pending else {
            if k.code == KeyCode::Char('h') {
                self.say("Nothing to decide yet.".into(), false);
            }
            return;
        };
        let d = p.decision.clone();
        let v = self.table.view();
        let tiles: Vec<Tile> = v.hand.iter().copied().chain(v.drawn).collect();
        let legal = |a: Action| d.legal.contains(&a);
        let pick =
            |app: &mut App, title: &str, actions: Vec<Action>, none: &str| match actions.len() {
                0 => app.say(none.into(), true),
                1 => app.act(actions[0]),
                _ => {
                    app.overlay = Some(Overlay::Choose {
                        title: title.into(),
                        actions,
                        sel: 0,
                    })
                }
            };
        match k.code {
            KeyCode::Left => self.sel = self.sel.saturating_sub(1),
            KeyCode::Right => self.sel = (self.sel + 1).min(tiles.len().saturating_sub(1)),
            KeyCode::Home => self.sel = 0,
            KeyCode::End => self.sel = tiles.len().saturating_sub(1),
            KeyCode::Enter => match d.kind {
                DecisionKind::Turn => match tiles.get(self.sel) {
                    Some(&t) if legal(Action::Discard(t)) => self.act(Action::Discard(t)),
                    Some(&t) => self.say(format!("You cannot discard {t} now."), true),
                    None => {}
                },
                _ => self.say(
                    "Not your turn to discard: c chow · p pung · k kong · w win · space pass."
                        .into(),
                    true,
                ),
            },
            KeyCode::Char('c') => {
                let chows = d
                    .legal
                    .iter()
                    .copied()
                    .filter(|a| matches!(a, Action::Chow(_)))
                    .collect();
                pick(self, "Which chow?", chows, "No chow is possible.");
            }
            KeyCode::Char('k') => {
                let kongs = d
                    .legal
                    .iter()
                    .copied()
                    .filter(|a| {
                        matches!(
                            a,
                            Action::Kong | Action::ConcealedKong(_) | Action::AddedKong(_)
                        )
                    })
                    .collect();
                pick(self, "Which kong?", kongs, "No kong is possible.");
            }
            KeyCode::Char('p') => {
                if legal(Action::Pung) {
                    self.act(Action::Pung);
                } else {
                    self.say("No pung is possible.".into(), true);
                }
            }
            KeyCode::Char('w') => {
                if legal(Action::Win) {
                    self.act(Action::Win);
                } else {
                    self.say("No winning hand (worth the minimum) here.".into(), true);
                }
            }
            KeyCode::Char(' ') | KeyCode::Char('x') => {
                if legal(Action::Pass) {
                    self.act(Action::Pass);
                } else {
                    self.say(
                        "It is your turn: choose a tile and press Enter to discard it.".into(),
                        true,
                    );
                }
            }
            KeyCode::Char('h') => match hint(&v) {
                Some(h) => {
                    self.overlay = Some(Overlay::Hint {
                        lines: hint_block(&h, usize::from(HINT_WIDTH - 2)),
                        scroll: 0,
                    })
                }
                None => self.say("No hint for this decision.".into(), false),
            },
            _ => {}
        }
    }

    /// Saves the unfinished match (never over another saved one) and leaves.
    fn quit(&mut self) {
        self.done = true;
        let path = self.setup.unfinished.clone();
        if self.table.is_over() || matches!(self.screen, Screen::AskResume(_)) {
            return;
        }
        let u = self.table.unfinished(self.store.match_id());
        if u.hands().iter().all(Vec::is_empty) {
            self.farewell
                .push("Quit before the first move: nothing to save.".into());
        } else if path.exists() {
            self.farewell.push(format!(
                "Another unfinished match is saved in {} and was left untouched; this one is not saved.",
                path.display()
            ));
        } else {
            match save_unfinished(&path, &u) {
                Ok(()) => self.farewell.push(format!(
                    "Match saved in {}: start `tongcheng play` again to resume it.",
                    path.display()
                )),
                Err(e) => self
                    .farewell
                    .push(format!("The match could not be saved: {e}")),
            }
        }
    }

    // ----- drawing -----

    fn draw(&self, f: &mut Frame) {
        let area = f.area();
        match &self.screen {
            Screen::AskResume(u) => self.draw_ask(f, area, u),
            Screen::Play => self.draw_table(f, area),
            Screen::HandOver { lines, .. } => f.render_widget(
                Paragraph::new(Text::from(lines.clone())).wrap(Wrap { trim: false }),
                area,
            ),
            Screen::MatchOver => self.draw_final(f, area),
        }
        match &self.overlay {
            None => {}
            Some(Overlay::ConfirmQuit) => {
                let text = if self.table.is_over() {
                    "Leave the game? [y] yes · [n] no".to_string()
                } else {
                    "Quit? The match is saved so you can resume it later.\n\n[y] quit · [n] keep playing".to_string()
                };
                popup(f, area, " Quit ", Text::from(text), 60, 6, 0);
            }
            Some(Overlay::Hint { lines, scroll }) => {
                let text: Vec<Line> = lines.iter().map(|l| Line::from(l.clone())).collect();
                let h = (lines.len() as u16 + 3).min(area.height.saturating_sub(2));
                popup(
                    f,
                    area,
                    " Hint (↑/↓ scroll, h close) ",
                    Text::from(text),
                    HINT_WIDTH,
                    h,
                    *scroll,
                );
            }
            Some(Overlay::Choose {
                title,
                actions,
                sel,
            }) => {
                let mut spans = Vec::new();
                for (i, a) in actions.iter().enumerate() {
                    let label = format!(" {}: {} ", i + 1, self.action_label(*a));
                    let st = if i == *sel {
                        Style::default().add_modifier(Modifier::REVERSED)
                    } else {
                        Style::default()
                    };
                    spans.push(Span::styled(label, st));
                }
                let text = Text::from(vec![
                    Line::from(spans),
                    Line::default(),
                    Line::from("←/→ choose · Enter take it · Esc cancel"),
                ]);
                popup(f, area, &format!(" {title} "), text, 60, 6, 0);
            }
        }
    }

    /// A chow or kong as tiles: "chow 🀙🀚🀛".
    fn action_label(&self, a: Action) -> String {
        let face = self.setup.face;
        let run = |t: Tile, n: usize, chow: bool| -> String {
            (0..n as i8)
                .filter_map(|d| if chow { t.offset(d) } else { Some(t) })
                .map(|x| face.padded(x, face.cells()))
                .collect::<String>()
                .trim_end()
                .to_string()
        };
        match a {
            Action::Chow(t) => format!("chow {}", run(t, 3, true)),
            Action::ConcealedKong(t) => format!("concealed kong {}", run(t, 4, false)),
            Action::AddedKong(t) => format!("add to pung {}", run(t, 4, false)),
            Action::Kong => match self.pending.as_ref().map(|p| p.decision.kind) {
                Some(DecisionKind::Claim { tile }) => format!("kong {}", run(tile, 4, false)),
                _ => "kong".into(),
            },
            other => action_text(other),
        }
    }

    fn draw_ask(&self, f: &mut Frame, area: Rect, u: &Unfinished) {
        let text = Text::from(vec![
            Line::from("An unfinished match was saved when you last quit:"),
            Line::default(),
            Line::from(format!("  {}", describe_unfinished(u))),
            Line::default(),
            Line::from("[r] resume it · [d] discard it and start a new match · [q] quit"),
        ]);
        popup(f, area, " 桐城麻将 Tongcheng Mahjong ", text, 76, 9, 0);
        if let Some((m, err)) = &self.message {
            let st = if *err {
                Style::default().fg(Color::LightRed)
            } else {
                Style::default()
            };
            let y = area.y + area.height.saturating_sub(1);
            f.render_widget(
                Paragraph::new(m.clone()).style(st),
                Rect::new(area.x, y, area.width, 1),
            );
        }
    }

    fn draw_final(&self, f: &mut Frame, area: Rect) {
        let mut lines = vec![
            Line::from(format!(
                "Match over — final standings after {} hands",
                self.table.match_state().hands_played()
            ))
            .style(Style::default().add_modifier(Modifier::BOLD)),
            Line::default(),
        ];
        for (i, (name, s)) in self.table.standings().iter().enumerate() {
            lines.push(Line::from(vec![
                Span::raw(format!("  {}. {name:<6} ", i + 1)),
                score_span(*s),
            ]));
        }
        lines.push(Line::default());
        if let Some(id) = self.store.match_id() {
            lines.push(Line::from(format!(
                "Every hand is in the history ({}, match {id}).",
                self.store.path().display()
            )));
        }
        lines.push(Line::from("[Enter] leave"));
        f.render_widget(
            Paragraph::new(Text::from(lines)).wrap(Wrap { trim: false }),
            area,
        );
    }

    fn draw_table(&self, f: &mut Frame, area: Rect) {
        let v = self.table.view();
        let me = v.seat;
        let rows = Layout::vertical([
            Constraint::Length(1), // header
            Constraint::Length(3), // next seat
            Constraint::Length(3), // across
            Constraint::Length(3), // previous seat
            Constraint::Length(3), // you
            Constraint::Length(1), // rule
            Constraint::Length(3), // log
            Constraint::Length(1), // rule
            Constraint::Length(2), // hand
            Constraint::Length(1), // status
            Constraint::Length(1), // message
            Constraint::Min(0),
        ])
        .split(area);
        f.render_widget(Paragraph::new(self.header_line(&v)), rows[0]);
        for (i, d) in [1u8, 2, 3, 0].into_iter().enumerate() {
            let seat = me.after(d);
            if let Some(sp) = v.seats.iter().find(|s| s.seat == seat) {
                self.draw_seat(f, rows[1 + i], &v, sp);
            }
        }
        let rule = "─".repeat(area.width as usize);
        let dim = Style::default().fg(Color::DarkGray);
        f.render_widget(Paragraph::new(rule.clone()).style(dim), rows[5]);
        let log: Vec<Line> = self
            .log
            .iter()
            .rev()
            .take(rows[6].height as usize)
            .rev()
            .map(|l| Line::from(l.clone()))
            .collect();
        f.render_widget(Paragraph::new(Text::from(log)), rows[6]);
        f.render_widget(Paragraph::new(rule).style(dim), rows[7]);
        self.draw_hand(f, rows[8], &v);
        f.render_widget(Paragraph::new(self.status_line(&v, area.width)), rows[9]);
        if let Some((m, err)) = &self.message {
            let st = if *err {
                Style::default().fg(Color::LightRed)
            } else {
                Style::default().fg(Color::Yellow)
            };
            f.render_widget(Paragraph::new(m.clone()).style(st), rows[10]);
        }
    }

    fn header_line(&self, v: &SeatView) -> Line<'static> {
        let t = &self.table;
        Line::from(vec![
            Span::styled(
                "桐城麻将",
                Style::default()
                    .fg(Color::LightRed)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!(
                "  Hand {} · {} {} round · Wall {} · seed {} · {} bots",
                t.hand_label(),
                v.prevalent.name_zh(),
                wind_name(v.prevalent.index()),
                v.wall_remaining,
                t.seed(),
                t.level().name()
            )),
        ])
    }

    fn draw_seat(&self, f: &mut Frame, area: Rect, v: &SeatView, sp: &SeatPublic) {
        let face = self.setup.face;
        let on_turn = v.turn == Some(sp.seat) || v.claim.is_some_and(|(s, _)| s == sp.seat);
        let mut head = vec![
            Span::styled(
                if on_turn { "▶ " } else { "  " },
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("{} {} ", sp.wind, sp.wind.name_zh()),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!("{:<6}", self.table.name(sp.seat))),
            score_span_w(self.table.score(sp.seat), 5),
        ];
        if sp.seat == v.dealer {
            head.push(Span::styled(" 庄", Style::default().fg(Color::Yellow)));
        }
        if sp.seat != v.seat {
            head.push(Span::raw(format!("  {:>2} tiles", sp.concealed_count)));
        }
        if !sp.flowers.is_empty() {
            head.push(Span::raw("  花 "));
            for &t in &sp.flowers {
                head.push(Span::styled(face.padded(t, face.cells()), tile_style(t)));
            }
        }
        for m in &sp.melds {
            head.push(Span::raw("  "));
            head.extend(self.meld_spans(m));
        }
        let mut disc = vec![Span::raw("    ")];
        let last = sp.discards.len().saturating_sub(1);
        for (i, d) in sp.discards.iter().enumerate() {
            let mut st = tile_style(d.tile);
            if d.claimed {
                st = Style::default()
                    .fg(Color::DarkGray)
                    .add_modifier(Modifier::CROSSED_OUT);
            } else if i == last && v.claim == Some((sp.seat, d.tile)) {
                st = st.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            disc.push(Span::styled(face.padded(d.tile, face.cells()), st));
        }
        let text = Text::from(vec![Line::from(head), Line::from(disc)]);
        f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), area);
    }

    fn meld_spans(&self, m: &TableMeld) -> Vec<Span<'static>> {
        let face = self.setup.face;
        let Some(t) = m.tile else {
            return vec![Span::styled("[####]", Style::default().fg(Color::DarkGray))];
        };
        if face == TileFace::Notation {
            return vec![Span::styled(meld_text(m, face), tile_style(t))];
        }
        let tiles: Vec<Tile> = match m.kind {
            MeldKind::Chow => (0..3).filter_map(|d| t.offset(d)).collect(),
            MeldKind::Pung => vec![t; 3],
            MeldKind::Kong(_) => vec![t; 4],
        };
        let concealed = m.kind == MeldKind::Kong(KongKind::Concealed);
        let mut spans = Vec::new();
        if concealed {
            spans.push(Span::raw("["));
        }
        spans.extend(
            tiles
                .iter()
                .map(|&x| Span::styled(face.padded(x, 2), tile_style(x))),
        );
        if concealed {
            spans.push(Span::raw("]"));
        }
        spans
    }

    fn draw_hand(&self, f: &mut Frame, area: Rect, v: &SeatView) {
        let face = self.setup.face;
        let deciding_turn = self
            .pending
            .as_ref()
            .is_some_and(|p| p.decision.kind == DecisionKind::Turn);
        let mut tiles_row = vec![Span::raw(" ")];
        let mut label_row = vec![Span::raw(" ")];
        let all: Vec<(Tile, bool)> = v
            .hand
            .iter()
            .map(|&t| (t, false))
            .chain(v.drawn.map(|t| (t, true)))
            .collect();
        for (i, &(t, drawn)) in all.iter().enumerate() {
            if drawn {
                tiles_row.push(Span::raw("  "));
                label_row.push(Span::raw("  "));
            }
            let selected = deciding_turn && i == self.sel;
            let mut st = tile_style(t).add_modifier(Modifier::BOLD);
            if selected {
                st = st.add_modifier(Modifier::REVERSED);
            }
            tiles_row.push(Span::styled(face.padded(t, 3), st));
            let label = match face {
                TileFace::Glyph => format!("{t} "),
                TileFace::Notation if selected => "^^ ".into(),
                TileFace::Notation => "   ".into(),
            };
            let lst = if selected {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default().fg(Color::DarkGray)
            };
            label_row.push(Span::styled(label, lst));
        }
        f.render_widget(
            Paragraph::new(Text::from(vec![
                Line::from(tiles_row),
                Line::from(label_row),
            ])),
            area,
        );
    }

    fn status_line(&self, v: &SeatView, width: u16) -> Line<'static> {
        let Some(p) = &self.pending else {
            let who_moves = v
                .turn
                .or(v.claim.map(|(s, _)| s))
                .map(|s| format!("{} to play…", self.table.name(s)))
                .unwrap_or_default();
            return Line::from(Span::styled(
                who_moves,
                Style::default().fg(Color::DarkGray),
            ));
        };
        let d = &p.decision;
        let has = |f: fn(&Action) -> bool| d.legal.iter().any(f);
        let mut keys: Vec<&str> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        match d.kind {
            DecisionKind::Turn => {
                spans.push(Span::styled(
                    "Your turn: ",
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                keys.push("←→ Enter discard");
            }
            DecisionKind::Claim { tile } | DecisionKind::RobKong { tile } => {
                let from = v
                    .claim
                    .map(|(s, _)| who(&self.table, s))
                    .unwrap_or_default();
                spans.push(Span::styled(
                    format!("{from} "),
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                spans.push(Span::styled(
                    self.setup.face.text(tile),
                    tile_style(tile).add_modifier(Modifier::BOLD),
                ));
                spans.push(Span::raw(": "));
            }
        }
        if has(|a| matches!(a, Action::Chow(_))) {
            keys.push("c chow");
        }
        if has(|a| *a == Action::Pung) {
            keys.push("p pung");
        }
        if has(|a| {
            matches!(
                a,
                Action::Kong | Action::ConcealedKong(_) | Action::AddedKong(_)
            )
        }) {
            keys.push("k kong");
        }
        if has(|a| *a == Action::Win) {
            keys.push("w WIN");
        }
        if has(|a| *a == Action::Pass) {
            keys.push("space pass");
        }
        keys.push("h hint");
        keys.push("q quit");
        spans.push(Span::raw(keys.join(" · ")));
        let left = p.deadline.saturating_duration_since(Instant::now());
        let secs = left.as_millis().div_ceil(1000);
        let color = if secs <= 3 {
            Color::LightRed
        } else {
            Color::Yellow
        };
        let used: usize = spans.iter().map(|s| display_width(&s.content)).sum();
        let timer = format!("⏱ {secs:>2}s");
        let pad = (width as usize)
            .saturating_sub(used + display_width(&timer) + 1)
            .max(1);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(
            timer,
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ));
        Line::from(spans)
    }

    fn result_lines(&self, r: &HandResult) -> Vec<Line<'static>> {
        let t = &self.table;
        let face = self.setup.face;
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let mut lines = Vec::new();
        let head = match (r.winner, r.win_tile) {
            (Some(w), Some(tile)) => {
                let how = match r.discarder {
                    None => "self-drawn".to_string(),
                    Some(d) => format!("from {}", t.name(d)),
                };
                let total = r.score.as_ref().map_or(0, |s| s.total);
                vec![
                    Span::styled(
                        format!("Hand {} — {} wins on ", t.hand_label(), who(t, w)),
                        bold,
                    ),
                    Span::styled(
                        face.text(tile),
                        tile_style(tile).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(format!(", {how} — {total} points"), bold),
                ]
            }
            _ => vec![Span::styled(
                format!(
                    "Hand {} — the wall is exhausted: a drawn hand (荒牌), no payments",
                    t.hand_label()
                ),
                bold,
            )],
        };
        lines.push(Line::from(head));
        lines.push(Line::default());
        if let Some(s) = &r.score {
            let fans: Vec<String> = s
                .fans
                .iter()
                .map(|f| {
                    let times = if f.count > 1 {
                        format!(" ×{}", f.count)
                    } else {
                        String::new()
                    };
                    format!("{:>3}  {} {}{times}", f.points * f.count, f.name(), f.en())
                })
                .collect();
            if fans.len() > 9 {
                let half = fans.len().div_ceil(2);
                for i in 0..half {
                    let a = &fans[i];
                    let b = fans.get(half + i).cloned().unwrap_or_default();
                    let pad = 40usize.saturating_sub(display_width(a)).max(1);
                    lines.push(Line::from(format!("{a}{}{b}", " ".repeat(pad))));
                }
            } else {
                lines.extend(fans.into_iter().map(Line::from));
            }
            lines.push(Line::from(format!("{:>3}  total", s.total)).style(bold));
            lines.push(Line::default());
        }
        for s in Seat::ALL {
            let mark = if r.winner == Some(s) { "★" } else { " " };
            let mut spans = vec![Span::raw(format!(
                "{mark}{} {:<6}",
                t.game().seat_wind(s),
                t.name(s)
            ))];
            for &x in &r.hands[s.index()] {
                spans.push(Span::styled(face.padded(x, face.cells()), tile_style(x)));
            }
            for m in &r.melds[s.index()] {
                spans.push(Span::raw(" "));
                spans.extend(self.meld_spans(&TableMeld::of(m)));
            }
            if !r.flowers[s.index()].is_empty() {
                spans.push(Span::raw(" 花"));
                for &x in &r.flowers[s.index()] {
                    spans.push(Span::styled(face.padded(x, face.cells()), tile_style(x)));
                }
            }
            lines.push(Line::from(spans));
        }
        lines.push(Line::default());
        let mut changes = vec![Span::raw("Score changes: ")];
        for (i, s) in Seat::ALL.iter().enumerate() {
            if i > 0 {
                changes.push(Span::raw(" · "));
            }
            changes.push(Span::raw(format!("{} ", t.name(*s))));
            changes.push(score_span(r.deltas[s.index()]));
        }
        lines.push(Line::from(changes));
        lines
    }
}

fn wind_name(i: usize) -> &'static str {
    ["East", "South", "West", "North"][i % 4]
}

fn score_span(s: i32) -> Span<'static> {
    score_span_w(s, 0)
}

/// A score right-aligned in `width` cells, green when up, red when down.
fn score_span_w(s: i32, width: usize) -> Span<'static> {
    let color = match s {
        0 => Color::Reset,
        s if s > 0 => Color::LightGreen,
        _ => Color::LightRed,
    };
    Span::styled(format!("{s:>+width$}"), Style::default().fg(color))
}

/// A bordered box centred in `area`, at most `w`×`h`.
fn popup(f: &mut Frame, area: Rect, title: &str, text: Text<'static>, w: u16, h: u16, scroll: u16) {
    let w = w.min(area.width);
    let h = h.max(3).min(area.height);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title.to_string());
    f.render_widget(
        Paragraph::new(text)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        r,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use tongcheng_core::bot::Level;
    use tongcheng_core::rules::RuleSet;

    fn app(name: &str, face: TileFace) -> App {
        let dir = std::env::temp_dir().join(format!("tongcheng-tui-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let db = dir.join("h.db");
        let setup = Setup {
            rules: RuleSet::guobiao(),
            seed: 3,
            seed_from_clock: false,
            level: Level::Normal,
            unfinished: super::super::store::unfinished_path(&db),
            resume: false,
            face,
        };
        App::new(setup, Store::open(&db).unwrap())
    }

    fn screen(app: &App, w: u16, h: u16) -> String {
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        term.draw(|f| app.draw(f)).unwrap();
        let buf = term.backend().buffer().clone();
        let mut s = String::new();
        for y in 0..h {
            for x in 0..w {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    fn until_decision(app: &mut App) {
        for _ in 0..2000 {
            app.next_bot = Instant::now();
            app.tick();
            if app.pending.is_some() || !matches!(app.screen, Screen::Play) {
                return;
            }
        }
        panic!("no decision came");
    }

    #[test]
    fn the_table_fits_80_by_24_and_keys_play() {
        for face in [TileFace::Glyph, TileFace::Notation] {
            let mut a = app(&format!("{face:?}"), face);
            until_decision(&mut a);
            let s = screen(&a, 80, 24);
            assert!(s.contains("Your turn"), "{s}");
            assert!(s.contains("Hand 1/16"), "{s}");
            for name in ["You", "Bot 1", "Bot 2", "Bot 3"] {
                assert!(s.contains(name), "{s}");
            }
            // Several discards by keys, through the bots' moves, into later decisions.
            for _ in 0..6 {
                if !matches!(a.screen, Screen::Play) {
                    break;
                }
                let kind = a.pending.as_ref().map(|p| p.decision.kind);
                let key = match kind {
                    Some(DecisionKind::Turn) => KeyCode::Enter,
                    _ => KeyCode::Char(' '),
                };
                a.key(KeyEvent::from(KeyCode::Left));
                a.key(KeyEvent::from(key));
                assert!(a.pending.is_none(), "the key played a move");
                until_decision(&mut a);
                screen(&a, 80, 24);
            }
            a.key(KeyEvent::from(KeyCode::Char('h')));
            assert!(matches!(a.overlay, Some(Overlay::Hint { .. }) | None));
            let s = screen(&a, 80, 24);
            assert!(
                s.contains("Hint") || !matches!(a.screen, Screen::Play),
                "{s}"
            );
            // A bigger terminal works as well.
            screen(&a, 120, 40);
        }
    }

    #[test]
    fn quitting_asks_first_and_saves_the_match() {
        let mut a = app("quit", TileFace::Notation);
        until_decision(&mut a);
        a.key(KeyEvent::from(KeyCode::Enter));
        until_decision(&mut a);
        a.key(KeyEvent::from(KeyCode::Char('q')));
        assert!(matches!(a.overlay, Some(Overlay::ConfirmQuit)));
        assert!(screen(&a, 80, 24).contains("Quit?"));
        a.key(KeyEvent::from(KeyCode::Char('n')));
        assert!(a.overlay.is_none() && !a.done);
        a.key(KeyEvent::from(KeyCode::Char('q')));
        a.key(KeyEvent::from(KeyCode::Char('y')));
        assert!(a.done);
        let u = load_unfinished(&a.setup.unfinished)
            .unwrap()
            .expect("saved");
        assert_eq!(u.seed(), 3);
        // The next start asks instead of resuming silently.
        let b = App::new(
            Setup {
                rules: RuleSet::guobiao(),
                seed: 9,
                seed_from_clock: false,
                level: Level::Easy,
                unfinished: a.setup.unfinished.clone(),
                resume: false,
                face: TileFace::Notation,
            },
            Store::open(a.store.path()).unwrap(),
        );
        assert!(matches!(b.screen, Screen::AskResume(_)));
        assert!(screen(&b, 80, 24).contains("[r] resume it"));
        let mut b = b;
        b.key(KeyEvent::from(KeyCode::Char('r')));
        assert!(matches!(b.screen, Screen::Play));
        assert_eq!(b.table.seed(), 3);
        assert_eq!(b.table.view(), a.table.view());
        assert!(
            !a.setup.unfinished.exists(),
            "resuming takes the saved match"
        );
    }

    #[test]
    fn a_hand_result_screen_fits() {
        let mut a = app("result", TileFace::Glyph);
        for _ in 0..400 {
            until_decision(&mut a);
            if let Screen::HandOver { .. } = a.screen {
                let s = screen(&a, 80, 24);
                assert!(s.contains("Score changes"), "{s}");
                assert!(s.contains("Standings: "), "{s}");
                return;
            }
            let d = a.pending.as_ref().unwrap().decision.on_timeout;
            a.act(d);
        }
        panic!("the hand never ended");
    }

    #[test]
    fn a_whole_match_ends_on_the_final_standings() {
        let mut a = app("whole", TileFace::Notation);
        for _ in 0..5000 {
            until_decision(&mut a);
            match a.screen {
                Screen::HandOver { .. } => a.key(KeyEvent::from(KeyCode::Enter)),
                Screen::MatchOver => break,
                _ => {
                    let d = a.pending.as_ref().unwrap().decision.on_timeout;
                    a.act(d);
                }
            }
        }
        assert!(matches!(a.screen, Screen::MatchOver));
        let s = screen(&a, 80, 24);
        assert!(s.contains("final standings after 16 hands"), "{s}");
        assert_eq!(a.store.db_hands(), 16);
        a.key(KeyEvent::from(KeyCode::Enter));
        assert!(a.done);
        assert!(a.farewell.iter().any(|l| l.contains("final standings")));
        assert!(
            !a.setup.unfinished.exists(),
            "a finished match leaves nothing to resume"
        );
    }

    #[test]
    fn small_and_odd_terminal_sizes_do_not_panic() {
        let mut a = app("small", TileFace::Glyph);
        until_decision(&mut a);
        for (w, h) in [(1, 1), (10, 3), (40, 12), (79, 23), (200, 60)] {
            screen(&a, w, h);
            a.key(KeyEvent::from(KeyCode::Char('h')));
            screen(&a, w, h);
            a.key(KeyEvent::from(KeyCode::Esc));
            a.key(KeyEvent::from(KeyCode::Char('q')));
            screen(&a, w, h);
            a.key(KeyEvent::from(KeyCode::Char('n')));
        }
    }
}
