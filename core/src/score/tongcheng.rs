//! Tongcheng scoring (桐城麻将, regional-rules §2): the hand values of 桐城点炮麻将 and the
//! point count of 桐城跑风麻将, and the shapes each accepts.
//!
//! 点炮 prices a win by its best 名堂 (平胡 1, 七小对 2, doubled per concealed quad, a robbed
//! kong 3); a self-draw is paid twice that by each other seat, a discard once by the
//! discarder, flowers +1 on top. 跑风 pays the same from each loser whatever the shape:
//! 1 + flowers + kongs (+2 for 跑风). 飘分 is added by the payments, not here.

use serde::{Deserialize, Serialize};

use crate::hand::{Meld, MeldKind};
use crate::score::hangzhou::{sets_only, standard_complete};
use crate::seat::Seat;
use crate::tile::{KINDS, Tile, TileCounts};

/// Which Tongcheng game prices the win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TongchengTable {
    /// 桐城点炮麻将: hand values 1/2/4/8/16, 3 for a robbed kong.
    Dianpao,
    /// 桐城跑风麻将: 1 + flowers + kongs + 2 for 跑风.
    Paofeng,
}

/// A Tongcheng win to price.
#[derive(Clone, Copy, Debug)]
pub struct TcWin<'a> {
    /// Concealed tiles, the winning tile included.
    pub concealed: &'a TileCounts,
    pub melds: &'a [Meld],
    /// The wild face (跑风), if any.
    pub wild: Option<Tile>,
    /// The stand-in and the face it plays (跑风: 中 plays the wild's natural face).
    pub stand_in: Option<(Tile, Tile)>,
    /// The flower tile: a hand holding one cannot win.
    pub flower: Option<Tile>,
    pub self_drawn: bool,
    /// 抢杠胡 (点炮: always worth 3).
    pub robbing_kong: bool,
    /// Flowers set aside by the winner.
    pub flowers: u8,
    /// The winner was 跑风 before the draw (跑风 game only).
    pub paofeng: bool,
}

/// The shape a Tongcheng hand wins with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcShape {
    /// Four sets and a pair (wilds fill gaps).
    Standard,
    /// Seven pairs, with this many concealed quads (each also two pairs).
    SevenPairs(u8),
    /// 碰碰胡: four pungs or kongs and a pair.
    AllPungs,
    /// 全九幺: every non-wild tile a terminal or an honor, no structure needed.
    AllTerminalsHonors,
    /// 十三烂: fourteen unrelated tiles.
    ThirteenUnrelated,
}

/// A priced win: the elements (key, value, count), and what each payer pays before 飘.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcScore {
    pub shape: TcShape,
    /// (element id, value, count): ids index [`ELEMENTS`] from 1.
    pub elements: Vec<(u8, u32, u32)>,
    /// 名堂 (点炮) or the point count (跑风) before the self-draw doubling.
    pub value: u32,
    /// What each paying seat pays (点炮 self-draw: 2 × 名堂 + flowers; discard or robbed
    /// kong: 名堂 + flowers; 跑风: the point count), 飘 not included.
    pub per_payer: u32,
}

/// Why a hand is not a Tongcheng win.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TcError {
    #[error("a hand holding a flower ({0}) cannot win")]
    HoldsFlower(Tile),
    #[error("not a complete hand for this game")]
    NotComplete,
    #[error("a 跑风 win is self-drawn")]
    NotSelfDrawn,
}

/// Element names: (key, 中文, English). Ids are 1-based positions, append-only.
pub const ELEMENTS: [(&str, &str, &str); 14] = [
    ("ping_hu", "平胡", "Plain win"),
    ("qi_xiao_dui", "七小对", "Seven pairs"),
    ("hao_hua", "豪华七小对", "Seven pairs with a quad"),
    ("chao_hao_hua", "超豪华七小对", "Seven pairs with two quads"),
    (
        "chao_chao_hao_hua",
        "超超豪华七小对",
        "Seven pairs with three quads",
    ),
    ("qiang_gang", "抢杠胡", "Robbing a kong"),
    ("zi_mo", "自摸双倍", "Self-draw pays double"),
    ("hua", "花", "Flower"),
    ("hu", "胡", "Win"),
    ("gang", "杠", "Kong"),
    ("pao_feng", "跑风", "Wild half-pair wait (any draw wins)"),
    ("peng_peng_hu", "碰碰胡", "All pungs"),
    ("quan_jiu_yao", "全九幺", "All terminals and honors"),
    ("shi_san_lan", "十三烂", "Thirteen unrelated"),
];

/// The id of element `key` in [`ELEMENTS`].
pub fn element_id(key: &str) -> u8 {
    ELEMENTS
        .iter()
        .position(|e| e.0 == key)
        .map(|i| i as u8 + 1)
        .expect("a known element")
}

/// Splits a hand into its natural values and its number of wilds: the wild face is counted
/// apart, the stand-in is counted as the face it plays.
pub fn split(
    c: &TileCounts,
    wild: Option<Tile>,
    stand_in: Option<(Tile, Tile)>,
) -> (TileCounts, u8) {
    let mut real = *c;
    let mut wilds = 0;
    if let Some(w) = wild {
        wilds = real.0[w.index()];
        real.0[w.index()] = 0;
    }
    if let Some((by, face)) = stand_in {
        let n = real.0[by.index()];
        real.0[by.index()] = 0;
        real.0[face.index()] += n;
    }
    (real, wilds)
}

fn singles(real: &TileCounts) -> usize {
    real.0.iter().filter(|&&c| c % 2 == 1).count()
}

/// Seven pairs with wilds: the number of quads counted among the pairs, if complete. A
/// quad made with wilds counts (wilds pair up odd tiles first, spare wild pairs join a pair).
fn seven_pairs(real: &TileCounts, wilds: u8, melds: usize) -> Option<u8> {
    if melds != 0 || real.total() + wilds as usize != 14 || singles(real) > wilds as usize {
        return None;
    }
    Some(real.0.iter().filter(|&&c| c == 4).count() as u8)
}

/// 碰碰胡 with wilds: four pungs (melds count, chows never) and a pair.
fn all_pungs(real: &TileCounts, wilds: u8, melds: &[Meld]) -> bool {
    if melds.iter().any(|m| m.kind == MeldKind::Chow)
        || real.total() + wilds as usize + 3 * melds.len() != 14
    {
        return false;
    }
    let sets = 4 - melds.len();
    // Choose the pair's kind (or a wild pair), fill the rest to pungs with wilds.
    let need_pungs = |c: &[u8; KINDS]| -> Option<usize> {
        let mut need = 0;
        let mut groups = 0;
        for &n in c {
            if n == 0 {
                continue;
            }
            if n > 3 {
                return None;
            }
            need += 3 - n as usize;
            groups += 1;
        }
        (groups <= sets).then(|| need + 3 * (sets - groups))
    };
    let w = wilds as usize;
    // Pair of wilds.
    if w >= 2 && need_pungs(&real.0).is_some_and(|n| n <= w - 2) {
        return true;
    }
    for i in 0..KINDS {
        let n = real.0[i];
        if n == 0 {
            continue;
        }
        let used = n.min(2);
        let mut c = real.0;
        c[i] -= used;
        let pair_wilds = 2 - used as usize;
        if pair_wilds <= w && need_pungs(&c).is_some_and(|k| k <= w - pair_wilds) {
            return true;
        }
    }
    false
}

fn is_terminal_or_honor(t: Tile) -> bool {
    t.is_honor() || t.rank() == 1 || t.rank() == 9
}

/// 全九幺: 14 tiles (melds as three) whose every natural value is a terminal or an honor.
fn all_terminals_honors(
    real: &TileCounts,
    wilds: u8,
    melds: &[Meld],
    stand_in: Option<(Tile, Tile)>,
) -> bool {
    real.total() + wilds as usize + 3 * melds.len() == 14
        && real.kinds().all(is_terminal_or_honor)
        && melds.iter().all(|m| {
            let face = match stand_in {
                Some((by, face)) if m.tile == by => face,
                _ => m.tile,
            };
            m.kind != MeldKind::Chow && is_terminal_or_honor(face)
        })
}

/// 十三烂: 14 concealed tiles, all different; in each suit every two at least 3 ranks apart
/// (so at most three per suit); honors any; wilds stand for whatever is missing.
fn thirteen_unrelated(real: &TileCounts, wilds: u8, melds: usize) -> bool {
    if melds != 0 || real.total() + wilds as usize != 14 || real.0.iter().any(|&c| c > 1) {
        return false;
    }
    (0..3).all(|suit| {
        let ranks: Vec<usize> = (0..9).filter(|r| real.0[suit * 9 + r] > 0).collect();
        ranks.windows(2).all(|w| w[1] - w[0] >= 3)
    })
}

/// Is the hand before a draw (13 tiles counting melds as three) in 跑风: a wild held as half
/// a pair with the rest complete, so any drawn tile wins?
pub fn is_paofeng(
    before: &TileCounts,
    melds: usize,
    wild: Option<Tile>,
    stand_in: Option<(Tile, Tile)>,
    flower: Option<Tile>,
) -> bool {
    if flower.is_some_and(|f| before.get(f) > 0) {
        return false;
    }
    let (real, wilds) = split(before, wild, stand_in);
    if wilds == 0 || real.total() + wilds as usize + 3 * melds != 13 {
        return false;
    }
    let rest = wilds - 1;
    let mut c = real.0;
    (melds <= 4 && sets_only(&mut c, rest, 4 - melds))
        || (melds == 0 && singles(&real) <= rest as usize)
}

/// Prices a win under `table`.
pub fn score(w: &TcWin, table: TongchengTable) -> Result<TcScore, TcError> {
    if let Some(f) = w.flower.filter(|&f| w.concealed.get(f) > 0) {
        return Err(TcError::HoldsFlower(f));
    }
    let (real, wilds) = split(w.concealed, w.wild, w.stand_in);
    let melds = w.melds.len();
    let pairs = seven_pairs(&real, wilds, melds);
    let standard = standard_complete(&real, wilds, melds);
    let mut el = Vec::with_capacity(5);
    match table {
        TongchengTable::Dianpao => {
            let (shape, id, value) = if let Some(q) = pairs {
                let id = [
                    "qi_xiao_dui",
                    "hao_hua",
                    "chao_hao_hua",
                    "chao_chao_hao_hua",
                ][q.min(3) as usize];
                (TcShape::SevenPairs(q), id, 2u32 << q.min(3))
            } else if standard {
                (TcShape::Standard, "ping_hu", 1)
            } else {
                return Err(TcError::NotComplete);
            };
            // The server keeps the last 名堂 it finds, and a robbed kong comes last: 3.
            let (id, value) = if w.robbing_kong {
                ("qiang_gang", 3)
            } else {
                (id, value)
            };
            el.push((element_id(id), value, 1));
            let mut per_payer = value;
            if w.self_drawn {
                el.push((element_id("zi_mo"), 2, 1));
                per_payer *= 2;
            }
            if w.flowers > 0 {
                el.push((element_id("hua"), 1, w.flowers.into()));
                per_payer += u32::from(w.flowers);
            }
            Ok(TcScore {
                shape,
                elements: el,
                value,
                per_payer,
            })
        }
        TongchengTable::Paofeng => {
            if !w.self_drawn {
                return Err(TcError::NotSelfDrawn);
            }
            let shape = if let Some(q) = pairs {
                TcShape::SevenPairs(q)
            } else if all_pungs(&real, wilds, w.melds) {
                TcShape::AllPungs
            } else if standard {
                TcShape::Standard
            } else if all_terminals_honors(&real, wilds, w.melds, w.stand_in) {
                TcShape::AllTerminalsHonors
            } else if thirteen_unrelated(&real, wilds, melds) {
                TcShape::ThirteenUnrelated
            } else {
                return Err(TcError::NotComplete);
            };
            el.push((element_id("hu"), 1, 1));
            // Shape names do not change the amount: listed at 0 for the record.
            let name = match shape {
                TcShape::Standard => None,
                TcShape::SevenPairs(_) => Some("qi_xiao_dui"),
                TcShape::AllPungs => Some("peng_peng_hu"),
                TcShape::AllTerminalsHonors => Some("quan_jiu_yao"),
                TcShape::ThirteenUnrelated => Some("shi_san_lan"),
            };
            if let Some(n) = name {
                el.push((element_id(n), 0, 1));
            }
            let kongs = w.melds.iter().filter(|m| m.is_kong()).count() as u32;
            let mut value = 1 + u32::from(w.flowers) + kongs;
            if w.flowers > 0 {
                el.push((element_id("hua"), 1, w.flowers.into()));
            }
            if kongs > 0 {
                el.push((element_id("gang"), 1, kongs));
            }
            if w.paofeng {
                el.push((element_id("pao_feng"), 2, 1));
                value += 2;
            }
            Ok(TcScore {
                shape,
                elements: el,
                value,
                per_payer: value,
            })
        }
    }
}

/// The wild face after indicator `t` (跑风): 9→1 in each suit, 东→南→西→北→东, 中→发→白→中.
pub fn next_face(t: Tile) -> Tile {
    let i = t.index();
    let next = match i {
        0..=26 => (i / 9) * 9 + (i % 9 + 1) % 9,
        27..=30 => 27 + (i - 27 + 1) % 4,
        // 白 (31) → 中 (33), 发 (32) → 白 (31), 中 (33) → 发 (32).
        31 => 33,
        32 => 31,
        _ => 32,
    };
    Tile::kind(next)
}

/// The 跑风 wild's companions for indicator `t`: (wild, stand-in and the face it plays,
/// flower). Normally 中 stands in and 发 is the flower; a 中 indicator makes 发 wild and 中
/// the flower with no stand-in; a 白 indicator makes 中 wild with no stand-in.
pub fn paofeng_tiles(t: Tile) -> (Tile, Option<(Tile, Tile)>, Tile) {
    let wild = next_face(t);
    if t == Tile::RED {
        (wild, None, Tile::RED)
    } else if t == Tile::WHITE {
        (wild, None, Tile::GREEN)
    } else {
        (wild, Some((Tile::RED, wild)), Tile::GREEN)
    }
}

/// Score changes for a hand's wins: each winner collects `per_payer` (plus both players'
/// 飘) from each loser on a self-draw, or from `discarder` (the seat dealing in or whose
/// kong was robbed).
pub fn payments(wins: &[(Seat, u32)], discarder: Option<Seat>, piao: [u8; 4]) -> [i32; 4] {
    let mut d = [0i32; 4];
    for &(w, per) in wins {
        for p in Seat::ALL {
            if p == w || discarder.is_some_and(|x| x != p) {
                continue;
            }
            let amount = per as i32 + i32::from(piao[w.index()]) + i32::from(piao[p.index()]);
            d[p.index()] -= amount;
            d[w.index()] += amount;
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand::KongKind;

    fn counts(s: &str) -> TileCounts {
        TileCounts::parse(s).unwrap()
    }

    fn t(s: &str) -> Tile {
        s.parse().unwrap()
    }

    fn dp(concealed: &TileCounts, melds: &[Meld], self_drawn: bool, flowers: u8) -> TcWin<'static> {
        let c: &'static TileCounts = Box::leak(Box::new(*concealed));
        let m: &'static [Meld] = Box::leak(melds.to_vec().into_boxed_slice());
        TcWin {
            concealed: c,
            melds: m,
            wild: None,
            stand_in: None,
            flower: None,
            self_drawn,
            robbing_kong: false,
            flowers,
            paofeng: false,
        }
    }

    #[test]
    fn hand_values_1_2_4_8_16() {
        let plain = counts("123m456m789p111z55s");
        assert_eq!(
            score(&dp(&plain, &[], false, 0), TongchengTable::Dianpao)
                .unwrap()
                .value,
            1
        );
        for (hand, v) in [
            ("11m33m55p77p22s88s44z", 2),
            ("2222p11m33m66s88s77z", 4),
            ("2222p1111m66s88s77z", 8),
            ("2222p1111m8888s77z", 16),
        ] {
            let s = score(&dp(&counts(hand), &[], false, 0), TongchengTable::Dianpao).unwrap();
            assert_eq!(s.value, v, "{hand}");
        }
        // No chow-shaped honors, no 13 orphans: not a win here.
        let orphans = counts("19m19p19s12345677z");
        assert!(score(&dp(&orphans, &[], true, 0), TongchengTable::Dianpao).is_err());
    }

    #[test]
    fn self_draw_doubles_and_flowers_add() {
        // T2: seven pairs self-drawn with one flower: each pays 2 × 2 + 1 = 5.
        let h = counts("11m33m55p77p22s88s44z");
        let s = score(&dp(&h, &[], true, 1), TongchengTable::Dianpao).unwrap();
        assert_eq!(s.per_payer, 5);
        // A held flower forbids the win.
        let mut w = dp(&h, &[], true, 1);
        w.flower = Some(Tile::GREEN);
        assert!(score(&w, TongchengTable::Dianpao).is_ok());
        let f = counts("11m33m55p77p22s88s66z");
        let mut w = dp(&f, &[], true, 0);
        w.flower = Some(Tile::GREEN);
        assert_eq!(
            score(&w, TongchengTable::Dianpao),
            Err(TcError::HoldsFlower(Tile::GREEN))
        );
    }

    #[test]
    fn a_robbed_kong_is_worth_3() {
        let h = counts("123s456s789s22z456m");
        let mut w = dp(&h, &[], false, 0);
        w.robbing_kong = true;
        let s = score(&w, TongchengTable::Dianpao).unwrap();
        assert_eq!((s.value, s.per_payer), (3, 3));
    }

    #[test]
    fn next_face_wraps() {
        for (a, b) in [
            ("7p", "8p"),
            ("9m", "1m"),
            ("9s", "1s"),
            ("1z", "2z"),
            ("4z", "1z"),
            ("7z", "6z"),
            ("6z", "5z"),
            ("5z", "7z"),
        ] {
            assert_eq!(next_face(t(a)), t(b), "{a}");
        }
        assert_eq!(
            paofeng_tiles(t("7p")),
            (t("8p"), Some((t("7z"), t("8p"))), t("6z"))
        );
        assert_eq!(paofeng_tiles(t("7z")), (t("6z"), None, t("7z")));
        assert_eq!(paofeng_tiles(t("5z")), (t("7z"), None, t("6z")));
    }

    fn pf(concealed: &str, wild: &str, melds: &[Meld]) -> Result<TcScore, TcError> {
        let c = counts(concealed);
        let (w, stand_in, flower) = paofeng_tiles(t(wild));
        let mut win = dp(&c, melds, true, 0);
        win.wild = Some(w);
        win.stand_in = stand_in;
        win.flower = Some(flower);
        score(&win, TongchengTable::Paofeng)
    }

    #[test]
    fn paofeng_shapes() {
        // Indicator 7p: wild 8p, 中 plays 8p.
        assert_eq!(
            pf("123m456m789s111z8p8p", "7p", &[]).unwrap().shape,
            TcShape::Standard
        );
        // 中 as a natural 8p completes 789p.
        assert_eq!(
            pf("123m456m79p7z111z22z", "7p", &[]).unwrap().shape,
            TcShape::Standard
        );
        assert_eq!(
            pf("1111m99p11s2z8p33z55z", "7p", &[]).unwrap().shape,
            TcShape::SevenPairs(1)
        );
        assert_eq!(
            pf("111m999p111z333z5z8p", "7p", &[]).unwrap().shape,
            TcShape::AllPungs
        );
        // 全九幺: terminals and honors without structure.
        assert_eq!(
            pf("19m19p199s123444z5z", "7p", &[]).unwrap().shape,
            TcShape::AllTerminalsHonors
        );
        // 十三烂: 147m 258p 369s 1234z + a wild.
        assert_eq!(
            pf("147m258p369s1234z8p", "7p", &[]).unwrap().shape,
            TcShape::ThirteenUnrelated
        );
        assert!(pf("146m258p369s1234z8p", "7p", &[]).is_err());
        // Self-draw only.
        let c = counts("123m456m789s111z8p8p");
        let mut w = dp(&c, &[], false, 0);
        w.wild = Some(t("8p"));
        assert_eq!(
            score(&w, TongchengTable::Paofeng),
            Err(TcError::NotSelfDrawn)
        );
    }

    #[test]
    fn paofeng_payment_t5() {
        // T5: two flowers, one kong, 跑风: 1 + 2 + 1 + 2 = 6 from each.
        let kong = Meld::kong(t("3s"), KongKind::Concealed, None).unwrap();
        let c = counts("123m456m789s8p1z");
        let mut h = c;
        h.add(t("5m"));
        let (w, stand_in, flower) = paofeng_tiles(t("7p"));
        let mut win = dp(&h, &[kong], true, 2);
        win.wild = Some(w);
        win.stand_in = stand_in;
        win.flower = Some(flower);
        assert!(!is_paofeng(&c, 1, Some(w), stand_in, Some(flower)));
        let before = counts("123m456m789s8p");
        assert!(is_paofeng(&before, 1, Some(w), stand_in, Some(flower)));
        let mut h = before;
        h.add(t("5m"));
        win.concealed = Box::leak(Box::new(h));
        win.paofeng = true;
        let s = score(&win, TongchengTable::Paofeng).unwrap();
        assert_eq!(s.per_payer, 6);
        assert_eq!(payments(&[(Seat(0), 6)], None, [0; 4]), [18, -6, -6, -6]);
        win.paofeng = false;
        assert_eq!(score(&win, TongchengTable::Paofeng).unwrap().per_payer, 4);
    }

    #[test]
    fn payments_with_piao_t1() {
        // T1 with 飘: A 飘 1, D 飘 2 → D pays 1 + 1 + 2.
        assert_eq!(
            payments(&[(Seat(0), 1)], Some(Seat(3)), [1, 0, 0, 2]),
            [4, 0, 0, -4]
        );
        // 一炮多响: both winners paid by the discarder.
        assert_eq!(
            payments(&[(Seat(1), 3), (Seat(2), 3)], Some(Seat(0)), [0; 4]),
            [-6, 3, 3, 0]
        );
    }
}
