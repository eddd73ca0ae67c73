//! Ratings per rule set: Weng-Lin (the OpenSkill family) from the `skillratings` crate.
//!
//! Why per match, not per hand: one mahjong hand is mostly the wall; a match (its final
//! scores) is what players themselves rank by, as placement-based ladders do. So a finished
//! ranked match gives each *person* a place by final score (ties share a place), and the
//! crate's multi-team update runs with every person as a one-player team.
//!
//! Bots never count: their seats are left out before the update, so nobody's rating moves
//! because a bot won or lost, and a match with fewer than two people rates nobody.
//!
//! New accounts are provisional for their first [`PROVISIONAL_GAMES`] rated matches: they
//! play and move (fast, as their sigma is large) but show no tier. The tier comes from the
//! conservative estimate `mu - 3 sigma`, which only rises as the system grows sure of a
//! player, so a lucky first match cannot lift anyone to the top.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

use tongcheng_api::play::{Rating, Tier};

use crate::store::StoredRating;

/// Rated matches before a rating leaves its provisional period.
pub const PROVISIONAL_GAMES: i64 = 10;

/// The model's settings. `beta` (the skill gap for a ~67 % win) is twice the crate's
/// default: mahjong has far more luck than the games the default is tuned for, so one result
/// should move ratings less.
pub fn config() -> WengLinConfig {
    WengLinConfig {
        beta: 25.0 / 3.0,
        ..WengLinConfig::default()
    }
}

/// A fresh rating (the crate's: mu 25, sigma 25/3).
pub fn initial(account_id: i64, rules: &str) -> StoredRating {
    let r = WengLinRating::new();
    StoredRating {
        account_id,
        rules: rules.to_string(),
        mu: r.rating,
        sigma: r.uncertainty,
        games: 0,
    }
}

/// The rank tiers shown to players, lowest first, with the conservative rating each starts at.
pub const TIERS: &[(Tier, f64)] = &[
    (Tier::Bronze, f64::NEG_INFINITY),
    (Tier::Silver, 5.0),
    (Tier::Gold, 12.0),
    (Tier::Platinum, 20.0),
    (Tier::Diamond, 28.0),
    (Tier::Master, 35.0),
];

/// The conservative estimate.
pub fn conservative(r: &StoredRating) -> f64 {
    r.mu - 3.0 * r.sigma
}

/// The tier of a rating, or `None` while it is provisional.
pub fn tier(r: &StoredRating) -> Option<Tier> {
    if r.games < PROVISIONAL_GAMES {
        return None;
    }
    let c = conservative(r);
    TIERS
        .iter()
        .rev()
        .find(|(_, from)| c >= *from)
        .map(|(tier, _)| tier.clone())
}

/// A rating as the player is shown it.
pub fn shown(r: &StoredRating) -> Rating {
    Rating {
        rules: r.rules.clone(),
        mu: r.mu,
        sigma: r.sigma,
        conservative: conservative(r),
        games: r.games,
        provisional: r.games < PROVISIONAL_GAMES,
        provisional_games: PROVISIONAL_GAMES,
        tier: tier(r),
    }
}

/// One seat of a finished ranked match: its person's rating before the match (`None`: a
/// bot) and the seat's final score.
#[derive(Clone, Debug)]
pub struct SeatResult {
    pub rating: Option<StoredRating>,
    pub score: i32,
}

/// The people's new ratings after a match, in seat order (bots skipped). Empty when fewer
/// than two people played: there is nobody to be ranked against.
pub fn rate_match(seats: &[SeatResult]) -> Vec<StoredRating> {
    let people: Vec<(&StoredRating, i32)> = seats
        .iter()
        .filter_map(|s| s.rating.as_ref().map(|r| (r, s.score)))
        .collect();
    if people.len() < 2 {
        return Vec::new();
    }
    // Place 1 is the best score; equal scores share a place.
    let ranks: Vec<usize> = people
        .iter()
        .map(|(_, score)| 1 + people.iter().filter(|(_, o)| o > score).count())
        .collect();
    let teams: Vec<[WengLinRating; 1]> = people
        .iter()
        .map(|(r, _)| {
            [WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            }]
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(&ranks)
        .map(|(t, &rank)| (&t[..], MultiTeamOutcome::new(rank)))
        .collect();
    let out = weng_lin_multi_team(&input, &config());
    people
        .iter()
        .zip(out)
        .map(|((r, _), team)| {
            let new = team.first().copied().unwrap_or(WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            });
            StoredRating {
                account_id: r.account_id,
                rules: r.rules.clone(),
                mu: new.rating,
                sigma: new.uncertainty,
                games: r.games + 1,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: i64, mu: f64, sigma: f64, games: i64) -> StoredRating {
        StoredRating {
            account_id: id,
            rules: "guobiao".into(),
            mu,
            sigma,
            games,
        }
    }

    #[test]
    fn a_scripted_match_moves_ratings_as_the_crate_says() {
        let seats = [
            SeatResult {
                rating: Some(r(1, 25.0, 25.0 / 3.0, 0)),
                score: 40,
            },
            SeatResult {
                rating: Some(r(2, 30.0, 5.0, 12)),
                score: -10,
            },
            SeatResult {
                rating: Some(r(3, 20.0, 6.0, 3)),
                score: -10,
            },
            SeatResult {
                rating: Some(r(4, 28.0, 4.0, 40)),
                score: -20,
            },
        ];
        let new = rate_match(&seats);
        // The crate, called directly: places 1, 2, 2 (a tie), 4.
        let w = |mu, s| {
            [WengLinRating {
                rating: mu,
                uncertainty: s,
            }]
        };
        let (a, b, c, d) = (
            w(25.0, 25.0 / 3.0),
            w(30.0, 5.0),
            w(20.0, 6.0),
            w(28.0, 4.0),
        );
        let expect = weng_lin_multi_team(
            &[
                (&a[..], MultiTeamOutcome::new(1)),
                (&b[..], MultiTeamOutcome::new(2)),
                (&c[..], MultiTeamOutcome::new(2)),
                (&d[..], MultiTeamOutcome::new(4)),
            ],
            &config(),
        );
        assert_eq!(new.len(), 4);
        for (got, want) in new.iter().zip(&expect) {
            assert_eq!(got.mu, want[0].rating);
            assert_eq!(got.sigma, want[0].uncertainty);
        }
        assert_eq!(
            new.iter().map(|r| r.games).collect::<Vec<_>>(),
            [1, 13, 4, 41]
        );
        // The winner rises, the last falls, and every sigma shrinks.
        assert!(new[0].mu > 25.0 && new[3].mu < 28.0);
        assert!(
            new.iter()
                .zip(&seats)
                .all(|(n, s)| { n.sigma < s.rating.as_ref().map_or(0.0, |r| r.sigma) })
        );
    }

    #[test]
    fn bots_never_move_ratings() {
        let person = |id, score| SeatResult {
            rating: Some(r(id, 25.0, 25.0 / 3.0, 0)),
            score,
        };
        let bot = |score| SeatResult {
            rating: None,
            score,
        };
        // One person against three bots: nobody is rated, however the bots did.
        assert!(rate_match(&[person(1, -50), bot(100), bot(-25), bot(-25)]).is_empty());
        // Two people: ranked only against each other, exactly as a two-player match.
        let with_bots = rate_match(&[person(1, -50), bot(100), person(2, -10), bot(-40)]);
        let alone = rate_match(&[person(1, -50), person(2, -10)]);
        assert_eq!(with_bots, alone);
        assert!(with_bots[0].mu < 25.0 && with_bots[1].mu > 25.0);
    }

    #[test]
    fn tiers_wait_for_the_provisional_period() {
        assert_eq!(tier(&r(1, 60.0, 1.0, PROVISIONAL_GAMES - 1)), None);
        assert_eq!(
            tier(&r(1, 60.0, 1.0, PROVISIONAL_GAMES)),
            Some(Tier::Master)
        );
        assert_eq!(tier(&r(1, 25.0, 25.0 / 3.0, 50)), Some(Tier::Bronze));
        assert_eq!(tier(&r(1, 20.0, 2.0, 50)), Some(Tier::Gold));
        let s = shown(&r(1, 25.0, 1.0, 2));
        assert!(s.provisional && s.tier.is_none() && s.conservative == 22.0);
    }

    #[test]
    fn a_ranked_match_end_reads_and_writes_the_store() {
        use crate::store::{Discipline, Store};
        let s = crate::store::sqlite::SqliteStore::open_in_memory().unwrap();
        let a = match s.login_device("ka", None, "A", "p", 0).unwrap() {
            crate::store::LoginOutcome::Created(d) => d.account_id,
            o => panic!("{o:?}"),
        };
        let b = match s.login_device("kb", None, "B", "p", 0).unwrap() {
            crate::store::LoginOutcome::Created(d) => d.account_id,
            o => panic!("{o:?}"),
        };
        let seats = [(Some(a), 30), (None, 50), (Some(b), -20), (None, -60)];
        let first = crate::play::table::rate_accounts(&s, "t1", "guobiao", &seats).unwrap();
        assert_eq!(first.len(), 2);
        assert_eq!(s.rating(a, "guobiao").unwrap().as_ref(), Some(&first[0]));
        assert!(first[0].mu > 25.0 && first[1].mu < 25.0);
        // The second match starts from the stored ratings.
        let second = crate::play::table::rate_accounts(&s, "t2", "guobiao", &seats).unwrap();
        // A table is rated once: a restored one asking again changes nothing.
        assert!(
            crate::play::table::rate_accounts(&s, "t2", "guobiao", &seats)
                .unwrap()
                .is_empty()
        );
        let kept = s.ranked_matches("guobiao").unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1].players[0].before, first[0]);
        let want = rate_match(&[
            SeatResult {
                rating: Some(first[0].clone()),
                score: 30,
            },
            SeatResult {
                rating: Some(first[1].clone()),
                score: -20,
            },
        ]);
        assert_eq!(second, want);
        assert_eq!(s.rating(b, "guobiao").unwrap().unwrap().games, 2);
        assert_eq!(s.rating(a, "hangzhou").unwrap(), None);
    }
}
