//! Ratings recomputed from the rated ranked matches, the voided ones left out.
//!
//! Each kept match holds every person's rating before it; an account's history starts from
//! the rating before its first kept match (its ratings from before schema v5 included), and
//! every match not voided is rated again, in the order they were rated, by the same
//! [`crate::rating::rate_match`]. Nothing but the kept rows goes in, so two nodes (or two
//! runs) recompute the same ratings; with nothing voided they are the ratings as stored.

use std::collections::BTreeMap;

use crate::rating::{SeatResult, rate_match};
use crate::store::{RankedMatch, StoredRating};

/// Every account's rating after `matches` (one rule set, oldest first), without the voided
/// ones, by account id.
pub fn recompute(matches: &[RankedMatch]) -> Vec<StoredRating> {
    let mut now: BTreeMap<i64, StoredRating> = BTreeMap::new();
    for m in matches {
        for p in &m.players {
            now.entry(p.before.account_id)
                .or_insert_with(|| p.before.clone());
        }
        if m.voided_by.is_some() {
            continue;
        }
        let seats: Vec<SeatResult> = m
            .players
            .iter()
            .map(|p| SeatResult {
                rating: now.get(&p.before.account_id).cloned(),
                score: i32::try_from(p.score).unwrap_or(0),
            })
            .collect();
        for r in rate_match(&seats) {
            now.insert(r.account_id, r);
        }
    }
    now.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MatchPlayer;

    fn fresh(id: i64) -> StoredRating {
        crate::rating::initial(id, "guobiao")
    }

    /// Rates matches one after another as the tables do, keeping each as the store would.
    fn play(matches: &[&[(i64, i64)]]) -> (Vec<RankedMatch>, BTreeMap<i64, StoredRating>) {
        let mut now: BTreeMap<i64, StoredRating> = BTreeMap::new();
        let mut kept = Vec::new();
        for (seq, people) in (1i64..).zip(matches) {
            let before: Vec<StoredRating> = people
                .iter()
                .map(|&(a, _)| now.get(&a).cloned().unwrap_or_else(|| fresh(a)))
                .collect();
            let seats: Vec<SeatResult> = before
                .iter()
                .zip(people.iter())
                .map(|(r, &(_, s))| SeatResult {
                    rating: Some(r.clone()),
                    score: s as i32,
                })
                .collect();
            for r in rate_match(&seats) {
                now.insert(r.account_id, r);
            }
            kept.push(RankedMatch {
                seq,
                table_id: format!("t{seq}"),
                rules: "guobiao".into(),
                finished_at: 1_000 + seq,
                voided_by: None,
                players: before
                    .into_iter()
                    .zip(people.iter())
                    .map(|(before, &(_, score))| MatchPlayer { score, before })
                    .collect(),
            });
        }
        (kept, now)
    }

    #[test]
    fn with_nothing_voided_the_stored_ratings_come_back_exactly() {
        let (kept, stored) = play(&[
            &[(1, 40), (2, -10), (3, -10), (4, -20)],
            &[(1, 5), (2, 30), (5, -35)],
            &[(3, 12), (4, -12), (5, 0), (1, 0)],
        ]);
        let again = recompute(&kept);
        assert_eq!(again, stored.into_values().collect::<Vec<_>>());
    }

    #[test]
    fn a_voided_match_is_as_if_never_played_for_everyone() {
        // Account 9 cheats in the second match; account 2 lost to him there.
        let (mut kept, _) = play(&[
            &[(1, 10), (2, -10)],
            &[(9, 60), (2, -30), (3, -30)],
            &[(2, 20), (3, -20), (1, 0)],
        ]);
        kept[1].voided_by = Some(77);
        let got = recompute(&kept);
        // The history without the cheat's match, rated from scratch.
        let (_, without) = play(&[&[(1, 10), (2, -10)], &[(2, 20), (3, -20), (1, 0)]]);
        for (id, want) in &without {
            let r = got.iter().find(|r| r.account_id == *id).unwrap();
            assert_eq!(r, want, "account {id}");
        }
        // The cheat keeps the rating he had before the voided match: a fresh one.
        assert_eq!(got.iter().find(|r| r.account_id == 9), Some(&fresh(9)));
        // And the same history recomputes the same ratings (two nodes agree).
        assert_eq!(recompute(&kept), got);
    }
}
