//! Whole tournaments of 64 bot entrants, every table played by the core's table host: a
//! Swiss one and a duplicate elimination one finish, every round's walls verify against its
//! commitment, duplicate tables share their walls, the cut lines are right, and two entrants
//! from one address never meet.

use super::fair::{RoundProof, round_commitment, round_seed, table_seed, verify_round};
use super::seating::has_conflict;
use super::*;
use crate::bot::Level;
use crate::fair::Bytes32;
use crate::record::HandRecord;
use crate::table::{Clock, Deal, Player, Table, TableConfig};
use crate::wall::Seed;

/// One table's match: its hands' records and the match scores by player slot.
fn play_table(rules: &RuleSet, seed: Seed, bot_seed: u64) -> (Vec<HandRecord>, [i32; 4]) {
    let mut t = Table::try_new(TableConfig {
        deal: Deal::Match {
            rules: rules.clone(),
            seed,
        },
        players: [Player::Bot(Level::Easy); 4],
        bot_seed,
        clock: Clock::Off,
    })
    .unwrap();
    let mut records = Vec::new();
    loop {
        t.run(0);
        records.push(t.record().expect("a finished hand"));
        // Each hand's deltas, by the seat each player held, add up to the match scores.
        if !t.next_hand() {
            break;
        }
    }
    let scores = t.match_state().scores();
    let history = t.match_state().history();
    assert_eq!(history.len(), records.len());
    let summed: [i32; 4] = std::array::from_fn(|p| {
        history
            .iter()
            .zip(&records)
            .map(|(h, r)| r.result.deltas[h.seating[p].index()])
            .sum()
    });
    assert_eq!(summed, scores, "the records make the match's scores");
    (records, scores)
}

/// What a run of a tournament left.
struct Run {
    standings: Standings,
    /// Per round: the field seated and the tables' walls (each hand's seed).
    fields: Vec<usize>,
    walls: Vec<Vec<Vec<Seed>>>,
}

fn run(
    config: &TournamentConfig,
    entrants: &[EntrantId],
    conflict: impl Fn(EntrantId, EntrantId) -> bool,
) -> Run {
    config.check(entrants.len()).unwrap();
    let rules = config.table_rules().unwrap();
    let mut standings = Standings::new(entrants);
    let mut fields = Vec::new();
    let mut walls = Vec::new();
    for round in 0..config.rounds() {
        // Round 1 by the draw (a shuffle from a seed, here the entrants' own order reversed).
        let order: Vec<EntrantId> = if round == 0 {
            entrants.iter().rev().copied().collect()
        } else {
            standings.order()
        };
        fields.push(order.len());
        let seating = seat_round(&order, round, config.bots_allowed, &conflict);
        assert!(
            !has_conflict(&seating, &conflict),
            "round {round}: {seating:?}"
        );
        // The round's walls: committed before any contribution, revealed after the round.
        let secret = Seed::from_u64(0x5EC2E7 + round as u64);
        let commitment = round_commitment(&secret);
        let contributions: Vec<(EntrantId, Bytes32)> = order
            .iter()
            .map(|&e| (e, Bytes32(Seed::from_u64(e * 31 + round as u64).0)))
            .collect();
        let seed = round_seed(&secret, &contributions);
        let mut results = Vec::new();
        let mut hands = Vec::new();
        for (t, players) in seating.tables.iter().enumerate() {
            let (records, scores) = play_table(
                &rules,
                table_seed(&seed, config.duplicate, t),
                (round * 100 + t) as u64,
            );
            results.push(TableResult {
                players: *players,
                scores,
            });
            hands.push(records);
        }
        verify_round(&RoundProof {
            commitment,
            secret,
            contributions: &contributions,
            duplicate: config.duplicate,
            rules: &rules,
            tables: &hands,
        })
        .unwrap();
        // A forged secret is caught.
        let forged = verify_round(&RoundProof {
            commitment,
            secret: Seed::from_u64(1),
            contributions: &contributions,
            duplicate: config.duplicate,
            rules: &rules,
            tables: &hands,
        });
        assert!(matches!(forged, Err(TournamentError::Unfair(_))));
        walls.push(
            hands
                .iter()
                .map(|h| h.iter().map(|r| r.setup.seed).collect())
                .collect(),
        );
        standings.add_round(config, &results, &seating.byes);
        let next = config.field_after(entrants.len(), round + 1);
        let survivors: Vec<EntrantId> = standings.order().into_iter().take(next).collect();
        standings.cut_to(&survivors);
    }
    Run {
        standings,
        fields,
        walls,
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
