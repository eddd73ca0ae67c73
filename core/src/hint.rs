//! Hints for the human (智能化的提示): every candidate discard ranked with its shanten, live
//! useful tiles, the fans it is heading for and a one-line reason; for a claim, whether to
//! take it and why. Hints use the hard bot's judgement and see only the human's own view.

mod reasons;
mod tongcheng;
mod wild;
pub mod words;

pub use words::{Words, reads_as_chinese};

use serde::{Deserialize, Serialize};

use crate::bot::eval::{Target, small_fans, targets, valid_waits};
use crate::bot::knowledge::Knowledge;
use crate::bot::{Bot, DiscardJudgement, Level, LevelBot, judge_discards};
use crate::game::{Action, DecisionKind, SeatView};
use crate::tile::Tile;

/// One candidate discard, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiscardHint {
    pub tile: Tile,
    /// Shanten after this discard (0 ready, −1 cannot happen here).
    pub shanten: i8,
    /// Useful tile kinds after the discard, in notation.
    pub useful: String,
    /// Live copies of those tiles (not yet seen by you).
    pub live: u32,
    /// Fans this hand is heading for, most likely first.
    pub fans: Vec<String>,
    /// The fan target this discard keeps (the best wait's top fan when ready), if any.
    #[serde(default)]
    pub target: Option<String>,
    /// Roughly how many points the hand is worth on this line: the best paying wait when
    /// ready, otherwise the hard bot's estimate of the target plus small fans on the way.
    #[serde(default)]
    pub points: u32,
    pub reason: String,
    /// The reason in 简体中文 (built beside the English one).
    #[serde(default)]
    pub reason_zh: String,
    /// For the top choices: why this discard is ranked above the next one.
    #[serde(default)]
    pub versus: Option<String>,
    /// `versus` in 简体中文.
    #[serde(default)]
    pub versus_zh: Option<String>,
}

/// Advice on a pending decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Hint {
    /// A win is on offer.
    Win {
        reason: String,
        #[serde(default)]
        reason_zh: String,
    },
    /// Your turn: the recommended action and every discard ranked best first.
    Turn {
        recommended: Action,
        /// Why the recommended action (a kong as much as a discard).
        #[serde(default)]
        reason: String,
        #[serde(default)]
        reason_zh: String,
        discards: Vec<DiscardHint>,
    },
    /// A claim (or a kong to rob): take it or not, and why.
    Claim {
        recommended: Action,
        reason: String,
        #[serde(default)]
        reason_zh: String,
    },
}

impl Hint {
    /// Why, in English and in 简体中文 (every reason carries both; `reason` alone is the
    /// English, `reason_zh` the Chinese, so older hints without it still read).
    pub fn reason(&self) -> Words {
        match self {
            Hint::Win { reason, reason_zh }
            | Hint::Turn {
                reason, reason_zh, ..
            }
            | Hint::Claim {
                reason, reason_zh, ..
            } => Words::new(reason.clone(), reason_zh.clone()),
        }
    }
}

/// Advice for the seat whose view this is, or `None` when it has nothing to decide.
pub fn hint(view: &SeatView) -> Option<Hint> {
    let d = view.decision.as_ref()?;
    let tongcheng_table = view.rules.tongcheng_table();
    if d.legal.contains(&Action::Win) {
        let reason = if tongcheng_table.is_some() {
            Words::new(
                "This tile completes your hand: declare the win (every win pays in this game).",
                "这张牌让你胡牌：胡吧（这个玩法凡胡都有分）。",
            )
        } else {
            Words::new(
                "This tile completes your hand with at least the minimum: declare the win.",
                "这张牌让你胡牌，而且够起胡番数：胡吧。",
            )
        };
        return Some(Hint::Win {
            reason: reason.en,
            reason_zh: reason.zh,
        });
    }
    // The hard bot's choice, made deterministic by a fixed seed.
    let recommended = LevelBot::new(Level::Hard, 0).choose(view);
    // The Tongcheng games have their own shapes and prices: no Chinese Official fans.
    if let Some(table) = tongcheng_table {
        return Some(tongcheng::hint(view, table, d, recommended));
    }
    let k = Knowledge::from_view(view);
    match d.kind {
        DecisionKind::Turn if view.wild.is_some() => {
            Some(wild::turn(view, &k, &d.legal, recommended))
        }
        DecisionKind::Turn => {
            let judged = judge_discards(&k, &d.legal);
            let mut discards: Vec<DiscardHint> =
                judged.iter().map(|j| discard_hint(&k, j)).collect();
            // The top choices say why they beat the next one down.
            for i in 0..discards.len().saturating_sub(1).min(TOP_EXPLAINED) {
                let why =
                    reasons::versus(&judged[i], &discards[i], &judged[i + 1], &discards[i + 1]);
                discards[i].versus = Some(why.en);
                discards[i].versus_zh = Some(why.zh);
            }
            let reason = reasons::turn(&k, recommended, &discards);
            Some(Hint::Turn {
                recommended,
                reason: reason.en,
                reason_zh: reason.zh,
                discards,
            })
        }
        DecisionKind::Claim { tile } => {
            let reason = reasons::claim(&k, tile, recommended, &d.legal);
            Some(Hint::Claim {
                recommended,
                reason: reason.en,
                reason_zh: reason.zh,
            })
        }
        DecisionKind::RobKong { tile } => {
            let t = words::tile(tile);
            Some(Hint::Claim {
                recommended,
                reason: format!("Robbing the kong on {} is not a valid win for you.", t.en),
                reason_zh: format!("抢杠{}对你不成胡。", t.zh),
            })
        }
    }
}

impl DiscardHint {
    /// Ready with at least one paying wait.
    pub fn valid_first(&self) -> bool {
        self.shanten == 0 && !self.reason.contains("no wait reaches")
    }
}

/// The fans of the best-paying wait of a ready hand.
fn best_wait_fans(
    k: &Knowledge,
    c: &crate::tile::TileCounts,
    waits: crate::tile::TileSet,
) -> Option<Vec<String>> {
    use crate::score::mcr;
    let tiles = c.tiles();
    let opts = k.mcr;
    let mut best: Option<mcr::Breakdown> = None;
    for w in waits.iter() {
        let mut ctx = mcr::WinContext::new(&tiles, &k.melds, w);
        ctx.seat_wind = k.seat_wind;
        ctx.round_wind = k.round_wind;
        if let Ok(b) = mcr::score(&ctx, &opts)
            && best.as_ref().is_none_or(|x| b.total > x.total)
        {
            best = Some(b);
        }
    }
    best.map(|b| {
        b.fans
            .iter()
            .filter(|f| f.id != mcr::id::FLOWER_TILES)
            .map(|f| format!("{} {}", f.fan().zh, f.fan().en))
            .collect()
    })
}

/// How many of the top-ranked discards say why they beat the next one.
const TOP_EXPLAINED: usize = 3;

/// One judged discard as a hint: distance, live useful tiles, the fan target it keeps, the
/// points it is roughly worth and a reason in words.
fn discard_hint(k: &Knowledge, j: &DiscardJudgement) -> DiscardHint {
    let mut c = k.hand;
    c.remove(j.tile);
    let mut fans: Vec<String> = Vec::new();
    let kept = target_kept(k, &c);
    let small = small_fans(k, &c, &k.melds);
    // The target's own points plus the small fans on the way (not the bot's discounted
    // estimate): what a player would call "playing for about N points".
    let mut points = kept.as_ref().map_or(0, |t| t.points) + small.round() as u32;
    if j.progress.shanten == 0 {
        let (_, _, best) = valid_waits(k, &c, &k.melds, j.progress.useful);
        points = best;
        if let Some(f) = best_wait_fans(k, &c, j.progress.useful) {
            fans = f;
        }
    }
    if fans.is_empty() {
        let mut ts = targets(k, &c, &k.melds);
        ts.sort_by_key(|t| (t.missing, std::cmp::Reverse(t.points)));
        fans = ts
            .iter()
            .filter(|t| t.missing <= 3)
            .take(2)
            .map(|t| t.name.to_string())
            .collect();
    }
    let target = if j.progress.shanten == 0 {
        fans.first().cloned()
    } else {
        kept.as_ref().map(|t| t.name.to_string())
    };
    let reason = reasons::discard(k, j, kept.as_ref(), points, small);
    DiscardHint {
        tile: j.tile,
        shanten: j.progress.shanten,
        useful: j.progress.useful.to_notation(),
        live: j.progress.live,
        fans,
        target,
        points,
        reason: reason.en,
        reason_zh: reason.zh,
        versus: None,
        versus_zh: None,
    }
}

/// The fan target worth keeping: the best expected points (points discounted per missing
/// tile), among targets a few tiles away. 五门齐 is judged strictly here — a lone wind or
/// dragon is not yet a pair — so an opening hand is not always "heading for 五门齐".
fn target_kept(k: &Knowledge, c: &crate::tile::TileCounts) -> Option<Target> {
    let mut all = *c;
    for m in &k.melds {
        m.add_to(&mut all);
    }
    let a = &all.0;
    let group_short = |range: std::ops::Range<usize>, need: u8| -> u32 {
        let best = a[range.clone()].iter().copied().max().unwrap_or(0);
        let sum: u8 = a[range].iter().sum();
        // A suit needs a few tiles to make a set; an honor group needs a pair of one face.
        if need == 3 {
            u32::from(3u8.saturating_sub(sum.min(3)))
        } else {
            u32::from(need.saturating_sub(best))
        }
    };
    targets(k, c, &k.melds)
        .into_iter()
        .map(|mut t| {
            if t.name.starts_with("五门齐") {
                t.missing = group_short(0..9, 3)
                    + group_short(9..18, 3)
                    + group_short(18..27, 3)
                    + group_short(27..31, 2)
                    + group_short(31..34, 2);
            }
            t
        })
        .filter(|t| t.missing <= 4)
        .max_by(|x, y| {
            let ex = x.points as f32 * 0.5f32.powi(x.missing as i32);
            let ey = y.points as f32 * 0.5f32.powi(y.missing as i32);
            ex.total_cmp(&ey).then(y.missing.cmp(&x.missing))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, HandSetup};
    use crate::rules::RuleSet;
    use crate::seat::{Seat, Wind};
    use crate::wall::Seed;

    use crate::game::{Decision, events::SeatPublic};
    use crate::tile::parse_tiles;

    /// A view of seat 0 on its turn holding `hand` plus `drawn`, an empty table otherwise.
    fn turn_view(hand: &str, drawn: &str) -> SeatView {
        let mut all = parse_tiles(hand).unwrap();
        let drawn: Tile = drawn.parse().unwrap();
        all.push(drawn);
        let mut kinds = all.clone();
        kinds.sort();
        kinds.dedup();
        let seats = Seat::ALL
            .iter()
            .map(|&s| SeatPublic {
                seat: s,
                wind: Wind::from_index(s.index()),
                concealed_count: 13,
                melds: vec![],
                discards: vec![],
                flowers: vec![],
            })
            .collect();
        SeatView {
            seat: Seat(0),
            dealer: Seat(0),
            prevalent: Wind::East,
            hand: parse_tiles(hand).unwrap(),
            drawn: Some(drawn),
            seats,
            wall_remaining: 60,
            turn: Some(Seat(0)),
            claim: None,
            decision: Some(Decision {
                kind: DecisionKind::Turn,
                legal: kinds.into_iter().map(Action::Discard).collect(),
                limit_secs: 15,
                on_timeout: Action::Discard(drawn),
            }),
            finished: false,
            wild: None,
            wild_indicator: None,
            locked: false,
            stand_in: None,
            flower_tile: None,
            paofeng: Vec::new(),
            dealer_level: 0,
            rules: RuleSet::guobiao(),
        }
    }

    #[test]
    fn the_only_discard_that_keeps_a_ready_hand_comes_first() {
        let v = turn_view("123456789m46p99s", "1z");
        let Some(Hint::Turn {
            recommended,
            discards,
            ..
        }) = hint(&v)
        else {
            panic!()
        };
        assert_eq!(recommended, Action::Discard(Tile::EAST));
        assert_eq!(discards[0].tile, Tile::EAST);
        assert_eq!(discards[0].shanten, 0);
        assert_eq!(discards[0].useful, "5p");
        assert!(
            discards[0].fans.iter().any(|f| f.contains("清龙")),
            "{:?}",
            discards[0].fans
        );
        assert!(discards[1..].iter().all(|d| d.shanten >= 1));
    }

    #[test]
    fn a_ready_hand_that_cannot_reach_eight_is_avoided() {
        // Discarding 9m leaves 123m 456p 789s 23s 55z waiting on 1s/4s: 花龙 8 — valid.
        // Discarding 1s leaves 123m 456p 789s 9m.. not ready. The hint must prefer the
        // discard whose waits pay.
        let v = turn_view("123m456p789s23s55z", "9m");
        let Some(Hint::Turn {
            recommended,
            discards,
            ..
        }) = hint(&v)
        else {
            panic!()
        };
        assert_eq!(recommended, Action::Discard("9m".parse().unwrap()));
        assert!(discards[0].valid_first());
    }

    #[test]
    fn the_minimum_comes_from_the_tables_rules() {
        // 123m 456m 234p 55p 67s after discarding 9p: ready on 5s/8s, a few points at most.
        let nine: Tile = "9p".parse().unwrap();
        let discard_9p = |v: &SeatView| match hint(v) {
            Some(Hint::Turn { discards, .. }) => {
                let rank = discards.iter().position(|d| d.tile == nine).unwrap();
                (rank, discards[rank].clone())
            }
            other => panic!("{other:?}"),
        };
        let mut v = turn_view("123m456m234p55p67s", "9p");
        let (rank, strict) = discard_9p(&v);
        assert_eq!(strict.shanten, 0);
        assert!(rank > 0, "ranked below a hand that can still reach 8");
        assert!(
            strict.reason.contains("no wait reaches 8 points"),
            "{}",
            strict.reason
        );
        v.rules.mcr.min_points = 0;
        let (rank, open) = discard_9p(&v);
        assert_eq!(rank, 0, "{}", open.reason);
        assert!(open.valid_first(), "{}", open.reason);
    }

    #[test]
    fn under_hangzhou_rules_the_hint_keeps_the_wild() {
        // Play Hangzhou hands until seat 0 holds a wild on its turn; the hint must not put
        // the wild first unless it is the 财飘 the hard bot picked.
        let mut found = 0;
        for seed in 0..40u64 {
            let mut g = Game::new(HandSetup {
                rules: RuleSet::hangzhou(),
                seed: Seed::from_u64(seed),
                dealer: Seat(0),
                prevalent: Wind::East,
                dealer_level: 0,
            });
            let v = g.view(Seat(0));
            let wild = v.wild.expect("Hangzhou has a wild");
            let holds = v.hand.contains(&wild) || v.drawn == Some(wild);
            if let (
                true,
                Some(Hint::Turn {
                    recommended,
                    discards,
                    ..
                }),
            ) = (holds, hint(&v))
            {
                found += 1;
                let legal = v.decision.as_ref().unwrap().legal.clone();
                assert!(legal.contains(&recommended));
                let n = legal
                    .iter()
                    .filter(|a| matches!(a, Action::Discard(_)))
                    .count();
                assert_eq!(discards.len(), n);
                if recommended != Action::Discard(wild) {
                    assert_ne!(discards[0].tile, wild, "seed {seed}");
                    assert_eq!(discards.last().unwrap().tile, wild, "the wild goes last");
                }
            }
            let _ = g.apply(Seat(0), Action::Discard(v.drawn.unwrap_or(v.hand[0])));
        }
        assert!(found > 0, "some deal gives the dealer a wild");
    }

    #[test]
    fn hints_rank_every_discard_and_keep_a_ready_hand() {
        // Play until seat 0 has a turn, then check the hint covers every legal discard.
        let mut g = Game::new(HandSetup {
            rules: RuleSet::guobiao(),
            seed: Seed::from_u64(11),
            dealer: Seat(0),
            prevalent: Wind::East,
            dealer_level: 0,
        });
        let v = g.view(Seat(0));
        let Some(Hint::Turn {
            discards,
            recommended,
            ..
        }) = hint(&v)
        else {
            panic!("the dealer's first turn gets a turn hint")
        };
        let legal = v.decision.as_ref().unwrap().legal.clone();
        let n = legal
            .iter()
            .filter(|a| matches!(a, Action::Discard(_)))
            .count();
        assert_eq!(discards.len(), n);
        assert!(legal.contains(&recommended));
        assert!(discards.iter().all(|d| !d.reason.is_empty()));
        g.apply(Seat(0), recommended).unwrap();
    }

    /// The dealer's first turn in a Chinese Official hand dealt from `seed`.
    fn opening_view(seed: u64) -> SeatView {
        Game::new(HandSetup {
            rules: RuleSet::guobiao(),
            seed: Seed::from_u64(seed),
            dealer: Seat(0),
            prevalent: Wind::East,
            dealer_level: 0,
        })
        .view(Seat(0))
    }

    #[test]
    fn opening_hints_explain_distance_live_tiles_target_and_the_runner_up() {
        let mut targets = std::collections::BTreeSet::new();
        for seed in 0..40u64 {
            let v = opening_view(seed);
            let Some(Hint::Turn {
                reason, discards, ..
            }) = hint(&v)
            else {
                continue;
            };
            assert!(!reason.is_empty());
            let top = &discards[0];
            if top.shanten > 0 {
                assert!(top.reason.contains("from ready"), "{}", top.reason);
                assert!(top.reason.contains("live useful"), "{}", top.reason);
                assert!(top.reason.contains(&top.live.to_string()), "{}", top.reason);
            }
            if let Some(t) = &top.target {
                assert!(top.reason.contains(t.as_str()), "{}", top.reason);
                targets.insert(t.clone());
            }
            // The top choices say why they beat the next one, naming it.
            for (i, d) in discards.iter().enumerate().take(TOP_EXPLAINED) {
                if i + 1 < discards.len() {
                    let why = d.versus.as_deref().expect("top choices compare");
                    assert!(
                        why.contains(&discards[i + 1].tile.to_string()),
                        "{why} / {}",
                        discards[i + 1].tile
                    );
                }
            }
        }
        assert!(
            targets.len() >= 3,
            "the opening target is not one template: {targets:?}"
        );
    }

    #[test]
    fn a_ranked_discard_with_fewer_live_tiles_says_why() {
        // Same distance, fewer live tiles but ranked first: the comparison names value or
        // safety, not a bare ranking.
        for seed in 0..60u64 {
            let v = opening_view(seed);
            let Some(Hint::Turn { discards, .. }) = hint(&v) else {
                continue;
            };
            let (a, b) = (&discards[0], &discards[1]);
            if a.shanten == b.shanten && a.live < b.live {
                let why = a.versus.as_deref().unwrap();
                assert!(
                    why.contains("points") || why.contains("safer") || why.contains("balance"),
                    "{why}"
                );
            }
        }
    }

    #[test]
    fn a_kong_suggestion_comes_with_a_reason() {
        let mut v = turn_view("1111m456p789s234s5z", "5z");
        let d = v.decision.as_mut().unwrap();
        d.legal.push(Action::ConcealedKong("1m".parse().unwrap()));
        let Some(Hint::Turn {
            recommended,
            reason,
            ..
        }) = hint(&v)
        else {
            panic!()
        };
        assert_eq!(recommended, Action::ConcealedKong("1m".parse().unwrap()));
        assert!(reason.contains("kong of 1 of Characters"), "{reason}");
        let zh = hint(&v).unwrap().reason().zh;
        assert!(zh.starts_with("杠一万：") && zh.contains("暗杠"), "{zh}");
        assert!(reads_as_chinese(&zh), "{zh}");
        assert!(
            reason.contains("from ready") || reason.contains("ready"),
            "{reason}"
        );
    }

    #[test]
    fn claim_hints_say_the_distance_before_and_after() {
        let mut v = turn_view("23m456p789s234s55z", "1z");
        v.drawn = None;
        v.hand = parse_tiles("23m456p789s234s55z").unwrap();
        v.decision = Some(Decision {
            kind: DecisionKind::Claim {
                tile: "4m".parse().unwrap(),
            },
            legal: vec![Action::Chow("2m".parse().unwrap()), Action::Pass],
            limit_secs: 3,
            on_timeout: Action::Pass,
        });
        let Some(Hint::Claim { reason, .. }) = hint(&v) else {
            panic!()
        };
        assert!(
            reason.contains("from ready") || reason.contains("ready"),
            "{reason}"
        );
        assert!(reason.contains("4 of Characters"), "{reason}");
        let zh = hint(&v).unwrap().reason().zh;
        assert!(zh.contains("四万") && reads_as_chinese(&zh), "{zh}");
        // A kong to rob that does not win says so in both languages.
        v.decision.as_mut().unwrap().kind = DecisionKind::RobKong {
            tile: "4m".parse().unwrap(),
        };
        v.decision.as_mut().unwrap().legal = vec![Action::Pass];
        let w = hint(&v).unwrap().reason();
        assert!(
            w.en.contains("Robbing the kong on 4 of Characters"),
            "{}",
            w.en
        );
        assert_eq!(w.zh, "抢杠四万对你不成胡。");
    }
}
