//! Hints on a turn under wild rules (Hangzhou 财神): discards ranked by shanten with the
//! wilds as jokers, then live useful tiles; a wild is never worth throwing unless it is the
//! 财飘 the hard bot chose.

use super::words::{self, Words, steps_or_ready};
use super::{DiscardHint, Hint, TOP_EXPLAINED};
use crate::bot::knowledge::Knowledge;
use crate::game::{Action, SeatView};
use crate::tile::Tile;

pub(super) fn turn(view: &SeatView, k: &Knowledge, legal: &[Action], recommended: Action) -> Hint {
    use crate::score::hangzhou::{is_baotou_state, split_wilds};
    let wild = view.wild.expect("checked by the caller");
    let white_as = view.wild_indicator.filter(|&t| t != Tile::WHITE);
    let melds = k.melds.len();
    let w = words::tile(wild);
    let mut discards: Vec<(bool, DiscardHint)> = Vec::new();
    for a in legal {
        let Action::Discard(t) = *a else { continue };
        let mut c = k.hand;
        c.remove(t);
        let (real, wilds) = split_wilds(&c, Some(wild), white_as);
        let Ok(s) = crate::shanten::analyze_wild(&real, wilds, wild, melds) else {
            continue;
        };
        let shape = match s.seven_pairs {
            Some(p) if p.shanten < s.regular.shanten => p,
            _ => s.regular,
        };
        let live: u32 = shape.useful.iter().map(|u| k.live(u) as u32).sum();
        let baotou = s.shanten == 0 && is_baotou_state(&c, melds, Some(wild), white_as);
        let name = words::tile(t);
        let useful = shape.useful.to_notation();
        let (fans, reason) = if t == wild {
            (
                vec!["财飘 Wild discarded".to_string()],
                Words::new(
                    format!(
                        "Throw the 财神 ({}) only for 财飘: it doubles your next win but locks nobody out of a wait.",
                        name.en
                    ),
                    format!(
                        "打出财神（{}）只为财飘：下次胡牌翻倍，但并不会卡住别人的听牌。",
                        name.zh
                    ),
                ),
            )
        } else if baotou {
            (
                vec!["爆头 Wild pair wait".to_string()],
                Words::new(
                    format!(
                        "Discard {}: 爆头 — your wild waits as the pair, so every draw wins.",
                        name.en
                    ),
                    format!("打{}：爆头——财神单吊作将，摸什么都能胡。", name.zh),
                ),
            )
        } else if s.shanten == 0 {
            (
                Vec::new(),
                Words::new(
                    format!(
                        "Discard {}: ready on {useful} ({live} live tiles); wins here are self-drawn.",
                        name.en
                    ),
                    format!(
                        "打{}：听牌，听 {useful}（还剩 {live} 张）；这里只能自摸胡。",
                        name.zh
                    ),
                ),
            )
        } else {
            let (wilds_en, wilds_zh) = match wilds {
                0 => (
                    format!("wilds (财神 {}) when you draw them", w.en),
                    format!("摸到的财神（{}）", w.zh),
                ),
                1 => (
                    format!("one wild (财神 {})", w.en),
                    format!("手里的一张财神（{}）", w.zh),
                ),
                n => (
                    format!("{n} wilds (财神 {})", w.en),
                    format!("手里的 {n} 张财神（{}）", w.zh),
                ),
            };
            (
                Vec::new(),
                Words::new(
                    format!(
                        "Discard {}: {} away from ready with {live} live useful tiles, counting your {wilds_en} as any tile.",
                        name.en, s.shanten
                    ),
                    format!(
                        "打{}：{}，有效牌 {live} 张，{wilds_zh}可当任意牌。",
                        name.zh,
                        words::steps(s.shanten).zh
                    ),
                ),
            )
        };
        discards.push((
            t == wild,
            DiscardHint {
                tile: t,
                shanten: s.shanten,
                useful,
                live,
                target: fans.first().cloned(),
                points: 0,
                fans,
                reason: reason.en,
                reason_zh: reason.zh,
                versus: None,
                versus_zh: None,
            },
        ));
    }
    // Best first: the recommended discard, then non-wilds by shanten and live tiles.
    discards.sort_by(|(wa, a), (wb, b)| {
        let ra = recommended == Action::Discard(a.tile);
        let rb = recommended == Action::Discard(b.tile);
        rb.cmp(&ra)
            .then(wa.cmp(wb))
            .then(a.shanten.cmp(&b.shanten))
            .then(b.live.cmp(&a.live))
            .then(a.tile.cmp(&b.tile))
    });
    let mut discards: Vec<DiscardHint> = discards.into_iter().map(|(_, d)| d).collect();
    for i in 0..discards.len().saturating_sub(1).min(TOP_EXPLAINED) {
        let (a, b) = (&discards[i], &discards[i + 1]);
        let other = words::tile(b.tile);
        let why = if b.tile == wild {
            Words::new(
                format!(
                    "Beats throwing the 财神 {}: a wild is any tile you need.",
                    w.en
                ),
                format!("优于打财神{}：财神能当任何你需要的牌。", w.zh),
            )
        } else if a.shanten < b.shanten {
            let (sa, sb) = (steps_or_ready(a.shanten), steps_or_ready(b.shanten));
            Words::new(
                format!("Beats {}: {} from ready against {}.", b.tile, sa.en, sb.en),
                format!(
                    "优于打{}：这张打后{}，打{}则{}。",
                    other.zh, sa.zh, other.zh, sb.zh
                ),
            )
        } else if a.live > b.live {
            Words::new(
                format!(
                    "Beats {}: {} live useful tiles against {}.",
                    b.tile, a.live, b.live
                ),
                format!(
                    "优于打{}：有效牌 {} 张，打{}只有 {} 张。",
                    other.zh, a.live, other.zh, b.live
                ),
            )
        } else {
            Words::new(
                format!("Even with {} on distance and live tiles.", b.tile),
                format!("与打{}不相上下：向听和有效牌都一样。", other.zh),
            )
        };
        discards[i].versus = Some(why.en);
        discards[i].versus_zh = Some(why.zh);
    }
    let reason = match recommended {
        Action::ConcealedKong(t) | Action::AddedKong(t) => {
            let t = words::tile(t);
            Words::new(
                format!(
                    "Declare the kong of {}: you draw a replacement tile, and a win on it is 杠开 (doubles the win).",
                    t.en
                ),
                format!("杠{}：杠后补摸一张，补到就胡是杠开（胡牌翻倍）。", t.zh),
            )
        }
        _ => discards
            .first()
            .map(|d| Words::new(d.reason.clone(), d.reason_zh.clone()))
            .unwrap_or_default(),
    };
    Hint::Turn {
        recommended,
        reason: reason.en,
        reason_zh: reason.zh,
        discards,
    }
}
