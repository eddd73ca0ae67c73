//! The 81-fan table of the Chinese Official rules (`mcr-fans.tsv`) as data.
//!
//! Ids, Chinese and English names and points are exactly those of the rules file; the
//! `excludes` lists are the effective 不计 lists. A fan excluded by another fan that is itself
//! excluded still scores (the lists are applied in id order and never closed transitively),
//! and a few exclusions reach only the sets of their own pattern (see [`set_scoped`]).

use crate::tile::nonzero_bytes;

/// A fan id: 1–81 as in the rules table, 82 for the optional 明暗杠.
pub type FanId = u8;

/// One fan (番种) of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fan {
    pub id: FanId,
    /// Chinese name, e.g. 清一色.
    pub zh: &'static str,
    /// English name, e.g. "Full Flush".
    pub en: &'static str,
    /// Points per occurrence.
    pub points: u16,
    /// The fans this one absorbs (不计), by id.
    pub excludes: &'static [FanId],
}

const fn fan(
    id: FanId,
    zh: &'static str,
    en: &'static str,
    points: u16,
    excludes: &'static [FanId],
) -> Fan {
    Fan {
        id,
        zh,
        en,
        points,
        excludes,
    }
}

/// The 81 fans, `FANS[id - 1]`.
pub const FANS: [Fan; 81] = [
    fan(1, "大四喜", "Big Four Winds", 88, &[38, 48, 60, 61, 73]),
    fan(2, "大三元", "Big Three Dragons", 88, &[54, 59, 73]),
    fan(3, "绿一色", "All Green", 88, &[49, 75]),
    fan(4, "九莲宝灯", "Nine Gates", 88, &[22, 56, 62, 73, 75, 76]),
    fan(5, "四杠", "Four Kongs", 88, &[17, 48, 53, 57, 67, 74, 79]),
    fan(
        6,
        "连七对",
        "Seven Shifted Pairs",
        88,
        &[19, 22, 56, 62, 75, 76, 79],
    ),
    fan(7, "十三幺", "Thirteen Orphans", 88, &[18, 51, 56, 62, 79]),
    fan(8, "清幺九", "All Terminals", 64, &[18, 48, 55, 65, 73, 76]),
    fan(9, "小四喜", "Little Four Winds", 64, &[38, 73]),
    fan(10, "小三元", "Little Three Dragons", 64, &[54, 59, 73]),
    fan(11, "字一色", "All Honors", 64, &[18, 48, 55, 73, 75]),
    fan(
        12,
        "四暗刻",
        "Four Concealed Pungs",
        64,
        &[33, 48, 56, 62, 66],
    ),
    fan(
        13,
        "一色双龙会",
        "Pure Terminal Chows",
        64,
        &[19, 22, 63, 69, 72, 75, 76],
    ),
    fan(
        14,
        "一色四同顺",
        "Quadruple Chow",
        48,
        &[19, 23, 24, 64, 69],
    ),
    fan(
        15,
        "一色四节高",
        "Four Pure Shifted Pungs",
        48,
        &[23, 24, 48],
    ),
    fan(
        16,
        "一色四步高",
        "Four Pure Shifted Chows",
        32,
        &[30, 71, 72],
    ),
    fan(17, "三杠", "Three Kongs", 32, &[53, 57, 67, 74]),
    fan(18, "混幺九", "All Terminals and Honors", 32, &[48, 55, 73]),
    fan(19, "七对", "Seven Pairs", 24, &[56, 62, 79]),
    fan(
        20,
        "七星不靠",
        "Greater Honors and Knitted Tiles",
        24,
        &[34, 51, 56, 62, 79],
    ),
    fan(21, "全双刻", "All Even Pungs", 24, &[48, 68, 76]),
    fan(22, "清一色", "Full Flush", 24, &[75, 76]),
    fan(23, "一色三同顺", "Pure Triple Chow", 24, &[24, 69]),
    fan(24, "一色三节高", "Pure Shifted Pungs", 24, &[23]),
    fan(25, "全大", "Upper Tiles", 24, &[36, 76]),
    fan(26, "全中", "Middle Tiles", 24, &[68, 76]),
    fan(27, "全小", "Lower Tiles", 24, &[37, 76]),
    fan(28, "清龙", "Pure Straight", 16, &[71, 72]),
    fan(
        29,
        "三色双龙会",
        "Three-Suited Terminal Chows",
        16,
        &[63, 70, 72, 76],
    ),
    fan(30, "一色三步高", "Pure Shifted Chows", 16, &[]),
    fan(31, "全带五", "All Fives", 16, &[68, 76]),
    fan(32, "三同刻", "Triple Pung", 16, &[65]),
    fan(33, "三暗刻", "Three Concealed Pungs", 16, &[66]),
    fan(
        34,
        "全不靠",
        "Lesser Honors and Knitted Tiles",
        12,
        &[51, 56, 62, 79],
    ),
    fan(35, "组合龙", "Knitted Straight", 12, &[]),
    fan(36, "大于五", "Upper Four", 12, &[76]),
    fan(37, "小于五", "Lower Four", 12, &[76]),
    fan(38, "三风刻", "Big Three Winds", 12, &[73]),
    fan(39, "花龙", "Mixed Straight", 8, &[]),
    fan(40, "推不倒", "Reversible Tiles", 8, &[75]),
    fan(41, "三色三同顺", "Mixed Triple Chow", 8, &[70]),
    fan(42, "三色三节高", "Mixed Shifted Pungs", 8, &[]),
    fan(43, "无番和", "Chicken Hand", 8, &[]),
    fan(44, "妙手回春", "Last Tile Draw", 8, &[80]),
    fan(45, "海底捞月", "Last Tile Claim", 8, &[]),
    fan(46, "杠上开花", "Out with Replacement Tile", 8, &[80]),
    fan(47, "抢杠和", "Robbing the Kong", 8, &[58]),
    fan(48, "碰碰和", "All Pungs", 6, &[]),
    fan(49, "混一色", "Half Flush", 6, &[75]),
    fan(50, "三色三步高", "Mixed Shifted Chows", 6, &[]),
    fan(51, "五门齐", "All Types", 6, &[]),
    fan(52, "全求人", "Melded Hand", 6, &[79]),
    fan(53, "双暗杠", "Two Concealed Kongs", 6, &[66, 67]),
    fan(54, "双箭刻", "Two Dragon Pungs", 6, &[59, 73]),
    fan(55, "全带幺", "Outside Hand", 4, &[]),
    fan(56, "不求人", "Fully Concealed Hand", 4, &[62, 80]),
    fan(57, "双明杠", "Two Melded Kongs", 4, &[74]),
    fan(58, "和绝张", "Last Tile", 4, &[]),
    fan(59, "箭刻", "Dragon Pung", 2, &[73]),
    fan(60, "圈风刻", "Prevalent Wind", 2, &[73]),
    fan(61, "门风刻", "Seat Wind", 2, &[73]),
    fan(62, "门前清", "Concealed Hand", 2, &[]),
    fan(63, "平和", "All Chows", 2, &[76]),
    fan(64, "四归一", "Tile Hog", 2, &[]),
    fan(65, "双同刻", "Double Pung", 2, &[]),
    fan(66, "双暗刻", "Two Concealed Pungs", 2, &[]),
    fan(67, "暗杠", "Concealed Kong", 2, &[]),
    fan(68, "断幺", "All Simples", 2, &[76]),
    fan(69, "一般高", "Pure Double Chow", 1, &[]),
    fan(70, "喜相逢", "Mixed Double Chow", 1, &[]),
    fan(71, "连六", "Short Straight", 1, &[]),
    fan(72, "老少副", "Two Terminal Chows", 1, &[]),
    fan(73, "幺九刻", "Pung of Terminals or Honors", 1, &[]),
    fan(74, "明杠", "Melded Kong", 1, &[]),
    fan(75, "缺一门", "One Voided Suit", 1, &[]),
    fan(76, "无字", "No Honors", 1, &[]),
    fan(77, "边张", "Edge Wait", 1, &[]),
    fan(78, "坎张", "Closed Wait", 1, &[]),
    fan(79, "单钓将", "Single Wait", 1, &[]),
    fan(80, "自摸", "Self-Drawn", 1, &[]),
    fan(81, "花牌", "Flower Tiles", 1, &[]),
];

/// 明暗杠 "Concealed Kong and Melded Kong" (5): not one of the 81. Later rule drafts and
/// pymahjonggb score it for exactly one melded and one concealed kong instead of 明杠 + 暗杠;
/// it only appears with [`super::McrOptions::mixed_kong_5`].
pub const MIXED_KONG: Fan = fan(82, "明暗杠", "Concealed Kong and Melded Kong", 5, &[]);

/// Slots of a per-id count array: index 0 is unused, 1–81 the table, 82 明暗杠.
pub(crate) const SLOTS: usize = 83;

/// The fan with this id (1–81, or 82 for 明暗杠).
pub fn fan_by_id(id: FanId) -> Option<&'static Fan> {
    match id {
        1..=81 => Some(&FANS[id as usize - 1]),
        82 => Some(&MIXED_KONG),
        _ => None,
    }
}

/// Points of every slot, for summing a count array.
pub(crate) const POINTS: [u16; SLOTS] = {
    let mut p = [0u16; SLOTS];
    let mut i = 0;
    while i < FANS.len() {
        p[FANS[i].id as usize] = FANS[i].points;
        i += 1;
    }
    p[MIXED_KONG.id as usize] = MIXED_KONG.points;
    p
};

/// `(excluder, excluded)` pairs that apply to the excluder's own sets only (mcr-scoring.md
/// §3.2), so they are left out of the whole-hand masks and handled where the sets are read:
/// a dragon or wind pung inside a pattern is never a 幺九刻 while a 999s pung beside it still
/// is; 九莲宝灯 removes one 幺九刻; the chows of 清龙 / 一色三同顺 / 三色三同顺 never pair with
/// each other, though a fourth chow may still pair once with one of them.
pub const fn set_scoped(excluder: FanId, excluded: FanId) -> bool {
    match excluded {
        id::PUNG_OF_TERMINALS_OR_HONORS => matches!(
            excluder,
            id::BIG_THREE_DRAGONS
                | id::NINE_GATES
                | id::LITTLE_FOUR_WINDS
                | id::LITTLE_THREE_DRAGONS
                | id::BIG_THREE_WINDS
                | id::TWO_DRAGON_PUNGS
                | id::DRAGON_PUNG
                | id::PREVALENT_WIND
                | id::SEAT_WIND
        ),
        id::PURE_DOUBLE_CHOW
        | id::MIXED_DOUBLE_CHOW
        | id::SHORT_STRAIGHT
        | id::TWO_TERMINAL_CHOWS => {
            matches!(
                excluder,
                id::PURE_TRIPLE_CHOW | id::PURE_STRAIGHT | id::MIXED_TRIPLE_CHOW
            )
        }
        _ => false,
    }
}

/// Whole-hand exclusion masks (bit `id` set = excluded), by excluder id.
pub(crate) const EXCLUDES: [u128; SLOTS] = {
    let mut m = [0u128; SLOTS];
    let mut i = 0;
    while i < FANS.len() {
        let f = &FANS[i];
        let mut j = 0;
        while j < f.excludes.len() {
            if !set_scoped(f.id, f.excludes[j]) {
                m[f.id as usize] |= 1u128 << f.excludes[j];
            }
            j += 1;
        }
        i += 1;
    }
    m
};

/// The ids whose whole-hand mask is not empty, as a mask: the only fans the exclusion pass has
/// to look at.
pub(crate) const EXCLUDERS: u128 = {
    let mut m = 0u128;
    let mut i = 1;
    while i < SLOTS {
        if EXCLUDES[i] != 0 {
            m |= 1 << i;
        }
        i += 1;
    }
    m
};

/// The ids with a count above zero, as a mask: eight counts at a time (see [`nonzero_bytes`]).
#[inline]
pub(crate) fn present(f: &[u8; SLOTS]) -> u128 {
    let mut padded = [0u8; SLOTS.next_multiple_of(8)];
    padded[..SLOTS].copy_from_slice(f);
    let mut m = 0u128;
    for (i, chunk) in padded.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        m |= (nonzero_bytes(x) as u128) << (8 * i);
    }
    m
}

/// Fan ids by English name.
pub mod id {
    use super::FanId;

    /// 大四喜 Big Four Winds, 88.
    pub const BIG_FOUR_WINDS: FanId = 1;
    /// 大三元 Big Three Dragons, 88.
    pub const BIG_THREE_DRAGONS: FanId = 2;
    /// 绿一色 All Green, 88.
    pub const ALL_GREEN: FanId = 3;
    /// 九莲宝灯 Nine Gates, 88.
    pub const NINE_GATES: FanId = 4;
    /// 四杠 Four Kongs, 88.
    pub const FOUR_KONGS: FanId = 5;
    /// 连七对 Seven Shifted Pairs, 88.
    pub const SEVEN_SHIFTED_PAIRS: FanId = 6;
    /// 十三幺 Thirteen Orphans, 88.
    pub const THIRTEEN_ORPHANS: FanId = 7;
    /// 清幺九 All Terminals, 64.
    pub const ALL_TERMINALS: FanId = 8;
    /// 小四喜 Little Four Winds, 64.
    pub const LITTLE_FOUR_WINDS: FanId = 9;
    /// 小三元 Little Three Dragons, 64.
    pub const LITTLE_THREE_DRAGONS: FanId = 10;
    /// 字一色 All Honors, 64.
    pub const ALL_HONORS: FanId = 11;
    /// 四暗刻 Four Concealed Pungs, 64.
    pub const FOUR_CONCEALED_PUNGS: FanId = 12;
    /// 一色双龙会 Pure Terminal Chows, 64.
    pub const PURE_TERMINAL_CHOWS: FanId = 13;
    /// 一色四同顺 Quadruple Chow, 48.
    pub const QUADRUPLE_CHOW: FanId = 14;
    /// 一色四节高 Four Pure Shifted Pungs, 48.
    pub const FOUR_PURE_SHIFTED_PUNGS: FanId = 15;
    /// 一色四步高 Four Pure Shifted Chows, 32.
    pub const FOUR_PURE_SHIFTED_CHOWS: FanId = 16;
    /// 三杠 Three Kongs, 32.
    pub const THREE_KONGS: FanId = 17;
    /// 混幺九 All Terminals and Honors, 32.
    pub const ALL_TERMINALS_AND_HONORS: FanId = 18;
    /// 七对 Seven Pairs, 24.
    pub const SEVEN_PAIRS: FanId = 19;
    /// 七星不靠 Greater Honors and Knitted Tiles, 24.
    pub const GREATER_HONORS_AND_KNITTED_TILES: FanId = 20;
    /// 全双刻 All Even Pungs, 24.
    pub const ALL_EVEN_PUNGS: FanId = 21;
    /// 清一色 Full Flush, 24.
    pub const FULL_FLUSH: FanId = 22;
    /// 一色三同顺 Pure Triple Chow, 24.
    pub const PURE_TRIPLE_CHOW: FanId = 23;
    /// 一色三节高 Pure Shifted Pungs, 24.
    pub const PURE_SHIFTED_PUNGS: FanId = 24;
    /// 全大 Upper Tiles, 24.
    pub const UPPER_TILES: FanId = 25;
    /// 全中 Middle Tiles, 24.
    pub const MIDDLE_TILES: FanId = 26;
    /// 全小 Lower Tiles, 24.
    pub const LOWER_TILES: FanId = 27;
    /// 清龙 Pure Straight, 16.
    pub const PURE_STRAIGHT: FanId = 28;
    /// 三色双龙会 Three-Suited Terminal Chows, 16.
    pub const THREE_SUITED_TERMINAL_CHOWS: FanId = 29;
    /// 一色三步高 Pure Shifted Chows, 16.
    pub const PURE_SHIFTED_CHOWS: FanId = 30;
    /// 全带五 All Fives, 16.
    pub const ALL_FIVES: FanId = 31;
    /// 三同刻 Triple Pung, 16.
    pub const TRIPLE_PUNG: FanId = 32;
    /// 三暗刻 Three Concealed Pungs, 16.
    pub const THREE_CONCEALED_PUNGS: FanId = 33;
    /// 全不靠 Lesser Honors and Knitted Tiles, 12.
    pub const LESSER_HONORS_AND_KNITTED_TILES: FanId = 34;
    /// 组合龙 Knitted Straight, 12.
    pub const KNITTED_STRAIGHT: FanId = 35;
    /// 大于五 Upper Four, 12.
    pub const UPPER_FOUR: FanId = 36;
    /// 小于五 Lower Four, 12.
    pub const LOWER_FOUR: FanId = 37;
    /// 三风刻 Big Three Winds, 12.
    pub const BIG_THREE_WINDS: FanId = 38;
    /// 花龙 Mixed Straight, 8.
    pub const MIXED_STRAIGHT: FanId = 39;
    /// 推不倒 Reversible Tiles, 8.
    pub const REVERSIBLE_TILES: FanId = 40;
    /// 三色三同顺 Mixed Triple Chow, 8.
    pub const MIXED_TRIPLE_CHOW: FanId = 41;
    /// 三色三节高 Mixed Shifted Pungs, 8.
    pub const MIXED_SHIFTED_PUNGS: FanId = 42;
    /// 无番和 Chicken Hand, 8.
    pub const CHICKEN_HAND: FanId = 43;
    /// 妙手回春 Last Tile Draw, 8.
    pub const LAST_TILE_DRAW: FanId = 44;
    /// 海底捞月 Last Tile Claim, 8.
    pub const LAST_TILE_CLAIM: FanId = 45;
    /// 杠上开花 Out with Replacement Tile, 8.
    pub const OUT_WITH_REPLACEMENT_TILE: FanId = 46;
    /// 抢杠和 Robbing the Kong, 8.
    pub const ROBBING_THE_KONG: FanId = 47;
    /// 碰碰和 All Pungs, 6.
    pub const ALL_PUNGS: FanId = 48;
    /// 混一色 Half Flush, 6.
    pub const HALF_FLUSH: FanId = 49;
    /// 三色三步高 Mixed Shifted Chows, 6.
    pub const MIXED_SHIFTED_CHOWS: FanId = 50;
    /// 五门齐 All Types, 6.
    pub const ALL_TYPES: FanId = 51;
    /// 全求人 Melded Hand, 6.
    pub const MELDED_HAND: FanId = 52;
    /// 双暗杠 Two Concealed Kongs, 6.
    pub const TWO_CONCEALED_KONGS: FanId = 53;
    /// 双箭刻 Two Dragon Pungs, 6.
    pub const TWO_DRAGON_PUNGS: FanId = 54;
    /// 全带幺 Outside Hand, 4.
    pub const OUTSIDE_HAND: FanId = 55;
    /// 不求人 Fully Concealed Hand, 4.
    pub const FULLY_CONCEALED_HAND: FanId = 56;
    /// 双明杠 Two Melded Kongs, 4.
    pub const TWO_MELDED_KONGS: FanId = 57;
    /// 和绝张 Last Tile, 4.
    pub const LAST_TILE: FanId = 58;
    /// 箭刻 Dragon Pung, 2.
    pub const DRAGON_PUNG: FanId = 59;
    /// 圈风刻 Prevalent Wind, 2.
    pub const PREVALENT_WIND: FanId = 60;
    /// 门风刻 Seat Wind, 2.
    pub const SEAT_WIND: FanId = 61;
    /// 门前清 Concealed Hand, 2.
    pub const CONCEALED_HAND: FanId = 62;
    /// 平和 All Chows, 2.
    pub const ALL_CHOWS: FanId = 63;
    /// 四归一 Tile Hog, 2.
    pub const TILE_HOG: FanId = 64;
    /// 双同刻 Double Pung, 2.
    pub const DOUBLE_PUNG: FanId = 65;
    /// 双暗刻 Two Concealed Pungs, 2.
    pub const TWO_CONCEALED_PUNGS: FanId = 66;
    /// 暗杠 Concealed Kong, 2.
    pub const CONCEALED_KONG: FanId = 67;
    /// 断幺 All Simples, 2.
    pub const ALL_SIMPLES: FanId = 68;
    /// 一般高 Pure Double Chow, 1.
    pub const PURE_DOUBLE_CHOW: FanId = 69;
    /// 喜相逢 Mixed Double Chow, 1.
    pub const MIXED_DOUBLE_CHOW: FanId = 70;
    /// 连六 Short Straight, 1.
    pub const SHORT_STRAIGHT: FanId = 71;
    /// 老少副 Two Terminal Chows, 1.
    pub const TWO_TERMINAL_CHOWS: FanId = 72;
    /// 幺九刻 Pung of Terminals or Honors, 1.
    pub const PUNG_OF_TERMINALS_OR_HONORS: FanId = 73;
    /// 明杠 Melded Kong, 1.
    pub const MELDED_KONG: FanId = 74;
    /// 缺一门 One Voided Suit, 1.
    pub const ONE_VOIDED_SUIT: FanId = 75;
    /// 无字 No Honors, 1.
    pub const NO_HONORS: FanId = 76;
    /// 边张 Edge Wait, 1.
    pub const EDGE_WAIT: FanId = 77;
    /// 坎张 Closed Wait, 1.
    pub const CLOSED_WAIT: FanId = 78;
    /// 单钓将 Single Wait, 1.
    pub const SINGLE_WAIT: FanId = 79;
    /// 自摸 Self-Drawn, 1.
    pub const SELF_DRAWN: FanId = 80;
    /// 花牌 Flower Tiles, 1.
    pub const FLOWER_TILES: FanId = 81;
    /// 明暗杠 Concealed Kong and Melded Kong, 5 (optional, not in the 81).
    pub const MIXED_KONG: FanId = 82;
}
