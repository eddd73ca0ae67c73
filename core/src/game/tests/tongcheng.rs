//! The Tongcheng games (regional-rules §2): the worked examples of §2.5 (T1–T5) on scripted
//! walls, one test per rule, and invariants over seeded random hands of both presets.

use super::*;
use crate::rules::{Paofeng, Piao, PungLimit};

fn dp() -> RuleSet {
    RuleSet::tongcheng_dianpao()
}

fn pf() -> RuleSet {
    RuleSet::tongcheng_paofeng()
}

/// Every pending seat answers a claim window with `Pass`.
/// Hand `i` of a seeded series: the wall from `seed`, the deal moving round the table.
fn seeded(rules: &RuleSet, seed: u64, i: u64) -> HandSetup {
    HandSetup {
        rules: rules.clone(),
        seed: Seed::from_u64(seed),
        dealer: Seat((i % 4) as u8),
        prevalent: Wind::East,
        dealer_level: 0,
    }
}

fn pass_claims(g: &mut Game) {
    if g.claim_tile().is_some() {
        for s in g.pending_seats() {
            g.apply(s, Action::Pass).unwrap();
        }
    }
}

/// Plays on until the hand ends: every claim passed, every turn discards its drawn tile (or
/// the last legal discard).
fn draw_and_discard_to_the_end(g: &mut Game) {
    let mut guard = 0;
    while !g.is_finished() {
        guard += 1;
        assert!(guard < 1000);
        pass_claims(g);
        if let Some((s, drawn)) = g.turn() {
            let legal = g.legal_actions(s);
            let a = drawn
                .map(Action::Discard)
                .filter(|a| legal.contains(a))
                .unwrap_or_else(|| {
                    *legal
                        .iter()
                        .rev()
                        .find(|a| matches!(a, Action::Discard(_)))
                        .unwrap()
                });
            g.apply(s, a).unwrap();
        }
        g.check_invariants().unwrap();
    }
}

/// T1 hands: seat 1 waits on 5s (123m 456m 789p 111z); seat 0 deals and holds a 5s.
const T1: [&str; 4] = [
    "5s2468m2468p2468s3z",
    "123m456m789p111z5s",
    "13579m13579p1s3s2z",
    "6789s444z55z66z77z",
];

#[test]
fn t1_a_plain_discard_win_is_paid_by_the_discarder() {
    let mut g = scripted(dp(), T1, "", "");
    discard(&mut g, Seat(0), "5s");
    assert_eq!(g.legal_actions(Seat(1)), vec![Action::Win, Action::Pass]);
    g.apply(Seat(1), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.deltas, [-1, 1, 0, 0]);
    assert_eq!(r.score.as_ref().unwrap().total, 1);
    assert!(r.winners.is_empty());
    g.check_invariants().unwrap();
    // With 定飘 1 each: 1 + 1 + 1.
    let rules = RuleSet {
        piao: Piao::Fixed(1),
        ..dp()
    };
    let mut g = scripted(rules, T1, "", "");
    discard(&mut g, Seat(0), "5s");
    g.apply(Seat(1), Action::Win).unwrap();
    assert_eq!(g.result().unwrap().deltas, [-3, 3, 0, 0]);
}

#[test]
fn several_winners_on_one_discard_are_each_paid_by_the_discarder() {
    // Seats 1 and 2 both wait on 5s.
    let hands = [
        "5s2468m2468p2468s3z",
        "123m456m789p111z5s",
        "123s456s789s222z5s",
        "6789p333z444z67z7z",
    ];
    let mut g = scripted(dp(), hands, "", "");
    discard(&mut g, Seat(0), "5s");
    g.apply(Seat(2), Action::Win).unwrap();
    assert!(!g.is_finished(), "seat 1 still answers");
    g.apply(Seat(1), Action::Win).unwrap();
    let r = g.result().unwrap().clone();
    assert_eq!(r.winners, vec![Seat(1), Seat(2)]);
    assert_eq!(r.winner, Some(Seat(1)));
    assert_eq!(r.other_scores.len(), 1);
    assert_eq!(r.deltas, [-2, 1, 1, 0]);
    assert!(r.is_winner(Seat(2)) && !r.is_winner(Seat(3)));
    assert!(r.hands[1].len() == 14 && r.hands[2].len() == 14);
    g.check_invariants().unwrap();
    // Without 一炮多响 the first seat after the discarder takes it (截和).
    let rules = RuleSet {
        multiple_winners: false,
        ..dp()
    };
    let mut g = scripted(rules, hands, "", "");
    discard(&mut g, Seat(0), "5s");
    g.apply(Seat(2), Action::Win).unwrap();
    g.apply(Seat(1), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!((r.winner, r.deltas), (Some(Seat(1)), [-1, 1, 0, 0]));
}

#[test]
fn t2_self_drawn_seven_pairs_doubles_and_flowers_add() {
    let rules = RuleSet {
        green_flowers: true,
        ..dp()
    };
    // 发 is a flower: discarding it sets it aside and draws a replacement.
    let mut g = scripted(
        rules.clone(),
        ["11m33m55p77p22s88s4z6z", T1[1], T1[2], "6789s333z55z22z77z"],
        "4z",
        "",
    );
    assert!(!g.legal_actions(Seat(0)).contains(&Action::Win));
    discard(&mut g, Seat(0), "6z");
    assert_eq!(g.flowers_of(Seat(0)), &[Tile::GREEN]);
    assert_eq!(g.turn(), Some((Seat(0), Some(t("4z")))));
    g.check_invariants().unwrap();
    g.apply(Seat(0), Action::Win).unwrap();
    let r = g.result().unwrap();
    // 七小对 2, doubled for the self-draw, + 1 flower: 5 from each.
    assert_eq!(r.deltas, [15, -5, -5, -5]);
    g.check_invariants().unwrap();
    // The quad version without a flower: 豪华 4 × 2 = 8 from each.
    let mut g = scripted(
        dp(),
        ["2222p11m33m66s88s7z7z", T1[1], T1[2], "6789s333z55z22z66z"],
        "",
        "",
    );
    g.apply(Seat(0), Action::Win).unwrap();
    assert_eq!(g.result().unwrap().deltas, [24, -8, -8, -8]);
}

#[test]
fn a_hand_holding_a_flower_cannot_win() {
    let hands = ["11m33m55p77p22s88s6z6z", T1[1], T1[2], "6789s333z55z22z77z"];
    let g = scripted(dp(), hands, "", "");
    assert!(g.legal_actions(Seat(0)).contains(&Action::Win));
    let rules = RuleSet {
        green_flowers: true,
        ..dp()
    };
    let g = scripted(rules, hands, "", "");
    let legal = g.legal_actions(Seat(0));
    assert!(!legal.contains(&Action::Win));
    assert!(!legal.contains(&Action::ConcealedKong(Tile::GREEN)));
}

/// T3: seat 1 pungs 5m, later draws the fourth and adds it; seats 2 and 3 wait on 5m and rob.
fn t3(rules: RuleSet) -> Game {
    let mut g = scripted(
        rules,
        [
            "5m2468p2468s13567z",
            "55m1379p1379s246z",
            "123s456s789s22z46m",
            "111p555p999p44z46m",
        ],
        "1m2m3m5m",
        "",
    );
    discard(&mut g, Seat(0), "5m");
    // Seats 2 and 3 let the win go (漏胡 until their next draw); seat 1 pungs.
    assert!(g.legal_actions(Seat(2)).contains(&Action::Win));
    g.apply(Seat(2), Action::Pass).unwrap();
    g.apply(Seat(3), Action::Pass).unwrap();
    g.apply(Seat(1), Action::Pung).unwrap();
    discard(&mut g, Seat(1), "2z");
    pass_claims(&mut g);
    for s in [2, 3, 0] {
        let (seat, drawn) = g.turn().unwrap();
        assert_eq!(seat, Seat(s));
        g.apply(seat, Action::Discard(drawn.unwrap())).unwrap();
        pass_claims(&mut g);
    }
    assert_eq!(g.turn(), Some((Seat(1), Some(t("5m")))));
    g.apply(Seat(1), Action::AddedKong(t("5m"))).unwrap();
    g
}

#[test]
fn t3_robbing_a_kong_is_worth_3_from_the_kong_maker_and_his_kong_scores_nothing() {
    let mut g = t3(dp());
    assert_eq!(g.pending_seats(), vec![Seat(2), Seat(3)]);
    g.apply(Seat(2), Action::Win).unwrap();
    g.apply(Seat(3), Action::Pass).unwrap();
    let r = g.result().unwrap();
    assert_eq!((r.winner, r.discarder), (Some(Seat(2)), Some(Seat(1))));
    assert_eq!(r.deltas, [0, -3, 3, 0]);
    assert_eq!(r.kong_deltas, [0; 4]);
    g.check_invariants().unwrap();
    // Both rob (一炮多响): each collects 3 from the kong maker.
    let mut g = t3(dp());
    g.apply(Seat(2), Action::Win).unwrap();
    g.apply(Seat(3), Action::Win).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.deltas, [0, -6, 3, 3]);
    assert_eq!(r.winners, vec![Seat(2), Seat(3)]);
    g.check_invariants().unwrap();
    // Nobody robs: the added kong is paid 1 by each other seat.
    let mut g = t3(dp());
    g.apply(Seat(2), Action::Pass).unwrap();
    g.apply(Seat(3), Action::Pass).unwrap();
    assert_eq!(g.kong_payments(), [-1, 3, -1, -1]);
}

#[test]
fn t4_kong_money_is_paid_on_the_spot_and_kept_in_a_drawn_hand() {
    let mut g = scripted(
        dp(),
        [
            "1111m999s25p8s34z67z",
            "77p147s258m36p125z",
            "369m14p25s12567z3s",
            "9s47m9p6s34567z12z3p",
        ],
        "5m8p7p",
        "7p8m2s",
    );
    // Seat 0 (A) declares a concealed kong: 2 from each.
    g.apply(Seat(0), Action::ConcealedKong(t("1m"))).unwrap();
    assert_eq!(g.kong_payments(), [6, -2, -2, -2]);
    discard(&mut g, Seat(0), "7p");
    // Seat 1 (B) pungs 7p.
    claim_by(&mut g, Seat(1), Action::Pung);
    discard(&mut g, Seat(1), "1z");
    pass_claims(&mut g);
    let (s, d) = g.turn().unwrap();
    g.apply(s, Action::Discard(d.unwrap())).unwrap();
    pass_claims(&mut g);
    // Seat 3 (D) discards 9s, A kongs it: 3 from D.
    discard(&mut g, Seat(3), "9s");
    claim_by(&mut g, Seat(0), Action::Kong);
    assert_eq!(g.kong_payments(), [9, -2, -2, -5]);
    let (s, d) = g.turn().unwrap();
    assert_eq!(s, Seat(0));
    g.apply(s, Action::Discard(d.unwrap())).unwrap();
    pass_claims(&mut g);
    // B draws the fourth 7p and adds it: 1 from each.
    assert_eq!(g.turn(), Some((Seat(1), Some(t("7p")))));
    g.apply(Seat(1), Action::AddedKong(t("7p"))).unwrap();
    assert_eq!(g.kong_payments(), [8, 1, -3, -6]);
    draw_and_discard_to_the_end(&mut g);
    let r = g.result().unwrap();
    assert_eq!(r.winner, None);
    assert_eq!(r.deltas, [8, 1, -3, -6]);
    assert_eq!(r.kong_deltas, [8, 1, -3, -6]);
    g.check_invariants().unwrap();
}

#[test]
fn no_kong_money_without_the_rule_and_none_for_a_pung_taken_over_a_kong() {
    let rules = RuleSet {
        kong_payments: false,
        ..dp()
    };
    let mut g = scripted(
        rules,
        [
            "1111m999s25p8s34z67z",
            "77p147s258m36p125z",
            "369m14p25s12567z3s",
            "9s47m9p6s34567z12z3p",
        ],
        "",
        "",
    );
    g.apply(Seat(0), Action::ConcealedKong(t("1m"))).unwrap();
    assert_eq!(g.kong_payments(), [0; 4]);
    // Seat 1 holds 777p and pungs a discarded 7p though it could kong; adding the fourth
    // later pays nothing.
    let mut g = scripted(
        dp(),
        [
            "7p2468m2468s13567z",
            "777p1379s1359m24z",
            "123s456s789s22z46m",
            "11p55p99p333z44z16m",
        ],
        "1m2m3m",
        "",
    );
    discard(&mut g, Seat(0), "7p");
    assert!(g.legal_actions(Seat(1)).contains(&Action::Kong));
    g.apply(Seat(1), Action::Pung).unwrap();
    // The fourth 7p is in seat 1's hand: he may add it on his next turn.
    discard(&mut g, Seat(1), "2z");
    pass_claims(&mut g);
    for _ in 0..3 {
        let (s, d) = g.turn().unwrap();
        g.apply(s, Action::Discard(d.unwrap())).unwrap();
        pass_claims(&mut g);
    }
    let (s, _) = g.turn().unwrap();
    assert_eq!(s, Seat(1));
    g.apply(Seat(1), Action::AddedKong(t("7p"))).unwrap();
    assert_eq!(g.kong_payments(), [0; 4]);
}

#[test]
fn no_chow_in_the_tongcheng_games() {
    // Seat 1 holds 34p and could chow a 5p under Chinese Official rules.
    let hands = [
        "5p1112223334447z",
        "34p159s159m56777z",
        "55p2468s2468m19p6z",
        "123456789m46p99s",
    ];
    let mut g = scripted(dp(), hands, "", "");
    discard(&mut g, Seat(0), "5p");
    assert!(
        g.legal_actions(Seat(1))
            .iter()
            .all(|a| !matches!(a, Action::Chow(_)))
    );
    let mut g = scripted(no_flowers(), hands, "", "");
    discard(&mut g, Seat(0), "5p");
    assert!(
        g.legal_actions(Seat(1))
            .iter()
            .any(|a| matches!(a, Action::Chow(_)))
    );
}

#[test]
fn missed_win_bars_every_discard_win_until_the_own_next_draw() {
    // Seat 3 waits on 3s or 6s (123m 456m 789p 11z 45s); seat 0 discards 3s, seat 1 a 6s.
    let hands = [
        "3s2468m2468p2789s3z",
        "6s1379m1379p1357z",
        "13579m13579p1s2z2z",
        "123m456m789p11z45s",
    ];
    let mut g = scripted(dp(), hands, "4z", "");
    discard(&mut g, Seat(0), "3s");
    assert!(g.legal_actions(Seat(3)).contains(&Action::Win));
    g.apply(Seat(3), Action::Pass).unwrap();
    pass_claims(&mut g);
    assert_eq!(g.turn().unwrap().0, Seat(1));
    discard(&mut g, Seat(1), "6s");
    // 6s is another tile, but every discard win is barred until seat 3 draws.
    assert!(!g.legal_actions(Seat(3)).contains(&Action::Win));
    // Under Hangzhou-style 漏胡 (that tile only) the 6s would be open.
    let rules = RuleSet {
        missed_win_lock_all: false,
        ..dp()
    };
    let mut g = scripted(rules, hands, "4z", "");
    discard(&mut g, Seat(0), "3s");
    g.apply(Seat(3), Action::Pass).unwrap();
    pass_claims(&mut g);
    discard(&mut g, Seat(1), "6s");
    assert!(g.legal_actions(Seat(3)).contains(&Action::Win));
}

#[test]
fn missed_pung_bars_that_tile_until_the_own_next_turn_and_one_pung_per_hand() {
    // Seat 2 holds 99p; seats 0 and 1 each discard a 9p.
    let hands = [
        "9p2468m2468s13567z",
        "9p1357m1357s2466z",
        "99p147s258m147p12z",
        "11p55p3p333z444z5z6p",
    ];
    let mut g = scripted(dp(), hands, "6p", "");
    discard(&mut g, Seat(0), "9p");
    assert!(g.legal_actions(Seat(2)).contains(&Action::Pung));
    g.apply(Seat(2), Action::Pass).unwrap();
    pass_claims(&mut g);
    g.apply(Seat(1), Action::Discard(t("9p"))).unwrap();
    assert!(
        !g.legal_actions(Seat(2)).contains(&Action::Pung),
        "过碰: no pung of 9p before seat 2's turn"
    );
    // 碰一对: after one pung no other.
    let hands = [
        "9p2468m2468s13567z",
        "1p1357m1357s2466z",
        "99p11p47s258m47p12z",
        "1p55p3p333z444z5z8p9s",
    ];
    let rules = RuleSet {
        pung_limit: PungLimit::OnePerHand,
        ..dp()
    };
    for (rules, more) in [(rules, false), (dp(), true)] {
        let mut g = scripted(rules, hands, "6p", "");
        discard(&mut g, Seat(0), "9p");
        claim_by(&mut g, Seat(2), Action::Pung);
        discard(&mut g, Seat(2), "4s");
        pass_claims(&mut g);
        discard(&mut g, Seat(3), "1p");
        assert_eq!(g.legal_actions(Seat(2)).contains(&Action::Pung), more);
    }
}

#[test]
fn self_draw_only_and_blind_discards_options() {
    for rules in [
        RuleSet {
            discard_wins: DiscardWins::Never,
            ..dp()
        },
        RuleSet {
            blind_discards: true,
            ..dp()
        },
    ] {
        let blind = rules.blind_discards;
        let mut g = scripted(rules, T1, "", "");
        discard(&mut g, Seat(0), "5s");
        assert!(g.claim_tile().is_none(), "no win offered (blind: {blind})");
    }
    // 暗牌: not even a pung.
    let rules = RuleSet {
        blind_discards: true,
        ..dp()
    };
    let mut g = scripted(rules, ["4z2468m2468p2468s5s", T1[1], T1[2], T1[3]], "", "");
    discard(&mut g, Seat(0), "4z");
    assert!(g.claim_tile().is_none());
}

/// 暗牌 on: at every step of seeded hands, each seat's view and events show its own discards
/// and no other seat's; the full record keeps every tile and replays. Off: every discard shows.
#[test]
fn blind_discards_are_hidden_from_the_other_seats_only() {
    let blind = RuleSet {
        name: "tongcheng-dianpao-blind".into(),
        blind_discards: true,
        ..dp()
    };
    for rules in [blind, dp()] {
        let on = rules.blind_discards;
        for i in 0..40 {
            let setup = seeded(&rules, i, i);
            let mut g = Game::new(setup);
            let mut players: [SimplePlayer; 4] =
                std::array::from_fn(|k| SimplePlayer::new(i * 4 + k as u64));
            while !g.is_finished() {
                for s in g.pending_seats() {
                    let a = players[s.index()].pick(&g.legal_actions(s));
                    g.apply(s, a).unwrap();
                }
                for viewer in Seat::ALL {
                    let v = g.view(viewer);
                    for p in &v.seats {
                        let hidden = on && p.seat != viewer;
                        assert!(p.discards.iter().all(|d| d.tile.is_none() == hidden));
                        assert_eq!(p.discards.len(), g.discards_of(p.seat).len());
                    }
                    for e in g.events_for(viewer) {
                        if let Event::Discarded {
                            seat,
                            tile,
                            face_down,
                        } = e
                        {
                            assert_eq!(face_down, on);
                            assert_eq!(tile.is_none(), on && seat != viewer);
                        }
                    }
                }
            }
            let discards = g
                .events()
                .iter()
                .filter(|e| matches!(e, Event::Discarded { tile: Some(_), .. }))
                .count();
            let laid: usize = Seat::ALL.iter().map(|&s| g.discards_of(s).len()).sum();
            assert_eq!(discards, laid, "the record keeps every discarded tile");
            let record = HandRecord::of(&g).unwrap();
            let json = serde_json::to_string(&record).unwrap();
            assert_eq!(json.contains("face_down"), on && laid > 0);
            let back: HandRecord = serde_json::from_str(&json).unwrap();
            crate::record::Verifier::any_preset()
                .allow_custom()
                .verify(&back)
                .unwrap();
            let res = g.result().unwrap();
            if on {
                assert!(res.winner.is_none() || res.self_drawn, "no discard wins");
            }
        }
    }
}

#[test]
fn a_face_down_discard_on_the_wire() {
    let full = Event::Discarded {
        seat: Seat(1),
        tile: Some(t("5s")),
        face_down: true,
    };
    let shown = full.for_seat(Seat(0));
    assert_eq!(
        serde_json::to_value(&shown).unwrap(),
        serde_json::json!({"event": "discarded", "seat": 1, "tile": null, "face_down": true})
    );
    assert_eq!(full.for_seat(Seat(1)), full);
    // A record or frame written before 暗牌 existed: the tile, no flag.
    let old: Event = serde_json::from_str(r#"{"event":"discarded","seat":1,"tile":"5s"}"#).unwrap();
    assert_eq!(
        old,
        Event::Discarded {
            seat: Seat(1),
            tile: Some(t("5s")),
            face_down: false,
        }
    );
    assert_eq!(old.for_seat(Seat(0)), old);
    let d: Discard = serde_json::from_str(r#"{"tile":"5s","claimed":false}"#).unwrap();
    assert_eq!(d.tile, Some(t("5s")));
    let hidden: Discard = serde_json::from_str(r#"{"tile":null,"claimed":false}"#).unwrap();
    assert_eq!(hidden.tile, None);
}

/// A bot's knowledge under 暗牌 counts only what it was shown: its own discards.
#[test]
fn bots_know_only_their_own_blind_discards() {
    let rules = RuleSet {
        blind_discards: true,
        ..dp()
    };
    let mut g = scripted(rules, ["4z2468m2468p2468s5s", T1[1], T1[2], T1[3]], "", "");
    discard(&mut g, Seat(0), "4z");
    let four_z = t("4z");
    let seen = |s: Seat| crate::bot::knowledge::Knowledge::from_view(&g.view(s)).seen;
    assert_eq!(seen(Seat(0))[four_z.index()], 1);
    assert_eq!(seen(Seat(1))[four_z.index()], 0);
    let k = crate::bot::knowledge::Knowledge::from_view(&g.view(Seat(1)));
    assert!(k.opponents.iter().all(|o| o.discarded == 0));
    assert_eq!(
        k.opponents[0].discards, 1,
        "the count of face-down tiles shows"
    );
}

/// Plays seeded hands with random legal actions; checks every invariant after every action,
/// that the record replays, and the rule set's promises.
fn random_hands(rules: &RuleSet, n: u64) -> (usize, usize) {
    let (mut multi, mut kong_money) = (0, 0);
    for i in 0..n {
        let setup = seeded(rules, i, i);
        let g = play(setup.clone(), i);
        let record = HandRecord::of(&g).unwrap();
        let mut r = Game::new(setup);
        r.check_invariants().unwrap();
        for (k, a) in record.actions.iter().enumerate() {
            r.apply(a.seat, a.action).unwrap();
            r.check_invariants()
                .unwrap_or_else(|e| panic!("{} hand {i} action {k}: {e}", rules.name));
        }
        let replayed = crate::record::Verifier::any_preset()
            .allow_custom()
            .verify(&record)
            .unwrap_or_else(|e| panic!("{} hand {i}: {e}", rules.name));
        assert_eq!(replayed.result(), g.result());
        let res = g.result().unwrap();
        assert_eq!(res.deltas.iter().sum::<i32>(), 0);
        multi += usize::from(res.winners.len() > 1);
        kong_money += usize::from(res.kong_deltas != [0; 4]);
        for s in Seat::ALL {
            assert!(g.melds_of(s).iter().all(|m| m.kind != MeldKind::Chow));
        }
        if rules.discard_wins == DiscardWins::Never {
            assert!(res.winner.is_none() || res.self_drawn);
        }
        if let Some(w) = g.wild() {
            // Wilds are never discarded while anything else is held.
            for s in Seat::ALL {
                assert!(g.discards_of(s).iter().filter(|d| d.tile == w).count() <= 1);
            }
        }
    }
    (multi, kong_money)
}

#[test]
fn dianpao_invariants_hold_over_random_hands() {
    let (_, kongs) = random_hands(&dp(), 300);
    assert!(kongs > 0, "no kong money in 300 hands");
    let variant = RuleSet {
        name: "tongcheng-dianpao-variant".into(),
        green_flowers: true,
        piao: Piao::Fixed(1),
        pung_limit: PungLimit::OnePerHand,
        ..dp()
    };
    random_hands(&variant, 100);
}

#[test]
fn paofeng_invariants_hold_over_random_hands() {
    let (multi, _) = random_hands(&pf(), 300);
    assert_eq!(multi, 0, "self-draw only: one winner");
    let hidden = RuleSet {
        name: "tongcheng-paofeng-hidden".into(),
        paofeng: Paofeng::Hidden,
        ..pf()
    };
    random_hands(&hidden, 100);
}

#[test]
fn next_dealer_winner_discarder_or_last_drawer() {
    for rules in [dp(), pf()] {
        let mut m = Match::new(rules.clone(), Seed::from_u64(11));
        let mut players: [SimplePlayer; 4] =
            std::array::from_fn(|i| SimplePlayer::new(i as u64 + 3));
        let mut seen = [0usize; 3];
        for _ in 0..40 {
            while !m.game().is_finished() {
                for s in m.game().pending_seats() {
                    let a = players[s.index()].pick(&m.game().legal_actions(s));
                    m.apply(s, a).unwrap();
                }
            }
            let r = m.game().result().unwrap().clone();
            let expected = if r.winners.len() > 1 {
                seen[1] += 1;
                r.discarder.unwrap()
            } else if let Some(w) = r.winner {
                seen[0] += 1;
                w
            } else {
                seen[2] += 1;
                m.game().last_drawer()
            };
            if !m.next_hand() {
                break;
            }
            assert_eq!(m.game().setup().dealer, expected, "{}", rules.name);
        }
        assert!(seen[0] > 0 && seen[2] > 0, "{}: {seen:?}", rules.name);
    }
}

// ---- 跑风 ----

/// T5's table: indicator 7p (wild 8p, 中 plays 8p, 发 the flower). Seat 0 holds two 发, a
/// concealed 3s quad, 123m 456m, a wild 8p and a 9m.
fn t5(rules: RuleSet) -> Game {
    scripted(
        rules,
        [
            "6z6z3333s123m456m8p9m",
            "1p4p7p2s5s1m4m7m1z2z3z4z5z",
            "2p5p1p4s6s2m5m8m1z2z3z4z5z",
            "3p6p9p4s6s3m6m9m1z2z3z4z2p",
        ],
        "7p7s8s9p9p9p5z",
        "9s",
    )
}

#[test]
fn paofeng_flipped_wild_is_the_next_face_and_zhong_stands_in() {
    let g = t5(pf());
    assert_eq!(g.wild_indicator(), Some(t("7p")));
    assert_eq!(g.wild(), Some(t("8p")));
    assert_eq!(g.stand_in(), Some((Tile::RED, t("8p"))));
    assert_eq!(g.flower_tile(), Some(Tile::GREEN));
    g.check_invariants().unwrap();
    // The wild is never discarded; the flower may be (set aside).
    let legal = g.legal_actions(Seat(0));
    assert!(!legal.contains(&Action::Discard(t("8p"))));
    assert!(legal.contains(&Action::Discard(Tile::GREEN)));
    let mut g = g;
    assert!(
        g.apply(Seat(0), Action::Discard(t("8p"))).is_err(),
        "a wild discard is refused"
    );
    g.check_invariants().unwrap();
}

#[test]
fn t5_paofeng_self_draw_pays_1_plus_flowers_kongs_and_2() {
    for (paofeng_bonus, each) in [(true, 6), (false, 4)] {
        let mut g = t5(pf());
        discard(&mut g, Seat(0), "6z");
        discard(&mut g, Seat(0), "6z");
        assert_eq!(g.flowers_of(Seat(0)).len(), 2);
        g.apply(Seat(0), Action::ConcealedKong(t("3s"))).unwrap();
        if paofeng_bonus {
            // 123m 456m 789s + a wild: any draw wins.
            discard(&mut g, Seat(0), "9m");
            assert!(g.is_paofeng(Seat(0)));
        } else {
            // Throwing 8s leaves 7s, 9s and 9m beside the wild: a 9m wait, not 跑风.
            discard(&mut g, Seat(0), "8s");
            assert!(!g.is_paofeng(Seat(0)));
        }
        for _ in 0..3 {
            pass_claims(&mut g);
            let (s, d) = g.turn().unwrap();
            assert!(!g.legal_actions(s).contains(&Action::Win));
            g.apply(s, Action::Discard(d.unwrap())).unwrap();
        }
        pass_claims(&mut g);
        let (s, d) = g.turn().unwrap();
        assert_eq!(s, Seat(0));
        if !paofeng_bonus {
            // 5z does not win without 跑风 (the 4-point price is the scorer's test).
            assert!(!g.legal_actions(s).contains(&Action::Win), "{d:?}");
            continue;
        }
        g.apply(Seat(0), Action::Win).unwrap();
        let r = g.result().unwrap();
        assert_eq!(r.deltas, [3 * each, -each, -each, -each]);
        assert!(r.self_drawn);
        g.check_invariants().unwrap();
    }
}

#[test]
fn paofeng_no_discard_wins_and_open_paofeng_blocks_pungs() {
    // After seat 0 is 跑风 (明跑), seat 1 may not pung seat 0's 9m; under 暗跑 it may.
    for (mode, pung) in [(Paofeng::Open, false), (Paofeng::Hidden, true)] {
        let rules = RuleSet {
            paofeng: mode,
            ..pf()
        };
        let mut g = scripted(
            rules,
            [
                "6z6z3333s123m456m8p9m",
                "9m9m7p2s5s1m4m1z2z3z4z5z1p",
                "2p5p1p4s6s2m5m8m1z2z3z4z5z",
                "3p6p9p4s6s3m6m7m1z2z3z4z2p",
            ],
            "7p7s8s",
            "9s",
        );
        discard(&mut g, Seat(0), "6z");
        discard(&mut g, Seat(0), "6z");
        g.apply(Seat(0), Action::ConcealedKong(t("3s"))).unwrap();
        discard(&mut g, Seat(0), "9m");
        assert!(g.is_paofeng(Seat(0)));
        assert_eq!(g.legal_actions(Seat(1)).contains(&Action::Pung), pung);
        assert!(!g.legal_actions(Seat(1)).contains(&Action::Win));
    }
}

/// 明跑 blocks pungs only (the spec's rule: "while anyone is 跑风, nobody may pung"): on the
/// 跑风 seat's discards and on everyone else's, for as long as a seat is 跑风; an exposed kong
/// on a discard stays allowed. Under 暗跑 nothing is blocked.
#[test]
fn open_paofeng_blocks_every_seats_pungs_but_not_exposed_kongs() {
    for mode in [Paofeng::Open, Paofeng::Hidden] {
        let open = mode == Paofeng::Open;
        let rules = RuleSet {
            paofeng: mode,
            ..pf()
        };
        let mut g = scripted(
            rules,
            [
                "6z6z3333s123m456m8p9m",
                "9m9m9m2s5s1m4m1z2z3z4z5z1p",
                "2p5p1p4s6s2m5m8m1z1z2z3z4z",
                "3p6p9p4s6s3m6m7m2z3z4z2p5z",
            ],
            "7p7s8s",
            "9s",
        );
        discard(&mut g, Seat(0), "6z");
        discard(&mut g, Seat(0), "6z");
        g.apply(Seat(0), Action::ConcealedKong(t("3s"))).unwrap();
        discard(&mut g, Seat(0), "9m");
        assert!(g.is_paofeng(Seat(0)));
        let on_9m = g.legal_actions(Seat(1));
        assert!(on_9m.contains(&Action::Kong), "{on_9m:?}");
        assert_eq!(on_9m.contains(&Action::Pung), !open, "{on_9m:?}");
        // Every seat sees the announcement under 明跑; only seat 0 itself under 暗跑.
        let seen: Vec<Seat> = if open { vec![Seat(0)] } else { vec![] };
        assert_eq!(g.view(Seat(2)).paofeng, seen);
        assert_eq!(g.view(Seat(0)).paofeng, vec![Seat(0)]);
        g.apply(Seat(1), Action::Pass).unwrap();
        // Seat 1's own discard: seat 2's pair of 1z may not be punged while seat 0 is 跑风.
        assert_eq!(g.turn().map(|(s, _)| s), Some(Seat(1)));
        discard(&mut g, Seat(1), "1z");
        assert!(g.is_paofeng(Seat(0)));
        let on_1z = g.legal_actions(Seat(2));
        assert_eq!(on_1z.contains(&Action::Pung), !open, "{on_1z:?}");
        g.check_invariants().unwrap();
    }
}

#[test]
fn paofeng_special_indicators() {
    for (indicator, wild, stand_in, flower) in [
        ("7z", "6z", None, "7z"),
        ("5z", "7z", None, "6z"),
        ("6z", "5z", Some(("7z", "5z")), "6z"),
        ("9s", "1s", Some(("7z", "1s")), "6z"),
        ("4z", "1z", Some(("7z", "1z")), "6z"),
    ] {
        let g = scripted(pf(), T1, indicator, "");
        assert_eq!(g.wild(), Some(t(wild)), "{indicator}");
        assert_eq!(
            g.stand_in(),
            stand_in.map(|(a, b)| (t(a), t(b))),
            "{indicator}"
        );
        assert_eq!(g.flower_tile(), Some(t(flower)));
        g.check_invariants().unwrap();
    }
}

// ---- bots ----

#[test]
fn bots_set_flowers_aside_and_never_offer_a_chow_or_a_wild() {
    use crate::bot::{Bot, Level, LevelBot};
    for level in Level::ALL {
        // 跑风: the dealer holds two 发 (flowers) and a wild 8p: every level sets a flower
        // aside first.
        let g = t5(pf());
        let a = LevelBot::new(level, 1).choose(&g.view(Seat(0)));
        assert_eq!(a, Action::Discard(Tile::GREEN), "{level:?}");
        // 点炮 with 补花: the same.
        let rules = RuleSet {
            green_flowers: true,
            ..dp()
        };
        let g = scripted(
            rules,
            ["11m33m55p77p22s88s4z6z", T1[1], T1[2], "6789s333z55z22z77z"],
            "",
            "",
        );
        assert_eq!(
            LevelBot::new(level, 1).choose(&g.view(Seat(0))),
            Action::Discard(Tile::GREEN)
        );
    }
}

/// Bots of every level play whole hands of both games: every action legal, every invariant
/// kept, no wild ever discarded while other tiles are held, and some hands won (several
/// winners on one discard among them under 点炮).
#[test]
fn bot_hands_of_both_games_keep_every_invariant() {
    use crate::bot::{Bot, Level, LevelBot};
    for rules in [dp(), pf()] {
        let (mut wins, mut multi) = (0, 0);
        for i in 0..60u64 {
            let setup = seeded(&rules, 1000 + i, i);
            let mut g = Game::new(setup);
            let mut bots: [LevelBot; 4] =
                std::array::from_fn(|s| LevelBot::new(Level::ALL[(s + i as usize) % 3], i));
            while !g.is_finished() {
                for s in g.pending_seats() {
                    let a = bots[s.index()].choose(&g.view(s));
                    assert!(!matches!(a, Action::Chow(_)));
                    if let (Some(w), Action::Discard(t)) = (g.wild(), a) {
                        let held = g.concealed(s);
                        assert!(t != w || held.total() == usize::from(held.get(w)));
                    }
                    g.apply(s, a).unwrap();
                    g.check_invariants().unwrap();
                }
            }
            let r = g.result().unwrap();
            wins += usize::from(r.winner.is_some());
            multi += usize::from(r.winners.len() > 1);
            assert_eq!(
                replay(&HandRecord::of(&g).unwrap()).unwrap().result(),
                Some(r)
            );
        }
        assert!(wins > 20, "{}: {wins} wins in 60 hands", rules.name);
        eprintln!("{}: {wins} wins, {multi} with several winners", rules.name);
    }
}

/// Extra money each payment carries with 飘 `piao`: the winner's 飘 plus the payer's, from
/// each payer (the discarder, or every other seat on a self-draw).
fn piao_money(r: &HandResult, piao: [u8; 4]) -> [i32; 4] {
    let mut d = [0; 4];
    for w in r.all_winners() {
        let payers: Vec<Seat> = match r.discarder {
            Some(p) => vec![p],
            None => Seat::ALL.into_iter().filter(|&s| s != w).collect(),
        };
        for p in payers {
            let n = i32::from(piao[w.index()]) + i32::from(piao[p.index()]);
            d[p.index()] -= n;
            d[w.index()] += n;
        }
    }
    d
}

#[test]
fn piao_chosen_each_hand_is_paid_both_ways_and_replays_from_the_record() {
    let rules = RuleSet {
        name: "tongcheng-dianpao-piao".into(),
        piao: Piao::Chosen([0; 4]),
        ..dp()
    };
    rules.validate().unwrap();
    use crate::bot::{Bot, Level, LevelBot};
    let chosen = [2, 1, 0, 3];
    let mut checked = 0;
    for i in 0..40 {
        if checked == 8 {
            break;
        }
        let setup = seeded(&rules, i, i);
        // The same hand with nobody's 飘, then with the choices made before the first action.
        let mut plain = Game::new(setup.clone());
        let mut bots: [LevelBot; 4] = std::array::from_fn(|_| LevelBot::new(Level::Normal, i));
        while !plain.is_finished() {
            for s in plain.pending_seats() {
                let a = bots[s.index()].choose(&plain.view(s));
                plain.apply(s, a).unwrap();
            }
        }
        let Some(r0) = plain.result().filter(|r| r.winner.is_some()).cloned() else {
            continue;
        };
        let mut m = Match::single(setup);
        for s in Seat::ALL {
            m.choose_piao(s, chosen[s.index()]).unwrap();
        }
        assert_eq!(m.game().rules().piao, Piao::Chosen(chosen));
        assert_eq!(m.game().view(Seat(2)).rules.piao, Piao::Chosen(chosen));
        for &(s, a) in plain.actions() {
            m.apply(s, a).unwrap();
        }
        let r = m.game().result().unwrap();
        let extra = piao_money(&r0, chosen);
        let expected: Vec<i32> = (0..4).map(|k| r0.deltas[k] + extra[k]).collect();
        assert_eq!(r.deltas.to_vec(), expected, "hand {i}");
        assert_eq!(r.deltas.iter().sum::<i32>(), 0);
        // The record carries the choices and verifies; without them it would not.
        let record = HandRecord::of(m.game()).unwrap();
        let back = HandRecord::from_json(&record.to_json()).unwrap();
        let verifier = crate::record::Verifier::any_preset().allow_custom();
        assert_eq!(verifier.verify(&back).unwrap().result(), Some(r));
        let mut forged = record.clone();
        forged.setup.rules.piao = Piao::Chosen([0; 4]);
        forged.id = crate::record::RecordId::of(&forged.setup, &forged.actions);
        assert!(matches!(
            verifier.verify(&forged),
            Err(crate::record::ReplayError::ResultDiffers(_))
        ));
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} won hands");
}

#[test]
fn piao_is_chosen_before_the_first_action_within_bounds_and_lasts_one_hand() {
    let rules = RuleSet {
        name: "tongcheng-dianpao-piao".into(),
        piao: Piao::Chosen([0; 4]),
        ..dp()
    };
    let mut m = Match::new(rules.clone(), Seed::from_u64(3));
    assert_eq!(
        m.choose_piao(Seat(1), crate::rules::MAX_PIAO + 1),
        Err(PiaoError::TooHigh(crate::rules::MAX_PIAO + 1))
    );
    assert_eq!(m.game().rules().piao, Piao::Chosen([0; 4]));
    m.choose_piao(Seat(1), 4).unwrap();
    let dealt = m.game().events_for(Seat(0));
    // Choosing again changes the choice, not the deal.
    m.choose_piao(Seat(1), 2).unwrap();
    assert_eq!(m.game().rules().piao, Piao::Chosen([0, 2, 0, 0]));
    assert_eq!(m.game().events_for(Seat(0)), dealt);
    let (s, _) = m.game().turn().unwrap();
    let a = *m.game().legal_actions(s).last().unwrap();
    m.apply(s, a).unwrap();
    assert_eq!(m.choose_piao(Seat(1), 1), Err(PiaoError::HandStarted));
    assert_eq!(m.game().rules().piao, Piao::Chosen([0, 2, 0, 0]));
    // Played out, the next hand starts from nobody's 飘.
    let mut players: [SimplePlayer; 4] = std::array::from_fn(|i| SimplePlayer::new(i as u64));
    while !m.game().is_finished() {
        for s in m.game().pending_seats() {
            let a = players[s.index()].pick(&m.game().legal_actions(s));
            m.apply(s, a).unwrap();
        }
    }
    assert!(m.next_hand());
    assert_eq!(m.game().rules().piao, Piao::Chosen([0; 4]));
    // Rules without 飘 chosen each hand refuse a choice.
    let mut fixed = Match::new(dp(), Seed::from_u64(3));
    assert_eq!(
        fixed.choose_piao(Seat(0), 1),
        Err(PiaoError::NotChosenEachHand)
    );
}

/// The Tongcheng bots count only the shapes these games score: a hand one tile from thirteen
/// orphans is far from any Tongcheng win, and the bot does not keep it for that shape.
#[test]
fn tongcheng_bots_do_not_chase_chinese_official_shapes() {
    use crate::bot::knowledge::Knowledge;
    use crate::bot::{Bot, Level, LevelBot};
    let hands = [
        "19m19p19s1234567z5m",
        "123m456m789p2s5s8s1z",
        "2m5m8m3p6p4s6s2z2z3z3z4z4z",
        "3m6m7m4p5p7s8s5z5z6z6z7z7z",
    ];
    for (rules, official) in [(RuleSet::guobiao(), true), (dp(), false)] {
        let rules = RuleSet {
            flowers: false,
            ..rules
        };
        let g = scripted(rules.clone(), hands, "", "");
        let v = g.view(Seat(0));
        let k = Knowledge::from_view(&v);
        assert_eq!(k.official_shapes, official);
        let mut orphans = k.hand;
        orphans.remove(t("5m"));
        // Ready for thirteen orphans under 国标; no closer than seven pairs allows here.
        assert_eq!(k.shanten(&orphans, 0), if official { 0 } else { 6 });
        for level in [Level::Normal, Level::Hard] {
            let a = LevelBot::new(level, 1).choose(&v);
            assert_eq!(
                a == Action::Discard(t("5m")),
                official,
                "{} {level:?}: {a:?}",
                rules.name
            );
        }
    }
}

/// Under 跑风 the bots read 中 as the natural tile of the wild's face (here 8p), so 7p 中 9p
/// is a set and the 中 is kept.
#[test]
fn paofeng_bots_read_zhong_as_the_wilds_face() {
    use crate::bot::knowledge::Knowledge;
    use crate::bot::{Bot, Level, LevelBot};
    let g = scripted(
        pf(),
        [
            "123m456m789s7p9p7z1z2z",
            "1p4p7p2s5s1m4m7m1z2z3z4z5z",
            "2p5p1p4s6s2m5m8m1z2z3z4z5z",
            "3p6p9p4s6s3m6m9m1z2z3z4z2p",
        ],
        "7p",
        "",
    );
    assert_eq!(g.stand_in(), Some((Tile::RED, t("8p"))));
    let v = g.view(Seat(0));
    let k = Knowledge::from_view(&v);
    assert_eq!(k.stand_in, Some((Tile::RED, t("8p"))));
    let (real, wilds) = k.split_wilds(&k.hand, t("8p"));
    assert_eq!((real.get(t("8p")), real.get(Tile::RED), wilds), (1, 0, 0));
    for level in [Level::Normal, Level::Hard] {
        for seed in 0..8 {
            let a = LevelBot::new(level, seed).choose(&v);
            assert!(
                [Action::Discard(t("1z")), Action::Discard(t("2z"))].contains(&a),
                "{level:?} seed {seed}: {a:?}"
            );
        }
    }
}
