//! Whole tournaments of 64 bot entrants, every table played by the core's table host: a
//! Swiss one and a duplicate elimination one finish, every round's walls verify against its
//! commitment, duplicate tables share their walls, the cut lines are right, and two entrants
//! from one address never meet.

use super::seating::has_conflict;
use super::simulate::{Simulation, recompute, simulate};
use super::*;
use crate::bot::Level;
use crate::wall::Seed;

/// What a run of a tournament left, checked as it is published: every round verifies (and
/// a forged secret does not), nobody who may not meet sat together, and the standings are
/// what the rounds' records recompute to.
struct Run {
    standings: Standings,
    /// Per round: the entrants seated.
    fields: Vec<usize>,
    /// Per round, per table: each hand's wall seed.
    walls: Vec<Vec<Vec<Seed>>>,
}

fn run(
    config: &TournamentConfig,
    entrants: &[EntrantId],
    conflict: impl Fn(EntrantId, EntrantId) -> bool,
) -> Run {
    let Simulation { standings, rounds } =
        simulate(config, entrants, Level::Easy, 7, &conflict).unwrap();
    assert_eq!(rounds.len(), config.rounds());
    for r in &rounds {
        r.verify().unwrap();
        let mut forged = r.clone();
        forged.secret = Seed::from_u64(1);
        assert!(matches!(forged.verify(), Err(TournamentError::Unfair(_))));
        let seating = Seating {
            tables: r.seating.clone(),
            byes: r.byes.clone(),
        };
        assert!(
            !has_conflict(&seating, &conflict),
            "round {}: {seating:?}",
            r.round
        );
        // Rules that are not the preset's are refused before anything is replayed.
        let mut odd = r.clone();
        odd.rules.dead_wall = 200;
        assert!(matches!(odd.verify(), Err(TournamentError::Unfair(_))));
        assert!(odd.table_results().is_none());
        // The published round survives its trip through JSON.
        let json = serde_json::to_string(r).unwrap();
        assert_eq!(
            &serde_json::from_str::<simulate::RoundRecord>(&json).unwrap(),
            r
        );
    }
    let again = recompute(config, entrants, &rounds).unwrap();
    let row = |s: &Standing| (s.entrant, s.table_points, s.score, s.matches, s.out_after);
    assert_eq!(
        standings.ranked().into_iter().map(row).collect::<Vec<_>>(),
        again.ranked().into_iter().map(row).collect::<Vec<_>>(),
        "the standings are the records' own"
    );
    Run {
        standings,
        fields: rounds
            .iter()
            .map(|r| r.seating.iter().flatten().flatten().count())
            .collect(),
        walls: rounds
            .iter()
            .map(|r| {
                r.tables
                    .iter()
                    .map(|t| t.iter().map(|h| h.setup.seed).collect())
                    .collect()
            })
            .collect(),
    }
}

#[test]
fn a_64_entrant_swiss_tournament_finishes_and_one_address_never_meets_itself() {
    let config = TournamentConfig {
        rules: "guobiao".into(),
        format: Format::Swiss { rounds: 4 },
        duplicate: false,
        hands_per_match: 2,
        table_points: [4, 2, 1, 0],
        bots_allowed: false,
    };
    let entrants: Vec<EntrantId> = (1..=64).collect();
    // 1–4 share an address, as do 10 and 11.
    let address = |e: EntrantId| match e {
        1..=4 => 0,
        10 | 11 => 10,
        e => e,
    };
    let r = run(&config, &entrants, |a, b| address(a) == address(b));
    assert_eq!(r.fields, [64; 4]);
    assert_eq!(r.standings.rounds(), 4);
    let ranked = r.standings.ranked();
    assert_eq!(ranked.len(), 64);
    assert!(ranked.iter().all(|s| s.matches == 4));
    // Table points: 7 per table and round (4+2+1+0, shared on ties).
    let points: f64 = ranked.iter().map(|s| s.table_points).sum();
    assert!((points - 7.0 * 16.0 * 4.0).abs() < 1e-9, "{points}");
    // Ordered as documented.
    for w in ranked.windows(2) {
        assert!(w[0].table_points >= w[1].table_points);
    }
    // Different tables, different walls.
    assert_ne!(r.walls[0][0], r.walls[0][1]);
}

#[test]
fn a_64_entrant_duplicate_elimination_finishes_with_the_right_cuts_and_shared_walls() {
    let entrants: Vec<EntrantId> = (1..=64).collect();
    let config = TournamentConfig {
        rules: "guobiao".into(),
        format: Format::halving(64),
        duplicate: true,
        hands_per_match: 2,
        table_points: [4, 2, 1, 0],
        bots_allowed: false,
    };
    assert_eq!(
        config.format,
        Format::Elimination {
            survivors: vec![32, 16, 8, 4]
        }
    );
    let r = run(&config, &entrants, |_, _| false);
    // The cut lines: 64 play, then 32, 16, 8 and the final table.
    assert_eq!(r.fields, [64, 32, 16, 8, 4]);
    let ranked = r.standings.ranked();
    let cut_after = |round: u32| ranked.iter().filter(|s| s.out_after == Some(round)).count();
    assert_eq!(
        [1, 2, 3, 4].map(cut_after),
        [32, 16, 8, 4],
        "who went out after each round"
    );
    // The last four: the final table, ahead of everyone cut.
    assert!(
        ranked[..4]
            .iter()
            .all(|s| s.out_after == Some(5) || s.out_after.is_none())
    );
    assert_eq!(ranked[..4].iter().map(|s| s.matches).min(), Some(5));
    // Every table of a round played the same walls.
    for (round, tables) in r.walls.iter().enumerate() {
        assert!(
            tables.iter().all(|t| t[..2] == tables[0][..2]),
            "round {}: the tables' walls differ",
            round + 1
        );
    }
    // Duplicate scores compare with the same slot elsewhere: they sum to zero per round.
    let total: f64 = ranked.iter().map(|s| s.score).sum();
    assert!(total.abs() < 1e-6, "{total}");
}

#[test]
fn formats_that_do_not_fit_are_refused() {
    let mut c = TournamentConfig {
        rules: "guobiao".into(),
        format: Format::Elimination {
            survivors: vec![30, 4],
        },
        duplicate: false,
        hands_per_match: 4,
        table_points: [4, 2, 1, 0],
        bots_allowed: true,
    };
    assert!(matches!(c.check(64), Err(TournamentError::BadFormat(_))));
    c.format = Format::Elimination {
        survivors: vec![32, 8],
    };
    assert!(matches!(c.check(64), Err(TournamentError::BadFormat(_))));
    c.format = Format::halving(64);
    assert_eq!(c.check(64), Ok(()));
    assert_eq!(c.check(3), Err(TournamentError::TooFew(3)));
    c.rules = "mahjong-of-the-moon".into();
    assert!(matches!(c.check(64), Err(TournamentError::UnknownRules(_))));
    assert_eq!(
        Format::halving(10),
        Format::Elimination {
            survivors: vec![8, 4]
        }
    );
}
