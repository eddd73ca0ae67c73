//! The match as the terminal plays it: the human in player slot 0, three bots, and the log of
//! every action so far (what an unfinished match is saved as).
//!
//! Both front ends (the TUI and the scripted mode) drive a [`Table`] the same way: call
//! [`Table::advance`] until it hands back the human's decision or the end of the hand, answer
//! with [`Table::apply_human`], and move on with [`Table::next_hand`].

use serde::{Deserialize, Serialize};
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::game::{Action, Decision, Game, GameError, Match, SeatView};
use tongcheng_core::record::RecordedAction;
use tongcheng_core::rules::{DealerRule, RuleSet};
use tongcheng_core::seat::Seat;
use tongcheng_core::wall::Seed;

/// The human's player number (players 1–3 are bots).
pub const HUMAN: usize = 0;

/// What happened on one [`Table::advance`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A bot acted (already applied); `visible` when it changed the table (a discard, a
    /// meld, a win), as opposed to a silent answer in a claim window.
    Bot {
        seat: Seat,
        action: Action,
        visible: bool,
    },
    /// The human must decide.
    Human(Decision),
    /// The hand is over: show it, save it, then [`Table::next_hand`].
    HandOver,
}

/// A match against three bots.
pub struct Table {
    rules: RuleSet,
    seed: u64,
    level: Level,
    m: Match,
    /// Bots by player number (slot [`HUMAN`] is never asked).
    bots: [LevelBot; 4],
    /// The actions of every hand already booked by [`Match::next_hand`].
    played: Vec<Vec<RecordedAction>>,
}

/// An unfinished match as saved on quit: enough to rebuild it exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unfinished {
    pub version: u32,
    pub rules: RuleSet,
    pub seed: u64,
    pub level: Level,
    /// The history's match row the saved hands belong to (none saved yet: `None`).
    pub match_id: Option<i64>,
    /// Every action so far, hand by hand; the last is the hand being played.
    pub hands: Vec<Vec<RecordedAction>>,
}

/// The unfinished-match format this build writes.
pub const UNFINISHED_VERSION: u32 = 1;

/// Bot seeds come from the match seed, the hand and the player, so a match replays exactly
/// and a resumed match gives each bot the dice it would have had (splitmix64 mixing).
fn bot_seed(seed: u64, hand: u32, player: usize) -> u64 {
    let mut z = seed.wrapping_add(
        0x9E37_79B9_7F4A_7C15u64.wrapping_mul(u64::from(hand) * 4 + player as u64 + 1),
    );
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Table {
    pub fn new(rules: RuleSet, seed: u64, level: Level) -> Table {
        let m = Match::new(rules.clone(), Seed::from_u64(seed));
        Table {
            bots: std::array::from_fn(|p| LevelBot::new(level, bot_seed(seed, 0, p))),
            rules,
            seed,
            level,
            m,
            played: Vec::new(),
        }
    }

    /// Rebuilds a saved match by replaying its actions through [`Match`]. Each bot is shown
    /// the views it saw the first time, so it carries on with the same random state.
    pub fn resume(u: &Unfinished) -> Result<Table, String> {
        if u.version != UNFINISHED_VERSION {
            return Err(format!(
                "saved in format {} (this build reads format {UNFINISHED_VERSION})",
                u.version
            ));
        }
        let mut t = Table::new(u.rules.clone(), u.seed, u.level);
        for (h, actions) in u.hands.iter().enumerate() {
            if t.is_over() {
                return Err(format!(
                    "hand {} is saved but the match was already over",
                    h + 1
                ));
            }
            for (i, ra) in actions.iter().enumerate() {
                if ra.seat.0 > 3 {
                    return Err(format!(
                        "hand {}, action {}: no seat {}",
                        h + 1,
                        i + 1,
                        ra.seat.0
                    ));
                }
                let p = t.m.player_at(ra.seat);
                if p != HUMAN && !t.game().legal_actions(ra.seat).is_empty() {
                    let view = t.game().view(ra.seat);
                    let _ = t.bots[p].choose(&view);
                }
                t.m.apply(ra.seat, ra.action)
                    .map_err(|e| format!("hand {}, action {}: {e}", h + 1, i + 1))?;
            }
            if t.game().is_finished() {
                t.next_hand();
            } else if h + 1 != u.hands.len() {
                return Err(format!(
                    "hand {} is unfinished but more hands follow it",
                    h + 1
                ));
            }
        }
        Ok(t)
    }

    /// What to save so that [`Table::resume`] rebuilds this exact state.
    pub fn unfinished(&self, match_id: Option<i64>) -> Unfinished {
        let mut hands = self.played.clone();
        if !self.is_over() {
            // The hand being played, even with no move yet, so the count of hands is right.
            hands.push(record_actions(self.game()));
        }
        Unfinished {
            version: UNFINISHED_VERSION,
            rules: self.rules.clone(),
            seed: self.seed,
            level: self.level,
            match_id,
            hands,
        }
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn level(&self) -> Level {
        self.level
    }

    pub fn game(&self) -> &Game {
        self.m.game()
    }

    pub fn match_state(&self) -> &Match {
        &self.m
    }

    /// The whole match is over (the last hand booked).
    pub fn is_over(&self) -> bool {
        self.m.is_finished()
    }

    /// 1-based number of the current hand.
    pub fn hand_number(&self) -> u32 {
        self.m.hand_index() + 1
    }

    /// Hands in a match, when fixed by the rules (the deal always passing).
    pub fn hands_in_match(&self) -> Option<u32> {
        (self.rules.dealer == DealerRule::AlwaysPass)
            .then(|| u32::from(self.rules.rounds) * u32::from(self.rules.hands_per_round))
    }

    /// "3/16", or "3" when the length of the match depends on who wins.
    pub fn hand_label(&self) -> String {
        match self.hands_in_match() {
            Some(n) => format!("{}/{n}", self.hand_number()),
            None => self.hand_number().to_string(),
        }
    }

    /// The human's seat in the current hand.
    pub fn human_seat(&self) -> Seat {
        self.m.seating()[HUMAN]
    }

    pub fn view(&self) -> SeatView {
        self.game().view(self.human_seat())
    }

    /// "You" or "Bot N" for whoever sits in `seat`.
    pub fn name(&self, seat: Seat) -> String {
        player_name(self.m.player_at(seat))
    }

    /// Running score of whoever sits in `seat`.
    pub fn score(&self, seat: Seat) -> i32 {
        self.m.scores()[self.m.player_at(seat)]
    }

    /// Plays one bot decision if any bot is due, else reports the human's decision or the end
    /// of the hand. A bot whose choice the engine refuses falls back to its timeout action,
    /// so a bot bug cannot stall the game.
    pub fn advance(&mut self) -> Result<Step, String> {
        let human = self.human_seat();
        let pending = self.game().pending_seats();
        if let Some(&seat) = pending.iter().find(|&&s| s != human) {
            let p = self.m.player_at(seat);
            let view = self.game().view(seat);
            let before = self.game().events().len();
            let mut action = self.bots[p].choose(&view);
            if self.m.apply(seat, action).is_err() {
                let fallback = view
                    .decision
                    .as_ref()
                    .map(|d| d.on_timeout)
                    .ok_or_else(|| format!("{seat} is pending but has no decision"))?;
                self.m
                    .apply(seat, fallback)
                    .map_err(|e| format!("{seat} cannot play its timeout action: {e}"))?;
                action = fallback;
            }
            let visible = self.game().events().len() != before;
            return Ok(Step::Bot {
                seat,
                action,
                visible,
            });
        }
        if let Some(d) = pending
            .contains(&human)
            .then(|| self.game().decision(human))
            .flatten()
        {
            return Ok(Step::Human(d));
        }
        if self.game().is_finished() {
            Ok(Step::HandOver)
        } else {
            Err("the hand is stuck: nobody has a decision to make".into())
        }
    }

    /// The human's answer; refused (and nothing changes) when illegal.
    pub fn apply_human(&mut self, action: Action) -> Result<(), GameError> {
        let seat = self.human_seat();
        self.m.apply(seat, action)
    }

    /// Books the finished hand and deals the next; false once the match is over (or while
    /// the hand is still being played).
    pub fn next_hand(&mut self) -> bool {
        if self.is_over() || !self.game().is_finished() {
            return false;
        }
        self.played.push(record_actions(self.game()));
        let more = self.m.next_hand();
        if more {
            let hand = self.m.hand_index();
            let (seed, level) = (self.seed, self.level);
            self.bots = std::array::from_fn(|p| LevelBot::new(level, bot_seed(seed, hand, p)));
        }
        more
    }

    /// Players ranked best first, with names.
    pub fn standings(&self) -> Vec<(String, i32)> {
        self.m
            .standings()
            .into_iter()
            .map(|(p, s)| (player_name(p), s))
            .collect()
    }
}

pub fn player_name(p: usize) -> String {
    if p == HUMAN {
        "You".into()
    } else {
        format!("Bot {p}")
    }
}

fn record_actions(g: &Game) -> Vec<RecordedAction> {
    g.actions()
        .iter()
        .map(|&(seat, action)| RecordedAction { seat, action })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays with the human always taking the timeout action, up to `stop` human decisions.
    fn play(t: &mut Table, stop: usize) -> usize {
        let mut n = 0;
        while n < stop {
            match t.advance().unwrap() {
                Step::Bot { .. } => {}
                Step::Human(d) => {
                    t.apply_human(d.on_timeout).unwrap();
                    n += 1;
                }
                Step::HandOver => {
                    if !t.next_hand() {
                        break;
                    }
                }
            }
        }
        n
    }

    #[test]
    fn a_resumed_match_continues_exactly() {
        let mut a = Table::new(RuleSet::guobiao(), 11, Level::Normal);
        play(&mut a, 40);
        let saved = a.unfinished(Some(3));
        let json = serde_json::to_string(&saved).unwrap();
        let back: Unfinished = serde_json::from_str(&json).unwrap();
        let mut b = Table::resume(&back).unwrap();
        assert_eq!(b.hand_number(), a.hand_number());
        assert_eq!(b.view(), a.view());
        play(&mut a, 60);
        play(&mut b, 60);
        assert_eq!(b.unfinished(None).hands, a.unfinished(None).hands);
    }

    #[test]
    fn a_damaged_save_is_an_error_not_a_panic() {
        let mut u = Table::new(RuleSet::guobiao(), 1, Level::Easy).unfinished(None);
        u.hands = vec![vec![RecordedAction {
            seat: Seat(9),
            action: Action::Pass,
        }]];
        assert!(Table::resume(&u).is_err());
        u.hands = vec![vec![RecordedAction {
            seat: Seat(2),
            action: Action::Win,
        }]];
        assert!(Table::resume(&u).is_err());
        u.version = 99;
        assert!(Table::resume(&u).is_err());
    }
}
