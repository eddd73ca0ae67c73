//! The replay (回放) of a kept hand: the table as the player saw it after each move, stepped
//! forwards and back, the result at the end, and whether the record replays to what it says.

use tongcheng_core::Seat;
use tongcheng_core::game::{Game, SeatView as CoreSeat};
use tongcheng_core::record::{self, HandRecord};

use crate::catalogue::{Lang, Text, preset_name, seat_name};
use crate::model::Tap;
use crate::table::{action_words, result_view, seats, status, tile_view};
use crate::view::{Button, ReplayView};

/// A kept hand being stepped through.
#[derive(Debug)]
pub struct Replay {
    seat: Seat,
    record: HandRecord,
    /// Moves applied so far.
    step: usize,
    game: Game,
    /// The table before the last move (what that move's words need: a claimed kong's tile).
    before: Option<CoreSeat>,
    /// Where the record stopped replaying, if it did: steps end there.
    refused_at: Option<usize>,
    /// The full check, done once: every event and the result as recorded.
    verified: bool,
}

impl Replay {
    /// The replay of a kept hand; `None` when its setup cannot make a game (a damaged or
    /// forged record: it is never played, only said to be unreadable).
    pub fn new(seat: u8, record: HandRecord) -> Option<Replay> {
        record::check_setup(&record.setup).ok()?;
        let verified = record::replay(&record).is_ok();
        let game = Game::new(record.setup.clone());
        let mut replay = Replay {
            seat: Seat(seat % 4),
            record,
            step: 0,
            game,
            before: None,
            refused_at: None,
            verified,
        };
        replay.refused_at = replay.first_refused();
        Some(replay)
    }

    /// The first move the engine refuses (a damaged record), if any.
    fn first_refused(&self) -> Option<usize> {
        let mut g = Game::new(self.record.setup.clone());
        self.record
            .actions
            .iter()
            .position(|a| g.apply(a.seat, a.action).is_err())
    }

    /// The number of moves that can be shown.
    fn moves(&self) -> usize {
        self.refused_at.unwrap_or(self.record.actions.len())
    }

    /// Shows the table after `to` moves (clamped to the hand).
    pub fn go(&mut self, to: usize) {
        let to = to.min(self.moves());
        if to < self.step || to == 0 {
            self.game = Game::new(self.record.setup.clone());
            self.step = 0;
            self.before = None;
        }
        while self.step < to {
            let a = self.record.actions[self.step];
            if self.step + 1 == to {
                self.before = Some(self.game.view(self.seat));
            }
            // Checked moves: `first_refused` bounds `to`.
            let _ = self.game.apply(a.seat, a.action);
            self.step += 1;
        }
    }

    pub fn view(&self, lang: Lang) -> ReplayView {
        let v = self.game.view(self.seat);
        let n = self.moves();
        let finished = self.game.is_finished();
        let last_move = self.step.checked_sub(1).map_or(String::new(), |i| {
            let a = self.record.actions[i];
            let before = self.before.as_ref().unwrap_or(&v);
            let wind = v.seats.get(a.seat.index()).map_or(0, |p| p.wind.index());
            format!(
                "{} {}",
                seat_name(wind, a.seat == self.seat, lang),
                action_words(&a.action, before, lang)
            )
        });
        let scores = match (finished, self.game.result()) {
            (true, Some(r)) => r.deltas,
            _ => [0; 4],
        };
        let step = |label: Text, to: usize, enabled: bool| {
            Button::new(label.get(lang), enabled, Tap::ReplayTo { step: to as u32 })
        };
        ReplayView {
            title: format!(
                "{} · {}",
                Text::Replay.get(lang),
                preset_name(&self.record.setup.rules.name, lang)
            ),
            step_label: match lang {
                Lang::ZhCn => format!("第 {} / {n} 步", self.step),
                Lang::En => format!("Move {} of {n}", self.step),
            },
            last_move,
            status: status(&v, lang),
            wall_left: v.wall_remaining as u32,
            wall_label: Text::WallLeft.get(lang).into(),
            seats: seats(&v, scores, lang),
            hand: v.hand.iter().map(|&t| tile_view(t, v.wild, lang)).collect(),
            drawn: v.drawn.map(|t| tile_view(t, v.wild, lang)),
            wild: v.wild.map(|w| tile_view(w, Some(w), lang)),
            controls: vec![
                step(Text::StepFirst, 0, self.step > 0),
                step(Text::StepBack, self.step.saturating_sub(1), self.step > 0),
                step(Text::StepForward, self.step + 1, self.step < n),
                step(Text::StepLast, n, self.step < n),
            ],
            result: self.game.result().filter(|_| finished).map(|r| {
                result_view(
                    r,
                    &v,
                    lang,
                    Button::new(Text::BackToList.get(lang), true, Tap::Back),
                )
            }),
            verified: if self.verified {
                Text::Verified
            } else {
                Text::NotVerified
            }
            .get(lang)
            .into(),
            back: Button::new(Text::BackToList.get(lang), true, Tap::Back),
        }
    }
}
