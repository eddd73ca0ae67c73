//! One test per fan of the 81: a hand where it counts, its exact breakdown (ids, counts,
//! total, validity), and the fans it excludes absent. Expected values were worked out from
//! `mcr-fans.tsv` / `mcr-scoring.md` and agree with pymahjonggb 1.4.0.

use crate::mcr_support as support;

use support::{case, check, check_exclusions};

/// #1 大四喜 Big Four Winds (88). Four wind pungs; 碰碰和, the wind fans and 幺九刻 are absorbed. 333z 444z
/// stay concealed (the discard completes the pair): 双暗刻.
#[test]
fn fan_01_big_four_winds() {
    let b = check(
        "[111z] [222z] 333z 444z 5m +5m",
        &[(1, 1), (49, 1), (66, 1), (79, 1)],
        97,
        true,
    );
    check_exclusions(&b, 1);
}

/// #2 大三元 Big Three Dragons (88). The three dragon pungs absorb 双箭刻 and 箭刻; every set holds an
/// honor or a terminal (全带幺).
#[test]
fn fan_02_big_three_dragons() {
    let b = check(
        "[555z] [666z] 777z 123m 9m +9m",
        &[(2, 1), (49, 1), (55, 1), (79, 1)],
        99,
        true,
    );
    check_exclusions(&b, 2);
}

/// #3 绿一色 All Green (88). All tiles 2 3 4 6 8 of bamboo or the Green dragon: no 混一色, no 缺一门.
#[test]
fn fan_03_all_green() {
    let b = check(
        "234s 234s 666s 888s 6z +6z",
        &[(3, 1), (62, 1), (66, 1), (69, 1), (79, 1)],
        94,
        true,
    );
    check_exclusions(&b, 3);
}

/// #4 九莲宝灯 Nine Gates (88). Self-drawn 9p on 1112345678999p: 清龙 (123 456 789) and 四归一 (9p) stay;
/// 999p's 幺九刻 is the one Nine Gates removes; 不求人 is absorbed but 自摸 counts.
#[test]
fn fan_04_nine_gates() {
    let b = check(
        "1112345678999p +9p | self",
        &[(4, 1), (28, 1), (64, 1), (80, 1)],
        107,
        true,
    );
    check_exclusions(&b, 4);
}

/// #5 四杠 Four Kongs (88). Four kongs absorb the kong fans, 碰碰和 and 单钓将; 1111m 2222p 3333s still
/// make 三色三节高.
#[test]
fn fan_05_four_kongs() {
    let b = check(
        "[1111m] [2222p] {3333s} [4444z] 5z +5z",
        &[(5, 1), (42, 1), (51, 1), (73, 2)],
        104,
        true,
    );
    check_exclusions(&b, 5);
}

/// #6 连七对 Seven Shifted Pairs (88). 2-8 shifted pairs keep 断幺; 七对, 清一色, 门前清, 无字 and 单钓将 are
/// absorbed.
#[test]
fn fan_06_seven_shifted_pairs() {
    let b = check("2233445566778m +8m", &[(6, 1), (68, 1)], 90, true);
    check_exclusions(&b, 6);
}

/// #7 十三幺 Thirteen Orphans (88). Only the flowers are added (after the minimum).
#[test]
fn fan_07_thirteen_orphans() {
    let b = check(
        "19m19p19s1234567z +1m | flowers=2",
        &[(7, 1), (81, 2)],
        90,
        true,
    );
    check_exclusions(&b, 7);
}

/// #8 清幺九 All Terminals (64). Terminal pungs only: no 碰碰和, 双同刻, 幺九刻, 无字; three concealed pungs
/// remain.
#[test]
fn fan_08_all_terminals() {
    let b = check(
        "[111m] 999m 111p 999s 9p +9p",
        &[(8, 1), (33, 1), (79, 1)],
        81,
        true,
    );
    check_exclusions(&b, 8);
}

/// #9 小四喜 Little Four Winds (64). Seat South, round East: both wind pungs still score, 三风刻 and 幺九刻
/// do not.
#[test]
fn fan_09_little_four_winds() {
    let b = check(
        "[111z] [222z] 333z 4z 567m +4z | seat=S",
        &[(9, 1), (49, 1), (60, 1), (61, 1), (79, 1)],
        75,
        true,
    );
    check_exclusions(&b, 9);
}

/// #10 小三元 Little Three Dragons (64). Two dragon pungs and a dragon pair; 123m and 789m make 老少副.
#[test]
fn fan_10_little_three_dragons() {
    let b = check(
        "[555z] [666z] 7z 123m 789m +7z",
        &[(10, 1), (49, 1), (55, 1), (72, 1), (79, 1)],
        76,
        true,
    );
    check_exclusions(&b, 10);
}

/// #11 字一色 All Honors (64). Seat and round East: 111z scores both wind fans, 222z is no 幺九刻 under
/// 字一色; 555z 777z are 双箭刻.
#[test]
fn fan_11_all_honors() {
    let b = check(
        "[111z] [222z] 555z 777z 3z +3z",
        &[(11, 1), (54, 1), (60, 1), (61, 1), (66, 1), (79, 1)],
        77,
        true,
    );
    check_exclusions(&b, 11);
}

/// #12 四暗刻 Four Concealed Pungs (64). A discard completing the pair keeps all four pungs concealed.
#[test]
fn fan_12_four_concealed_pungs() {
    let b = check(
        "111m 555p 999s 444z 5m +5m",
        &[(12, 1), (73, 3), (79, 1)],
        68,
        true,
    );
    check_exclusions(&b, 12);
}

/// #13 一色双龙会 Pure Terminal Chows (64). Self-drawn and concealed: 不求人 replaces 门前清 and 自摸; 平和, 一般高
/// and 老少副 are absorbed.
#[test]
fn fan_13_pure_terminal_chows() {
    let b = check(
        "123m 123m 789m 789m 5m +5m | self",
        &[(13, 1), (56, 1), (79, 1)],
        69,
        true,
    );
    check_exclusions(&b, 13);
}

/// #14 一色四同顺 Quadruple Chow (48). Four identical chows: no 一般高 or 四归一; 123p and 9s are all
/// reversible tiles.
#[test]
fn fan_14_quadruple_chow() {
    let b = check(
        "123p 123p 123p 123p 9s +9s",
        &[(14, 1), (40, 1), (55, 1), (62, 1), (63, 1), (79, 1)],
        65,
        true,
    );
    check_exclusions(&b, 14);
}

/// #15 一色四节高 Four Pure Shifted Pungs (48). Four shifted pungs absorb 碰碰和; 444s 555s are concealed
/// (the discard completes the pair).
#[test]
fn fan_15_four_pure_shifted_pungs() {
    let b = check(
        "[222s] [333s] 444s 555s 9m +9m",
        &[(15, 1), (66, 1), (75, 1), (76, 1), (79, 1)],
        53,
        true,
    );
    check_exclusions(&b, 15);
}

/// #16 一色四步高 Four Pure Shifted Chows (32). Chows rising by one: 一色三步高, 连六 and 老少副 are absorbed.
#[test]
fn fan_16_four_pure_shifted_chows() {
    let b = check(
        "123m 234m 345m 456m 9s +9s",
        &[(16, 1), (62, 1), (63, 1), (75, 1), (79, 1)],
        38,
        true,
    );
    check_exclusions(&b, 16);
}

/// #17 三杠 Three Kongs (32). Three kongs absorb the kong fans; one concealed kong alone is no 双暗刻.
#[test]
fn fan_17_three_kongs() {
    let b = check(
        "[1111m] [2222p] {3333s} 456m 7z +7z",
        &[(17, 1), (42, 1), (73, 1), (79, 1)],
        42,
        true,
    );
    check_exclusions(&b, 17);
}

/// #18 混幺九 All Terminals and Honors (32). Terminals and honors: no 碰碰和, 全带幺, 幺九刻; 111m and 111s are
/// 双同刻.
#[test]
fn fan_18_all_terminals_and_honors() {
    let b = check(
        "[111m] 999p 111s 111z 9m +9m",
        &[(18, 1), (33, 1), (60, 1), (61, 1), (65, 1), (79, 1)],
        55,
        true,
    );
    check_exclusions(&b, 18);
}

/// #19 七对 Seven Pairs (24). Four 1m used as two pairs: 四归一; 门前清 and 不求人 are absorbed, 自摸 is not.
#[test]
fn fan_19_seven_pairs() {
    let b = check(
        "1111m 2288p 3366s 7z +7z | self",
        &[(19, 1), (64, 1), (80, 1)],
        27,
        true,
    );
    check_exclusions(&b, 19);
}

/// #20 七星不靠 Greater Honors and Knitted Tiles (24). All seven honors with 147m 258p 3s.
#[test]
fn fan_20_greater_honors_and_knitted_tiles() {
    let b = check("147m 258p 1234567z +3s", &[(20, 1)], 24, true);
    check_exclusions(&b, 20);
}

/// #21 全双刻 All Even Pungs (24). Even pungs and pair: no 碰碰和, 断幺 or 无字.
#[test]
fn fan_21_all_even_pungs() {
    let b = check(
        "[222m] [444p] 666s 888s 2p +2p",
        &[(21, 1), (66, 1), (79, 1)],
        27,
        true,
    );
    check_exclusions(&b, 21);
}

/// #22 清一色 Full Flush (24). All bamboo: no 缺一门 or 无字; four 5s make 四归一.
#[test]
fn fan_22_full_flush() {
    let b = check(
        "[234s] 345s 678s 888s 5s +5s",
        &[(22, 1), (64, 1), (68, 1), (71, 1)],
        29,
        true,
    );
    check_exclusions(&b, 22);
}

/// #23 一色三同顺 Pure Triple Chow (24). Three identical chows absorb 一般高; the fourth chow makes no pair
/// fan.
#[test]
fn fan_23_pure_triple_chow() {
    let b = check(
        "[123p] 123p 123p 456s 9s +9s",
        &[(23, 1), (40, 1), (63, 1), (79, 1)],
        35,
        true,
    );
    check_exclusions(&b, 23);
}

/// #24 一色三节高 Pure Shifted Pungs (24). 222m 333m 444m; a pung cannot also be a 一色三同顺.
#[test]
fn fan_24_pure_shifted_pungs() {
    let b = check(
        "[222m] 333m 444m 567p 9s +9s",
        &[(24, 1), (66, 1), (76, 1), (79, 1)],
        28,
        true,
    );
    check_exclusions(&b, 24);
}

/// #25 全大 Upper Tiles (24). Ranks 7-9 only: no 大于五 or 无字.
#[test]
fn fan_25_upper_tiles() {
    let b = check(
        "[789m] 789p 777s 999s 8m +8m",
        &[(25, 1), (66, 1), (70, 1), (73, 1), (79, 1)],
        29,
        true,
    );
    check_exclusions(&b, 25);
}

/// #26 全中 Middle Tiles (24). Ranks 4-6 only: no 断幺 or 无字. 4s also wins (444 456 55), so no wait
/// fan.
#[test]
fn fan_26_middle_tiles() {
    let b = check(
        "[456m] 456p 444s 555s 6s +6s",
        &[(26, 1), (66, 1), (70, 1)],
        27,
        true,
    );
    check_exclusions(&b, 26);
}

/// #27 全小 Lower Tiles (24). Ranks 1-3 only: no 小于五 or 无字. 1s also wins, so no wait fan.
#[test]
fn fan_27_lower_tiles() {
    let b = check(
        "[123m] 123p 111s 333s 2s +2s",
        &[(27, 1), (66, 1), (70, 1), (73, 1)],
        28,
        true,
    );
    check_exclusions(&b, 27);
}

/// #28 清龙 Pure Straight (16). 123p 456p 789p; 234s makes no pair fan with them.
#[test]
fn fan_28_pure_straight() {
    let b = check(
        "[123p] 456p 789p 234s 5s +5s",
        &[(28, 1), (63, 1), (75, 1)],
        19,
        true,
    );
    check_exclusions(&b, 28);
}

/// #29 三色双龙会 Three-Suited Terminal Chows (16). 123 and 789 in two suits around a pair of 5s: no 平和,
/// 喜相逢, 老少副 or 无字.
#[test]
fn fan_29_three_suited_terminal_chows() {
    let b = check(
        "123m 789m 123p 789p 5s +5s",
        &[(29, 1), (62, 1), (79, 1)],
        19,
        true,
    );
    check_exclusions(&b, 29);
}

/// #30 一色三步高 Pure Shifted Chows (16). 123m 345m 567m rise by two; 111z is both seat and round wind.
#[test]
fn fan_30_pure_shifted_chows() {
    let b = check(
        "[123m] 345m 567m 111z 9p +9p",
        &[(30, 1), (60, 1), (61, 1), (75, 1), (79, 1)],
        22,
        true,
    );
    check_exclusions(&b, 30);
}

/// #31 全带五 All Fives (16). Every set and the pair hold a 5: no 断幺 or 无字; the 5p completes 456p in
/// the middle (坎张 before 单钓将).
#[test]
fn fan_31_all_fives() {
    let b = check(
        "[345m] 456p 567s 555s 5p +5p",
        &[(31, 1), (50, 1), (64, 1), (78, 1)],
        25,
        true,
    );
    check_exclusions(&b, 31);
}

/// #32 三同刻 Triple Pung (16). Three pungs of 2 absorb 双同刻.
#[test]
fn fan_32_triple_pung() {
    let b = check(
        "[222m] 222p 222s 345m 9s +9s",
        &[(32, 1), (66, 1), (76, 1), (79, 1)],
        20,
        true,
    );
    check_exclusions(&b, 32);
}

/// #33 三暗刻 Three Concealed Pungs (16). Three concealed pungs absorb 双暗刻.
#[test]
fn fan_33_three_concealed_pungs() {
    let b = check(
        "[234m] 444p 666p 888s 5s +5s",
        &[(33, 1), (68, 1), (79, 1)],
        19,
        true,
    );
    check_exclusions(&b, 33);
}

/// #34 全不靠 Lesser Honors and Knitted Tiles (12). Eight knitted tiles and six honors: no 五门齐, 不求人 or
/// 门前清; self-drawn scores 自摸.
#[test]
fn fan_34_lesser_honors_and_knitted_tiles() {
    let b = check(
        "147m 58p 369s 12356z +7z | self",
        &[(34, 1), (80, 1)],
        13,
        true,
    );
    check_exclusions(&b, 34);
}

/// #35 组合龙 Knitted Straight (12). A knitted straight with an exposed dragon pung and a single wait
/// on the pair.
#[test]
fn fan_35_knitted_straight() {
    let b = check(
        "[777z] 147m258p369s 1s +1s",
        &[(35, 1), (59, 1), (79, 1)],
        15,
        true,
    );
    check_exclusions(&b, 35);
}

/// #36 大于五 Upper Four (12). Ranks 6-9 with a 6: no 无字.
#[test]
fn fan_36_upper_four() {
    let b = check(
        "[678m] 678p 789s 666s 9m +9m",
        &[(36, 1), (70, 1), (79, 1)],
        14,
        true,
    );
    check_exclusions(&b, 36);
}

/// #37 小于五 Lower Four (12). Ranks 1-4 with a 4: no 无字.
#[test]
fn fan_37_lower_four() {
    let b = check(
        "[123m] 234p 444s 123s 1m +1m",
        &[(37, 1), (70, 1), (79, 1)],
        14,
        true,
    );
    check_exclusions(&b, 37);
}

/// #38 三风刻 Big Three Winds (12). Seat and round North: the three wind pungs are no 幺九刻.
#[test]
fn fan_38_big_three_winds() {
    let b = check(
        "[111z] [222z] 333z 567m 5p +5p | seat=N round=N",
        &[(38, 1), (75, 1), (79, 1)],
        14,
        true,
    );
    check_exclusions(&b, 38);
}

/// #39 花龙 Mixed Straight (8). 123m 456p 789s; the fourth chow makes no pair fan. 2m also wins, so
/// no wait fan.
#[test]
fn fan_39_mixed_straight() {
    let b = check(
        "[123m] 456p 789s 234m 5m +5m",
        &[(39, 1), (63, 1)],
        10,
        true,
    );
    check_exclusions(&b, 39);
}

/// #40 推不倒 Reversible Tiles (8). Dots 1 2 3 4 5 8, bamboo 4 5 6, White: no 缺一门.
#[test]
fn fan_40_reversible_tiles() {
    let b = check("[123p] 345p 456s 888p 5z +5z", &[(40, 1), (79, 1)], 9, true);
    check_exclusions(&b, 40);
}

/// #41 三色三同顺 Mixed Triple Chow (8). 234 in all three suits absorbs 喜相逢.
#[test]
fn fan_41_mixed_triple_chow() {
    let b = check(
        "[234m] 234p 234s 678m 5s +5s",
        &[(41, 1), (63, 1), (68, 1)],
        12,
        true,
    );
    check_exclusions(&b, 41);
}

/// #42 三色三节高 Mixed Shifted Pungs (8). 3m 4p 5s pungs.
#[test]
fn fan_42_mixed_shifted_pungs() {
    let b = check(
        "[333m] 444p 555s 678m 9p +9p",
        &[(42, 1), (66, 1), (76, 1), (79, 1)],
        12,
        true,
    );
    check_exclusions(&b, 42);
}

/// #43 无番和 Chicken Hand (8). Nothing scores: 无番和.
#[test]
fn fan_43_chicken_hand() {
    let b = check("[123m] [678p] 345s 56s 11z +4s", &[(43, 1)], 8, true);
    check_exclusions(&b, 43);
}

/// #44 妙手回春 Last Tile Draw (8). Self-drawn on the last wall tile: no 自摸.
#[test]
fn fan_44_last_tile_draw() {
    let b = check(
        "[123m] [678p] 345s 56s 11z +4s | self last_tile",
        &[(44, 1)],
        8,
        true,
    );
    check_exclusions(&b, 44);
}

/// #45 海底捞月 Last Tile Claim (8). The discard after the last wall tile.
#[test]
fn fan_45_last_tile_claim() {
    let b = check(
        "[123m] [678p] 345s 56s 11z +4s | last_tile",
        &[(45, 1)],
        8,
        true,
    );
    check_exclusions(&b, 45);
}

/// #46 杠上开花 Out with Replacement Tile (8). Seat and round South: 1111z is a 幺九刻; 自摸 is absorbed, 明杠
/// counts.
#[test]
fn fan_46_out_with_replacement_tile() {
    let b = check(
        "[1111z] 234m 678m 23s 88s +4s | self on_kong seat=S round=S",
        &[(46, 1), (70, 1), (73, 1), (74, 1), (75, 1)],
        12,
        true,
    );
    check_exclusions(&b, 46);
}

/// #47 抢杠和 Robbing the Kong (8). Robbing the kong.
#[test]
fn fan_47_robbing_the_kong() {
    let b = check(
        "[123p] 456p 789p 23s 55m +4s | robbing",
        &[(28, 1), (47, 1), (63, 1)],
        26,
        true,
    );
    check_exclusions(&b, 47);
}

/// #48 碰碰和 All Pungs (6). Four pungs; 888s 333z stay concealed.
#[test]
fn fan_48_all_pungs() {
    let b = check(
        "[222m] [555p] 888s 333z 9m +9m",
        &[(48, 1), (66, 1), (73, 1), (79, 1)],
        10,
        true,
    );
    check_exclusions(&b, 48);
}

/// #49 混一色 Half Flush (6). Characters and honors: no 缺一门.
#[test]
fn fan_49_half_flush() {
    let b = check(
        "[234m] 567m 888m 222z 6z +6z",
        &[(49, 1), (66, 1), (71, 1), (73, 1), (79, 1)],
        11,
        true,
    );
    check_exclusions(&b, 49);
}

/// #50 三色三步高 Mixed Shifted Chows (6). 123m 234p 345s; 789m pairs once with 123m (老少副).
#[test]
fn fan_50_mixed_shifted_chows() {
    let b = check(
        "[123m] 234p 345s 789m 9s +9s",
        &[(50, 1), (63, 1), (72, 1), (79, 1)],
        10,
        true,
    );
    check_exclusions(&b, 50);
}

/// #51 五门齐 All Types (6). Characters, dots, bamboo, a wind and a dragon.
#[test]
fn fan_51_all_types() {
    let b = check(
        "[123m] 567p 789s 111z 7z +7z",
        &[(51, 1), (60, 1), (61, 1), (79, 1)],
        11,
        true,
    );
    check_exclusions(&b, 51);
}

/// #52 全求人 Melded Hand (6). Four exposed sets and a discard on the pair: 单钓将 is absorbed.
#[test]
fn fan_52_melded_hand() {
    let b = check(
        "[123m] [567p] [789s] [111z] 7z +7z",
        &[(51, 1), (52, 1), (60, 1), (61, 1)],
        16,
        true,
    );
    check_exclusions(&b, 52);
}

/// #53 双暗杠 Two Concealed Kongs (6). Two concealed kongs absorb 双暗刻 and 暗杠.
#[test]
fn fan_53_two_concealed_kongs() {
    let b = check(
        "{1111m} {9999p} 234s 567s 8s +8s",
        &[(53, 1), (62, 1), (71, 1), (73, 2), (76, 1)],
        12,
        true,
    );
    check_exclusions(&b, 53);
}

/// #54 双箭刻 Two Dragon Pungs (6). Two dragon pungs absorb 箭刻.
#[test]
fn fan_54_two_dragon_pungs() {
    let b = check(
        "[555z] [666z] 123m 456m 9m +9m",
        &[(49, 1), (54, 1), (71, 1), (79, 1)],
        14,
        true,
    );
    check_exclusions(&b, 54);
}

/// #55 全带幺 Outside Hand (4). Every set and the pair hold a terminal.
#[test]
fn fan_55_outside_hand() {
    let b = check(
        "[123m] 789p 111s 789s 9m +9m | self",
        &[(55, 1), (70, 1), (73, 1), (76, 1), (79, 1), (80, 1)],
        9,
        true,
    );
    check_exclusions(&b, 55);
}

/// #56 不求人 Fully Concealed Hand (4). Concealed and self-drawn: no 门前清 or 自摸.
#[test]
fn fan_56_fully_concealed_hand() {
    let b = check(
        "234m 567p 678s 345m 5s +5s | self",
        &[(56, 1), (63, 1), (68, 1)],
        8,
        true,
    );
    check_exclusions(&b, 56);
}

/// #57 双明杠 Two Melded Kongs (4). Two exposed kongs absorb 明杠.
#[test]
fn fan_57_two_melded_kongs() {
    let b = check(
        "[3333m] [5555p] 234s 678s 9m +9m",
        &[(57, 1), (76, 1), (79, 1)],
        6,
        false,
    );
    check_exclusions(&b, 57);
}

/// #58 和绝张 Last Tile (4). The fourth 2s, none of it held.
#[test]
fn fan_58_last_tile() {
    let b = check(
        "[123m] [678p] 13s 567s 11z +2s | last_copy",
        &[(58, 1), (70, 1), (78, 1)],
        6,
        false,
    );
    check_exclusions(&b, 58);
}

/// #59 箭刻 Dragon Pung (2). One dragon pung.
#[test]
fn fan_59_dragon_pung() {
    let b = check(
        "[777z] 123m 456m 678s 5s +5s",
        &[(59, 1), (71, 1), (75, 1)],
        4,
        false,
    );
    check_exclusions(&b, 59);
}

/// #60 圈风刻 Prevalent Wind (2). Round South.
#[test]
fn fan_60_prevalent_wind() {
    let b = check(
        "[222z] 123m 456m 678s 5s +5s | round=S",
        &[(60, 1), (71, 1), (75, 1)],
        4,
        false,
    );
    check_exclusions(&b, 60);
}

/// #61 门风刻 Seat Wind (2). Seat West.
#[test]
fn fan_61_seat_wind() {
    let b = check(
        "[333z] 123m 456m 678s 5s +5s | seat=W",
        &[(61, 1), (71, 1), (75, 1)],
        4,
        false,
    );
    check_exclusions(&b, 61);
}

/// #62 门前清 Concealed Hand (2). Concealed, won on a discard.
#[test]
fn fan_62_concealed_hand() {
    let b = check(
        "123m 567p 678s 345s 9m +9m",
        &[(62, 1), (63, 1), (71, 1), (79, 1)],
        6,
        false,
    );
    check_exclusions(&b, 62);
}

/// #63 平和 All Chows (2). Four chows and a suit pair.
#[test]
fn fan_63_all_chows() {
    let b = check(
        "[123m] 567p 678s 345s 9m +9m",
        &[(63, 1), (71, 1), (79, 1)],
        4,
        false,
    );
    check_exclusions(&b, 63);
}

/// #64 四归一 Tile Hog (2). Four 2m in a pung and a chow.
#[test]
fn fan_64_tile_hog() {
    let b = check(
        "[234p] 222m 234m 567s 8s +8s",
        &[(64, 1), (68, 1), (70, 1)],
        5,
        false,
    );
    check_exclusions(&b, 64);
}

/// #65 双同刻 Double Pung (2). 222m and 222p.
#[test]
fn fan_65_double_pung() {
    let b = check(
        "[222m] [222p] 345s 678s 9m +9m",
        &[(65, 1), (71, 1), (76, 1), (79, 1)],
        5,
        false,
    );
    check_exclusions(&b, 65);
}

/// #66 双暗刻 Two Concealed Pungs (2). 444p and 666s concealed.
#[test]
fn fan_66_two_concealed_pungs() {
    let b = check(
        "[123m] 444p 666s 789p 5s +5s",
        &[(66, 1), (76, 1)],
        3,
        false,
    );
    check_exclusions(&b, 66);
}

/// #67 暗杠 Concealed Kong (2). One concealed kong; the hand stays concealed.
#[test]
fn fan_67_concealed_kong() {
    let b = check(
        "{5555m} 123p 456p 789s 1s +1s",
        &[(62, 1), (67, 1), (71, 1), (76, 1), (79, 1)],
        7,
        false,
    );
    check_exclusions(&b, 67);
}

/// #68 断幺 All Simples (2). No terminals or honors.
#[test]
fn fan_68_all_simples() {
    let b = check(
        "[234m] 567p 345s 678s 8p +8p",
        &[(63, 1), (68, 1), (71, 1)],
        5,
        false,
    );
    check_exclusions(&b, 68);
}

/// #69 一般高 Pure Double Chow (1). 234m twice.
#[test]
fn fan_69_pure_double_chow() {
    let b = check(
        "[234m] 234m 567p 678s 5s +5s",
        &[(63, 1), (68, 1), (69, 1)],
        5,
        false,
    );
    check_exclusions(&b, 69);
}

/// #70 喜相逢 Mixed Double Chow (1). 234m and 234p.
#[test]
fn fan_70_mixed_double_chow() {
    let b = check(
        "[234m] 234p 567s 888s 9s +9s",
        &[(70, 1), (76, 1)],
        2,
        false,
    );
    check_exclusions(&b, 70);
}

/// #71 连六 Short Straight (1). 234m and 567m.
#[test]
fn fan_71_short_straight() {
    let b = check(
        "[234m] 567m 345p 888s 9s +9s",
        &[(71, 1), (76, 1)],
        2,
        false,
    );
    check_exclusions(&b, 71);
}

/// #72 老少副 Two Terminal Chows (1). 123m and 789m.
#[test]
fn fan_72_two_terminal_chows() {
    let b = check(
        "[123m] 789m 456p 888s 5s +5s",
        &[(72, 1), (76, 1), (79, 1)],
        3,
        false,
    );
    check_exclusions(&b, 72);
}

/// #73 幺九刻 Pung of Terminals or Honors (1). 999p.
#[test]
fn fan_73_pung_of_terminals_or_honors() {
    let b = check(
        "[999p] 123m 456s 678s 5m +5m",
        &[(73, 1), (76, 1), (79, 1)],
        3,
        false,
    );
    check_exclusions(&b, 73);
}

/// #74 明杠 Melded Kong (1). One exposed kong.
#[test]
fn fan_74_melded_kong() {
    let b = check(
        "[5555p] 234m 678m 23s 88s +4s",
        &[(68, 1), (70, 1), (74, 1)],
        4,
        false,
    );
    check_exclusions(&b, 74);
}

/// #75 缺一门 One Voided Suit (1). Bamboo is missing; 111z is seat and round wind.
#[test]
fn fan_75_one_voided_suit() {
    let b = check(
        "[234m] 567m 345p 88p 11z +1z",
        &[(60, 1), (61, 1), (71, 1), (75, 1)],
        6,
        false,
    );
    check_exclusions(&b, 75);
}

/// #76 无字 No Honors (1). No honors; four 3m make 四归一.
#[test]
fn fan_76_no_honors() {
    let b = check(
        "[123m] 456p 789p 333m 9s +9s",
        &[(64, 1), (71, 1), (76, 1), (79, 1)],
        5,
        false,
    );
    check_exclusions(&b, 76);
}

/// #77 边张 Edge Wait (1). 12p waits only on 3p.
#[test]
fn fan_77_edge_wait() {
    let b = check(
        "[234m] 888m 567s 12p 99p +3p",
        &[(76, 1), (77, 1)],
        2,
        false,
    );
    check_exclusions(&b, 77);
}

/// #78 坎张 Closed Wait (1). 13p waits only on 2p.
#[test]
fn fan_78_closed_wait() {
    let b = check(
        "[234m] 888m 567s 13p 99p +2p",
        &[(76, 1), (78, 1)],
        2,
        false,
    );
    check_exclusions(&b, 78);
}

/// #79 单钓将 Single Wait (1). A lone 9p waits only on itself.
#[test]
fn fan_79_single_wait() {
    let b = check(
        "[234m] 888m 567s 123p 9p +9p",
        &[(76, 1), (79, 1)],
        2,
        false,
    );
    check_exclusions(&b, 79);
}

/// #80 自摸 Self-Drawn (1). Self-drawn and nothing else.
#[test]
fn fan_80_self_drawn() {
    let b = check(
        "[123m] [678p] 345s 56s 11z +4s | self",
        &[(80, 1)],
        1,
        false,
    );
    check_exclusions(&b, 80);
}

/// #81 花牌 Flower Tiles (1). Eight flowers on a chicken hand.
#[test]
fn fan_81_flower_tiles() {
    let b = check(
        "[123m] [678p] 345s 56s 11z +4s | flowers=8",
        &[(43, 1), (81, 8)],
        16,
        true,
    );
    check_exclusions(&b, 81);
}

#[test]
fn every_fan_has_a_test_hand_that_scores_it() {
    // The hands above, once more, as data: each must score its own fan.
    let hands = [
        (1, "[111z] [222z] 333z 444z 5m +5m"),
        (2, "[555z] [666z] 777z 123m 9m +9m"),
        (3, "234s 234s 666s 888s 6z +6z"),
        (4, "1112345678999p +9p | self"),
        (5, "[1111m] [2222p] {3333s} [4444z] 5z +5z"),
        (6, "2233445566778m +8m"),
        (7, "19m19p19s1234567z +1m | flowers=2"),
        (8, "[111m] 999m 111p 999s 9p +9p"),
        (9, "[111z] [222z] 333z 4z 567m +4z | seat=S"),
        (10, "[555z] [666z] 7z 123m 789m +7z"),
        (11, "[111z] [222z] 555z 777z 3z +3z"),
        (12, "111m 555p 999s 444z 5m +5m"),
        (13, "123m 123m 789m 789m 5m +5m | self"),
        (14, "123p 123p 123p 123p 9s +9s"),
        (15, "[222s] [333s] 444s 555s 9m +9m"),
        (16, "123m 234m 345m 456m 9s +9s"),
        (17, "[1111m] [2222p] {3333s} 456m 7z +7z"),
        (18, "[111m] 999p 111s 111z 9m +9m"),
        (19, "1111m 2288p 3366s 7z +7z | self"),
        (20, "147m 258p 1234567z +3s"),
        (21, "[222m] [444p] 666s 888s 2p +2p"),
        (22, "[234s] 345s 678s 888s 5s +5s"),
        (23, "[123p] 123p 123p 456s 9s +9s"),
        (24, "[222m] 333m 444m 567p 9s +9s"),
        (25, "[789m] 789p 777s 999s 8m +8m"),
        (26, "[456m] 456p 444s 555s 6s +6s"),
        (27, "[123m] 123p 111s 333s 2s +2s"),
        (28, "[123p] 456p 789p 234s 5s +5s"),
        (29, "123m 789m 123p 789p 5s +5s"),
        (30, "[123m] 345m 567m 111z 9p +9p"),
        (31, "[345m] 456p 567s 555s 5p +5p"),
        (32, "[222m] 222p 222s 345m 9s +9s"),
        (33, "[234m] 444p 666p 888s 5s +5s"),
        (34, "147m 58p 369s 12356z +7z | self"),
        (35, "[777z] 147m258p369s 1s +1s"),
        (36, "[678m] 678p 789s 666s 9m +9m"),
        (37, "[123m] 234p 444s 123s 1m +1m"),
        (38, "[111z] [222z] 333z 567m 5p +5p | seat=N round=N"),
        (39, "[123m] 456p 789s 234m 5m +5m"),
        (40, "[123p] 345p 456s 888p 5z +5z"),
        (41, "[234m] 234p 234s 678m 5s +5s"),
        (42, "[333m] 444p 555s 678m 9p +9p"),
        (43, "[123m] [678p] 345s 56s 11z +4s"),
        (44, "[123m] [678p] 345s 56s 11z +4s | self last_tile"),
        (45, "[123m] [678p] 345s 56s 11z +4s | last_tile"),
        (
            46,
            "[1111z] 234m 678m 23s 88s +4s | self on_kong seat=S round=S",
        ),
        (47, "[123p] 456p 789p 23s 55m +4s | robbing"),
        (48, "[222m] [555p] 888s 333z 9m +9m"),
        (49, "[234m] 567m 888m 222z 6z +6z"),
        (50, "[123m] 234p 345s 789m 9s +9s"),
        (51, "[123m] 567p 789s 111z 7z +7z"),
        (52, "[123m] [567p] [789s] [111z] 7z +7z"),
        (53, "{1111m} {9999p} 234s 567s 8s +8s"),
        (54, "[555z] [666z] 123m 456m 9m +9m"),
        (55, "[123m] 789p 111s 789s 9m +9m | self"),
        (56, "234m 567p 678s 345m 5s +5s | self"),
        (57, "[3333m] [5555p] 234s 678s 9m +9m"),
        (58, "[123m] [678p] 13s 567s 11z +2s | last_copy"),
        (59, "[777z] 123m 456m 678s 5s +5s"),
        (60, "[222z] 123m 456m 678s 5s +5s | round=S"),
        (61, "[333z] 123m 456m 678s 5s +5s | seat=W"),
        (62, "123m 567p 678s 345s 9m +9m"),
        (63, "[123m] 567p 678s 345s 9m +9m"),
        (64, "[234p] 222m 234m 567s 8s +8s"),
        (65, "[222m] [222p] 345s 678s 9m +9m"),
        (66, "[123m] 444p 666s 789p 5s +5s"),
        (67, "{5555m} 123p 456p 789s 1s +1s"),
        (68, "[234m] 567p 345s 678s 8p +8p"),
        (69, "[234m] 234m 567p 678s 5s +5s"),
        (70, "[234m] 234p 567s 888s 9s +9s"),
        (71, "[234m] 567m 345p 888s 9s +9s"),
        (72, "[123m] 789m 456p 888s 5s +5s"),
        (73, "[999p] 123m 456s 678s 5m +5m"),
        (74, "[5555p] 234m 678m 23s 88s +4s"),
        (75, "[234m] 567m 345p 88p 11z +1z"),
        (76, "[123m] 456p 789p 333m 9s +9s"),
        (77, "[234m] 888m 567s 12p 99p +3p"),
        (78, "[234m] 888m 567s 13p 99p +2p"),
        (79, "[234m] 888m 567s 123p 9p +9p"),
        (80, "[123m] [678p] 345s 56s 11z +4s | self"),
        (81, "[123m] [678p] 345s 56s 11z +4s | flowers=8"),
    ];
    assert_eq!(hands.len(), 81);
    for (fan, spec) in hands {
        let b = case(spec).score().unwrap();
        assert!(b.count(fan) > 0, "{spec} lacks fan {fan}");
    }
}
