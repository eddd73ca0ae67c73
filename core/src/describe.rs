//! Words and glyphs for what happens at a table: one source for the terminal and the phone
//! shells, so an event reads the same wherever it is shown.

use crate::game::{Event, TableMeld};
use crate::hand::{KongKind, MeldKind};
use crate::seat::Seat;
use crate::tile::{Suit, Tile};

/// A moment as a calendar shows it: what history lists print beside a hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CivilTime {
    pub year: i64,
    /// 1–12.
    pub month: u32,
    /// 1–31.
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

impl CivilTime {
    /// Unix seconds in the zone `utc_offset_min` minutes east of UTC, in the proleptic
    /// Gregorian calendar (H. Hinnant's days-to-civil, by eras of 400 years).
    pub fn of(unix_secs: i64, utc_offset_min: i32) -> CivilTime {
        let t = unix_secs.saturating_add(i64::from(utc_offset_min) * 60);
        let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        CivilTime {
            year: yoe + era * 400 + i64::from(month <= 2),
            month: month as u32,
            day: (doy - (153 * mp + 2) / 5 + 1) as u32,
            hour: (secs / 3600) as u32,
            minute: (secs % 3600 / 60) as u32,
        }
    }
}

/// `2026-12-05 21:13`: how logs, the terminal and messages write a moment.
impl std::fmt::Display for CivilTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute
        )
    }
}

/// The Unicode mahjong glyph of `t` (the U+1F000 block: winds, dragons, the three suits,
/// then plum/orchid/bamboo/chrysanthemum and spring/summer/autumn/winter).
pub fn glyph(t: Tile) -> char {
    let r = u32::from(t.rank()) - 1;
    let code = match t.suit() {
        Suit::Characters => 0x1F007 + r,
        Suit::Dots => 0x1F019 + r,
        Suit::Bamboo => 0x1F010 + r,
        // 1–4z the winds in order; 白 发 中 are U+1F006, U+1F005, U+1F004.
        Suit::Honors if r < 4 => 0x1F000 + r,
        Suit::Honors => 0x1F006 - (r - 4),
        // 1–4f the seasons (U+1F026…), 5–8f the plants (U+1F022…).
        Suit::Flowers if r < 4 => 0x1F026 + r,
        Suit::Flowers => 0x1F022 + (r - 4),
    };
    char::from_u32(code).unwrap_or('?')
}

/// The tiles a meld shows on the table; empty for another seat's face-down kong.
pub fn meld_tiles(m: &TableMeld) -> Vec<Tile> {
    let Some(t) = m.tile else {
        return Vec::new();
    };
    match m.kind {
        MeldKind::Chow => (0..3).filter_map(|d| t.offset(d)).collect(),
        MeldKind::Pung => vec![t; 3],
        MeldKind::Kong(_) => vec![t; 4],
    }
}

/// The tiles of a meld as they lie on the table: under 翻财神 the 白 that plays the wild's
/// face (`m.whites` of them) is shown as the 白 it is, not as the face it plays.
pub fn meld_tiles_laid(m: &TableMeld, wild: Option<Tile>) -> Vec<Tile> {
    let mut tiles = meld_tiles(m);
    if let Some(w) = wild {
        let mut whites = m.whites;
        for t in tiles.iter_mut().filter(|t| **t == w) {
            if whites == 0 {
                break;
            }
            *t = Tile::WHITE;
            whites -= 1;
        }
    }
    tiles
}

/// How an event is put into words for one viewer: the names and tile texts are the
/// front end's (a terminal in notation or glyphs, a phone in its own language of names).
pub struct Words<'a> {
    /// The seat the events are seen from ("You draw"); `None` for an open replay.
    pub viewer: Option<Seat>,
    /// A seat as the subject of a sentence, e.g. "Bot 2 (S)".
    pub who: &'a dyn Fn(Seat) -> String,
    /// A seat as an object, e.g. "Bot 2".
    pub name: &'a dyn Fn(Seat) -> String,
    pub tile: &'a dyn Fn(Tile) -> String,
    pub meld: &'a dyn Fn(&TableMeld) -> String,
}

impl std::fmt::Debug for Words<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Words")
            .field("viewer", &self.viewer)
            .finish_non_exhaustive()
    }
}

/// Events a log leaves out for `viewer`: deals, other seats' draws, flowers drawn (the
/// flower event says it), and the kong that completes an added kong (announced as it was
/// being added).
pub fn is_quiet(e: &Event, viewer: Seat) -> bool {
    match e {
        Event::Dealt { .. } => true,
        Event::Drew { seat, tile, .. } => *seat != viewer || tile.is_none_or(|t| t.is_flower()),
        Event::Kong { meld, .. } => meld.kind == MeldKind::Kong(KongKind::Added),
        _ => false,
    }
}

/// One line for an event, in English with the Chinese term where players know it by it
/// ([`event_text_zh`]: in 简体中文).
pub fn event_text(e: &Event, w: &Words) -> String {
    let who = w.who;
    let tile = w.tile;
    match e {
        Event::DiceRolled { seat, dice, level } => format!(
            "{} rolls {} and {} (笃老): the dealer starts at level {level}",
            who(*seat),
            dice[0],
            dice[1]
        ),
        Event::Dealt {
            seat,
            tiles: Some(t),
        } => {
            let mut t = t.clone();
            t.sort();
            let shown: Vec<String> = t.iter().map(|&x| tile(x)).collect();
            format!(
                "{} is dealt {} ({} tiles)",
                who(*seat),
                shown.concat(),
                t.len()
            )
        }
        Event::Dealt { seat, .. } => format!("{} is dealt", who(*seat)),
        Event::Drew {
            seat,
            tile: Some(x),
            replacement,
        } if !x.is_flower() => {
            let (subject, verb) = if Some(*seat) == w.viewer {
                ("You".to_string(), "draw")
            } else {
                (who(*seat), "draws")
            };
            let how = if *replacement { " (replacement)" } else { "" };
            format!("{subject} {verb} {}{how}", tile(*x))
        }
        Event::Drew { seat, .. } => format!("{} draws", who(*seat)),
        Event::Flower { seat, tile: x } => {
            format!("{} sets aside flower {}", who(*seat), tile(*x))
        }
        Event::Discarded {
            seat,
            tile: Some(x),
            face_down,
        } => {
            let how = if *face_down {
                " face down (暗牌)"
            } else {
                ""
            };
            format!("{} discards {}{how}", who(*seat), tile(*x))
        }
        Event::Discarded { seat, .. } => format!("{} discards a tile face down (暗牌)", who(*seat)),
        Event::Claimed { seat, from, meld } => {
            let verb = match meld.kind {
                MeldKind::Chow => "chows",
                MeldKind::Pung => "pungs",
                MeldKind::Kong(_) => "kongs",
            };
            format!(
                "{} {verb} {} from {}",
                who(*seat),
                (w.meld)(meld),
                (w.name)(*from)
            )
        }
        Event::Kong { seat, meld } => match meld.kind {
            MeldKind::Kong(KongKind::Added) => {
                format!("{} completes an added kong {}", who(*seat), (w.meld)(meld))
            }
            _ => format!(
                "{} declares a concealed kong {}",
                who(*seat),
                (w.meld)(meld)
            ),
        },
        Event::AddingKong { seat, tile: x } => {
            format!("{} adds {} to a pung (an added kong)", who(*seat), tile(*x))
        }
        Event::Won {
            seat,
            from,
            tile: x,
            total,
        } => match from {
            Some(f) => format!(
                "{} wins on {} from {} — {}",
                who(*seat),
                tile(*x),
                (w.name)(*f),
                points(*total)
            ),
            None => format!(
                "{} wins on {}, self-drawn — {}",
                who(*seat),
                tile(*x),
                points(*total)
            ),
        },
        Event::DrawGame => "The wall is exhausted: a drawn hand (荒牌)".into(),
    }
}

/// One line for an event in 简体中文: the same events as [`event_text`], the seats named by
/// `w` in Chinese too (你, 东家 …).
pub fn event_text_zh(e: &Event, w: &Words) -> String {
    let who = |s: Seat| {
        if Some(s) == w.viewer {
            "你".to_string()
        } else {
            (w.who)(s)
        }
    };
    let tile = w.tile;
    match e {
        Event::DiceRolled { seat, dice, level } => format!(
            "{} 掷出 {} 和 {}（笃老）：庄家从 {level} 级起",
            who(*seat),
            dice[0],
            dice[1]
        ),
        Event::Dealt {
            seat,
            tiles: Some(t),
        } => {
            let mut t = t.clone();
            t.sort();
            let shown: Vec<String> = t.iter().map(|&x| tile(x)).collect();
            format!("{} 起手 {}（{} 张）", who(*seat), shown.concat(), t.len())
        }
        Event::Dealt { seat, .. } => format!("{} 起手", who(*seat)),
        Event::Drew {
            seat,
            tile: Some(x),
            replacement,
        } if !x.is_flower() => {
            let verb = if *replacement { "补牌" } else { "摸到" };
            format!("{} {verb} {}", who(*seat), tile(*x))
        }
        Event::Drew { seat, .. } => format!("{} 摸牌", who(*seat)),
        Event::Flower { seat, tile: x } => format!("{} 补花 {}", who(*seat), tile(*x)),
        Event::Discarded {
            seat,
            tile: Some(x),
            face_down,
        } => {
            let how = if *face_down { "（暗牌）" } else { "" };
            format!("{} 打出 {}{how}", who(*seat), tile(*x))
        }
        Event::Discarded { seat, .. } => format!("{} 暗打一张（暗牌）", who(*seat)),
        Event::Claimed { seat, from, meld } => {
            let verb = match meld.kind {
                MeldKind::Chow => "吃",
                MeldKind::Pung => "碰",
                MeldKind::Kong(_) => "杠",
            };
            format!(
                "{} {verb} {}（{} 打出）",
                who(*seat),
                (w.meld)(meld),
                (w.name)(*from)
            )
        }
        Event::Kong { seat, meld } => match meld.kind {
            MeldKind::Kong(KongKind::Added) => format!("{} 加杠 {}", who(*seat), (w.meld)(meld)),
            _ => format!("{} 暗杠 {}", who(*seat), (w.meld)(meld)),
        },
        Event::AddingKong { seat, tile: x } => {
            format!("{} 把 {} 加到碰上（加杠）", who(*seat), tile(*x))
        }
        Event::Won {
            seat,
            from,
            tile: x,
            total,
        } => match from {
            Some(f) => format!(
                "{} 和 {}（{} 点炮）— {total} 分",
                who(*seat),
                tile(*x),
                (w.name)(*f)
            ),
            None => format!("{} 自摸 {} — {total} 分", who(*seat), tile(*x)),
        },
        Event::DrawGame => "牌摸完了：荒牌".into(),
    }
}

/// "1 point", "8 points".
pub fn points(n: u32) -> String {
    if n == 1 {
        "1 point".into()
    } else {
        format!("{n} points")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_follow_the_unicode_block() {
        let g = |s: &str| glyph(s.parse().unwrap());
        assert_eq!(g("1m"), '🀇');
        assert_eq!(g("9p"), '🀡');
        assert_eq!(g("1s"), '🀐');
        assert_eq!(g("1z"), '🀀');
        assert_eq!(g("5z"), '🀆');
        assert_eq!(g("7z"), '🀄');
        assert_eq!(g("1f"), '🀦');
        assert_eq!(g("5f"), '🀢');
    }

    #[test]
    fn events_read_with_the_front_end_names() {
        let who = |s: Seat| format!("P{}", s.0);
        let tile = |t: Tile| t.to_string();
        let meld = |m: &TableMeld| crate::tile::to_notation(&meld_tiles(m));
        let w = Words {
            viewer: Some(Seat(0)),
            who: &who,
            name: &who,
            tile: &tile,
            meld: &meld,
        };
        let e = Event::Won {
            seat: Seat(1),
            from: Some(Seat(2)),
            tile: "5m".parse().unwrap(),
            total: 1,
        };
        assert_eq!(event_text(&e, &w), "P1 wins on 5m from P2 — 1 point");
        let drew = Event::Drew {
            seat: Seat(0),
            tile: Some("3p".parse().unwrap()),
            replacement: false,
        };
        assert_eq!(event_text(&drew, &w), "You draw 3p");
        assert_eq!(event_text_zh(&e, &w), "P1 和 5m（P2 点炮）— 1 分");
        assert_eq!(event_text_zh(&drew, &w), "你 摸到 3p");
        assert_eq!(event_text_zh(&Event::DrawGame, &w), "牌摸完了：荒牌");
        assert!(!is_quiet(&drew, Seat(0)));
        assert!(is_quiet(&drew, Seat(1)));
    }

    #[test]
    fn a_white_in_a_meld_is_shown_as_white() {
        use crate::hand::MeldKind;
        let five: Tile = "5m".parse().unwrap();
        let m = TableMeld {
            kind: MeldKind::Chow,
            tile: Some("4m".parse().unwrap()),
            claimed: None,
            from: None,
            whites: 1,
        };
        assert_eq!(
            meld_tiles_laid(&m, Some(five)),
            vec!["4m".parse().unwrap(), Tile::WHITE, "6m".parse().unwrap()]
        );
        assert_eq!(meld_tiles_laid(&m, None), meld_tiles(&m));
        let plain = TableMeld { whites: 0, ..m };
        assert_eq!(meld_tiles_laid(&plain, Some(five)), meld_tiles(&plain));
    }

    #[test]
    fn civil_times_follow_the_calendar() {
        let at = |t, off| {
            let c = CivilTime::of(t, off);
            (c.year, c.month, c.day, c.hour, c.minute)
        };
        assert_eq!(at(0, 0), (1970, 1, 1, 0, 0));
        assert_eq!(at(-60, 0), (1969, 12, 31, 23, 59));
        assert_eq!(at(951_782_400, 0), (2000, 2, 29, 0, 0));
        // 2026-12-05 21:13 UTC is the 6th at 05:13 in China.
        assert_eq!(at(1_796_505_180, 480), (2026, 12, 6, 5, 13));
        assert_eq!(
            CivilTime::of(1_796_505_180, 0).to_string(),
            "2026-12-05 21:13"
        );
    }
}
