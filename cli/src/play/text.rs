//! Plain-text rendering of the table, the events, hints, results and standings: what the line
//! game prints. Tiles are in notation; every line fits in 80
//! columns (wrapped with an indent), so a transcript reads well in any terminal or file.

use tongcheng_core::describe;
use tongcheng_core::game::{Action, DecisionKind, Event, HandResult, SeatView, TableMeld};
use tongcheng_core::hand::{KongKind, MeldKind};
use tongcheng_core::hint::Hint;
use tongcheng_core::seat::Seat;
use tongcheng_core::tile::{Tile, to_notation};

use super::command::{action_text, legal_text};
use super::table::Table;
use super::tiles::TileFace;

/// Columns every printed line fits in.
pub const WIDTH: usize = 80;

/// Terminal cells a string takes: wide for CJK ideographs and punctuation, full-width forms
/// and 🀄; one for everything else we print (the rest of the mahjong block included).
pub fn display_width(s: &str) -> usize {
    s.chars()
        .map(|c| match c as u32 {
            0x1100..=0x115F
            | 0x2E80..=0x303E
            | 0x3041..=0x33FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xA000..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x1F004
            | 0x20000..=0x3FFFD => 2,
            0..=0x1F => 0,
            _ => 1,
        })
        .sum()
}

/// Cuts `s` to at most `width` cells (words longer than a line are the only thing this
/// affects; nothing we print has them in practice).
fn clip(s: &str, width: usize) -> String {
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = display_width(c.encode_utf8(&mut [0; 4]));
        if w + cw > width {
            break;
        }
        w += cw;
        out.push(c);
    }
    out
}

/// Lays `items` out after `prefix`, wrapping at [`WIDTH`] with continuation lines indented
/// to the prefix.
pub fn wrap_items(prefix: &str, items: &[String], sep: &str) -> Vec<String> {
    wrap_items_at(prefix, items, sep, WIDTH)
}

pub fn wrap_items_at(prefix: &str, items: &[String], sep: &str, width: usize) -> Vec<String> {
    let indent = " ".repeat(display_width(prefix).min(width / 2));
    let mut lines = Vec::new();
    let mut cur = prefix.to_string();
    let mut fresh = true;
    for item in items {
        let add = if fresh {
            item.clone()
        } else {
            format!("{sep}{item}")
        };
        if !fresh && display_width(&cur) + display_width(&add) > width {
            lines.push(clip(cur.trim_end(), width));
            cur = format!("{indent}{item}");
        } else {
            cur.push_str(&add);
        }
        fresh = false;
    }
    lines.push(clip(cur.trim_end(), width));
    lines
}

/// Wraps prose at word boundaries with a hanging indent.
pub fn wrap_text(prefix: &str, text: &str) -> Vec<String> {
    wrap_text_at(prefix, text, WIDTH)
}

pub fn wrap_text_at(prefix: &str, text: &str, width: usize) -> Vec<String> {
    let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    wrap_items_at(prefix, &words, " ", width)
}

/// A meld as others see it: `123m`, `555z`, `5555m`; a concealed kong is `[5555m]` to its
/// owner and `[####]` to everyone else.
pub fn meld_text(m: &TableMeld, face: TileFace, wild: Option<Tile>) -> String {
    if m.tile.is_none() {
        return "[####]".into();
    }
    let s = tiles_text(&describe::meld_tiles_laid(m, wild), face);
    if m.kind == MeldKind::Kong(KongKind::Concealed) {
        format!("[{s}]")
    } else {
        s
    }
}

/// Tiles run together: `123m` in notation, `🀇🀈🀉` in glyphs.
pub fn tiles_text(tiles: &[Tile], face: TileFace) -> String {
    match face {
        TileFace::Notation => to_notation(tiles),
        TileFace::Glyph => tiles.iter().map(|&t| face.text(t)).collect(),
    }
}

/// "Bot 2 (W)": a seat's occupant and wind.
pub fn who(t: &Table, seat: Seat) -> String {
    format!("{} ({})", t.name(seat), t.game().seat_wind(seat))
}

fn signed(n: i32) -> String {
    format!("{n:+}")
}

/// The table as the human sees it, with the pending decision.
pub fn table_block(t: &Table, v: &SeatView) -> Vec<String> {
    let mut out = Vec::new();
    out.push(format!(
        "-- hand {} · prevalent {} {} · dealer {} · wall {} --",
        t.hand_label(),
        v.prevalent,
        v.prevalent.name_zh(),
        t.name(v.dealer),
        v.wall_remaining
    ));
    // The wild, what stands in for it, the flower tile and who is 跑风 (any draw wins).
    let mut special: Vec<String> = Vec::new();
    if let Some(w) = v.wild {
        let turned = v
            .wild_indicator
            .map(|i| format!(" (turned up {i})"))
            .unwrap_or_default();
        special.push(format!("wild {w}{turned}"));
        if let Some(s) = v.stand_in {
            special.push(format!("{s} plays {w}"));
        }
    }
    if let Some(f) = v.flower_tile {
        special.push(format!("flower {f}"));
    }
    if !v.paofeng.is_empty() {
        let who: Vec<String> = v.paofeng.iter().map(|&s| t.name(s).to_string()).collect();
        special.push(format!("paofeng (any draw wins): {}", who.join(", ")));
    }
    if !special.is_empty() {
        out.extend(wrap_items("   ", &special, " · "));
    }
    let me = v.seat;
    for sp in &v.seats {
        let mark = if v.turn == Some(sp.seat) { ">" } else { " " };
        let mut head = format!(
            "{mark}{} {:<5} {:>5}",
            sp.wind,
            t.name(sp.seat),
            signed(t.score(sp.seat))
        );
        if sp.seat != me {
            head.push_str(&format!("  {:>2} tiles", sp.concealed_count));
        }
        let mut items: Vec<String> = Vec::new();
        if !sp.flowers.is_empty() {
            items.push(format!("flowers {}", to_notation(&sp.flowers)));
        }
        if !sp.melds.is_empty() {
            let melds: Vec<String> = sp
                .melds
                .iter()
                .map(|m| meld_text(m, TileFace::Notation, v.wild))
                .collect();
            items.push(format!("melds {}", melds.join(" ")));
        }
        out.extend(wrap_items(&format!("{head}  "), &items, "  "));
        let discards: Vec<String> = sp
            .discards
            .iter()
            .filter(|d| !d.claimed)
            // 暗牌: another seat's discard lies face down.
            .map(|d| d.tile.map_or_else(|| "##".to_string(), |t| t.to_string()))
            .collect();
        if !discards.is_empty() {
            out.extend(wrap_items("        discards ", &discards, " "));
        }
    }
    let hand: Vec<String> = v.hand.iter().map(Tile::to_string).collect();
    let mut lines = wrap_items("your hand: ", &hand, " ");
    if let Some(d) = v.drawn {
        let last = lines.len() - 1;
        let with = format!("{}   drew {d}", lines[last]);
        if display_width(&with) <= WIDTH {
            lines[last] = with;
        } else {
            lines.push(format!("           drew {d}"));
        }
    }
    out.extend(lines);
    if let Some(d) = &v.decision {
        let what = match d.kind {
            DecisionKind::Turn => "your turn".to_string(),
            DecisionKind::Claim { tile } => {
                let from = v
                    .claim
                    .map(|(s, _)| format!("{} discarded ", who(t, s)))
                    .unwrap_or_default();
                format!("{from}{tile}")
            }
            DecisionKind::RobKong { tile } => {
                let from = v
                    .claim
                    .map(|(s, _)| format!("{} adds ", who(t, s)))
                    .unwrap_or_default();
                format!("{from}{tile} to a kong (rob it?)")
            }
        };
        out.extend(wrap_text(&format!("{what}: you may "), &legal_text(d)));
        out.push(format!("  (on timeout: {})", action_text(d.on_timeout)));
    }
    out
}

/// One event as the human sees it, or `None` for what is not worth a line (the deal, others'
/// hidden draws, flower draws that the flower line already tells).
pub fn event_line(t: &Table, e: &Event, face: TileFace) -> Option<String> {
    let me = t.human_seat();
    if describe::is_quiet(e, me) {
        return None;
    }
    let who = |s: Seat| who(t, s);
    let name = |s: Seat| t.name(s);
    let tile = |x: Tile| face.text(x);
    let wild = t.game().wild();
    let meld = |m: &TableMeld| meld_text(m, face, wild);
    Some(describe::event_text(
        e,
        &describe::Words {
            viewer: Some(me),
            who: &who,
            name: &name,
            tile: &tile,
            meld: &meld,
        },
    ))
}

/// The end of a hand: who won how, the fans with points (Chinese and English), the score
/// changes and every hand revealed.
pub fn result_block(t: &Table, r: &HandResult, face: TileFace) -> Vec<String> {
    let mut out = Vec::new();
    let head = match (r.winner, r.win_tile) {
        (Some(w), Some(tile)) => {
            let how = match r.discarder {
                None => "self-drawn".to_string(),
                Some(d) => format!("from {}", t.name(d)),
            };
            let total = r.score.as_ref().map_or(0, |s| s.total);
            // 一炮多响: every winner on the one tile.
            let also: String = r
                .winners
                .iter()
                .skip(1)
                .map(|&o| format!(" and {}", who(t, o)))
                .collect();
            format!(
                "{}{also} {} on {}, {how} — {}",
                who(t, w),
                if also.is_empty() { "wins" } else { "win" },
                face.text(tile),
                describe::points(total)
            )
        }
        _ => "the wall is exhausted — a drawn hand (荒牌), no payments".into(),
    };
    out.extend(wrap_text(
        &format!("== hand {} over: ", t.hand_label()),
        &format!("{head} =="),
    ));
    if let Some(s) = &r.score {
        for f in &s.fans {
            let times = if f.count > 1 {
                format!(" ({} × {})", f.points, f.count)
            } else {
                String::new()
            };
            out.extend(wrap_text(
                &format!("  {:>3}  ", f.points * f.count),
                &format!("{} {}{times}", f.name(), f.en()),
            ));
        }
        out.push(format!("  {:>3}  total", s.total));
    }
    for (&o, s) in r.winners.iter().skip(1).zip(&r.other_scores) {
        let lines: Vec<String> = s
            .fans
            .iter()
            .map(|f| format!("{} {} × {}", f.name(), f.points, f.count))
            .collect();
        out.extend(wrap_items(
            &format!("  {} also wins, {}: ", t.name(o), describe::points(s.total)),
            &lines,
            " · ",
        ));
    }
    if r.kong_deltas != [0; 4] {
        let kongs: Vec<String> = Seat::ALL
            .iter()
            .map(|&s| format!("{} {}", t.name(s), signed(r.kong_deltas[s.index()])))
            .collect();
        out.extend(wrap_items("  kong money (杠钱, included): ", &kongs, " · "));
    }
    let changes: Vec<String> = Seat::ALL
        .iter()
        .map(|&s| format!("{} {}", t.name(s), signed(r.deltas[s.index()])))
        .collect();
    out.extend(wrap_items("  score changes: ", &changes, " · "));
    for s in Seat::ALL {
        let mut items: Vec<String> = vec![tiles_text(&r.hands[s.index()], face)];
        for m in &r.melds[s.index()] {
            items.push(meld_text(&TableMeld::of(m), face, t.game().wild()));
        }
        if !r.flowers[s.index()].is_empty() {
            items.push(format!(
                "flowers {}",
                tiles_text(&r.flowers[s.index()], face)
            ));
        }
        let mark = if r.is_winner(s) { "*" } else { " " };
        out.extend(wrap_items(
            &format!("  {mark}{} {:<5}  ", t.game().seat_wind(s), t.name(s)),
            &items,
            "  ",
        ));
    }
    out
}

/// The running standings, one line (wrapped).
pub fn standings_line(t: &Table, label: &str) -> Vec<String> {
    let items: Vec<String> = t
        .standings()
        .iter()
        .enumerate()
        .map(|(i, (name, s))| format!("{}. {name} {}", i + 1, signed(*s)))
        .collect();
    wrap_items(&format!("{label}: "), &items, " · ")
}

/// The final standings, one player a line.
pub fn final_block(t: &Table) -> Vec<String> {
    let mut out = vec![format!(
        "== final standings after {} hands ==",
        t.match_state().hands_played()
    )];
    for (i, (name, s)) in t.standings().iter().enumerate() {
        out.push(format!("  {}. {name:<6} {:>6}", i + 1, signed(*s)));
    }
    out
}

/// A hint, wrapped at `width`: the recommendation, then every discard ranked with its reason.
pub fn hint_block(h: &Hint, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    match h {
        Hint::Win { reason, .. } => out.extend(wrap_text_at("hint: win — ", reason, width)),
        Hint::Claim {
            recommended,
            reason,
            ..
        } => {
            out.extend(wrap_text_at(
                &format!("hint: {} — ", action_text(*recommended)),
                reason,
                width,
            ));
        }
        Hint::Turn {
            recommended,
            reason,
            discards,
            ..
        } => {
            let is_kong = matches!(recommended, Action::ConcealedKong(_) | Action::AddedKong(_));
            if is_kong {
                out.extend(wrap_text_at(
                    &format!("hint: {} — ", action_text(*recommended)),
                    reason,
                    width,
                ));
                out.push("  otherwise, discards best first:".to_string());
            } else {
                out.push(format!("hint: {} (best first):", action_text(*recommended)));
            }
            for (i, d) in discards.iter().enumerate() {
                let prefix = format!("{:>3}. {}  ", i + 1, d.tile);
                out.extend(wrap_text_at(&prefix, &d.reason, width));
                if let Some(v) = &d.versus {
                    out.extend(wrap_text_at("         ", v, width));
                }
                if d.fans.len() > 1 {
                    out.extend(wrap_items_at("         fans: ", &d.fans, ", ", width));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::table::Step;
    use tongcheng_core::bot::Level;
    use tongcheng_core::rules::RuleSet;

    #[test]
    fn widths_count_cjk_as_two() {
        assert_eq!(display_width("abc"), 3);
        assert_eq!(display_width("混一色"), 6);
        assert_eq!(display_width("🀇🀄"), 3);
    }

    #[test]
    fn wrapping_keeps_every_line_within_80_columns() {
        let items: Vec<String> = (0..60).map(|i| format!("{}m", i % 9 + 1)).collect();
        let lines = wrap_items("        discards ", &items, " ");
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| display_width(l) <= WIDTH));
        assert!(lines[1].starts_with("                 "));
        let long = "word ".repeat(50);
        assert!(
            wrap_text("hint: ", &long)
                .iter()
                .all(|l| display_width(l) <= WIDTH)
        );
        let huge = vec!["x".repeat(200)];
        assert!(
            wrap_items("p ", &huge, " ")
                .iter()
                .all(|l| display_width(l) <= WIDTH)
        );
    }

    /// Plays whole matches with the human on auto-play and renders every table, event,
    /// hint and result on the way: nothing may go past 80 columns.
    #[test]
    fn every_rendering_of_a_match_fits_80_columns() {
        let check = |lines: &[String]| {
            for l in lines {
                assert!(
                    display_width(l) <= WIDTH,
                    "too wide ({}): {l}",
                    display_width(l)
                );
            }
        };
        for seed in [1, 2] {
            let mut t = Table::new(RuleSet::guobiao(), seed, Level::Hard);
            let mut printed = 0;
            loop {
                for e in &t.game().events()[printed..] {
                    if let Some(l) = event_line(&t, &e.for_seat(t.human_seat()), TileFace::Notation)
                    {
                        check(&[l]);
                    }
                }
                printed = t.game().events().len();
                match t.advance(0).unwrap() {
                    Step::Moved { .. } | Step::TimedOut { .. } => {}
                    Step::Human(d) => {
                        let v = t.view();
                        check(&table_block(&t, &v));
                        if let Some(h) = tongcheng_core::hint::hint(&v) {
                            check(&hint_block(&h, WIDTH));
                        }
                        t.apply_human(d.on_timeout, 0).unwrap();
                    }
                    Step::HandOver => {
                        let r = t.game().result().unwrap().clone();
                        check(&result_block(&t, &r, TileFace::Notation));
                        check(&result_block(&t, &r, TileFace::Glyph));
                        let more = t.next_hand();
                        printed = 0;
                        check(&standings_line(&t, "standings after hand 16/16"));
                        if !more {
                            break;
                        }
                    }
                }
            }
            check(&final_block(&t));
        }
    }

    /// 暗牌: the table and the event lines show other seats' discards face down (##), the
    /// human's own with their tiles.
    #[test]
    fn blind_discards_print_face_down_but_ones_own() {
        let rules = RuleSet {
            blind_discards: true,
            ..RuleSet::tongcheng_dianpao()
        };
        let mut t = Table::new(rules, 3, Level::Normal);
        let me = t.human_seat();
        let (mut hidden, mut own) = (0, 0);
        for _ in 0..30 {
            let d = match t.advance(0).unwrap() {
                Step::Human(d) => d,
                Step::Moved { .. } | Step::TimedOut { .. } => continue,
                Step::HandOver => break,
            };
            for e in t.game().events_for(me) {
                let Event::Discarded { seat, .. } = e else {
                    continue;
                };
                let line = event_line(&t, &e, TileFace::Notation).unwrap();
                if seat == me {
                    own += 1;
                    assert!(!line.contains("a tile face down"), "{line}");
                } else {
                    hidden += 1;
                    assert!(line.contains("a tile face down"), "{line}");
                }
            }
            let text = table_block(&t, &t.view()).join("\n");
            if hidden > 0 {
                assert!(text.contains("discards ##"), "{text}");
            }
            t.apply_human(d.on_timeout, 0).unwrap();
        }
        assert!(hidden > 0 && own > 0, "{hidden} hidden, {own} own");
    }

    #[test]
    fn the_table_block_shows_the_hand_and_the_moves() {
        let mut t = Table::new(RuleSet::guobiao(), 5, Level::Normal);
        let d = loop {
            match t.advance(0).unwrap() {
                Step::Human(d) => break d,
                Step::HandOver => panic!("no decision"),
                Step::Moved { .. } | Step::TimedOut { .. } => {}
            }
        };
        let v = t.view();
        let text = table_block(&t, &v).join("\n");
        assert!(text.contains("your hand: "), "{text}");
        assert!(text.contains("hand 1/16"), "{text}");
        assert!(
            text.contains(&format!("on timeout: {}", action_text(d.on_timeout))),
            "{text}"
        );
        for s in ["You", "Bot 1", "Bot 2", "Bot 3"] {
            assert!(text.contains(s), "{text}");
        }
    }
}
