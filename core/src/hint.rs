//! Hints for the human (智能化的提示): every candidate discard ranked with its shanten, live
//! useful tiles, the fans it is heading for and a one-line reason; for a claim, whether to
//! take it and why. Hints use the hard bot's judgement and see only the human's own view.

use serde::{Deserialize, Serialize};

use crate::bot::eval::{danger, small_fans, targets, valid_waits};
use crate::bot::knowledge::Knowledge;
use crate::bot::{Bot, Level, LevelBot, judge_discards};
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
    pub reason: String,
}

/// Advice on a pending decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Hint {
    /// A win is on offer.
    Win { reason: String },
    /// Your turn: the recommended action and every discard ranked best first.
    Turn {
        recommended: Action,
        discards: Vec<DiscardHint>,
    },
    /// A claim (or a kong to rob): take it or not, and why.
    Claim { recommended: Action, reason: String },
}

/// Advice for the seat whose view this is, or `None` when it has nothing to decide.
pub fn hint(view: &SeatView) -> Option<Hint> {
    let d = view.decision.as_ref()?;
    if d.legal.contains(&Action::Win) {
        return Some(Hint::Win {
            reason: "This tile completes your hand with at least the minimum: declare the win."
                .into(),
        });
    }
    let k = Knowledge::from_view(view);
    // The hard bot's choice, made deterministic by a fixed seed.
    let recommended = LevelBot::new(Level::Hard, 0).choose(view);
    match d.kind {
        DecisionKind::Turn if view.wild.is_some() => {
            Some(wild_turn_hint(view, &k, &d.legal, recommended))
        }
        DecisionKind::Turn => {
            let judged = judge_discards(&k, &d.legal);
            let discards = judged
                .iter()
                .map(|j| {
                    let mut c = k.hand;
                    c.remove(j.tile);
                    let mut ts = targets(&k, &c, &k.melds);
                    ts.sort_by_key(|t| (t.missing, std::cmp::Reverse(t.points)));
                    let mut fans: Vec<String> = Vec::new();
                    if let Some(f) = (j.progress.shanten == 0)
                        .then(|| best_wait_fans(&k, &c, j.progress.useful))
                        .flatten()
                    {
                        fans = f;
                    }
                    if fans.is_empty() {
                        fans = ts
                            .iter()
                            .filter(|t| t.missing <= 3)
                            .take(2)
                            .map(|t| t.name.to_string())
                            .collect();
                    }
                    let reason = reason_for(&k, j, &fans, small_fans(&k, &c, &k.melds));
                    DiscardHint {
                        tile: j.tile,
                        shanten: j.progress.shanten,
                        useful: j.progress.useful.to_notation(),
                        live: j.progress.live,
                        fans,
                        reason,
                    }
                })
                .collect();
            Some(Hint::Turn {
                recommended,
                discards,
            })
        }
        DecisionKind::Claim { tile } => {
            let reason = if recommended == Action::Pass {
                format!(
                    "Let {} go: claiming it would not bring a hand worth the minimum closer.",
                    tile.name_en()
                )
            } else {
                format!(
                    "Take {} ({:?}): it brings your hand closer and keeps enough value for 8 points.",
                    tile.name_en(),
                    recommended
                )
            };
            Some(Hint::Claim {
                recommended,
                reason,
            })
        }
        DecisionKind::RobKong { tile } => Some(Hint::Claim {
            recommended,
            reason: format!(
                "Robbing the kong on {} is not a valid win for you.",
                tile.name_en()
            ),
        }),
    }
}

/// A turn under wild rules (Hangzhou 财神): discards ranked by shanten with the wilds as
/// jokers, then live useful tiles; a wild is never worth throwing unless it is the 财飘 the
/// hard bot chose.
fn wild_turn_hint(view: &SeatView, k: &Knowledge, legal: &[Action], recommended: Action) -> Hint {
    use crate::score::hangzhou::{is_baotou_state, split_wilds};
    let wild = view.wild.expect("checked by the caller");
    let white_as = view.wild_indicator.filter(|&t| t != Tile::WHITE);
    let melds = k.melds.len();
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
        let name = t.name_en();
        let (fans, reason) = if t == wild {
            (
                vec!["财飘 Wild discarded".to_string()],
                format!(
                    "Throw the 财神 ({name}) only for 财飘: it doubles your next win but locks nobody out of a wait."
                ),
            )
        } else if baotou {
            (
                vec!["爆头 Wild pair wait".to_string()],
                format!("Discard {name}: 爆头 — your wild waits as the pair, so every draw wins."),
            )
        } else if s.shanten == 0 {
            (
                Vec::new(),
                format!(
                    "Discard {name}: ready on {} ({live} live tiles); wins here are self-drawn.",
                    shape.useful.to_notation()
                ),
            )
        } else {
            (
                Vec::new(),
                format!(
                    "Discard {name}: {} away from ready with {live} live useful tiles, counting your {} as any tile.",
                    s.shanten,
                    match wilds {
                        0 => format!("wilds (财神 {}) when you draw them", wild.name_en()),
                        1 => format!("one wild (财神 {})", wild.name_en()),
                        n => format!("{n} wilds (财神 {})", wild.name_en()),
                    }
                ),
            )
        };
        discards.push((
            t == wild,
            DiscardHint {
                tile: t,
                shanten: s.shanten,
                useful: shape.useful.to_notation(),
                live,
                fans,
                reason,
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
    Hint::Turn {
        recommended,
        discards: discards.into_iter().map(|(_, d)| d).collect(),
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

fn reason_for(
    k: &Knowledge,
    j: &crate::bot::DiscardJudgement,
    fans: &[String],
    small: f32,
) -> String {
    let t = j.tile.name_en();
    let heading = fans
        .first()
        .map(|f| format!(", heading for {f}"))
        .unwrap_or_default();
    match j.progress.shanten {
        0 => match j.valid_waits {
            Some(0) => format!(
                "Discard {t}: ready on {}, but no wait reaches {} points — a wait you cannot win on.",
                j.progress.useful.to_notation(),
                k.mcr.min_points
            ),
            Some(v) => {
                let (_, all, best) = valid_waits(
                    k,
                    &{
                        let mut c = k.hand;
                        c.remove(j.tile);
                        c
                    },
                    &k.melds,
                    j.progress.useful,
                );
                format!(
                    "Discard {t}: ready on {} ({v} of {all} live tiles pay, up to {best} points).",
                    j.progress.useful.to_notation()
                )
            }
            None => format!("Discard {t}: ready on {}.", j.progress.useful.to_notation()),
        },
        s => {
            let safety = if danger(k, j.tile) < 0.2 {
                " It is a safe tile."
            } else {
                ""
            };
            format!(
                "Discard {t}: {s} away from ready with {} live useful tiles{heading}{}.{safety}",
                j.progress.live,
                if small >= 2.0 {
                    " (plus small fans on the way)"
                } else {
                    ""
                }
            )
        }
    }
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
}
