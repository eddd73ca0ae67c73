//! Keys: what each key does on each screen and overlay, and quitting (the match is saved).

use super::*;
use tongcheng_core::rules::MAX_PIAO;

impl App {
    pub(super) fn key(&mut self, k: KeyEvent) {
        self.key_unsynced(k);
        // A key may open or close an overlay: the clock stops or runs from this moment.
        let now_ms = self.now_ms();
        self.sync_clock(now_ms);
    }

    fn key_unsynced(&mut self, k: KeyEvent) {
        if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
            self.overlay = Some(Overlay::ConfirmQuit);
            return;
        }
        if self.too_small {
            // Nothing can be seen to act on: only quitting (the match is saved) is offered.
            if k.code == KeyCode::Char('q') {
                self.quit();
            }
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
                        match self.kept.discard() {
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
                    self.farewell
                        .extend(crate::play::text::final_block(&self.table));
                    self.done = true;
                }
            }
            Screen::Play => self.play_key(k),
        }
    }

    /// Keys while an overlay is open; returns the overlay if it stays open.
    pub(super) fn overlay_key(&mut self, o: Overlay, k: KeyEvent) -> Option<Overlay> {
        match o {
            Overlay::ConfirmQuit => {
                match k.code {
                    KeyCode::Char('y') | KeyCode::Enter => self.quit(),
                    KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => {}
                    _ => return Some(Overlay::ConfirmQuit),
                }
                None
            }
            Overlay::Piao { sel } => match k.code {
                KeyCode::Left | KeyCode::Down => Some(Overlay::Piao {
                    sel: sel.saturating_sub(1),
                }),
                KeyCode::Right | KeyCode::Up => Some(Overlay::Piao {
                    sel: (sel + 1).min(MAX_PIAO),
                }),
                KeyCode::Char(c) if c.is_ascii_digit() => {
                    self.stake(c as u8 - b'0');
                    None
                }
                KeyCode::Enter => {
                    self.stake(sel);
                    None
                }
                KeyCode::Esc => {
                    self.stake(0);
                    None
                }
                _ => Some(Overlay::Piao { sel }),
            },
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

    pub(super) fn play_key(&mut self, k: KeyEvent) {
        if matches!(k.code, KeyCode::Char('q') | KeyCode::Esc) {
            self.overlay = Some(Overlay::ConfirmQuit);
            return;
        }
        if self.pending.is_none() && self.table.set_auto_play(false) {
            self.say(
                "Your seat is yours again: auto-play (托管) is off.".into(),
                false,
            );
            return;
        }
        let Some(p) = &self.pending else {
            if k.code == KeyCode::Char('h') {
                self.say("Nothing to decide yet.".into(), false);
            }
            return;
        };
        let acts = matches!(k.code, KeyCode::Enter | KeyCode::Char(_));
        if acts && k.code != KeyCode::Char('h') && p.opened.elapsed() < KEY_GRACE {
            self.say(
                "Key ignored: a new decision just came up — press it again for this one.".into(),
                true,
            );
            return;
        }
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

    /// Keeps the unfinished match (never over another match's save) and leaves.
    pub(super) fn quit(&mut self) {
        self.done = true;
        if matches!(self.screen, Screen::AskResume(_)) {
            return;
        }
        let path = self.kept.path().display().to_string();
        let line = match self.kept.keep(&self.table, self.store.match_id()) {
            Ok(Kept::Closed) => return,
            Ok(Kept::NothingToSave) => "Quit before the first move: nothing to save.".into(),
            Ok(Kept::OtherMatchThere) => format!(
                "Another unfinished match is saved in {path} and was left untouched; this one is not saved."
            ),
            Ok(Kept::Saved) => format!(
                "Match saved in {path}: `{}` continues it.",
                self.setup.resume_command
            ),
            Err(e) => format!("The match could not be saved: {e}"),
        };
        self.farewell.push(line);
    }
}
