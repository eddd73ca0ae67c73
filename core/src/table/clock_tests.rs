//! The decision clock: limits by mode, bank time, timeouts, 托管 and the pause.

use super::*;
use crate::game::DecisionKind;
use crate::tile::Tile;

/// A person in slot 0 (the first dealer) against Normal bots, under guobiao's limits
/// (30 s the first discard, 15 s a discard, 3 s a claim) and `bank_secs` of bank time.
fn table(seed: u64, bank_secs: u32) -> Table {
    let mut rules = RuleSet::default();
    rules.time.bank_secs = bank_secs;
    Table::new(TableConfig::person_and_bots(rules, Level::Normal, seed))
}

fn decision(kind: DecisionKind, limit_secs: u32) -> Decision {
    Decision {
        kind,
        legal: vec![Action::Pass],
        limit_secs,
        on_timeout: Action::Pass,
    }
}

#[test]
fn each_clock_means_the_same_for_every_host() {
    let tile: Tile = "5m".parse().unwrap();
    let turn = decision(DecisionKind::Turn, 15);
    let claim = decision(DecisionKind::Claim { tile }, 3);
    let rob = decision(DecisionKind::RobKong { tile }, 3);
    let long_turn = decision(DecisionKind::Turn, 60);
    assert_eq!(Clock::Match.limit_secs(&turn), Some(15));
    assert_eq!(Clock::Match.limit_secs(&claim), Some(3));
    // Relaxed: at least 30 s a turn and 10 s a claim, the rules' own when longer.
    assert_eq!(Clock::Relaxed.limit_secs(&turn), Some(30));
    assert_eq!(Clock::Relaxed.limit_secs(&claim), Some(10));
    assert_eq!(Clock::Relaxed.limit_secs(&rob), Some(10));
    assert_eq!(Clock::Relaxed.limit_ms(&long_turn), Some(60_000));
    assert_eq!(Clock::Off.limit_secs(&turn), None);
    for c in Clock::ALL {
        assert_eq!(c.name().parse::<Clock>(), Ok(c));
        assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{c}\""));
    }
    assert!(
        "slow"
            .parse::<Clock>()
            .unwrap_err()
            .contains("off, relaxed, match")
    );
    // Saves written when the rules' clock was called "rules" still read.
    assert_eq!(
        serde_json::from_str::<Clock>("\"rules\"").unwrap(),
        Clock::Match
    );
}

#[test]
fn people_are_timed_and_fall_back_on_timeout() {
    let mut t = table(5, 0);
    // The dealer (the person, seat 0) has the first discard: 30 s under guobiao.
    let Step::Waiting { deadline_ms } = t.step(1_000) else {
        panic!("the dealer's first discard is the person's")
    };
    assert_eq!(deadline_ms, Some(31_000));
    assert_eq!(t.deadline(0), Some(31_000));
    assert_eq!(t.remaining_ms(0, 11_000), Some(20_000));
    assert_eq!(t.step(30_999), Step::Waiting { deadline_ms });
    let before = t.game().actions().len();
    let d = t.decision(0).unwrap();
    match t.step(31_000) {
        Step::Acted {
            seat,
            action,
            by: Mover::Timeout { auto_play: false },
            ..
        } => assert_eq!((seat, action), (Seat(0), d.on_timeout)),
        other => panic!("{other:?}"),
    }
    assert_eq!(t.game().actions().len(), before + 1);
    assert_eq!(t.timeouts(0), 1);
    assert!(!t.auto_play(0));
    // A person who acts is no longer counted as timing out.
    let Step::Waiting { .. } = t.run(31_000) else {
        panic!("the hand ended without the person")
    };
    let d = t.decision(0).unwrap();
    t.act(0, d.on_timeout, 32_000).unwrap();
    assert_eq!(t.timeouts(0), 0);
}

#[test]
fn a_relaxed_or_stopped_clock_gives_people_time() {
    let mut config = TableConfig::match_against_bots(Level::Easy, 5);
    config.clock = Clock::Relaxed;
    let mut t = Table::new(config.clone());
    assert_eq!(
        t.step(0),
        Step::Waiting {
            deadline_ms: Some(30_000)
        }
    );
    // Changed mid-decision: the decision keeps its start and takes the new limit.
    t.set_clock(Clock::Match);
    assert_eq!(t.deadline(0), Some(30_000));
    t.set_clock(Clock::Off);
    assert_eq!(t.deadline(0), None);
    config.clock = Clock::Off;
    let mut t = Table::new(config);
    assert_eq!(t.step(0), Step::Waiting { deadline_ms: None });
    assert_eq!(t.step(u64::MAX), Step::Waiting { deadline_ms: None });
    assert_eq!(t.remaining_ms(0, 0), None);
}

#[test]
fn bank_time_pays_for_what_runs_over_and_a_timeout_spends_it() {
    let mut t = table(5, 5);
    assert_eq!(t.bank_ms(0), 5_000);
    assert_eq!(
        t.step(0),
        Step::Waiting {
            deadline_ms: Some(35_000)
        }
    );
    // Answered 2 s over the 30 s limit: 2 s of the bank are gone.
    let d = t.decision(0).unwrap();
    t.act(0, d.on_timeout, 32_000).unwrap();
    assert_eq!(t.bank_ms(0), 3_000);
    // The next decision has its limit plus the 3 s left; missed, the bank is spent.
    let Step::Waiting {
        deadline_ms: Some(at),
    } = t.run(40_000)
    else {
        panic!("the person decides again")
    };
    let opened = at - 3_000 - Clock::Match.limit_ms(&t.decision(0).unwrap()).unwrap();
    assert!(opened >= 32_000, "{opened}");
    assert!(matches!(
        t.step(at),
        Step::Acted {
            by: Mover::Timeout { .. },
            ..
        }
    ));
    assert_eq!(t.bank_ms(0), 0);
    // Answered in time, nothing more is taken (there is nothing left to take).
    let Step::Waiting {
        deadline_ms: Some(next),
    } = t.run(at)
    else {
        panic!("the person decides again")
    };
    assert_eq!(
        next - at,
        Clock::Match.limit_ms(&t.decision(0).unwrap()).unwrap()
    );
    let d = t.decision(0).unwrap();
    t.act(0, d.on_timeout, at + 1).unwrap();
    assert_eq!((t.bank_ms(0), t.timeouts(0)), (0, 0));
}

/// Steps `t` at `now`, moving the time on to each deadline, until the hand is over or
/// `stop` moves were made; the moves as (seat, action, mover).
fn drive(t: &mut Table, now: &mut u64, stop: usize) -> Vec<(Seat, Action, Mover)> {
    let mut moves = Vec::new();
    while moves.len() < stop {
        match t.step(*now) {
            Step::Acted {
                seat, action, by, ..
            } => moves.push((seat, action, by)),
            Step::Waiting {
                deadline_ms: Some(at),
            } => *now = (*now).max(at),
            Step::Waiting { deadline_ms: None } => panic!("a timed table always has a deadline"),
            Step::HandOver => break,
        }
    }
    moves
}

#[test]
fn two_timeouts_in_a_row_put_the_seat_on_auto_play_until_the_person_acts() {
    let mut t = table(8, 0);
    let mut now = 0;
    let moves = drive(&mut t, &mut now, 10_000);
    assert!(t.game().is_finished());
    let me = t.seat_of(0);
    let mine: Vec<Mover> = moves.iter().filter(|m| m.0 == me).map(|m| m.2).collect();
    assert_eq!(
        mine[..2],
        [
            Mover::Timeout { auto_play: false },
            Mover::Timeout { auto_play: true }
        ]
    );
    assert!(mine.len() > 4, "{mine:?}");
    // From then on the stand-in plays the seat at once: no more timeouts, no deadline.
    assert!(mine[2..].iter().all(|m| *m == Mover::StandIn), "{mine:?}");
    assert!(t.auto_play(0));
    assert_eq!(t.timeouts(0), 2);
    // 托管 lasts into the next hand. Each of the person's decisions is open (for the host to
    // show, untimed) before the stand-in plays it.
    assert!(t.next_hand());
    let d = loop {
        if let Some(d) = t.decision(0) {
            break d;
        }
        match t.step(now) {
            Step::Acted { seat, by, .. } => assert!(seat != t.seat_of(0) || by == Mover::StandIn),
            Step::Waiting { .. } => {}
            Step::HandOver => panic!("the person had no decision"),
        }
    };
    assert_eq!(t.deadline(0), None, "the stand-in's decision is untimed");
    // The person answers it: 托管 is over and the decisions are timed again.
    let answered = t.act(0, d.on_timeout, now).unwrap();
    assert!(answered.auto_play_ended);
    assert!(!t.auto_play(0));
    assert_eq!(t.timeouts(0), 0);
    match t.run(now) {
        Step::Waiting { deadline_ms } => {
            assert!(deadline_ms.is_some());
            assert_eq!(deadline_ms, t.deadline(0));
        }
        Step::HandOver => {}
        Step::Acted { .. } => unreachable!("run returns on people or the end"),
    }
}

#[test]
fn the_host_puts_a_seat_on_auto_play_or_marks_its_person_away() {
    let mut t = table(3, 0);
    // Asked for: the stand-in plays, after the host was told of the decision.
    assert!(t.set_auto_play(0, true));
    assert!(!t.set_auto_play(0, true), "no change");
    assert!(!t.set_auto_play(1, true), "a bot's slot has no 托管");
    assert_eq!(
        t.step(0),
        Step::Waiting {
            deadline_ms: Some(0)
        }
    );
    assert!(t.decision(0).is_some());
    assert!(matches!(
        t.step(0),
        Step::Acted {
            seat: Seat(0),
            by: Mover::StandIn,
            ..
        }
    ));
    // Taken off by the host: timed again.
    assert!(t.set_auto_play(0, false));
    let Step::Waiting { .. } = t.run(0) else {
        panic!("the person decides again")
    };
    assert!(t.deadline(0).is_some());
    // Away (a lost connection): the stand-in plays at once, no 托管 to announce.
    t.set_away(0, true);
    assert!(t.away(0));
    assert_eq!(t.deadline(0), None);
    assert!(matches!(
        t.step(1),
        Step::Acted {
            by: Mover::StandIn,
            ..
        }
    ));
    assert!(!t.auto_play(0));
    assert_eq!(t.timeouts(0), 0);
    t.set_away(0, false);
    let Step::Waiting { deadline_ms } = t.run(2) else {
        panic!("the person decides again")
    };
    assert_eq!(deadline_ms, t.deadline(0));
    assert!(deadline_ms.is_some());
}

#[test]
fn a_paused_clock_stands_still() {
    let mut t = table(5, 0);
    assert_eq!(
        t.step(1_000),
        Step::Waiting {
            deadline_ms: Some(31_000)
        }
    );
    t.pause_clock(11_000);
    assert!(t.clock_paused());
    assert_eq!(t.remaining_ms(0, 50_000), Some(20_000));
    // Nobody times out while it stands still; nothing timed is due.
    assert_eq!(t.step(100_000), Step::Waiting { deadline_ms: None });
    t.resume_clock(100_000);
    assert!(!t.clock_paused());
    assert_eq!(t.deadline(0), Some(120_000));
    assert_eq!(t.remaining_ms(0, 100_000), Some(20_000));
    assert_eq!(
        t.step(119_999),
        Step::Waiting {
            deadline_ms: Some(120_000)
        }
    );
    assert!(matches!(
        t.step(120_000),
        Step::Acted {
            by: Mover::Timeout { .. },
            ..
        }
    ));
}

#[test]
fn time_spent_paused_is_not_charged_to_the_bank() {
    let mut t = table(5, 5);
    t.step(0);
    t.pause_clock(29_000);
    let d = t.decision(0).unwrap();
    t.act(0, d.on_timeout, 90_000).unwrap();
    assert_eq!(t.bank_ms(0), 5_000, "answered at 29 s on the clock");
}

#[test]
fn the_same_seed_and_times_give_the_same_match_and_a_resume_goes_on_alike() {
    let mut a = table(21, 2);
    let mut b = table(21, 2);
    let (mut now_a, mut now_b) = (0, 0);
    // Into 托管 and some way on: the stand-in's moves are the same on both.
    let moves_a = drive(&mut a, &mut now_a, 60);
    let moves_b = drive(&mut b, &mut now_b, 60);
    assert_eq!(moves_a, moves_b);
    assert!(moves_a.iter().any(|m| m.2 == Mover::StandIn));
    assert_eq!(a.saved(), b.saved());
    // Saved mid-hand, on 托管: the clock's state comes back and the stand-in plays alike.
    let saved = SavedTable::from_json(&a.saved().to_json()).unwrap();
    let kept = saved.clock.clone().expect("the clock's state is kept");
    assert_eq!(kept.auto_play, [true, false, false, false]);
    assert_eq!(kept.bank_ms[0], 0);
    let mut c = Table::resume(&saved).unwrap();
    assert!(c.auto_play(0));
    assert_eq!(c.timeouts(0), 2);
    let mut now_c = now_a;
    let rest_a = drive(&mut a, &mut now_a, 10_000);
    let rest_c = drive(&mut c, &mut now_c, 10_000);
    assert_eq!(rest_a, rest_c);
    assert_eq!(c.saved(), a.saved());
    // A new match's clock is not written at all.
    assert_eq!(table(21, 2).saved().clock, None);
}
