//! Hints under the Tongcheng games (桐城点炮 / 桐城跑风): distances over the shapes those
//! games win with (the standard shape and seven pairs, wilds as jokers under 跑风) — the
//! bots' own distance — and the game's own prices (名堂, kong money, 跑风), never the
//! Chinese Official fans.

use super::words::{self, Words, steps, steps_or_ready, tiles_en};
use super::{DiscardHint, Hint, TOP_EXPLAINED};
use crate::bot::knowledge::Knowledge;
use crate::bot::{after_claim, eval, wild_distance};
use crate::game::{Action, Decision, DecisionKind, SeatView};
use crate::score::tongcheng::{ELEMENTS, TongchengTable, is_paofeng};
use crate::tile::{Tile, TileCounts, TileSet};

/// "中文 English" of a Tongcheng element (see [`ELEMENTS`]), and the 中文 alone.
fn element(key: &str) -> Words {
    ELEMENTS
        .iter()
        .find(|e| e.0 == key)
        .map(|e| Words::new(format!("{} {}", e.1, e.2), e.1))
        .unwrap_or_default()
}

/// One discard's distance under this game, as the bots measure it.
struct Distance {
    shanten: i8,
    useful: TileSet,
    /// Seven pairs is the nearer shape.
    seven_pairs: bool,
}

/// The distance of the 13-tile hand `c` (with `melds` declared) over this game's shapes.
fn distance(k: &Knowledge, c: &TileCounts, melds: usize, wild: Option<Tile>) -> Option<Distance> {
    match wild {
        Some(w) => {
            let s = wild_distance(k, c, w, melds)?;
            let (shape, seven_pairs) = match s.seven_pairs {
                Some(p) if p.shanten < s.regular.shanten => (p, true),
                _ => (s.regular, false),
            };
            Some(Distance {
                shanten: s.shanten,
                useful: shape.useful,
                seven_pairs,
            })
        }
        None => {
            let s = k.best(c, melds).ok()?;
            let seven_pairs = melds == 0 && crate::shanten::regular_shanten(c, melds) > s.shanten;
            Some(Distance {
                shanten: s.shanten,
                useful: s.useful,
                seven_pairs,
            })
        }
    }
}

/// Advice under a Tongcheng game; `recommended` is the hard bot's choice.
pub(super) fn hint(
    view: &SeatView,
    table: TongchengTable,
    d: &Decision,
    recommended: Action,
) -> Hint {
    let k = Knowledge::from_view(view);
    match d.kind {
        DecisionKind::Turn => turn(view, &k, table, &d.legal, recommended),
        DecisionKind::Claim { tile } => {
            let reason = claim_reason(view, &k, tile, recommended);
            Hint::Claim {
                recommended,
                reason: reason.en,
                reason_zh: reason.zh,
            }
        }
        DecisionKind::RobKong { tile } => {
            let t = words::tile(tile);
            Hint::Claim {
                recommended,
                reason: format!("Robbing the kong on {} does not complete your hand.", t.en),
                reason_zh: format!("抢杠{}胡不了你的牌。", t.zh),
            }
        }
    }
}

/// What one win at this point pays, in words, and the points each payer gives.
fn price(view: &SeatView, k: &Knowledge, table: TongchengTable, seven_pairs: bool) -> (u32, Words) {
    match table {
        TongchengTable::Dianpao => {
            let value = if seven_pairs { 2 } else { 1 };
            let flowers = u32::from(k.flowers);
            let extra = if flowers > 0 {
                Words::new(
                    format!(" + {flowers} for flowers"),
                    format!(" + 花 {flowers}"),
                )
            } else {
                Words::default()
            };
            let text = if view.rules.discard_wins == crate::rules::DiscardWins::Never {
                Words::new(
                    format!("a self-draw pays {value} × 2{} from each", extra.en),
                    format!("自摸每家付 {value} × 2{} 分", extra.zh),
                )
            } else {
                Words::new(
                    format!(
                        "a discard win pays {value}{} from the discarder, a self-draw {value} × 2{} from each",
                        extra.en, extra.en
                    ),
                    format!(
                        "点炮由放炮的人付 {value}{} 分，自摸每家付 {value} × 2{} 分",
                        extra.zh, extra.zh
                    ),
                )
            };
            (value + flowers, text)
        }
        TongchengTable::Paofeng => {
            let kongs = k
                .melds
                .iter()
                .filter(|m| matches!(m.kind, crate::hand::MeldKind::Kong(_)))
                .count() as u32;
            let points = 1 + u32::from(k.flowers) + kongs;
            (
                points,
                Words::new(
                    format!("a self-draw pays {points} from each (1 + flowers + kongs)"),
                    format!("自摸每家付 {points} 分（1 + 花 + 杠）"),
                ),
            )
        }
    }
}

fn turn(
    view: &SeatView,
    k: &Knowledge,
    table: TongchengTable,
    legal: &[Action],
    recommended: Action,
) -> Hint {
    let melds = k.melds.len();
    let mut discards: Vec<DiscardHint> = Vec::new();
    for a in legal {
        let Action::Discard(t) = *a else { continue };
        let mut c = k.hand;
        c.remove(t);
        let Some(dist) = distance(k, &c, melds, view.wild) else {
            continue;
        };
        let live = eval::live_count(k, dist.useful);
        let name = words::tile(t);
        let useful = dist.useful.to_notation();
        let (mut points, paid) = price(view, k, table, dist.seven_pairs);
        let target = if dist.seven_pairs {
            element("qi_xiao_dui")
        } else if table == TongchengTable::Paofeng {
            element("hu")
        } else {
            element("ping_hu")
        };
        let mut fans = vec![target.en.clone()];
        let paofeng = table == TongchengTable::Paofeng
            && is_paofeng(&c, melds, view.wild, k.stand_in, view.flower_tile);
        let reason = if Some(t) == view.flower_tile {
            Words::new(
                format!(
                    "Set aside the flower {} (补花): a hand holding it cannot win, you draw a replacement, and it adds 1 to your win.",
                    name.en
                ),
                format!(
                    "补花（{}）：手里有花不能胡，补摸一张，胡牌时加 1 分。",
                    name.zh
                ),
            )
        } else if paofeng {
            points += 2;
            fans.push(element("pao_feng").en);
            Words::new(
                format!(
                    "Discard {}: 跑风 — a wild waits as half a pair, so any draw wins; each pays 2 more ({points} from each).",
                    name.en
                ),
                format!(
                    "打{}：跑风——财神单吊作半对将，摸什么都胡；每家多付 2 分（每家 {points} 分）。",
                    name.zh
                ),
            )
        } else if dist.shanten == 0 {
            Words::new(
                format!(
                    "Discard {}: ready on {useful} ({live} live tiles); {}.",
                    name.en, paid.en
                ),
                format!(
                    "打{}：听牌，听 {useful}（还剩 {live} 张）；{}。",
                    name.zh, paid.zh
                ),
            )
        } else {
            let far = steps(dist.shanten);
            Words::new(
                format!(
                    "Discard {}: {} from ready, {live} live useful {} ({useful}), heading for {}; {}.",
                    name.en,
                    far.en,
                    tiles_en(live),
                    target.en,
                    paid.en
                ),
                format!(
                    "打{}：{}，有效牌 {live} 张（{useful}），{}；{}。",
                    name.zh,
                    far.zh,
                    // 跑风 has one shape to make: a plain 胡.
                    if target.zh == "胡" {
                        "奔着胡牌".to_string()
                    } else {
                        format!("做{}", target.zh)
                    },
                    paid.zh
                ),
            )
        };
        discards.push(DiscardHint {
            tile: t,
            shanten: dist.shanten,
            useful,
            live,
            fans,
            target: Some(target.en),
            points,
            reason: reason.en,
            reason_zh: reason.zh,
            versus: None,
            versus_zh: None,
        });
    }
    // Best first: the hard bot's discard, then the nearest, then the most live tiles.
    discards.sort_by(|a, b| {
        let ra = recommended == Action::Discard(a.tile);
        let rb = recommended == Action::Discard(b.tile);
        rb.cmp(&ra)
            .then(a.shanten.cmp(&b.shanten))
            .then(b.live.cmp(&a.live))
            .then(a.tile.cmp(&b.tile))
    });
    for i in 0..discards.len().saturating_sub(1).min(TOP_EXPLAINED) {
        let (a, b) = (&discards[i], &discards[i + 1]);
        let o = words::tile(b.tile).zh;
        let why = if Some(a.tile) == view.flower_tile {
            Words::new(
                format!("Beats {}: a flower only blocks the win.", b.tile),
                format!("优于打{o}：花牌留在手里只会挡住胡牌。"),
            )
        } else if a.shanten < b.shanten {
            let (sa, sb) = (steps_or_ready(a.shanten), steps_or_ready(b.shanten));
            Words::new(
                format!("Beats {}: {} from ready against {}.", b.tile, sa.en, sb.en),
                format!("优于打{o}：这张打后{}，打{o}则{}。", sa.zh, sb.zh),
            )
        } else if a.points > b.points {
            Words::new(
                format!(
                    "Beats {}: about {} against {} from each.",
                    b.tile, a.points, b.points
                ),
                format!(
                    "优于打{o}：每家约付 {} 分，打{o}约 {} 分。",
                    a.points, b.points
                ),
            )
        } else if a.live > b.live {
            Words::new(
                format!(
                    "Beats {}: {} live useful tiles against {}.",
                    b.tile, a.live, b.live
                ),
                format!("优于打{o}：有效牌 {} 张，打{o}只有 {} 张。", a.live, b.live),
            )
        } else if a.live == b.live {
            Words::new(
                format!("Even with {} on distance and live tiles.", b.tile),
                format!("与打{o}不相上下：向听和有效牌都一样。"),
            )
        } else {
            Words::new(
                format!(
                    "Beats {} on safety: it is likelier to feed a hand that looks close.",
                    b.tile
                ),
                format!("比打{o}安全：{o}更容易给快听牌的人点炮。"),
            )
        };
        discards[i].versus = Some(why.en);
        discards[i].versus_zh = Some(why.zh);
    }
    let reason = match recommended {
        Action::ConcealedKong(t) | Action::AddedKong(t) => kong_reason(view, t, recommended),
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

/// Why a kong: what it pays in this game.
fn kong_reason(view: &SeatView, t: Tile, a: Action) -> Words {
    const KEPT: (&str, &str) = (
        ", paid now and kept even in a drawn hand",
        "，当场就付，荒牌也不退",
    );
    let paid = match (view.rules.kong_payments, a) {
        (true, Action::ConcealedKong(_)) => Words::new(
            format!("2 from each other player{}", KEPT.0),
            format!("其他每家付 2 分{}", KEPT.1),
        ),
        (true, Action::AddedKong(_)) => Words::new(
            format!("1 from each other player{}", KEPT.0),
            format!("其他每家付 1 分{}", KEPT.1),
        ),
        (true, _) => Words::new(
            format!("3 from the discarder{}", KEPT.0),
            format!("放杠的人付 3 分{}", KEPT.1),
        ),
        (false, _) => Words::new("1 more from each when you win", "胡牌时每家多付 1 分"),
    };
    let t = words::tile(t);
    Words::new(
        format!(
            "Declare the kong of {}: it is {}, and you draw a replacement tile.",
            t.en, paid.en
        ),
        format!("杠{}：{}，杠后补摸一张。", t.zh, paid.zh),
    )
}

/// Take a pung or kong, or pass: the distance now and after, over this game's shapes.
fn claim_reason(view: &SeatView, k: &Knowledge, tile: Tile, recommended: Action) -> Words {
    let melds = k.melds.len();
    let name = words::tile(tile);
    let shanten = |c: &TileCounts, m: usize| distance(k, c, m, view.wild).map_or(8, |d| d.shanten);
    let now = shanten(&k.hand, melds);
    let after = |a: Action| -> Option<i8> {
        let (after, new_melds) = after_claim(k, tile, a, None)?;
        if a == Action::Kong {
            return Some(shanten(&after, new_melds.len()));
        }
        after
            .kinds()
            .filter(|&d| Some(d) != view.wild)
            .map(|d| {
                let mut c = after;
                c.remove(d);
                shanten(&c, new_melds.len())
            })
            .min()
    };
    match recommended {
        Action::Kong => {
            let paid = if view.rules.kong_payments {
                Words::new(
                    "the discarder pays 3 now, kept even in a drawn hand",
                    "放杠的人当场付 3 分，荒牌也不退",
                )
            } else {
                Words::new(
                    "it adds 1 to what each pays when you win",
                    "胡牌时每家多付 1 分",
                )
            };
            let s = steps_or_ready(after(Action::Kong).unwrap_or(now));
            Words::new(
                format!(
                    "Kong the {}: {}; you draw a replacement and stay {} from ready.",
                    name.en, paid.en, s.en
                ),
                format!("杠{}：{}；杠后补摸一张，仍是{}。", name.zh, paid.zh, s.zh),
            )
        }
        Action::Pung => {
            let (from, to) = (
                steps_or_ready(now),
                steps_or_ready(after(Action::Pung).unwrap_or(now)),
            );
            Words::new(
                format!(
                    "Pung the {}: {} from ready now, {} after the pung and your best discard.",
                    name.en, from.en, to.en
                ),
                format!(
                    "碰{}：现在是{}，碰后打出最好的一张就是{}。",
                    name.zh, from.zh, to.zh
                ),
            )
        }
        _ => match after(Action::Pung) {
            Some(s) if s >= now => {
                let s = steps_or_ready(s);
                Words::new(
                    format!(
                        "Let the {} go: a pung leaves you {} from ready, no closer than now.",
                        name.en, s.en
                    ),
                    format!("过，不碰{}：碰了还是{}，并没有更近。", name.zh, s.zh),
                )
            }
            _ => {
                let s = steps_or_ready(now);
                Words::new(
                    format!(
                        "Let the {} go: your hand stays {} from ready.",
                        name.en, s.en
                    ),
                    format!("过，不要{}：手牌仍是{}。", name.zh, s.zh),
                )
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::{Bot, Level, LevelBot};
    use crate::game::{Game, HandSetup};
    use crate::rules::{Paofeng, RuleSet};
    use crate::score::mcr::FANS;
    use crate::seat::{Seat, Wind};
    use crate::wall::Seed;

    /// Every text a hint shows.
    fn texts(h: &Hint) -> Vec<String> {
        match h {
            Hint::Win { reason, .. } | Hint::Claim { reason, .. } => vec![reason.clone()],
            Hint::Turn {
                reason, discards, ..
            } => {
                let mut out = vec![reason.clone()];
                for d in discards {
                    out.push(d.reason.clone());
                    out.extend(d.fans.iter().cloned());
                    out.extend(d.target.iter().cloned());
                    out.extend(d.versus.iter().cloned());
                }
                out
            }
        }
    }

    /// Under 点炮 and 跑风 (and variants): hints name no Chinese Official fan, each
    /// discard's distance is the bots' distance for that game, and the recommended action
    /// is the hard bot's.
    #[test]
    fn tongcheng_hints_name_no_official_fan_and_measure_the_bots_distance() {
        let variants = [
            RuleSet::tongcheng_dianpao(),
            RuleSet {
                green_flowers: true,
                ..RuleSet::tongcheng_dianpao()
            },
            RuleSet::tongcheng_paofeng(),
            RuleSet {
                paofeng: Paofeng::Hidden,
                ..RuleSet::tongcheng_paofeng()
            },
        ];
        for rules in variants {
            let (mut turns, mut claims, mut ready) = (0, 0, 0);
            for seed in 0..6u64 {
                let mut g = Game::new(HandSetup {
                    rules: rules.clone(),
                    seed: Seed::from_u64(seed),
                    dealer: Seat((seed % 4) as u8),
                    prevalent: Wind::East,
                    dealer_level: 0,
                });
                let mut bots: [LevelBot; 4] =
                    std::array::from_fn(|i| LevelBot::new(Level::Normal, seed * 4 + i as u64));
                while !g.is_finished() {
                    for s in g.pending_seats() {
                        let v = g.view(s);
                        if let Some(h) = super::super::hint(&v) {
                            check(&v, &h, &mut turns, &mut claims, &mut ready);
                        }
                        let a = bots[s.index()].choose(&v);
                        g.apply(s, a).unwrap();
                    }
                }
            }
            assert!(
                turns > 100 && ready > 0,
                "{}: {turns} turns, {ready} ready",
                rules.name
            );
            if rules.discard_wins != crate::rules::DiscardWins::Never {
                assert!(claims > 0, "{}: no claim hint", rules.name);
            }
        }
    }

    fn check(v: &SeatView, h: &Hint, turns: &mut u32, claims: &mut u32, ready: &mut u32) {
        // Every text has its Chinese beside it.
        assert!(crate::hint::reads_as_chinese(&h.reason().zh), "{h:?}");
        if let Hint::Turn { discards, .. } = h {
            for d in discards {
                assert!(crate::hint::reads_as_chinese(&d.reason_zh), "{d:?}");
                let versus = d.versus_zh.as_deref();
                assert!(versus.is_none_or(crate::hint::reads_as_chinese), "{d:?}");
            }
        }
        for t in texts(h) {
            for f in &FANS {
                assert!(
                    !t.contains(f.zh) && !t.contains(f.en),
                    "names the official fan {} {}: {t}",
                    f.zh,
                    f.en
                );
            }
        }
        let k = Knowledge::from_view(v);
        let melds = k.melds.len();
        match h {
            Hint::Turn {
                recommended,
                discards,
                ..
            } => {
                *turns += 1;
                assert_eq!(*recommended, LevelBot::new(Level::Hard, 0).choose(v));
                for d in discards {
                    let mut c = k.hand;
                    c.remove(d.tile);
                    let bots = match v.wild {
                        Some(w) => wild_distance(&k, &c, w, melds).unwrap().shanten,
                        None => {
                            k.best_after_each_discard(&k.hand, melds, 1 << d.tile.index(), 0)
                                .unwrap()[d.tile.index()]
                            .shanten
                        }
                    };
                    assert_eq!(d.shanten, bots, "discard {}: {}", d.tile, d.reason);
                    *ready += u32::from(d.shanten == 0);
                }
            }
            Hint::Claim { .. } => *claims += 1,
            Hint::Win { .. } => {}
        }
    }
}
