//! The standings: table points by place at each table (tied places share theirs), then score;
//! in a duplicate round the score is each entrant's against the same player slot at the
//! other tables (its score minus that slot's mean over the round's tables).

use std::cmp::Ordering;
use std::collections::HashMap;

use super::{EntrantId, TournamentConfig};

/// One table's match, as its records give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableResult {
    /// Who sat in each player slot (`None`: a bot).
    pub players: [Option<EntrantId>; 4],
    /// The match scores by player slot.
    pub scores: [i32; 4],
}

/// An entrant's place in the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub entrant: EntrantId,
    pub table_points: f64,
    /// Match scores summed (duplicate: against the same slot at the other tables).
    pub score: f64,
    /// The best single match's score, the third tie-break.
    pub best: f64,
    pub matches: u32,
    /// The round after which the entrant was cut (elimination), 1-based.
    pub out_after: Option<u32>,
}

/// Every entrant's standing, updated a round at a time.
#[derive(Clone, Debug, Default)]
pub struct Standings {
    rows: Vec<Standing>,
    index: HashMap<EntrantId, usize>,
    rounds: u32,
}

impl Standings {
    pub fn new(entrants: &[EntrantId]) -> Standings {
        let mut s = Standings::default();
        for &e in entrants {
            s.row(e);
        }
        s
    }

    fn row(&mut self, e: EntrantId) -> &mut Standing {
        let i = *self.index.entry(e).or_insert_with(|| {
            self.rows.push(Standing {
                entrant: e,
                table_points: 0.0,
                score: 0.0,
                best: f64::NEG_INFINITY,
                matches: 0,
                out_after: None,
            });
            self.rows.len() - 1
        });
        &mut self.rows[i]
    }

    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// Books a round: its tables' results and its byes.
    pub fn add_round(
        &mut self,
        config: &TournamentConfig,
        tables: &[TableResult],
        byes: &[EntrantId],
    ) {
        self.rounds += 1;
        let mean = slot_means(tables);
        for t in tables {
            let scores: [f64; 4] = std::array::from_fn(|k| {
                let raw = f64::from(t.scores[k]);
                if config.duplicate { raw - mean[k] } else { raw }
            });
            let points = shared_points(&scores, config.table_points);
            for k in 0..4 {
                if let Some(e) = t.players[k] {
                    let r = self.row(e);
                    r.table_points += points[k];
                    r.score += scores[k];
                    r.best = r.best.max(scores[k]);
                    r.matches += 1;
                }
            }
        }
        for &e in byes {
            let bye = f64::from(config.table_points[2]);
            let r = self.row(e);
            r.table_points += bye;
            r.best = r.best.max(0.0);
        }
    }

    /// Marks everyone not in `survivors` as cut after the rounds booked so far.
    pub fn cut_to(&mut self, survivors: &[EntrantId]) {
        let rounds = self.rounds;
        let survivors: std::collections::HashSet<EntrantId> = survivors.iter().copied().collect();
        for r in &mut self.rows {
            if r.out_after.is_none() && !survivors.contains(&r.entrant) {
                r.out_after = Some(rounds);
            }
        }
    }

    /// The standings, best first: those still in before those cut (later cuts first), then
    /// table points, score, best match, and the earlier entry.
    pub fn ranked(&self) -> Vec<&Standing> {
        let mut v: Vec<&Standing> = self.rows.iter().collect();
        v.sort_by(|a, b| compare(a, b));
        v
    }

    /// Entrants in standing order, those still in only.
    pub fn order(&self) -> Vec<EntrantId> {
        self.ranked()
            .into_iter()
            .filter(|s| s.out_after.is_none())
            .map(|s| s.entrant)
            .collect()
    }

    /// One entrant's row.
    pub fn get(&self, e: EntrantId) -> Option<&Standing> {
        self.index.get(&e).map(|&i| &self.rows[i])
    }

    /// One entrant's rank (1-based) and row.
    pub fn rank_of(&self, e: EntrantId) -> Option<(usize, &Standing)> {
        self.ranked()
            .into_iter()
            .enumerate()
            .find(|(_, s)| s.entrant == e)
            .map(|(i, s)| (i + 1, s))
    }
}

fn compare(a: &Standing, b: &Standing) -> Ordering {
    let cut = |s: &Standing| s.out_after.map_or(u32::MAX, |r| r);
    cut(b)
        .cmp(&cut(a))
        .then(b.table_points.total_cmp(&a.table_points))
        .then(b.score.total_cmp(&a.score))
        .then(b.best.total_cmp(&a.best))
        .then(a.entrant.cmp(&b.entrant))
}

/// Each player slot's mean score over the round's tables.
fn slot_means(tables: &[TableResult]) -> [f64; 4] {
    let n = tables.len().max(1) as f64;
    std::array::from_fn(|k| tables.iter().map(|t| f64::from(t.scores[k])).sum::<f64>() / n)
}

/// Table points by place: tied scores share the points of the places they span.
fn shared_points(scores: &[f64; 4], points: [u32; 4]) -> [f64; 4] {
    std::array::from_fn(|k| {
        let above = scores.iter().filter(|&&s| s > scores[k]).count();
        let tied = scores.iter().filter(|&&s| s == scores[k]).count();
        let sum: u32 = points[above..above + tied].iter().sum();
        f64::from(sum) / tied as f64
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::Format;

    fn config(duplicate: bool) -> TournamentConfig {
        TournamentConfig {
            rules: "guobiao".into(),
            format: Format::Swiss { rounds: 3 },
            duplicate,
            hands_per_match: 4,
            table_points: [4, 2, 1, 0],
            bots_allowed: false,
        }
    }

    #[test]
    fn places_give_table_points_and_ties_share_them() {
        assert_eq!(
            shared_points(&[30.0, -10.0, -10.0, -10.0], [4, 2, 1, 0]),
            [4.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(
            shared_points(&[5.0, 5.0, 0.0, -10.0], [4, 2, 1, 0]),
            [3.0, 3.0, 1.0, 0.0]
        );
    }

    #[test]
    fn ties_are_broken_by_points_score_best_match_then_entry() {
        let mut s = Standings::new(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let c = config(false);
        s.add_round(
            &c,
            &[
                TableResult {
                    players: [Some(1), Some(2), Some(3), Some(4)],
                    scores: [24, -8, -8, -8],
                },
                TableResult {
                    players: [Some(5), Some(6), Some(7), Some(8)],
                    scores: [24, -8, -8, -8],
                },
            ],
            &[],
        );
        let order = s.order();
        // 1 and 5 alike: the earlier entry first; the shared thirds after.
        assert_eq!(&order[..2], &[1, 5]);
        s.add_round(
            &c,
            &[
                TableResult {
                    players: [Some(5), Some(1), Some(2), Some(6)],
                    scores: [10, 8, -9, -9],
                },
                TableResult {
                    players: [Some(3), Some(7), Some(4), Some(8)],
                    scores: [0, 0, 0, 0],
                },
            ],
            &[],
        );
        assert_eq!(s.rank_of(5).unwrap().0, 1);
        assert_eq!(s.rank_of(1).unwrap().0, 2);
    }

    #[test]
    fn a_duplicate_score_is_against_the_same_slot_at_the_other_tables() {
        let mut s = Standings::new(&(1..=8).collect::<Vec<_>>());
        // The same walls: East won big at both tables; East at table 2 won less.
        s.add_round(
            &config(true),
            &[
                TableResult {
                    players: [Some(1), Some(2), Some(3), Some(4)],
                    scores: [40, -10, -20, -10],
                },
                TableResult {
                    players: [Some(5), Some(6), Some(7), Some(8)],
                    scores: [20, -10, 0, -10],
                },
            ],
            &[],
        );
        let score = |e| s.rank_of(e).unwrap().1.score;
        assert_eq!(score(1), 10.0);
        assert_eq!(score(5), -10.0);
        // West at table 2 lost less than West at table 1: ahead of him, and of both Easts'
        // raw wins' difference.
        assert_eq!(score(7), 10.0);
        assert_eq!(score(3), -10.0);
    }
}
