use super::replay::winners_on;
use super::*;
use tongcheng_core::bot::{Bot, LevelBot};
use tongcheng_core::game::{Action, Game, HandSetup};
use tongcheng_core::rules::RuleSet;
use tongcheng_core::wall::Seed;
use tongcheng_core::{Seat, Wind};

fn counts(f: impl FnOnce(&mut PairCounts)) -> PairCounts {
    let mut c = PairCounts {
        hands: 40,
        ..PairCounts::default()
    };
    f(&mut c);
    c
}

#[test]
fn the_z_score_is_one_sided_with_a_continuity_correction_and_a_variance_floor() {
    assert!((z_score(10.0, 2.0, 4.0) - 3.75).abs() < 1e-9);
    // A near-certain expectation cannot make one surprise huge.
    assert!((z_score(2.0, 0.0, 0.01) - 1.5).abs() < 1e-9);
    assert!(z_score(1.0, 5.0, 4.0) < 0.0);
}

#[test]
fn feeding_far_above_the_bots_expectation_flags_and_honest_play_does_not() {
    let t = Thresholds::default();
    // 300 discards; the bot would have fed 3 (variance ~2.9); 15 fed: flagged.
    let feeder =
        counts(|c| (c.discards, c.feeds, c.feeds_expected, c.feeds_variance) = (300, 15, 3.0, 2.9));
    let r = pair_report(1, 2, &feeder, 0, 0, &t);
    assert!(r.feeds.flagged && r.feeds.z > 6.0, "{r:?}");
    assert_eq!(r.flagged_by, [MeasureName::Feeds]);
    // As often as the bot: not flagged.
    let honest =
        counts(|c| (c.discards, c.feeds, c.feeds_expected, c.feeds_variance) = (300, 4, 3.0, 2.9));
    let r = pair_report(1, 2, &honest, 0, 0, &t);
    assert!(!r.feeds.flagged && r.flagged_by.is_empty(), "{r:?}");
    // Far out but on too few events: not flagged.
    let few = Thresholds {
        z: 1.0,
        ..Thresholds::default()
    };
    let rare =
        counts(|c| (c.discards, c.feeds, c.feeds_expected, c.feeds_variance) = (300, 3, 0.1, 0.1));
    let r = pair_report(1, 2, &rare, 0, 0, &few);
    assert!(r.feeds.z >= 1.0 && !r.feeds.flagged, "{r:?}");
}

#[test]
fn passing_helpful_claims_only_on_the_partner_flags_but_a_cautious_habit_does_not() {
    let t = Thresholds::default();
    // Passed 8 of 8 helpful claims on the partner, 1 of 30 on everyone else.
    let soft = counts(|c| (c.helpful_windows, c.helpful_passed) = (8, 8));
    let r = pair_report(1, 2, &soft, 38, 9, &t);
    assert!(r.passed_claims.flagged, "{r:?}");
    assert_eq!(r.flagged_by, [MeasureName::PassedClaims]);
    // A player who passes half of them on everyone passes half on the partner too.
    let cautious = counts(|c| (c.helpful_windows, c.helpful_passed) = (8, 4));
    let r = pair_report(1, 2, &cautious, 38, 19, &t);
    assert!(!r.passed_claims.flagged, "{r:?}");
    // No habit known yet: compared with one half, not flagged on 4 of 4.
    let new = counts(|c| (c.helpful_windows, c.helpful_passed) = (4, 4));
    assert!(!pair_report(1, 2, &new, 4, 4, &t).passed_claims.flagged);
}

#[test]
fn winning_mostly_on_one_players_discards_flags() {
    let t = Thresholds::default();
    let fed = counts(|c| (c.partner_discard_wins, c.partner_wins_on_account) = (12, 11));
    let r = pair_report(1, 2, &fed, 0, 0, &t);
    assert!(r.wins_on_discards.flagged, "{r:?}");
    assert_eq!(r.wins_on_discards.expected, 4.0);
    let even = counts(|c| (c.partner_discard_wins, c.partner_wins_on_account) = (12, 5));
    assert!(!pair_report(1, 2, &even, 0, 0, &t).wins_on_discards.flagged);
    // Six of six is unlikely (1 in 729) but not enough on its own at this threshold.
    let six = counts(|c| (c.partner_discard_wins, c.partner_wins_on_account) = (6, 6));
    let r = pair_report(1, 2, &six, 0, 0, &t);
    assert!(
        r.wins_on_discards.z > 3.0 && !r.wins_on_discards.flagged,
        "{r:?}"
    );
}

#[test]
fn the_report_leaves_out_pairs_that_rarely_met_and_lists_flagged_pairs_first() {
    let mut tally = Tally::default();
    let met = |hands| PairCounts {
        hands,
        ..PairCounts::default()
    };
    tally.pairs.insert((1, 2), met(30));
    tally.pairs.insert((2, 1), met(30));
    tally.pairs.insert((1, 3), met(5));
    tally.pairs.insert(
        (3, 2),
        PairCounts {
            partner_discard_wins: 12,
            partner_wins_on_account: 11,
            ..met(30)
        },
    );
    let r = tally.report(&Thresholds::default());
    let order: Vec<(i64, i64)> = r.pairs.iter().map(|p| (p.account, p.partner)).collect();
    assert_eq!(order, [(3, 2), (1, 2), (2, 1)]);
    assert_eq!(r.flagged().count(), 1);
    let all = tally.report(&Thresholds {
        min_hands: 1,
        ..Thresholds::default()
    });
    assert_eq!(all.pairs.len(), 4);
}

/// Rules where any complete hand wins: many wins, so a short test sees enough of them.
fn easy_rules() -> RuleSet {
    let mut r = RuleSet::guobiao();
    r.name = "collusion-test".into();
    r.mcr.min_points = 0;
    r
}

/// How the scripted colluders at seats (a, b) play; everyone else is a Normal bot.
#[derive(Clone, Copy)]
enum Script {
    Honest,
    /// `a` discards whatever `b` can win on, and `b` always wins when he may.
    Feed(usize, usize),
    /// `a` passes every claim on `b`'s discards (soft play), wins included.
    Soft(usize, usize),
}

fn play(i: u64, script: Script) -> HandRecord {
    let setup = HandSetup {
        rules: easy_rules(),
        seed: Seed::from_u64(1000 + i),
        dealer: Seat((i % 4) as u8),
        prevalent: Wind::East,
        dealer_level: 0,
    };
    let mut g = Game::new(setup);
    let mut bots: [LevelBot; 4] =
        std::array::from_fn(|s| LevelBot::new(BOT_LEVEL, i * 7 + s as u64));
    while !g.is_finished() {
        let seat = g.pending_seats()[0];
        let s = seat.index();
        let view = g.view(seat);
        let legal = view.decision.as_ref().unwrap().legal.clone();
        let mut a = bots[s].choose(&view);
        match script {
            Script::Honest => {}
            Script::Feed(f, p) => {
                if s == f
                    && let Some(&fed) = legal.iter().find(|x| match x {
                        Action::Discard(t) => winners_on(&g, seat, *t)[p],
                        _ => false,
                    })
                {
                    a = fed;
                }
                if s == p && legal.contains(&Action::Win) {
                    a = Action::Win;
                }
            }
            Script::Soft(f, p) => {
                if s == f
                    && view.claim.is_some_and(|(d, _)| d.index() == p)
                    && legal.contains(&Action::Pass)
                {
                    a = Action::Pass;
                }
            }
        }
        g.apply(seat, a).unwrap();
    }
    HandRecord::of(&g).unwrap()
}

#[test]
fn a_scripted_feeder_is_flagged_and_honest_bots_are_not() {
    let people = [Some(11), Some(12), Some(13), Some(14)];
    let t = Thresholds::default();
    let honest: Vec<RankedRecord> = (0..60)
        .map(|i| RankedRecord {
            accounts: people,
            record: play(i, Script::Honest),
        })
        .collect();
    let r = report(&honest, &t);
    assert_eq!((r.hands, r.unreadable, r.pairs.len()), (60, 0, 12));
    assert_eq!(r.flagged().count(), 0, "{:#?}", r.pairs);
    // Bots play exactly as the expectation: what they fed is what was expected of them
    // (up to the slack).
    for p in &r.pairs {
        assert!(
            p.feeds.observed as f64 <= p.feeds.expected * 2.0 + 3.0,
            "{p:?}"
        );
    }
    // Seat 0's account feeds seat 1's.
    let colluding: Vec<RankedRecord> = (0..60)
        .map(|i| RankedRecord {
            accounts: people,
            record: play(i, Script::Feed(0, 1)),
        })
        .collect();
    let r = report(&colluding, &t);
    let flagged: Vec<(i64, i64)> = r.flagged().map(|p| (p.account, p.partner)).collect();
    assert_eq!(flagged, [(11, 12)], "{:#?}", r.pairs);
    let pair = &r.pairs[0];
    assert!(pair.flagged_by.contains(&MeasureName::Feeds), "{pair:?}");
    assert!(pair.deal_ins >= 4, "{pair:?}");
    // Bots' seats are no accounts: a hand with one person has no pair.
    let alone = RankedRecord {
        accounts: [Some(11), None, None, None],
        record: play(0, Script::Honest),
    };
    let r = report([&alone], &Thresholds { min_hands: 1, ..t });
    assert_eq!((r.hands, r.pairs.len()), (1, 0));
}

#[test]
fn a_player_who_never_claims_on_one_partners_discards_is_flagged() {
    let people = [Some(21), Some(22), Some(23), Some(24)];
    // Seat 2's account lets seat 3's discards go, however much they would help him.
    let hands: Vec<RankedRecord> = (0..60)
        .map(|i| RankedRecord {
            accounts: people,
            record: play(i, Script::Soft(2, 3)),
        })
        .collect();
    let r = report(&hands, &Thresholds::default());
    let flagged: Vec<(i64, i64)> = r.flagged().map(|p| (p.account, p.partner)).collect();
    assert_eq!(flagged, [(23, 24)], "{:#?}", r.pairs);
    let soft = &r.pairs[0];
    assert_eq!(soft.flagged_by, [MeasureName::PassedClaims]);
    assert_eq!(soft.passed_claims.observed, soft.passed_claims.trials);
}

#[test]
fn a_record_that_does_not_replay_is_counted_and_left_out() {
    let mut bad = play(1, Script::Honest);
    bad.actions.truncate(3);
    let hands = [RankedRecord {
        accounts: [Some(1), Some(2), None, None],
        record: bad,
    }];
    let r = report(&hands, &Thresholds::default());
    assert_eq!((r.hands, r.unreadable), (0, 1));
}
