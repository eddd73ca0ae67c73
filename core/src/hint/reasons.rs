//! Why, in both languages, under the Chinese Official rules (points are 番): a discard's
//! reason, why it beats the next one down, why a kong, why to take or let go a claim.

use super::DiscardHint;
use super::words::{self, Words, points, steps, steps_or_ready, tiles_en, tiles_short, zh_name};
use crate::bot::DiscardJudgement;
use crate::bot::eval::{Target, danger, threat, valid_waits};
use crate::bot::knowledge::Knowledge;
use crate::game::Action;
use crate::tile::Tile;

/// Why one judged discard: distance, live useful tiles, the target it keeps, safety.
pub(super) fn discard(
    k: &Knowledge,
    j: &DiscardJudgement,
    kept: Option<&Target>,
    worth: u32,
    small: f32,
) -> Words {
    let t = words::tile(j.tile);
    let useful = j.progress.useful.to_notation();
    match j.progress.shanten {
        0 => match j.valid_waits {
            Some(0) => {
                let min = points(k.mcr.min_points);
                Words::new(
                    format!(
                        "Discard {}: ready on {useful}, but no wait reaches {} — a wait you cannot win on.",
                        t.en, min.en
                    ),
                    format!(
                        "打{}：听 {useful}，但没有一张能凑够 {}——听了也胡不了。",
                        t.zh, min.zh
                    ),
                )
            }
            Some(v) => {
                let mut c = k.hand;
                c.remove(j.tile);
                let (_, all, _) = valid_waits(k, &c, &k.melds, j.progress.useful);
                let up_to = points(worth);
                Words::new(
                    format!(
                        "Discard {}: ready on {useful} ({v} of {all} live tiles pay, up to {}).",
                        t.en, up_to.en
                    ),
                    format!(
                        "打{}：听 {useful}（剩 {all} 张，其中 {v} 张够番能胡，最多 {}）。",
                        t.zh, up_to.zh
                    ),
                )
            }
            None => Words::new(
                format!("Discard {}: ready on {useful}.", t.en),
                format!("打{}：听 {useful}。", t.zh),
            ),
        },
        s => {
            // "Safe" only means something once somebody looks close to winning.
            let threatened = k.opponents.iter().any(|o| threat(k, o) >= 0.3);
            let safety = if threatened && danger(k, j.tile) < 0.2 {
                Words::new(" It is a safe tile.", "这是安全牌。")
            } else {
                Words::default()
            };
            let about = points(worth);
            let heading = match kept {
                Some(target) => {
                    let (p, short) = (points(target.points), tiles_short(target.missing));
                    Words::new(
                        format!(
                            "; keeps {} in reach ({}, {}), worth about {} with small fans",
                            target.name, p.en, short.en, about.en
                        ),
                        format!(
                            "，留着{}的机会（{}，{}），连小番约 {}",
                            zh_name(target.name),
                            p.zh,
                            short.zh,
                            about.zh
                        ),
                    )
                }
                None if small >= 2.0 => Words::new(
                    format!("; no big fan in reach, small fans worth about {}", about.en),
                    format!("，暂无大番可做，小番约 {}", about.zh),
                ),
                None => Words::new("; no fan in reach yet", "，暂时还没有番可做"),
            };
            let (live, far) = (j.progress.live, steps(s));
            Words::new(
                format!(
                    "Discard {}: {} from ready, {live} live useful {} ({useful}){}.{}",
                    t.en,
                    far.en,
                    tiles_en(live),
                    heading.en,
                    safety.en
                ),
                format!(
                    "打{}：{}，有效牌 {live} 张（{useful}）{}。{}",
                    t.zh, far.zh, heading.zh, safety.zh
                ),
            )
        }
    }
}

/// Why discard `a` is ranked above `b`, from the one difference that decided it.
pub(super) fn versus(
    ja: &DiscardJudgement,
    a: &DiscardHint,
    jb: &DiscardJudgement,
    b: &DiscardHint,
) -> Words {
    let other = b.tile;
    let o = words::tile(other).zh;
    if a.shanten < b.shanten {
        let (sa, sb) = (steps_or_ready(a.shanten), steps_or_ready(b.shanten));
        return Words::new(
            format!("Beats {other}: {} from ready against {}.", sa.en, sb.en),
            format!("优于打{o}：这张打后{}，打{o}则{}。", sa.zh, sb.zh),
        );
    }
    if a.shanten == 0
        && let (Some(va), Some(vb)) = (ja.valid_waits, jb.valid_waits)
        && va != vb
    {
        return Words::new(
            format!("Beats {other}: {va} paying live tiles against {vb}."),
            format!("优于打{o}：够番能胡的牌剩 {va} 张，打{o}则是 {vb} 张。"),
        );
    }
    let value_gap = ja.value - jb.value;
    let safer = jb.danger - ja.danger;
    let (pa, pb) = (points(a.points), points(b.points));
    if value_gap >= 1.5 {
        let target = a.target.as_deref();
        let target = Words::new(
            target.map(|t| format!(" ({t})")).unwrap_or_default(),
            target
                .map(|t| format!("（{}）", zh_name(t)))
                .unwrap_or_default(),
        );
        let speed = if a.live < b.live {
            let n = b.live - a.live;
            Words::new(
                format!(", worth more than {n} more live tiles"),
                format!("，比多 {n} 张有效牌更值"),
            )
        } else {
            Words::default()
        };
        return Words::new(
            format!(
                "Beats {other}: keeps about {}{} against {}{}.",
                pa.en, target.en, pb.en, speed.en
            ),
            format!(
                "优于打{o}：保住约 {}{}，打{o}约 {}{}。",
                pa.zh, target.zh, pb.zh, speed.zh
            ),
        );
    }
    if safer >= 0.15 {
        return Words::new(
            format!(
                "Beats {other}: a safer tile to let go ({other} is likelier to feed a hand that looks close to winning)."
            ),
            format!("优于打{o}：这张更安全（{o}更容易给快听牌的人点炮）。"),
        );
    }
    if a.live > b.live {
        return Words::new(
            format!(
                "Beats {other}: {} live useful tiles against {}.",
                a.live, b.live
            ),
            format!("优于打{o}：有效牌 {} 张，打{o}只有 {} 张。", a.live, b.live),
        );
    }
    if a.live == b.live && value_gap.abs() < 0.5 && safer.abs() < 0.05 {
        return Words::new(
            format!("Even with {other} on speed, value and safety: either is fine."),
            format!("与打{o}在速度、番数和安全上不相上下：打哪张都行。"),
        );
    }
    Words::new(
        format!(
            "Beats {other} on balance: {} against {} live tiles, about {} against {}, and {} safe.",
            a.live,
            b.live,
            pa.en,
            pb.en,
            if safer > 0.0 { "more" } else { "as" }
        ),
        format!(
            "综合优于打{o}：有效牌 {} 对 {} 张，约 {} 对 {}，安全性{}。",
            a.live,
            b.live,
            pa.zh,
            pb.zh,
            if safer > 0.0 { "更高" } else { "相当" }
        ),
    )
}

/// Why the recommended turn action: a kong says what it keeps and gains; a discard repeats
/// its own reason.
pub(super) fn turn(k: &Knowledge, recommended: Action, discards: &[DiscardHint]) -> Words {
    let best = discards.first();
    match recommended {
        Action::ConcealedKong(t) | Action::AddedKong(t) => {
            let concealed = matches!(recommended, Action::ConcealedKong(_));
            let mut c = k.hand;
            let (n, melds) = if concealed {
                (4, k.melds.len() + 1)
            } else {
                (1, k.melds.len())
            };
            c.0[t.index()] = c.0[t.index()].saturating_sub(n);
            let s = steps_or_ready(crate::shanten::shanten_number(&c, melds));
            let gain = if concealed {
                Words::new(
                    "暗杠 Concealed Kong is 2 points and stays hidden",
                    "暗杠 2 番且不亮牌",
                )
            } else {
                Words::new("明杠 Melded Kong is 1 point", "明杠 1 番")
            };
            let t = words::tile(t);
            Words::new(
                format!(
                    "Declare the kong of {}: your hand stays {} from ready, you draw a replacement tile (a chance at 杠上开花 Out with Replacement Tile), and {}.",
                    t.en, s.en, gain.en
                ),
                format!(
                    "杠{}：手牌仍是{}，杠后补摸一张（有机会杠上开花），而且{}。",
                    t.zh, s.zh, gain.zh
                ),
            )
        }
        _ => best
            .map(|d| Words::new(d.reason.clone(), d.reason_zh.clone()))
            .unwrap_or_default(),
    }
}

/// Why to take a claim or let it go: the distance now and after, and the value kept.
pub(super) fn claim(k: &Knowledge, tile: Tile, recommended: Action, legal: &[Action]) -> Words {
    use crate::shanten::{after_each_discard, shanten_number};
    let name = words::tile(tile);
    let melds = k.melds.len();
    let now = shanten_number(&k.hand, melds);
    // Distance and value after a claim (and its best discard; a kong draws instead).
    let judge = |a: Action| -> Option<(i8, u32)> {
        let (after, new_melds) = crate::bot::after_claim(k, tile, a, None)?;
        if a == Action::Kong {
            let v = crate::bot::eval::value(k, &after, &new_melds);
            return Some((shanten_number(&after, new_melds.len()), v.round() as u32));
        }
        let each = after_each_discard(&after, new_melds.len());
        let s = after.kinds().map(|d| each[d.index()]).min()?;
        let v = after
            .kinds()
            .filter(|d| each[d.index()] == s)
            .map(|d| {
                let mut c = after;
                c.remove(d);
                crate::bot::eval::value(k, &c, &new_melds)
            })
            .fold(0.0f32, f32::max);
        Some((s, v.round() as u32))
    };
    let what = |a: Action| match a {
        Action::Chow(low) => Words::new(format!("chow from {low}"), chow_zh(low)),
        Action::Pung => Words::new("pung", "碰"),
        Action::Kong => Words::new("kong", "杠"),
        _ => Words::new("claim", "吃碰"),
    };
    let min = points(k.mcr.min_points);
    if recommended == Action::Pass {
        // Say what the most tempting claim would have done.
        let offer = legal
            .iter()
            .copied()
            .filter(|a| *a != Action::Pass)
            .filter_map(|a| judge(a).map(|r| (a, r)))
            .min_by_key(|(_, (s, v))| (*s, std::cmp::Reverse(*v)));
        return match offer {
            Some((a, (s, _))) if s >= now => {
                let (w, s) = (what(a), steps_or_ready(s));
                Words::new(
                    format!(
                        "Let {} go: a {} leaves you {} from ready, as you are now, and shows your hand.",
                        name.en, w.en, s.en
                    ),
                    format!(
                        "过，不要{}：{}后还是{}，没有更近，还亮出了手牌。",
                        name.zh, w.zh, s.zh
                    ),
                )
            }
            Some((a, (s, v))) => {
                let (w, s, v) = (what(a), steps_or_ready(s), points(v));
                Words::new(
                    format!(
                        "Let {} go: a {} would bring you to {} from ready, but the hand left is worth about {}, short of the {} minimum.",
                        name.en, w.en, s.en, v.en, min.en
                    ),
                    format!(
                        "过，不要{}：{}后能到{}，但剩下的牌只值约 {}，不够起胡的 {}。",
                        name.zh, w.zh, s.zh, v.zh, min.zh
                    ),
                )
            }
            None => Words::new(
                format!("Let {} go: no claim on it helps your hand.", name.en),
                format!("过，不要{}：吃碰它都帮不上你的牌。", name.zh),
            ),
        };
    }
    let w = what(recommended);
    // 碰西, 杠西, 吃七饼（六七八饼）: the claim as players call it.
    let take = match recommended {
        Action::Chow(low) => format!("吃{}（{}）", name.zh, &chow_zh(low)["吃".len()..]),
        Action::Pung | Action::Kong => format!("{}{}", w.zh, name.zh),
        _ => format!("要{}", name.zh),
    };
    match judge(recommended) {
        Some((s, v)) => {
            let (from, to, v) = (steps_or_ready(now), steps_or_ready(s), points(v));
            let way = if s == now {
                format!("仍是{}", to.zh)
            } else {
                format!("从{}到{}", from.zh, to.zh)
            };
            Words::new(
                format!(
                    "Take {} ({}): from {} to {} from ready, and the hand stays worth about {} (minimum {}).",
                    name.en, w.en, from.en, to.en, v.en, min.en
                ),
                format!("{take}：{way}，手牌还值约 {}（起胡 {}）。", v.zh, min.zh),
            )
        }
        None => Words::new(format!("Take {} ({}).", name.en, w.en), format!("{take}。")),
    }
}

/// A chow as players say it: the chow from 3 of Dots is 吃三四五饼.
pub(super) fn chow_zh(low: Tile) -> String {
    let rank = |d: i8| {
        low.offset(d)
            .map_or("", |t| t.short_name_zh())
            .chars()
            .next()
            .unwrap_or_default()
    };
    let suit = low.short_name_zh().chars().last().unwrap_or_default();
    format!("吃{}{}{}{suit}", rank(0), rank(1), rank(2))
}
