//! The worked examples E1–E20 of `mcr-scoring.md` §8, asserted exactly, plus the §3.3
//! counting example and the §7 options.

use crate::mcr_support as support;

use support::{case, check, fans};
use tongcheng_core::hand::decompositions;
use tongcheng_core::score::mcr::{McrOptions, id, payments, score_decomposition};
use tongcheng_core::seat::Seat;
use tongcheng_core::tile::TileCounts;

#[test]
fn e01_plain_hand_that_just_reaches_8() {
    check("[234m] 345p 45s 678s 99p +6s", &[(50, 1), (63, 1)], 8, true);
}

#[test]
fn e02_chicken_hand_plus_flowers() {
    let b = check(
        "[123m] [345m] 56s 678p 11z +7s | flowers=3",
        &[(43, 1), (81, 3)],
        11,
        true,
    );
    assert_eq!(b.points_without_flowers(), 8);
    assert_eq!(payments(b.total, Seat(0), Some(Seat(1))), [35, -19, -8, -8]);
}

#[test]
fn e03_below_the_minimum_flowers_do_not_help() {
    let b = check(
        "[333p] [444s] 111m 88m 22z +8m | flowers=2",
        &[(48, 1), (73, 1), (81, 2)],
        9,
        false,
    );
    assert_eq!(b.points_without_flowers(), 7);
}

#[test]
fn e04_same_tiles_self_drawn() {
    let b = check(
        "[333p] [444s] 111m 88m 22z +8m | self",
        &[(48, 1), (66, 1), (73, 1), (80, 1)],
        10,
        true,
    );
    assert_eq!(payments(b.total, Seat(0), None), [54, -18, -18, -18]);
}

#[test]
fn e05_seven_pairs() {
    check("1133m55p77p99s117z +7z", &[(19, 1), (51, 1)], 30, true);
}

#[test]
fn e06_thirteen_orphans() {
    check("19m19p19s1234765z +5z | self", &[(7, 1), (80, 1)], 89, true);
}

#[test]
fn e07_lesser_honors_and_knitted_tiles() {
    check("147m25p36s123476z +9s", &[(34, 1)], 12, true);
}

#[test]
fn e08_lesser_honors_with_knitted_straight() {
    check("147m258p369s1347z +2z", &[(34, 1), (35, 1)], 24, true);
}

#[test]
fn e09_knitted_straight_in_a_regular_hand() {
    check(
        "147m258p369s 234s 5s +5s",
        &[(35, 1), (62, 1), (63, 1)],
        16,
        true,
    );
}

#[test]
fn e10_pure_shifted_chows() {
    check(
        "[123p] 234p 34p 678m 11z +5p",
        &[(30, 1), (75, 1)],
        17,
        true,
    );
}

#[test]
fn e11_full_flush() {
    check(
        "[234p] 234p 567p 789p 1p +1p",
        &[(22, 1), (63, 1), (69, 1), (71, 1)],
        28,
        true,
    );
}

#[test]
fn e12_out_with_replacement_tile() {
    check(
        "[5555p] 234m 678m 23s 88s +4s | self on_kong",
        &[(46, 1), (68, 1), (70, 1), (74, 1)],
        12,
        true,
    );
}

#[test]
fn e13_last_tile() {
    check(
        "123456789m 13s 88s +2s | last_copy",
        &[
            (28, 1),
            (58, 1),
            (62, 1),
            (63, 1),
            (70, 1),
            (75, 1),
            (78, 1),
        ],
        27,
        true,
    );
}

#[test]
fn e14_robbing_the_kong() {
    check(
        "123456789m 23s 88s +4s | robbing last_copy",
        &[(28, 1), (47, 1), (62, 1), (63, 1), (75, 1)],
        29,
        true,
    );
}

#[test]
fn e15_account_once_four_related_chows() {
    check(
        "234567m 234567p 5s +5s",
        &[(62, 1), (63, 1), (68, 1), (70, 2), (71, 1), (79, 1)],
        10,
        true,
    );
}

#[test]
fn e16_account_once_after_a_three_chow_fan() {
    check(
        "[123m] 123p 123s 123m 5p +5p",
        &[(41, 1), (63, 1), (69, 1), (79, 1)],
        12,
        true,
    );
}

#[test]
fn e17_little_four_winds_with_wind_pungs() {
    check(
        "[444z] [333z] 789s 1122z +1z | seat=W round=E",
        &[(9, 1), (49, 1), (55, 1), (60, 1), (61, 1)],
        78,
        true,
    );
}

#[test]
fn e18_big_three_dragons_with_a_terminal_pung() {
    check(
        "[777z] [666z] 555z 999s 2m +2m",
        &[(2, 1), (48, 1), (66, 1), (73, 1), (75, 1), (79, 1)],
        99,
        true,
    );
}

#[test]
fn e19_nine_gates() {
    check("1112345678999m +5m", &[(4, 1), (66, 1), (73, 1)], 91, true);
}

#[test]
fn e20_two_concealed_kongs_and_three_concealed_pungs() {
    check(
        "{2222m} {3333m} 444m 567p 6p +6p",
        &[
            (24, 1),
            (33, 1),
            (53, 1),
            (62, 1),
            (68, 1),
            (75, 1),
            (78, 1),
        ],
        52,
        true,
    );
}

/// §3.3: 234s 234p 234p 567p gives 一般高 + 喜相逢 + 连六, not 喜相逢 twice.
#[test]
fn account_once_keeps_distinct_fans() {
    check(
        "234s 22334456p 11z +7p",
        &[(62, 1), (69, 1), (70, 1), (71, 1), (75, 1)],
        6,
        false,
    );
}

/// §3.4: 4444666 waits on 5 and, formally, on a fifth 4: no wait fan.
#[test]
fn a_fifth_copy_is_still_a_wait() {
    check(
        "4444666m 123456p +5m",
        &[(62, 1), (64, 1), (70, 1), (71, 1), (75, 1), (76, 1)],
        8,
        true,
    );
}

/// §7 item 6: one melded plus one concealed kong is 明杠 + 暗杠 by default, 明暗杠 5 as an
/// option.
#[test]
fn mixed_kongs_option() {
    let spec = "[5555p] {1111m} 234m 23s 88s +4s";
    let b = check(
        spec,
        &[(67, 1), (70, 1), (73, 1), (74, 1), (76, 1)],
        6,
        false,
    );
    assert_eq!(b.count(id::MIXED_KONG), 0);
    let opts = McrOptions {
        mixed_kong_5: true,
        ..McrOptions::default()
    };
    let b = case(spec).score_with(&opts).unwrap();
    assert_eq!(fans(&b), [(70, 1), (73, 1), (76, 1), (82, 1)]);
    assert_eq!(b.total, 8);
    assert_eq!(b.fans.last().unwrap().fan().zh, "明暗杠");
}

/// §7 item 10: 杠上开花 together with 妙手回春 by default; the option keeps 妙手回春 only.
#[test]
fn kong_flower_on_the_last_tile_option() {
    let spec = "[5555p] 234m 678m 23s 88s +4s | self on_kong last_tile";
    check(
        spec,
        &[(44, 1), (46, 1), (68, 1), (70, 1), (74, 1)],
        20,
        true,
    );
    let opts = McrOptions {
        kong_flower_with_last_tile_draw: false,
        ..McrOptions::default()
    };
    let b = case(spec).score_with(&opts).unwrap();
    assert_eq!(fans(&b), [(44, 1), (68, 1), (70, 1), (74, 1)]);
    assert_eq!(b.total, 12);
}

#[test]
fn the_minimum_is_an_option() {
    let spec = "[333p] [444s] 111m 88m 22z +8m | flowers=2";
    let opts = McrOptions {
        min_points: 6,
        ..McrOptions::default()
    };
    assert!(case(spec).score_with(&opts).unwrap().valid);
}

/// Flags the hand makes impossible are dropped: 和绝张 on a tile the winner holds, 抢杠和 of
/// a tile the winner holds, 杠上开花 without a kong. Three copies in the winner's own melds
/// make the winning tile the last one.
#[test]
fn impossible_flags_are_dropped() {
    check(
        "123456789m 234s 8s +8s | last_copy robbing",
        &[(28, 1), (62, 1), (63, 1), (75, 1), (79, 1)],
        22,
        true,
    );
    check(
        "123456789m 23s 88s +4s | self on_kong",
        &[(28, 1), (56, 1), (63, 1), (75, 1)],
        23,
        true,
    );
    check(
        "[234s] [345s] [456s] 35s 99m +4s",
        &[
            (30, 1),
            (58, 1),
            (63, 1),
            (64, 1),
            (69, 1),
            (75, 1),
            (78, 1),
        ],
        27,
        true,
    );
}

/// A reading scored alone never beats the hand's best reading, and the best is one of them.
#[test]
fn best_reading_is_one_of_the_readings() {
    let c = case("111222333m 456p 7s +7s");
    let mut counts = TileCounts::from_tiles(&c.concealed);
    counts.add(c.win);
    let readings = decompositions(&counts, &c.melds);
    assert_eq!(readings.len(), 2);
    let best = c.score().unwrap();
    let alone: Vec<u32> = readings
        .iter()
        .map(|d| {
            score_decomposition(&c.ctx(), d, &McrOptions::default())
                .unwrap()
                .total
        })
        .collect();
    assert_eq!(best.total, *alone.iter().max().unwrap());
    // Pungs: 一色三节高 + 三暗刻 (the discard completes the pair) beat three identical chows.
    assert!(best.count(id::PURE_SHIFTED_PUNGS) == 1 && best.count(id::THREE_CONCEALED_PUNGS) == 1);
}
