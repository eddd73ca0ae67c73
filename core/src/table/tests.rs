use super::*;
use crate::game::DecisionKind;
use crate::record::replay;
use crate::rules::{Piao, WildRule};
use crate::seat::Wind;

/// Steps the table; the person in slot 0 plays the timeout action, up to `stop` decisions.
fn play(t: &mut Table, stop: usize) -> usize {
    let mut n = 0;
    while n < stop {
        match t.run(0) {
            Step::Waiting { .. } => {
                let d = t.decision(0).expect("the person is waited for");
                t.act(0, d.on_timeout, 0).unwrap();
                n += 1;
            }
            Step::HandOver => {
                if !t.next_hand() {
                    break;
                }
            }
            Step::Acted { .. } => unreachable!("run returns on people or the end"),
        }
    }
    n
}

#[test]
fn a_match_against_bots_plays_to_the_end_and_every_hand_verifies() {
    let mut t = Table::new(TableConfig::match_against_bots(Level::Normal, 3));
    let mut records = Vec::new();
    loop {
        match t.run(0) {
            Step::Waiting { .. } => {
                let d = t.decision(0).unwrap();
                t.act(0, d.on_timeout, 0).unwrap();
            }
            Step::HandOver => {
                records.push(t.record().unwrap());
                if !t.next_hand() {
                    break;
                }
            }
            Step::Acted { .. } => unreachable!(),
        }
    }
    assert!(t.is_over());
    assert_eq!(records.len(), 16);
    assert_eq!(t.match_state().scores().iter().sum::<i32>(), 0);
    for r in &records {
        replay(r).unwrap();
    }
}

#[test]
fn the_same_config_and_answers_give_the_same_match() {
    let mut a = Table::new(TableConfig::match_against_bots(Level::Hard, 9));
    let mut b = Table::new(TableConfig::match_against_bots(Level::Hard, 9));
    play(&mut a, 80);
    play(&mut b, 80);
    assert_eq!(a.saved(), b.saved());
}

#[test]
fn a_resumed_table_continues_exactly() {
    let mut a = Table::new(TableConfig::match_against_bots(Level::Normal, 11));
    play(&mut a, 40);
    let saved = SavedTable::from_json(&a.saved().to_json()).unwrap();
    let mut b = Table::resume(&saved).unwrap();
    assert_eq!(b.match_state().hand_index(), a.match_state().hand_index());
    assert_eq!(b.view(0), a.view(0));
    play(&mut a, 60);
    play(&mut b, 60);
    assert_eq!(b.saved(), a.saved());
}

/// Plays the current hand to its end, the person (player 0) answering with timeouts.
fn play_hand_out(t: &mut Table) {
    loop {
        match t.run(0) {
            Step::Waiting { .. } => {
                let d = t.decision(0).unwrap();
                t.act(0, d.on_timeout, 0).unwrap();
            }
            Step::HandOver => break,
            Step::Acted { .. } => unreachable!(),
        }
    }
}

/// An online host deals every hand again from a fair seed; its saved form keeps those seeds,
/// so another server node resumes the exact table (same walls, same state).
#[test]
fn a_table_dealt_from_other_seeds_resumes_exactly() {
    let mut a = Table::new(TableConfig::match_against_bots(Level::Normal, 12));
    let mut hands = 0u8;
    while hands < 3 {
        assert!(a.redeal(Seed([hands.wrapping_mul(37).wrapping_add(5); 32])));
        play_hand_out(&mut a);
        hands += 1;
        assert!(a.next_hand());
    }
    let saved = SavedTable::from_json(&a.saved().to_json()).unwrap();
    assert_eq!(saved.seeds.len(), 4, "three booked hands and the one dealt");
    let b = Table::resume(&saved).unwrap();
    assert_eq!(b.saved(), a.saved());
    assert_eq!(b.view(0), a.view(0));
    assert_eq!(b.match_state().scores(), a.match_state().scores());
    // Without the seeds the walls differ: the resumed table would not be the same one.
    let mut plain = saved.clone();
    plain.seeds.clear();
    assert!(
        Table::resume(&plain).map_or(true, |t| t.saved().hands != a.saved().hands
            || t.view(0) != a.view(0))
    );
}

/// Found by the `engine` fuzz target: a table saved at a hand's result (before `next_hand`)
/// resumed into the next hand, so the finished hand and its record were gone.
#[test]
fn a_table_saved_at_a_result_resumes_at_that_result() {
    let mut a = Table::new(TableConfig::match_against_bots(Level::Easy, 11));
    play_hand_out(&mut a);
    let saved = SavedTable::from_json(&a.saved().to_json()).unwrap();
    let mut b = Table::resume(&saved).unwrap();
    assert!(b.game().is_finished());
    assert_eq!(b.match_state().hand_index(), a.match_state().hand_index());
    assert_eq!(b.record(), a.record());
    assert!(b.record().is_some());
    assert_eq!(b.saved(), a.saved());
    // Both move on to the same next hand.
    assert!(a.next_hand() && b.next_hand());
    assert_eq!(b.view(0), a.view(0));
    assert_eq!(b.saved(), a.saved());
    assert_eq!(b.match_state().scores(), a.match_state().scores());
}

#[test]
fn a_damaged_save_is_an_error_not_a_panic() {
    let good = Table::new(TableConfig::match_against_bots(Level::Easy, 1)).saved();
    let mut s = good.clone();
    s.hands = vec![vec![RecordedAction {
        seat: Seat(2),
        action: Action::Win,
    }]];
    assert!(matches!(Table::resume(&s), Err(TableError::Replay { .. })));
    let mut s = good.clone();
    s.version = 99;
    assert!(matches!(Table::resume(&s), Err(TableError::Version(99))));
    // Rules the engine cannot play (a flipped wild with flowers) are refused up front.
    let mut s = good.clone();
    if let Deal::Match { rules, .. } = &mut s.config.deal {
        *rules = RuleSet {
            flowers: true,
            wild: WildRule::Flipped,
            ..RuleSet::hangzhou()
        };
    }
    let e = Table::resume(&s).expect_err("refused");
    assert!(e.to_string().contains("flipped wild"), "{e}");
    let mut json: serde_json::Value = serde_json::to_value(&good).unwrap();
    json["config"]["players"][1] = "wizard".into();
    assert!(SavedTable::from_json(&json.to_string()).is_err());
    json["config"]["players"][1] = serde_json::json!({"bot": "normal"});
    json["extra"] = 1.into();
    assert!(SavedTable::from_json(&json.to_string()).is_err());
    assert!(SavedTable::from_json(&"x".repeat(MAX_TEST_LEN)).is_err());
}

const MAX_TEST_LEN: usize = 100;

#[test]
fn bots_seats_and_illegal_actions_are_refused_without_change() {
    let mut t = Table::new(TableConfig::match_against_bots(Level::Easy, 2));
    let before = t.saved();
    assert!(t.act(1, Action::Pass, 0).is_err());
    assert!(t.act(0, Action::Pung, 0).is_err());
    assert_eq!(t.saved(), before);
    assert!(
        t.set_bot(0, Box::new(LevelBot::new(Level::Hard, 1)))
            .is_err()
    );
    assert!(
        t.set_bot(1, Box::new(LevelBot::new(Level::Hard, 1)))
            .is_ok()
    );
}

#[test]
fn each_player_takes_its_own_events_once() {
    let mut t = Table::new(TableConfig::match_against_bots(Level::Easy, 4));
    play(&mut t, 3);
    let first = t.take_events(0);
    assert!(!first.is_empty());
    assert!(t.take_events(0).is_empty(), "events are taken once");
    let seat = t.seat_of(0);
    let third = t.take_events(2);
    for (viewer, events) in [(seat, &first), (t.seat_of(2), &third)] {
        for e in events {
            if let Event::Dealt { seat: s, tiles } = e {
                assert_eq!(tiles.is_some(), *s == viewer, "{e:?}");
            }
        }
    }
    let all: Vec<Event> = t.game().events_for(seat);
    assert_eq!(first, all[..first.len()]);
}

#[test]
fn one_hand_tables_deal_from_their_setup() {
    let setup = HandSetup {
        rules: RuleSet::hangzhou(),
        seed: Seed::from_u64(8),
        dealer: Seat(2),
        prevalent: Wind::West,
        dealer_level: 2,
    };
    let mut t = Table::new(TableConfig {
        deal: Deal::Hand(setup.clone()),
        players: [Player::Bot(Level::Normal); 4],
        bot_seed: 1,
        clock: Clock::Off,
    });
    assert_eq!(t.run(0), Step::HandOver);
    assert_eq!(t.game().setup(), &setup);
    assert!(!t.next_hand());
    assert!(t.is_over());
    // A dealer level the rules do not have is refused.
    let bad = TableConfig {
        deal: Deal::Hand(HandSetup {
            dealer_level: 5,
            ..setup
        }),
        players: [Player::Random; 4],
        bot_seed: 1,
        clock: Clock::Off,
    };
    assert!(matches!(Table::try_new(bad), Err(TableError::Setup(_))));
}

#[test]
fn people_see_claims_as_decisions() {
    // Over a few hands the person is offered at least one claim window, and answering it
    // with a pass lets the bots carry on.
    let mut t = Table::new(TableConfig::match_against_bots(Level::Normal, 21));
    let mut claims = 0;
    for _ in 0..300 {
        match t.run(0) {
            Step::Waiting { .. } => {
                let d = t.decision(0).unwrap();
                if matches!(d.kind, DecisionKind::Claim { .. }) {
                    claims += 1;
                }
                t.act(0, d.on_timeout, 0).unwrap();
            }
            Step::HandOver => {
                if !t.next_hand() {
                    break;
                }
            }
            Step::Acted { .. } => unreachable!(),
        }
    }
    assert!(claims > 0);
}

/// 飘 chosen each hand: the bots stake by their rule at every deal, the person chooses
/// before the first action (not after), and a saved match resumes with every stake.
#[test]
fn piao_is_chosen_before_each_hand_and_survives_a_resume() {
    let rules = RuleSet {
        name: "tongcheng-dianpao-piao".into(),
        piao: Piao::Chosen([0; 4]),
        ..RuleSet::tongcheng_dianpao()
    };
    let mut t = Table::new(TableConfig::person_and_bots(rules, Level::Normal, 5));
    let mut staked = 0;
    for hand in 0..3 {
        assert!(t.piao_open());
        let me = t.seat_of(0);
        for p in 1..4 {
            let s = t.seat_of(p);
            assert_eq!(
                t.piao_chosen()[s.index()],
                crate::bot::piao_choice(&t.game().view(s))
            );
        }
        t.choose_piao(0, 2 + hand as u8).unwrap();
        assert_eq!(t.piao_chosen()[me.index()], 2 + hand as u8);
        staked += t.piao_chosen().iter().filter(|&&n| n > 0).count();
        let saved = t.saved();
        let back = Table::resume(&SavedTable::from_json(&saved.to_json()).unwrap()).unwrap();
        assert_eq!(back.piao_chosen(), t.piao_chosen());
        loop {
            match t.step(0) {
                Step::Acted { .. } => {}
                Step::Waiting { .. } => {
                    let d = t.decision(0).unwrap();
                    t.act(0, d.on_timeout, 0).unwrap();
                }
                Step::HandOver => break,
            }
        }
        assert!(
            t.choose_piao(0, 1).is_err(),
            "too late once the hand has begun"
        );
        let record = t.record().unwrap();
        assert_eq!(record.setup.rules.piao, Piao::Chosen(t.piao_chosen()));
        let mid = t.saved();
        let back = Table::resume(&mid).unwrap();
        assert_eq!(back.piao_chosen(), t.piao_chosen());
        if !t.next_hand() {
            break;
        }
        // The stakes last one hand: the bots choose again, the person starts at 0.
        assert_eq!(t.piao_chosen()[t.seat_of(0).index()], 0);
    }
    assert!(staked > 3);
}
