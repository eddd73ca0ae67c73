//! 比赛: tournaments, as rules with no I/O — formats, seating each round, standings, and the
//! round's walls fixed before the round starts.
//!
//! Formats: Swiss rounds (every entrant plays every round, seated by standing; table points
//! by place, then score) and elimination (打立出局: after each round the lowest are out, a
//! cut line per round, down to a final table). Either may be **duplicate** (复式): every
//! table of a round plays the same walls, and each entrant's score is compared with the same
//! player slot's at the other tables, so a kind wall helps nobody more than his counterparts.
//!
//! Fair by construction ([`fair`]): a round's walls come from a server secret, committed to
//! when the round is announced, and the entrants' contributions; the secret is revealed when
//! the round ends and anyone can then check every table's walls.
//!
//! Ties in the standings are broken, in order, by table points, score, the best single match
//! score, then the earlier entry (the lower entrant id).

pub mod fair;
pub mod seating;
pub mod simulate;
pub mod standings;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::rules::RuleSet;

pub use seating::{Seating, seat_round};
pub use standings::{Standing, Standings, TableResult};

/// An entrant: the server's account id, or any stable number (the lower entered earlier).
pub type EntrantId = u64;

/// How entrants meet and leave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Format {
    /// Swiss: `rounds` rounds, everyone plays each one.
    Swiss { rounds: u8 },
    /// 打立出局: `survivors[r]` entrants go on after round `r` (each a multiple of four,
    /// falling); the round after the last cut is the final table.
    Elimination { survivors: Vec<u32> },
}

impl Format {
    /// Elimination halving the field each round down to a final table of four.
    pub fn halving(entrants: usize) -> Format {
        let mut survivors = Vec::new();
        let mut n = entrants as u32;
        while n > 4 {
            n = ((n / 2).div_ceil(4) * 4).max(4);
            survivors.push(n);
        }
        Format::Elimination { survivors }
    }
}

/// What fixes a tournament before anyone enters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    /// The rule-set preset every table plays.
    pub rules: String,
    pub format: Format,
    /// 复式: every table of a round plays the same walls.
    #[serde(default)]
    pub duplicate: bool,
    /// Hands in each round's match.
    pub hands_per_match: u8,
    /// Table points by place at the table, first to last (tied places share theirs).
    #[serde(default = "default_table_points")]
    pub table_points: [u32; 4],
    /// Bots may take the seats of a table the entrants cannot fill; otherwise those left
    /// over sit the round out with a bye (third place's table points, score 0).
    #[serde(default)]
    pub bots_allowed: bool,
}

fn default_table_points() -> [u32; 4] {
    [4, 2, 1, 0]
}

/// Why a tournament cannot be made or a round not played as asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("no such rule-set preset: {0}")]
    UnknownRules(String),
    #[error("a tournament needs at least 4 entrants (it has {0})")]
    TooFew(usize),
    #[error("the format does not fit: {0}")]
    BadFormat(String),
    #[error("the round's walls do not verify: {0}")]
    Unfair(String),
}

impl TournamentConfig {
    /// The rules each table plays: the preset for `hands_per_match` hands.
    pub fn table_rules(&self) -> Result<RuleSet, TournamentError> {
        let rules = RuleSet::preset(&self.rules)
            .ok_or_else(|| TournamentError::UnknownRules(self.rules.clone()))?;
        Ok(rules.with_hands(self.hands_per_match))
    }

    /// The number of rounds.
    pub fn rounds(&self) -> usize {
        match &self.format {
            Format::Swiss { rounds } => usize::from(*rounds),
            Format::Elimination { survivors } => survivors.len() + 1,
        }
    }

    /// Entrants still in after `rounds_played` rounds of `entrants`.
    pub fn field_after(&self, entrants: usize, rounds_played: usize) -> usize {
        match &self.format {
            Format::Swiss { .. } => entrants,
            Format::Elimination { survivors } => match rounds_played.checked_sub(1) {
                None => entrants,
                Some(r) => survivors.get(r).map_or(4, |&n| n as usize).min(entrants),
            },
        }
    }

    /// Checks the configuration for `entrants` entrants.
    pub fn check(&self, entrants: usize) -> Result<(), TournamentError> {
        self.table_rules()?;
        if entrants < 4 {
            return Err(TournamentError::TooFew(entrants));
        }
        if self.hands_per_match == 0 {
            return Err(TournamentError::BadFormat("a match needs a hand".into()));
        }
        match &self.format {
            Format::Swiss { rounds } if *rounds == 0 => {
                Err(TournamentError::BadFormat("Swiss needs a round".into()))
            }
            Format::Swiss { .. } => Ok(()),
            Format::Elimination { survivors } => {
                let mut before = entrants as u32;
                for &n in survivors {
                    if !n.is_multiple_of(4) || n == 0 || n >= before {
                        return Err(TournamentError::BadFormat(format!(
                            "a cut to {n} after a field of {before} (cuts fall, in fours)"
                        )));
                    }
                    before = n;
                }
                if before != 4 {
                    return Err(TournamentError::BadFormat(format!(
                        "the final table has {before} entrants, not 4"
                    )));
                }
                Ok(())
            }
        }
    }
}
