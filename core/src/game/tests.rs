//! The seed's rule details, one test each, on scripted walls; and invariants over thousands of
//! seeded random hands.

use super::*;
use crate::bot::SimplePlayer;
use crate::record::{HandRecord, replay};
use crate::tile::{FLOWERS, KINDS, parse_tiles};

fn tiles(s: &str) -> Vec<Tile> {
    if s.is_empty() {
        Vec::new()
    } else {
        parse_tiles(s).unwrap()
    }
}

fn no_flowers() -> RuleSet {
    RuleSet {
        flowers: false,
        ..RuleSet::guobiao()
    }
}

/// A game whose deal is exactly `hands` (seat 0 deals; its hand has 14 tiles, the last one
/// dealt as its fourteenth), whose next draws from the front are `draws`, and whose
/// replacement tiles from the far end are `back` (first one first).
fn scripted(rules: RuleSet, hands: [&str; 4], draws: &str, back: &str) -> Game {
    let hands: Vec<Vec<Tile>> = hands.iter().map(|h| tiles(h)).collect();
    assert_eq!(hands[0].len(), 14, "the dealer holds 14");
    assert!(hands[1..].iter().all(|h| h.len() == 13));
    let mut front = Vec::new();
    for round in 0..3 {
        for h in &hands {
            front.extend_from_slice(&h[round * 4..round * 4 + 4]);
        }
    }
    for h in &hands {
        front.push(h[12]);
    }
    front.push(hands[0][13]);
    front.extend(tiles(draws));
    let mut back_tiles = tiles(back);
    back_tiles.reverse();
    // Everything else fills the middle.
    let mut left = [4u8; KINDS + FLOWERS];
    left[KINDS..].fill(u8::from(rules.flowers));
    for t in front.iter().chain(&back_tiles) {
        assert!(left[t.index()] > 0, "too many {t}");
        left[t.index()] -= 1;
    }
    let mut middle = Vec::new();
    for (i, &n) in left.iter().enumerate() {
        for _ in 0..n {
            middle.push(Tile::from_index(i as u8).unwrap());
        }
    }
    let mut order = front;
    order.extend(middle);
    order.extend(back_tiles);
    let setup = HandSetup {
        rules,
        seed: Seed::from_u64(0),
        dealer: Seat(0),
        prevalent: Wind::East,
        dealer_level: 0,
    };
    Game::with_wall(setup, Wall::from_order(order))
}

/// Seat 3 waits on 5p (pure straight, ≥ 8); seat 2 can pung it; seat 1 can chow it.
fn claim_table() -> Game {
    scripted(
        no_flowers(),
        [
            "5p1112223334447z",
            "34p159s159m56777z",
            "55p2468s2468m19p6z",
            "123456789m46p99s",
        ],
        "",
        "",
    )
}

fn discard(g: &mut Game, seat: Seat, t: &str) {
    g.apply(seat, Action::Discard(t.parse().unwrap())).unwrap();
}

#[test]
fn claim_priority_win_beats_pung_beats_chow() {
    let five = "5p".parse::<Tile>().unwrap();
    // Everyone claims: the win takes it.
    let mut g = claim_table();
    discard(&mut g, Seat(0), "5p");
    assert_eq!(g.pending_seats(), vec![Seat(1), Seat(2), Seat(3)]);
    assert!(
        g.legal_actions(Seat(1))
            .contains(&Action::Chow("3p".parse().unwrap()))
    );
    assert!(g.legal_actions(Seat(2)).contains(&Action::Pung));
    assert!(g.legal_actions(Seat(3)).contains(&Action::Win));
    g.apply(Seat(1), Action::Chow("3p".parse().unwrap()))
        .unwrap();
    g.apply(Seat(2), Action::Pung).unwrap();
    g.apply(Seat(3), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!(
        (r.winner, r.discarder, r.win_tile),
        (Some(Seat(3)), Some(Seat(0)), Some(five))
    );
    assert_eq!(r.deltas.iter().sum::<i32>(), 0);
    // Without the win, the pung beats the chow (though the chow answered first).
    let mut g = claim_table();
    discard(&mut g, Seat(0), "5p");
    g.apply(Seat(1), Action::Chow("3p".parse().unwrap()))
        .unwrap();
    g.apply(Seat(3), Action::Pass).unwrap();
    g.apply(Seat(2), Action::Pung).unwrap();
    assert_eq!(g.melds_of(Seat(2)).len(), 1);
    assert!(g.melds_of(Seat(1)).is_empty());
    assert_eq!(g.turn(), Some((Seat(2), None)));
    // With only the chow left, it goes through.
    let mut g = claim_table();
    discard(&mut g, Seat(0), "5p");
    g.apply(Seat(1), Action::Chow("3p".parse().unwrap()))
        .unwrap();
    g.apply(Seat(2), Action::Pass).unwrap();
    g.apply(Seat(3), Action::Pass).unwrap();
    assert_eq!(g.melds_of(Seat(1))[0].notation(), "345p");
    assert_eq!(g.turn(), Some((Seat(1), None)));
    g.check_invariants().unwrap();
}

#[test]
fn jiehu_first_winner_after_the_discarder_takes_it() {
    let mut g = scripted(
        no_flowers(),
        [
            "5p1112223334447z",
            "123456789s46p77z",
            "159m28p5566z3344s",
            "123456789m46p99p",
        ],
        "",
        "",
    );
    discard(&mut g, Seat(0), "5p");
    assert!(g.legal_actions(Seat(1)).contains(&Action::Win));
    assert!(g.legal_actions(Seat(3)).contains(&Action::Win));
    g.apply(Seat(3), Action::Win).unwrap();
    assert!(!g.is_finished(), "seat 1 has not answered yet");
    g.apply(Seat(1), Action::Win).unwrap();
    assert_eq!(g.result().unwrap().winner, Some(Seat(1)));
}

#[test]
fn no_kong_right_after_a_chow() {
    let mut g = scripted(
        no_flowers(),
        [
            "5p1112223334447z",
            "34p2222s159m19p56z",
            "9p1368s2468m5566z",
            "3m5m7m13579s1p9p777z",
        ],
        "8m8m8m9m",
        "",
    );
    discard(&mut g, Seat(0), "5p");
    while !g.pending_seats().contains(&Seat(1)) || g.turn().is_none() && g.claim_tile().is_some() {
        let pend = g.pending_seats();
        if pend.contains(&Seat(1)) {
            break;
        }
        for s in pend {
            g.apply(s, Action::Pass).unwrap();
        }
    }
    claim_by(&mut g, Seat(1), Action::Chow("3p".parse().unwrap()));
    assert_eq!(g.turn(), Some((Seat(1), None)));
    let legal = g.legal_actions(Seat(1));
    assert!(
        legal.iter().all(|a| matches!(a, Action::Discard(_))),
        "{legal:?}"
    );
    // After the next draw the kong is allowed again.
    discard(&mut g, Seat(1), "1m");
    let mut guard = 0;
    while g.turn().map(|t| t.0) != Some(Seat(1)) {
        guard += 1;
        assert!(guard < 50);
        for s in g.pending_seats() {
            let a = if g.claim_tile().is_some() {
                Action::Pass
            } else {
                *g.legal_actions(s)
                    .iter()
                    .rev()
                    .find(|a| matches!(a, Action::Discard(_)))
                    .unwrap()
            };
            g.apply(s, a).unwrap();
        }
    }
    assert!(
        g.legal_actions(Seat(1))
            .contains(&Action::ConcealedKong("2s".parse().unwrap()))
    );
}

#[test]
fn flower_replacement_from_the_back() {
    // The dealer is dealt a flower; seat 2 two. Replacements come from the far end, dealer
    // first: the dealer gets 9s, then seat 2 gets 8s and 7s.
    let mut g = scripted(
        RuleSet::guobiao(),
        [
            "1f123m456p789s1234z",
            "111222333m4445z",
            "2f3f66z777z88m99p12s",
            "1234567p1234s66m",
        ],
        "",
        "9s8s7s",
    );
    assert_eq!(g.flowers_of(Seat(0)), &tiles("1f")[..]);
    assert_eq!(g.flowers_of(Seat(2)).len(), 2);
    assert_eq!(g.concealed(Seat(0)).get("9s".parse().unwrap()), 2);
    assert_eq!(g.concealed(Seat(2)).get("8s".parse().unwrap()), 1);
    assert_eq!(g.concealed(Seat(2)).get("7s".parse().unwrap()), 1);
    assert_eq!(g.concealed(Seat(0)).total(), 14);
    g.check_invariants().unwrap();
    // A flower drawn later is replaced from the back too.
    let flower = g.wall.undrawn().iter().position(|t| t.is_flower());
    assert!(flower.is_some());
    discard(&mut g, Seat(0), "1z");
    g.check_invariants().unwrap();
}

#[test]
fn eight_point_minimum_no_false_win() {
    // Seat 3 completes 123m 456p 678s 234s + 5z pair on the discarded 5z: a few points only.
    let mut g = scripted(
        no_flowers(),
        [
            "5z1112223334447z",
            "34p159s159m66777z",
            "55p2468s2468m19p6z",
            "123m456p678s234s5z",
        ],
        "",
        "",
    );
    discard(&mut g, Seat(0), "5z");
    let mut with = *g.concealed(Seat(3));
    with.add(Tile::WHITE);
    assert!(is_complete_counts(&with, 0), "the hand is complete");
    assert!(!g.legal_actions(Seat(3)).contains(&Action::Win));
    let before = format!("{g:?}");
    let err = g.apply(Seat(3), Action::Win).unwrap_err();
    assert!(
        matches!(err, GameError::Illegal { .. } | GameError::NotYourTurn(_)),
        "{err}"
    );
    assert_eq!(before, format!("{g:?}"), "a refused action changes nothing");
}

#[test]
fn robbing_a_kong_and_winning_on_a_kong_replacement() {
    // 杠上开花: the dealer declares a concealed kong and wins on the replacement.
    let mut g = scripted(
        no_flowers(),
        [
            "1111m123456789p5s",
            "222m333m444m666z7z",
            "555m666m777m1z2z3z4z",
            "888m999m111s222s3s",
        ],
        "",
        "5s",
    );
    g.apply(Seat(0), Action::ConcealedKong("1m".parse().unwrap()))
        .unwrap();
    assert!(g.legal_actions(Seat(0)).contains(&Action::Win));
    g.apply(Seat(0), Action::Win).unwrap();
    let score = g.result().unwrap().score.clone().unwrap();
    assert!(score.fans.iter().any(|f| f.id == 46), "{score:?}");
    assert!(
        !score.fans.iter().any(|f| f.id == 80),
        "杠上开花 absorbs 自摸"
    );

    // 抢杠和: seat 1 pungs 7s, later draws the fourth and adds it; seat 2 robs it.
    let mut g = scripted(
        no_flowers(),
        [
            "7s1112223334445z",
            "77s9s159m258p1p6z5z5z",
            "123456789m68s11p",
            "3m9m3p9p2s4s6z6z7z7z7z2m4m",
        ],
        "8m1m4p7s",
        "",
    );
    discard(&mut g, Seat(0), "7s");
    claim_by(&mut g, Seat(1), Action::Pung);
    discard(&mut g, Seat(1), "6z");
    let mut guard = 0;
    while g.turn().map(|t| t.0) != Some(Seat(1)) {
        guard += 1;
        assert!(guard < 20);
        for s in g.pending_seats() {
            let a = if g.claim_tile().is_some() {
                Action::Pass
            } else {
                let drawn = g.turn().unwrap().1.unwrap();
                Action::Discard(drawn)
            };
            g.apply(s, a).unwrap();
        }
    }
    let seven = "7s".parse::<Tile>().unwrap();
    assert_eq!(g.turn(), Some((Seat(1), Some(seven))));
    g.apply(Seat(1), Action::AddedKong(seven)).unwrap();
    assert_eq!(g.pending_seats(), vec![Seat(2)]);
    g.check_invariants().unwrap();
    g.apply(Seat(2), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!((r.winner, r.discarder), (Some(Seat(2)), Some(Seat(1))));
    assert!(r.score.as_ref().unwrap().fans.iter().any(|f| f.id == 47));
    g.check_invariants().unwrap();
}

fn play(setup: HandSetup, seed: u64) -> Game {
    let mut g = Game::new(setup);
    let mut players: [SimplePlayer; 4] =
        std::array::from_fn(|i| SimplePlayer::new(seed * 4 + i as u64));
    while !g.is_finished() {
        for s in g.pending_seats() {
            let a = players[s.index()].pick(&g.legal_actions(s));
            g.apply(s, a).unwrap();
        }
    }
    g
}

#[test]
fn no_dealer_continuation_in_a_whole_sixteen_hand_match() {
    let mut m = Match::new(RuleSet::guobiao(), Seed::from_u64(42));
    let mut players: [SimplePlayer; 4] = std::array::from_fn(|i| SimplePlayer::new(i as u64));
    let mut dealer_won = 0;
    loop {
        let g = m.game();
        assert_eq!(
            g.setup().dealer,
            Seat((m.hand_index() % 4) as u8),
            "the deal passes every hand"
        );
        assert_eq!(
            g.setup().prevalent,
            Wind::from_index(m.hand_index() as usize / 4)
        );
        while !m.game().is_finished() {
            for s in m.game().pending_seats() {
                let view = m.game().view(s);
                let a = crate::bot::Bot::choose(&mut players[s.index()], &view);
                m.apply(s, a).unwrap();
            }
        }
        if m.game().result().unwrap().winner == Some(m.game().setup().dealer) {
            dealer_won += 1;
        }
        if !m.next_hand() {
            break;
        }
    }
    assert!(m.is_finished());
    assert_eq!(m.hands_played(), 16);
    assert_eq!(m.scores().iter().sum::<i32>(), 0);
    let _ = dealer_won;
    assert_eq!(m.standings().len(), 4);
}

#[test]
fn winner_deals_keeps_the_dealer_on_his_win_or_a_draw() {
    let rules = RuleSet {
        dealer: crate::rules::DealerRule::WinnerDeals,
        ..RuleSet::guobiao()
    };
    let mut m = Match::new(rules, Seed::from_u64(7));
    let mut players: [SimplePlayer; 4] = std::array::from_fn(|i| SimplePlayer::new(i as u64 + 10));
    for _ in 0..6 {
        while !m.game().is_finished() {
            for s in m.game().pending_seats() {
                let a = players[s.index()].pick(&m.game().legal_actions(s));
                m.apply(s, a).unwrap();
            }
        }
        let dealer = m.game().setup().dealer;
        let winner = m.game().result().unwrap().winner;
        if !m.next_hand() {
            break;
        }
        let expected = match winner {
            Some(w) => w,
            None => dealer,
        };
        assert_eq!(m.game().setup().dealer, expected);
    }
}

#[test]
fn invariants_hold_over_ten_thousand_random_hands() {
    let rules = RuleSet::guobiao();
    for i in 0..10_000u64 {
        let setup = HandSetup {
            rules: rules.clone(),
            seed: Seed::from_u64(i),
            dealer: Seat((i % 4) as u8),
            prevalent: Wind::from_index((i / 4) as usize),
            dealer_level: 0,
        };
        let g = play(setup.clone(), i);
        let record = HandRecord::of(&g).unwrap();
        // Step through again, checking every invariant after every action.
        let mut r = Game::new(setup);
        r.check_invariants().unwrap();
        for (n, a) in record.actions.iter().enumerate() {
            r.apply(a.seat, a.action).unwrap();
            r.check_invariants()
                .unwrap_or_else(|e| panic!("hand {i} action {n}: {e}"));
            if n % 7 == 0 {
                for viewer in Seat::ALL {
                    for e in r.events_for(viewer) {
                        match e {
                            Event::Dealt { seat, tiles } => {
                                assert_eq!(tiles.is_some(), seat == viewer)
                            }
                            Event::Drew {
                                seat,
                                tile: Some(t),
                                ..
                            } => assert!(seat == viewer || t.is_flower()),
                            Event::Kong { seat, meld }
                                if meld.kind == MeldKind::Kong(KongKind::Concealed) =>
                            {
                                assert_eq!(meld.tile.is_some(), seat == viewer)
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        let replayed = replay(&record).unwrap_or_else(|e| panic!("hand {i}: {e}"));
        assert_eq!(replayed.result(), g.result());
    }
}

#[test]
fn random_illegal_actions_are_refused_and_change_nothing() {
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for i in 0..300u64 {
        let mut g = Game::new(HandSetup {
            rules: RuleSet::guobiao(),
            seed: Seed::from_u64(1000 + i),
            dealer: Seat(0),
            prevalent: Wind::East,
            dealer_level: 0,
        });
        let mut players: [SimplePlayer; 4] =
            std::array::from_fn(|k| SimplePlayer::new(i * 4 + k as u64));
        while !g.is_finished() {
            // Try something random first.
            let seat = Seat((rng.next_u32() % 4) as u8);
            let tile = Tile::kind((rng.next_u32() % 34) as usize);
            let candidates = [
                Action::Discard(tile),
                Action::Chow(tile),
                Action::Pung,
                Action::Kong,
                Action::ConcealedKong(tile),
                Action::AddedKong(tile),
                Action::Win,
                Action::Pass,
            ];
            let a = candidates[(rng.next_u32() % 8) as usize];
            if !g.legal_actions(seat).contains(&a) {
                let before = format!("{g:?}");
                assert!(g.apply(seat, a).is_err());
                assert_eq!(before, format!("{g:?}"));
            }
            for s in g.pending_seats() {
                let a = players[s.index()].pick(&g.legal_actions(s));
                g.apply(s, a).unwrap();
            }
        }
        assert!(g.apply(Seat(0), Action::Pass) == Err(GameError::Finished));
    }
}

#[test]
fn a_tampered_record_is_rejected_where_it_diverges() {
    let g = play(
        HandSetup {
            rules: RuleSet::guobiao(),
            seed: Seed::from_u64(5),
            dealer: Seat(0),
            prevalent: Wind::East,
            dealer_level: 0,
        },
        5,
    );
    let record = HandRecord::of(&g).unwrap();
    assert!(replay(&record).is_ok());
    let json = record.to_json();
    assert_eq!(HandRecord::from_json(&json).unwrap(), record);
    let mut bad = record.clone();
    bad.result.deltas[0] += 1;
    assert!(matches!(
        replay(&bad),
        Err(crate::record::ReplayError::ResultDiffers(_))
    ));
    let mut bad = record.clone();
    bad.events[5] = Event::DrawGame;
    assert!(matches!(
        replay(&bad),
        Err(crate::record::ReplayError::EventDiffers { index: 5, .. })
    ));
    let mut bad = record.clone();
    bad.actions.truncate(3);
    assert!(replay(&bad).is_err());
    let mut bad = record;
    bad.setup.dealer = Seat(9);
    bad.id = crate::record::RecordId::of(&bad.setup, &bad.actions);
    assert!(matches!(
        replay(&bad),
        Err(crate::record::ReplayError::BadSetup(_))
    ));
}

#[test]
fn time_limits_are_stated_with_a_safe_default() {
    let mut g = claim_table();
    let d = g.decision(Seat(0)).unwrap();
    assert_eq!(d.limit_secs, 30, "the dealer's first discard");
    assert!(matches!(d.on_timeout, Action::Discard(_)));
    discard(&mut g, Seat(0), "5p");
    let d = g.decision(Seat(2)).unwrap();
    assert_eq!((d.limit_secs, d.on_timeout), (3, Action::Pass));
    for s in g.pending_seats() {
        g.apply(s, Action::Pass).unwrap();
    }
    let d = g.decision(Seat(1)).unwrap();
    assert_eq!(d.limit_secs, 15);
    assert_eq!(d.on_timeout, Action::Discard(g.turn().unwrap().1.unwrap()));
}

// ---- Hangzhou (杭州麻将): the wild flow, restrictions and dealer levels ----

fn hz() -> RuleSet {
    RuleSet::hangzhou()
}

fn t(s: &str) -> Tile {
    s.parse().unwrap()
}

/// Seat 0 discards a 白 (wild): nobody may claim it, and the other three may only draw and
/// discard the drawn tile, with no claims, until seat 0 draws again.
#[test]
fn hz_a_wild_is_never_claimed_and_locks_the_others() {
    let mut g = scripted(
        hz(),
        [
            "123456789m11p9s25z",
            "11m234567p11234z",
            "66s345678p22334z",
            "77s789p123s45666z",
        ],
        "6s7s8s9p",
        "",
    );
    assert_eq!(g.wild(), Some(Tile::WHITE));
    discard(&mut g, Seat(0), "5z");
    // No claim window on the wild: seat 1 draws at once, and is locked.
    assert_eq!(g.turn(), Some((Seat(1), Some(t("6s")))));
    assert_eq!(g.legal_actions(Seat(1)), vec![Action::Discard(t("6s"))]);
    assert!(g.view(Seat(1)).locked && !g.view(Seat(0)).locked);
    let before = format!("{g:?}");
    assert!(g.apply(Seat(1), Action::Discard(t("1m"))).is_err());
    assert_eq!(before, format!("{g:?}"));
    // Seat 2 could pung 6s, seat 3 could pung 7s: no claims while locked.
    discard(&mut g, Seat(1), "6s");
    assert_eq!(g.turn(), Some((Seat(2), Some(t("7s")))));
    discard(&mut g, Seat(2), "7s");
    assert_eq!(g.turn(), Some((Seat(3), Some(t("8s")))));
    discard(&mut g, Seat(3), "8s");
    // Seat 0 draws: the lock is over, and his 1m can be punged.
    assert_eq!(g.turn(), Some((Seat(0), Some(t("9p")))));
    assert!(!g.view(Seat(1)).locked);
    discard(&mut g, Seat(0), "1m");
    assert!(g.legal_actions(Seat(1)).contains(&Action::Pung));
    g.check_invariants().unwrap();
}

/// A ready hand waiting on 5s: never on a discard (self-draw only), but on its own draw.
#[test]
fn hz_self_draw_only_by_default() {
    let hands = [
        "5s1112223334447z",
        "123m456m789p234s5s",
        "159m28p5566z3344s",
        "2m3m9m1p2p3p7p8p9p6s7s8s9s",
    ];
    let mut g = scripted(hz(), hands, "5s", "");
    discard(&mut g, Seat(0), "5s");
    assert!(!g.legal_actions(Seat(1)).contains(&Action::Win));
    // Seat 1 draws the last 5s and wins: H1, non-dealer, level 1: dealer 2, others 1.
    pass_all(&mut g);
    assert_eq!(g.turn(), Some((Seat(1), Some(t("5s")))));
    g.apply(Seat(1), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.deltas, [-2, 4, -1, -1]);
    assert_eq!(r.score.as_ref().unwrap().total, 1);
    g.check_invariants().unwrap();
}

/// `seat` answers the open claim window with `action`; every other pending seat passes.
fn claim_by(g: &mut Game, seat: Seat, action: Action) {
    for s in g.pending_seats() {
        g.apply(s, if s == seat { action } else { Action::Pass })
            .unwrap();
    }
}

fn pass_all(g: &mut Game) {
    for s in g.pending_seats() {
        if g.turn().is_none() {
            g.apply(s, Action::Pass).unwrap();
        }
    }
}

/// 庄三放炮: discard wins only from the dealer's level 3, only dealer ↔ non-dealer, never on
/// a discarded wild, never with a 爆头 hand. H1 on a discard: the dealer pays 8 + 1 + 1.
#[test]
fn hz_dealer_three_discard_wins_and_their_restrictions() {
    let rules = RuleSet {
        discard_wins: DiscardWins::DealerLevel3,
        ..hz()
    };
    let table = |level: u8| {
        let mut g = scripted(
            rules.clone(),
            [
                "5s1112223334447z",
                "123m456m789p234s5s",
                "159m28p5566z3344s",
                "2m3m9m1p2p3p7p8p9p6s7s8s9s",
            ],
            "",
            "",
        );
        g.setup.dealer_level = level;
        g
    };
    // Level 2 (the dealer's second hand): no discard win yet (the §1.9 off-by-one).
    let mut g = table(2);
    discard(&mut g, Seat(0), "5s");
    assert!(!g.legal_actions(Seat(1)).contains(&Action::Win));
    // Level 3: the non-dealer wins on the dealer's discard; the discarder pays it all.
    let mut g = table(3);
    assert_eq!(g.dealer_level(), 3);
    discard(&mut g, Seat(0), "5s");
    assert!(g.legal_actions(Seat(1)).contains(&Action::Win));
    g.apply(Seat(1), Action::Win).unwrap();
    for s in g.pending_seats() {
        g.apply(s, Action::Pass).unwrap();
    }
    let r = g.result().unwrap();
    assert_eq!((r.winner, r.discarder), (Some(Seat(1)), Some(Seat(0))));
    assert_eq!(r.deltas, [-10, 10, 0, 0]);
    g.check_invariants().unwrap();
    // Never on a discarded wild (it would complete the hand as 5s).
    let mut g = table(3);
    g.hands[0].add(Tile::WHITE);
    g.hands[0].remove(t("7z"));
    discard(&mut g, Seat(0), "5z");
    assert!(
        matches!(g.turn(), Some((Seat(1), Some(_)))),
        "no claim window"
    );
    // Non-dealer ↔ non-dealer: seat 2 discarding the 5s does not pay seat 1.
    let mut g = table(3);
    g.hands[2].add(t("5s"));
    g.hands[2].remove(t("1m"));
    g.setup.dealer = Seat(3);
    g.phase = Phase::Turn {
        seat: Seat(2),
        drawn: None,
        after_kong: false,
        after_claim: false,
    };
    g.hands[2].add(t("9m"));
    g.hands[0].remove(t("5s"));
    g.hands[0].remove(t("7z"));
    discard(&mut g, Seat(2), "5s");
    assert!(!g.legal_actions(Seat(1)).contains(&Action::Win));
    // A 爆头 hand may not win on a discard.
    let mut g = table(3);
    g.hands[1].remove(t("5s"));
    g.hands[1].add(Tile::WHITE);
    g.hands[0].remove(t("7z"));
    g.hands[0].add(t("9s"));
    discard(&mut g, Seat(0), "9s");
    assert!(
        matches!(g.turn(), Some((Seat(1), Some(_)))),
        "no discard win, seat 1 draws"
    );
}

/// 财飘 (H3 for the dealer): holding 爆头 and a spare 白, the dealer discards a 白 instead of
/// winning; the others are locked; his next draw wins ×4.
#[test]
fn hz_cai_piao_wins_double_and_locks() {
    let mut g = scripted(
        hz(),
        [
            "123m456m789p234s55z",
            "1112223334447z",
            "159m28p5566z3344s",
            "2m3m9m1p2p3p7p8p9p6s7s8s9s",
        ],
        "1s2s3s7p",
        "",
    );
    assert!(g.legal_actions(Seat(0)).contains(&Action::Win));
    discard(&mut g, Seat(0), "5z");
    for (s, d) in [(1, "1s"), (2, "2s"), (3, "3s")] {
        assert_eq!(g.legal_actions(Seat(s)), vec![Action::Discard(t(d))]);
        discard(&mut g, Seat(s), d);
    }
    // The dealer (not locked) may chow the 3s; he lets it go.
    pass_all(&mut g);
    assert_eq!(g.turn(), Some((Seat(0), Some(t("7p")))));
    g.apply(Seat(0), Action::Win).unwrap();
    let r = g.result().unwrap();
    let sc = r.score.as_ref().unwrap();
    assert_eq!(sc.total, 4);
    assert!(sc.fans.iter().any(|f| f.name() == "财飘" && f.count == 1));
    // The dealer at level 1 (×2): each non-dealer pays 4 × 2.
    assert_eq!(r.deltas, [24, -8, -8, -8]);
    g.check_invariants().unwrap();
}

/// 杠暴: a concealed kong, the replacement from the tail is a 白 → 爆头 on a kong (×4). The
/// four wilds can never be konged.
#[test]
fn hz_kong_replacement_from_the_tail_and_gang_bao() {
    let mut g = scripted(
        hz(),
        [
            "123m456m999p234s5z9p",
            "1112223334447z",
            "159m28p5566z3344s",
            "2m3m9m1p2p3p7p8p6s7s8s9s1s",
        ],
        "",
        "5z",
    );
    assert!(
        g.legal_actions(Seat(0))
            .contains(&Action::ConcealedKong(t("9p")))
    );
    g.apply(Seat(0), Action::ConcealedKong(t("9p"))).unwrap();
    assert_eq!(g.turn(), Some((Seat(0), Some(Tile::WHITE))));
    g.apply(Seat(0), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.score.as_ref().unwrap().total, 4);
    assert_eq!(r.deltas, [24, -8, -8, -8]);
    g.check_invariants().unwrap();
    // Four 白 in hand: no kong of the wilds.
    let g = scripted(
        hz(),
        [
            "1235555z123456m9p",
            "1112223334447z",
            "159m28p666z3344s9s",
            "2m3m9m1p2p3p7p8p6s7s8s9s1s",
        ],
        "",
        "",
    );
    assert!(
        !g.legal_actions(Seat(0))
            .iter()
            .any(|a| matches!(a, Action::ConcealedKong(_)))
    );
}

/// The last 20 tiles are never drawn, and a kong needs 22 tiles left.
#[test]
fn hz_twenty_tiles_stay_in_the_wall() {
    for i in 0..20u64 {
        let mut g = Game::new(HandSetup {
            rules: hz(),
            seed: Seed::from_u64(500 + i),
            dealer: Seat(0),
            prevalent: Wind::East,
            dealer_level: 0,
        });
        while !g.is_finished() {
            for s in g.pending_seats() {
                let legal = g.legal_actions(s);
                if g.wall_remaining() < 22 {
                    assert!(!legal.iter().any(|a| matches!(
                        a,
                        Action::ConcealedKong(_) | Action::AddedKong(_) | Action::Kong
                    )));
                }
                let a = match g.turn() {
                    Some((_, Some(d))) if legal.contains(&Action::Discard(d)) => Action::Discard(d),
                    _ => *legal
                        .iter()
                        .find(|a| matches!(a, Action::Discard(_) | Action::Pass))
                        .unwrap(),
                };
                g.apply(s, a).unwrap();
                g.check_invariants().unwrap();
            }
        }
        assert_eq!(g.result().unwrap().winner, None);
        assert_eq!(g.wall_remaining(), 20);
    }
}

/// §1.9: the dealer is level 1 on his first hand, +1 per hand he keeps (own win or a draw),
/// capped at 3; a new dealer (the winner) starts at 1.
#[test]
fn hz_dealer_levels_rise_on_his_win_or_a_draw_and_reset_with_a_new_dealer() {
    let mut m = Match::new(hz(), Seed::from_u64(11));
    let mut players: [SimplePlayer; 4] = std::array::from_fn(|i| SimplePlayer::new(i as u64 + 3));
    let mut seen = [false; 4];
    for _ in 0..40 {
        while !m.game().is_finished() {
            for s in m.game().pending_seats() {
                let a = players[s.index()].pick(&m.game().legal_actions(s));
                m.apply(s, a).unwrap();
            }
        }
        let dealer = m.game().setup().dealer;
        let level = m.game().dealer_level();
        assert!((1..=3).contains(&level));
        let winner = m.game().result().unwrap().winner;
        if !m.next_hand() {
            break;
        }
        let (next_dealer, next_level) = (m.game().setup().dealer, m.game().dealer_level());
        match winner {
            Some(w) if w != dealer => {
                assert_eq!((next_dealer, next_level), (w, 1));
                seen[0] = true;
            }
            _ => {
                assert_eq!(next_dealer, dealer);
                assert_eq!(next_level, (level + 1).min(3));
                seen[level as usize] = true;
            }
        }
    }
    assert!(seen[0] && seen[1] && seen[2], "{seen:?}");
    assert_eq!(m.scores().iter().sum::<i32>(), 0);
}

#[test]
fn hz_invariants_hold_over_random_hands() {
    let variant = RuleSet {
        name: "hangzhou-variant".into(),
        wild: WildRule::Flipped,
        discard_wins: DiscardWins::DealerLevel3,
        must_baotou_with_wild: true,
        takings: Takings::LimitTwo { count_pungs: true },
        rob_kong: true,
        ..RuleSet::hangzhou()
    };
    // Chows in which a 白 plays the flipped face: the variant must make some.
    let mut white_chows = 0;
    for rules in [RuleSet::hangzhou(), RuleSet::hangzhou_mil(), variant] {
        for i in 0..400u64 {
            let setup = HandSetup {
                rules: rules.clone(),
                seed: Seed::from_u64(i),
                dealer: Seat((i % 4) as u8),
                prevalent: Wind::East,
                dealer_level: (i % 3 + 1) as u8,
            };
            let g = play(setup.clone(), i);
            white_chows += Seat::ALL
                .iter()
                .flat_map(|&s| g.melds_of(s))
                .filter(|m| m.whites > 0)
                .count();
            let record = HandRecord::of(&g).unwrap();
            let mut r = Game::new(setup);
            r.check_invariants().unwrap();
            for (n, a) in record.actions.iter().enumerate() {
                r.apply(a.seat, a.action).unwrap();
                r.check_invariants()
                    .unwrap_or_else(|e| panic!("hand {i} action {n}: {e}"));
                for viewer in Seat::ALL {
                    for e in r.events_for(viewer) {
                        if let Event::Drew {
                            seat,
                            tile: Some(_),
                            ..
                        } = e
                        {
                            assert_eq!(seat, viewer);
                        }
                    }
                }
            }
            let replayed = crate::record::Verifier::any_preset()
                .allow_custom()
                .verify(&record)
                .unwrap_or_else(|e| panic!("hand {i}: {e}"));
            assert_eq!(replayed.result(), g.result());
            if let Some(res) = g.result() {
                assert_eq!(res.deltas.iter().sum::<i32>(), 0);
                if rules.discard_wins == DiscardWins::Never {
                    assert!(res.winner.is_none() || res.self_drawn, "self-draw only");
                }
            }
        }
    }
    assert!(white_chows > 0, "no chow used a 白 as the flipped face");
}

/// HZCFG's wild-count limits: holding two wilds a hand may not win on a discard (even under
/// 庄三放炮 at level 3); holding three it may only win as 爆头.
#[test]
fn hz_wild_count_limits() {
    let level3 = |limits: bool| RuleSet {
        discard_wins: DiscardWins::DealerLevel3,
        wild_count_limits: limits,
        ..hz()
    };
    // Seat 1 waits on 1s/2s/3s/4s with two wilds, not as 爆头; the dealer discards 4s.
    let table = |limits: bool| {
        let mut g = scripted(
            level3(limits),
            [
                "4s1112223334447z",
                "123m456m789p1s4s55z",
                "159m28p566z33447s",
                "2m3m9m1p2p3p7p8p9p6s7s8s9s",
            ],
            "",
            "",
        );
        g.setup.dealer_level = 3;
        g
    };
    let mut g = table(false);
    discard(&mut g, Seat(0), "4s");
    assert!(g.legal_actions(Seat(1)).contains(&Action::Win));
    let mut g = table(true);
    discard(&mut g, Seat(0), "4s");
    assert!(!g.legal_actions(Seat(1)).contains(&Action::Win));
    // Three wilds, not a 爆头 before the draw: the dealer's 5p completes the hand
    // (11p, 5p5p白, 9p白白) but only counts with the limits off.
    let three = |limits: bool| {
        scripted(
            RuleSet {
                wild_count_limits: limits,
                ..hz()
            },
            [
                "123m456m11p5p9p555z5p",
                "1112223334447z",
                "159m28p66z334467s",
                "2m3m9m1p2p3p7p8p9p6s7s8s9s",
            ],
            "",
            "",
        )
    };
    assert!(three(false).legal_actions(Seat(0)).contains(&Action::Win));
    assert!(!three(true).legal_actions(Seat(0)).contains(&Action::Win));
    // A 爆头 with three wilds still wins: 123m456m789p 1s + 白白白, drawing anything.
    let baotou = scripted(
        RuleSet {
            wild_count_limits: true,
            ..hz()
        },
        [
            "123m456m789p1s555z9s",
            "1112223334447z",
            "159m28p66z334467s",
            "2m3m4m1p2p3p7p8p9p6s7s8s9s",
        ],
        "",
        "",
    );
    assert!(baotou.legal_actions(Seat(0)).contains(&Action::Win));
}

/// 笃老 by dice: a new dealer's starting level comes from two dice rolled from the hand's
/// seed: level 3 on doubles or a sum above 9, else the start level. Same seed, same dice; a
/// dealer who kept the deal rolls nothing.
#[test]
fn hz_dice_set_a_new_dealers_level() {
    let rules = RuleSet {
        dealer_start_dice: true,
        ..hz()
    };
    let setup = |seed: u64, level: u8| HandSetup {
        rules: rules.clone(),
        seed: Seed::from_u64(seed),
        dealer: Seat(1),
        prevalent: Wind::East,
        dealer_level: level,
    };
    let mut lucky = 0;
    let mut faces = [0u32; 7];
    for seed in 0..600 {
        let g = Game::new(setup(seed, 0));
        let [a, b] = g.dice().expect("a new dealer rolls");
        assert!((1..=6).contains(&a) && (1..=6).contains(&b));
        faces[a as usize] += 1;
        let expected = if a == b || a + b > 9 { 3 } else { 1 };
        assert_eq!(g.dealer_level(), expected, "dice {a} {b}");
        lucky += u32::from(expected == 3);
        assert_eq!(
            g.events_for(Seat(0))[0],
            Event::DiceRolled {
                seat: Seat(1),
                dice: [a, b],
                level: expected
            }
        );
        assert_eq!(Game::new(setup(seed, 0)).dice(), Some([a, b]));
        // A dealer carried over at level 2 rolls nothing and stays at 2.
        let kept = Game::new(setup(seed, 2));
        assert_eq!((kept.dice(), kept.dealer_level()), (None, 2));
    }
    // 12 of 36 rolls are doubles or above 9: about a third, and every face turns up.
    assert!((150..=250).contains(&lucky), "{lucky}");
    assert!(faces[1..].iter().all(|&n| n > 50), "{faces:?}");
    // Without the rule there are no dice.
    let plain = Game::new(HandSetup {
        rules: hz(),
        ..setup(1, 0)
    });
    assert_eq!((plain.dice(), plain.dealer_level()), (None, 1));
}

/// Under wild rules the bots claim by the wild-aware distance: a chow that makes the hand
/// ready is taken; one that only swaps a ready hand for another ready hand is passed.
#[test]
fn hz_bots_claim_only_what_brings_the_hand_closer() {
    use crate::bot::{Bot, Level, LevelBot};
    let table = |seat1: &str| {
        let mut g = scripted(
            hz(),
            [
                "3s1112223334447z",
                seat1,
                "159m28p5566z3344s",
                "2m3m9m1p2p3p7p8p9p6s7s8s9s",
            ],
            "",
            "",
        );
        discard(&mut g, Seat(0), "3s");
        g
    };
    let chow = Action::Chow(t("3s"));
    for level in [Level::Normal, Level::Hard] {
        // One step away: 123m 456m 78p 45s 66z 2z; the chow leaves 78p waiting.
        let g = table("123m456m78p45s2z66z");
        assert!(g.legal_actions(Seat(1)).contains(&chow));
        assert_eq!(LevelBot::new(level, 1).choose(&g.view(Seat(1))), chow);
        // Already ready on 3s/6s (by self-draw): claiming gains nothing.
        let g = table("123m456m789p45s66z");
        assert!(g.legal_actions(Seat(1)).contains(&chow));
        assert_eq!(
            LevelBot::new(level, 1).choose(&g.view(Seat(1))),
            Action::Pass
        );
    }
}

/// 承包 through the engine: seat 1 chows three times from the dealer (its upper neighbour)
/// and then self-draws a plain win; the dealer alone pays the whole 4 (2 + 1 + 1).
#[test]
fn hz_three_takings_make_the_giver_pay_it_all() {
    let mut g = scripted(
        hz(),
        [
            "3m6p9s2m4m6m8m1p3p7p2s4s6s1s",
            "1m2m4p5p7s8s9m777z1z2z3z",
            "1m5m9m2p5p8p3s5s1z2z3z5z7z",
            "3m5m7m4p6p9p3s9s1z2z3z5z6s",
        ],
        "4z6z3s4z6z5s4z6z4z9m",
        "",
    );
    let quiet = |g: &mut Game, seat: u8| {
        // Draw and discard the drawn tile; nobody can claim it.
        let (s, drawn) = g.turn().expect("a turn");
        assert_eq!(s, Seat(seat));
        g.apply(s, Action::Discard(drawn.expect("drawn"))).unwrap();
        assert!(g.claim_tile().is_none(), "no claim on it");
    };
    for (give, low, junk, keep) in [
        ("3m", "1m", "1z", None),
        ("6p", "4p", "2z", Some("3s")),
        ("9s", "7s", "3z", Some("5s")),
    ] {
        if let Some(k) = keep {
            assert_eq!(g.turn(), Some((Seat(0), Some(t(k)))));
        }
        discard(&mut g, Seat(0), give);
        assert_eq!(g.pending_seats(), vec![Seat(1)]);
        g.apply(Seat(1), Action::Chow(t(low))).unwrap();
        discard(&mut g, Seat(1), junk);
        quiet(&mut g, 2);
        quiet(&mut g, 3);
    }
    quiet(&mut g, 0);
    assert_eq!(g.turn(), Some((Seat(1), Some(t("9m")))));
    g.apply(Seat(1), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.winner, Some(Seat(1)));
    assert_eq!(r.deltas, [-4, 4, 0, 0]);
    g.check_invariants().unwrap();
}

/// 翻财神: with 5m turned up, the other 5m are wild and each 白 plays a natural 5m — in a
/// chow too, held or discarded; the meld records the 白 it holds.
#[test]
fn hz_flipped_wild_white_plays_the_face_in_chows() {
    let rules = RuleSet {
        wild: WildRule::Flipped,
        ..hz()
    };
    // Seat 1 holds 3m and a 白: the dealer's 4m makes 3m 4m 白(5m).
    let mut g = scripted(
        rules.clone(),
        [
            "4m1112223334447z",
            "3m9m5z159p2468s66z7z",
            "159m28p5566z3344s",
            "2m3m9m1p2p3p7p8p9p6s7s8s9s",
        ],
        "",
        "5m",
    );
    assert_eq!(
        (g.wild(), g.wild_indicator()),
        (Some(t("5m")), Some(t("5m")))
    );
    discard(&mut g, Seat(0), "4m");
    assert_eq!(
        g.legal_actions(Seat(1)),
        vec![Action::Chow(t("3m")), Action::Pass]
    );
    g.apply(Seat(1), Action::Chow(t("3m"))).unwrap();
    let m = g.melds_of(Seat(1))[0];
    assert_eq!((m.tile, m.claimed, m.whites), (t("3m"), Some(t("4m")), 1));
    assert_eq!(g.concealed(Seat(1)).get(Tile::WHITE), 0);
    g.check_invariants().unwrap();
    // The dealer discards a 白 (a natural 5m): seat 1 chows it with 4m 6m; seat 2 could pung
    // it with its two 白 but passes.
    let mut g = scripted(
        rules,
        [
            "5z1112223334447z",
            "4m6m9m159p2468s66z7z",
            "159m28p5566z3344s",
            "2m3m9m1p2p3p7p8p9p6s7s8s9s",
        ],
        "",
        "5m",
    );
    discard(&mut g, Seat(0), "5z");
    assert!(g.legal_actions(Seat(1)).contains(&Action::Chow(t("4m"))));
    assert!(g.legal_actions(Seat(2)).contains(&Action::Pung));
    g.apply(Seat(2), Action::Pass).unwrap();
    g.apply(Seat(1), Action::Chow(t("4m"))).unwrap();
    let m = g.melds_of(Seat(1))[0];
    assert_eq!((m.tile, m.claimed, m.whites), (t("4m"), Some(t("5m")), 1));
    g.check_invariants().unwrap();
}

mod tongcheng;
