//! The match as the terminal plays it: the person in player slot 0 and three bots on the
//! core's [`tongcheng_core::table::Table`], which runs the bots; this layer only names the
//! players for the screen and keeps the save file's shape.
//!
//! The line game drives a [`Table`]: call [`Table::advance`] until it hands back the human's
//! decision or the end of the hand, answer with [`Table::apply_human`], and move on with
//! [`Table::next_hand`]. It runs the core table's clock ([`Clock`]) off.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tongcheng_core::bot::Level;
use tongcheng_core::game::{Action, Decision, Game, GameError, Match, SeatView};
use tongcheng_core::record::RecordedAction;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::Seat;
use tongcheng_core::table::{self, Clock, Mover, Player, SavedTable, TableConfig};

/// The human's player number (players 1–3 are bots).
pub const HUMAN: usize = 0;

/// What happened on one [`Table::advance`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A bot acted, or the stand-in for the human on 托管 (already applied); `visible` when
    /// it changed the table (a discard, a meld, a win), as opposed to a silent answer in a
    /// claim window.
    Moved {
        seat: Seat,
        action: Action,
        visible: bool,
    },
    /// The human's time ran out: the decision's timeout action was played. `auto_play` when
    /// it was the second in a row and the seat is on 托管 from now on.
    TimedOut { action: Action, auto_play: bool },
    /// The human must decide.
    Human(Decision),
    /// The hand is over: show it, save it, then [`Table::next_hand`].
    HandOver,
}

/// A match against three bots.
pub struct Table {
    seed: u64,
    level: Level,
    t: table::Table,
}

/// An unfinished match as saved on quit: the core's saved table and the history's match row
/// the saved hands belong to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unfinished {
    pub version: u32,
    pub table: SavedTable,
    /// The history's match row the saved hands belong to (none saved yet: `None`).
    pub match_id: Option<i64>,
}

/// The unfinished-match format this build writes. Format 1 (rules, seed, level, hands) is
/// still read.
pub const UNFINISHED_VERSION: u32 = 2;

/// Format 1, written by the first release: the same match, its fields flat.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnfinishedV1 {
    #[allow(dead_code)]
    version: u32,
    rules: RuleSet,
    seed: u64,
    level: Level,
    match_id: Option<i64>,
    hands: Vec<Vec<RecordedAction>>,
}

impl Unfinished {
    /// Reads a saved match of any format this program has written.
    pub fn from_json(s: &str) -> Result<Unfinished, String> {
        let v: Value = serde_json::from_str(s).map_err(|e| e.to_string())?;
        match v.get("version").and_then(Value::as_u64) {
            Some(1) => {
                let old: UnfinishedV1 = serde_json::from_value(v).map_err(|e| e.to_string())?;
                Ok(Unfinished {
                    version: UNFINISHED_VERSION,
                    table: SavedTable {
                        version: table::SAVED_TABLE_VERSION,
                        config: config(old.rules, old.seed, old.level),
                        hands: old.hands,
                        piao: Vec::new(),
                        seeds: Vec::new(),
                        clock: None,
                    },
                    match_id: old.match_id,
                })
            }
            Some(2) => serde_json::from_value(v).map_err(|e| e.to_string()),
            Some(n) => Err(format!(
                "saved in format {n} (this build reads formats 1–{UNFINISHED_VERSION})"
            )),
            None => Err("no format number".into()),
        }
    }

    pub fn rules(&self) -> &RuleSet {
        self.table.config.rules()
    }

    /// The match seed (walls and bots).
    pub fn seed(&self) -> u64 {
        self.table.config.bot_seed
    }

    /// The bots' level (player 1's).
    pub fn level(&self) -> Option<Level> {
        match self.table.config.players[1] {
            Player::Bot(l) => Some(l),
            _ => None,
        }
    }

    pub fn hands(&self) -> &[Vec<RecordedAction>] {
        &self.table.hands
    }
}

/// The terminal's match: the core's person-and-bots table, its clock off until a front end
/// sets one ([`Table::set_clock`]).
fn config(rules: RuleSet, seed: u64, level: Level) -> TableConfig {
    TableConfig {
        clock: Clock::Off,
        ..TableConfig::person_and_bots(rules, level, seed)
    }
}

impl Table {
    pub fn new(rules: RuleSet, seed: u64, level: Level) -> Table {
        Table {
            seed,
            level,
            t: table::Table::new(config(rules, seed, level)),
        }
    }

    /// Rebuilds a saved match (the core replays it; the bots carry on with the same dice).
    pub fn resume(u: &Unfinished) -> Result<Table, String> {
        let level = u.level().ok_or("the saved match has no bots in seat 1")?;
        if u.table.config.players[HUMAN] != Player::Local {
            return Err("the saved match has no local player in slot 0".into());
        }
        let t = table::Table::resume(&u.table).map_err(|e| e.to_string())?;
        Ok(Table {
            seed: u.seed(),
            level,
            t,
        })
    }

    /// What to save so that [`Table::resume`] rebuilds this exact state.
    pub fn unfinished(&self, match_id: Option<i64>) -> Unfinished {
        Unfinished {
            version: UNFINISHED_VERSION,
            table: self.t.saved(),
            match_id,
        }
    }

    pub fn rules(&self) -> &RuleSet {
        self.t.rules()
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn level(&self) -> Level {
        self.level
    }

    pub fn game(&self) -> &Game {
        self.t.game()
    }

    pub fn match_state(&self) -> &Match {
        self.t.match_state()
    }

    /// The whole match is over (the last hand booked).
    pub fn is_over(&self) -> bool {
        self.t.is_over()
    }

    /// 1-based number of the current hand.
    pub fn hand_number(&self) -> u32 {
        self.t.match_state().hand_index() + 1
    }

    /// "3/16", or "3" when the length of the match depends on who wins.
    pub fn hand_label(&self) -> String {
        match self.t.hands_in_match() {
            Some(n) => format!("{}/{n}", self.hand_number()),
            None => self.hand_number().to_string(),
        }
    }

    /// 飘 chosen each hand: the human may still stake on this hand (before any action).
    pub fn piao_open(&self) -> bool {
        self.t.piao_open()
    }

    /// The human stakes `piao` (飘) on this hand.
    pub fn choose_piao(&mut self, piao: u8) -> Result<(), String> {
        self.t.choose_piao(HUMAN, piao).map_err(|e| e.to_string())
    }

    /// The 飘 every seat staked on this hand.
    pub fn piao_chosen(&self) -> [u8; 4] {
        self.t.piao_chosen()
    }

    /// The human's seat in the current hand.
    pub fn human_seat(&self) -> Seat {
        self.t.seat_of(HUMAN)
    }

    pub fn view(&self) -> SeatView {
        self.t.view(HUMAN)
    }

    /// "You" or "Bot N" for whoever sits in `seat`.
    pub fn name(&self, seat: Seat) -> String {
        player_name(self.t.player_at(seat))
    }

    /// Running score of whoever sits in `seat`.
    pub fn score(&self, seat: Seat) -> i32 {
        self.t.match_state().scores()[self.t.player_at(seat)]
    }

    /// How the human is timed from now on (the front end's setting; a resumed match takes
    /// the one it is played with now).
    pub fn set_clock(&mut self, clock: Clock) {
        self.t.set_clock(clock);
    }

    /// Plays one move due at `now_ms` (a bot's, the stand-in's, or the human's timeout), else
    /// reports the human's decision or the end of the hand.
    pub fn advance(&mut self, now_ms: u64) -> Result<Step, String> {
        loop {
            return match self.t.step(now_ms) {
                table::Step::Acted {
                    action,
                    by: Mover::Timeout { auto_play },
                    ..
                } => Ok(Step::TimedOut { action, auto_play }),
                table::Step::Acted {
                    seat,
                    action,
                    visible,
                    ..
                } => Ok(Step::Moved {
                    seat,
                    action,
                    visible,
                }),
                // The stand-in is due at once (the human is on 托管).
                table::Step::Waiting {
                    deadline_ms: Some(at),
                } if at <= now_ms => continue,
                table::Step::Waiting { .. } => self
                    .t
                    .decision(HUMAN)
                    .map(Step::Human)
                    .ok_or_else(|| "the hand is stuck: nobody has a decision to make".into()),
                table::Step::HandOver => Ok(Step::HandOver),
            };
        }
    }

    /// The human's answer at `now_ms`; refused (and nothing changes) when illegal.
    pub fn apply_human(&mut self, action: Action, now_ms: u64) -> Result<(), GameError> {
        self.t.act(HUMAN, action, now_ms).map(|_| ())
    }

    /// Books the finished hand and deals the next; false once the match is over (or while
    /// the hand is still being played).
    pub fn next_hand(&mut self) -> bool {
        self.t.next_hand()
    }

    /// Players ranked best first, with names.
    pub fn standings(&self) -> Vec<(String, i32)> {
        self.t
            .match_state()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays with the human always taking the timeout action, up to `stop` human decisions.
    fn play(t: &mut Table, stop: usize) -> usize {
        let mut n = 0;
        while n < stop {
            match t.advance(0).unwrap() {
                Step::Moved { .. } | Step::TimedOut { .. } => {}
                Step::Human(d) => {
                    t.apply_human(d.on_timeout, 0).unwrap();
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
        let back = Unfinished::from_json(&json).unwrap();
        let mut b = Table::resume(&back).unwrap();
        assert_eq!(b.hand_number(), a.hand_number());
        assert_eq!(b.view(), a.view());
        play(&mut a, 60);
        play(&mut b, 60);
        assert_eq!(b.unfinished(None).table, a.unfinished(None).table);
    }

    #[test]
    fn a_first_release_save_still_resumes() {
        let mut a = Table::new(RuleSet::guobiao(), 11, Level::Normal);
        play(&mut a, 30);
        let u = a.unfinished(Some(4));
        let v1 = serde_json::json!({
            "version": 1,
            "rules": u.rules(),
            "seed": 11,
            "level": "normal",
            "match_id": 4,
            "hands": u.hands(),
        });
        let back = Unfinished::from_json(&v1.to_string()).unwrap();
        assert_eq!(back, u);
        let mut b = Table::resume(&back).unwrap();
        play(&mut a, 30);
        play(&mut b, 30);
        assert_eq!(b.unfinished(None).table, a.unfinished(None).table);
    }

    #[test]
    fn a_damaged_save_is_an_error_not_a_panic() {
        let mut u = Table::new(RuleSet::guobiao(), 1, Level::Easy).unfinished(None);
        u.table.hands = vec![vec![RecordedAction {
            seat: Seat(2),
            action: Action::Win,
        }]];
        assert!(Table::resume(&u).is_err());
        assert!(Unfinished::from_json(r#"{"version":7}"#).is_err());
        assert!(Unfinished::from_json(r#"{"version":1,"seat":9}"#).is_err());
        let text = r#"{"version":1,"rules":RULES,"seed":1,"level":"easy","match_id":null,
            "hands":[[{"seat":9,"action":{"type":"pass"}}]]}"#
            .replace(
                "RULES",
                &serde_json::to_string(&RuleSet::guobiao()).unwrap(),
            );
        assert!(Unfinished::from_json(&text).is_err());
    }
}
