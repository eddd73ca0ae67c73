//! A view as lines of terminal text: the same lines fill the full screen (styled) and a pipe
//! (plain). Every word is the model's; the terminal adds only layout, the tiles' look and each
//! button's key (`[1]`, `[a]`, `[Esc]`).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use tongcheng_app::view::{
    Button, HandTile, Picker, ReplayView, ResultView, SeatView, TableView, TileView, View,
};
use tongcheng_core::tile::Tile;

use super::keys::Keys;
use crate::play::tiles::{Hue, TileFace, hue};

/// Draws views with one set of keys and one tile face.
pub struct Render<'a> {
    pub keys: &'a Keys,
    pub face: TileFace,
}

type Lines = Vec<Line<'static>>;

const KEY: Style = Style::new().fg(Color::Cyan);
const DIM: Style = Style::new().fg(Color::DarkGray);
const TITLE: Style = Style::new().add_modifier(Modifier::BOLD);

impl Render<'_> {
    pub fn view(&self, view: &View) -> Lines {
        let mut out = Lines::new();
        match view {
            View::Home(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                out.push(Line::raw(v.online.status.clone()));
                out.extend(v.online.ratings.iter().map(|r| Line::raw(format!("  {r}"))));
                out.push(Line::raw(""));
                for b in v.buttons.iter().chain(&v.online.retry) {
                    out.push(Line::from(self.button(b)));
                }
                out.extend(v.notice.iter().map(|n| Line::styled(n.clone(), DIM)));
            }
            View::NewMatch(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                for p in &v.pickers {
                    out.extend(self.picker(p));
                }
                out.push(self.row(&[&v.start, &v.back]));
            }
            View::Table(v) => self.table(v, &mut out),
            View::Result(v) => self.result(v, true, &mut out),
            View::Settings(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                for p in &v.pickers {
                    out.extend(self.picker(p));
                }
                out.push(self.row(&[&v.link, &v.back]));
            }
            View::MyHands(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                out.extend(self.picker(&v.stats_rules));
                let figures: Vec<String> = v
                    .stats
                    .iter()
                    .map(|f| format!("{} {}", f.label, f.value))
                    .collect();
                out.push(Line::raw(figures.join(" · ")));
                if let Some(sync) = &v.sync {
                    out.push(Line::from(
                        [
                            Span::styled(sync.title.clone(), TITLE),
                            Span::raw(format!(" {} ", sync.status)),
                        ]
                        .into_iter()
                        .chain(self.button(&sync.sync_now))
                        .collect::<Vec<_>>(),
                    ));
                    out.extend(sync.refused.iter().map(|r| Line::styled(r.clone(), DIM)));
                }
                out.extend(v.notice.iter().map(|n| Line::styled(n.clone(), DIM)));
                for h in &v.hands {
                    let mut spans = vec![Span::raw(format!("{}  ", h.title))];
                    spans.extend(self.button(&h.open));
                    let points = if h.won {
                        Span::styled(format!(" {}", h.points), Style::new().fg(Color::Red))
                    } else {
                        Span::raw(format!(" {}", h.points))
                    };
                    spans.push(points);
                    spans.push(Span::styled(format!("  {}", h.detail), DIM));
                    out.push(Line::from(spans));
                }
                let mut pages = self.button(&v.previous);
                pages.push(Span::raw(format!(" {} ", v.page_label)));
                pages.extend(self.button(&v.next));
                out.push(Line::from(pages));
                out.push(self.row(&[&v.back]));
            }
            View::Replay(v) => self.replay(v, &mut out),
            View::Queue(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                out.push(Line::raw(v.status.clone()));
                out.push(self.row(&[&v.cancel]));
            }
            View::Room(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                out.push(Line::raw(v.rules.clone()));
                out.extend(self.picker(&v.people));
                out.push(self.row(&[&v.open]));
                out.push(Line::raw(""));
                out.push(Line::raw(format!("{} {}", v.code_label, v.code)));
                out.push(self.row(&v.keypad.iter().collect::<Vec<_>>()));
                out.push(self.row(&[&v.join, &v.back]));
            }
            View::Tournaments(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                out.extend(v.empty.iter().map(|e| Line::styled(e.clone(), DIM)));
                for b in &v.items {
                    out.push(Line::from(self.button(b)));
                }
                out.push(self.row(&[&v.back]));
            }
            View::Link(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                out.push(Line::raw(v.show_label.clone()));
                out.push(self.row(&[&v.show_code]));
                out.extend(v.shown.iter().map(|s| Line::styled(s.clone(), TITLE)));
                out.push(Line::raw(""));
                out.push(Line::raw(format!("{} {}", v.type_label, v.typed)));
                out.push(self.row(&v.keypad.iter().collect::<Vec<_>>()));
                out.push(self.row(&[&v.join]));
                out.extend(v.notice.iter().map(|n| Line::raw(n.clone())));
                out.push(self.row(&[&v.back]));
            }
            View::Tournament(v) => {
                out.push(Line::styled(v.title.clone(), TITLE));
                out.extend(v.lines.iter().map(|l| Line::raw(l.clone())));
                out.extend(v.standings.iter().map(|l| Line::raw(format!("  {l}"))));
                out.extend(v.me.iter().map(|m| Line::styled(m.clone(), TITLE)));
                out.push(self.row(&v.actions.iter().collect::<Vec<_>>()));
                out.extend(v.verified.iter().map(|l| Line::raw(l.clone())));
                out.extend(v.notice.iter().map(|n| Line::styled(n.clone(), DIM)));
                out.push(self.row(&[&v.back]));
            }
        }
        out
    }

    fn table(&self, v: &TableView, out: &mut Lines) {
        let head = vec![
            Span::styled(v.title.clone(), TITLE),
            Span::raw(format!("  {} {}", v.wall_label, v.wall_left)),
        ];
        self.seats(head, v.wild.as_ref(), &v.seats, out);
        let mut status = vec![Span::styled(v.status.clone(), TITLE)];
        if let Some(secs) = v.countdown_secs {
            status.push(Span::styled(
                format!("  ⏱ {secs}"),
                Style::new().fg(Color::Yellow),
            ));
        }
        out.push(Line::from(status));
        let mut hand = Vec::new();
        for (i, h) in v.hand.iter().enumerate() {
            hand.extend(self.hand_tile(h, i));
        }
        if let Some(d) = &v.drawn {
            hand.push(Span::raw("  "));
            hand.extend(self.hand_tile(d, v.hand.len()));
        }
        out.push(Line::from(hand));
        for choices in [&v.piao_choices, &v.chow_choices] {
            if !choices.is_empty() {
                out.push(self.row(&choices.iter().collect::<Vec<_>>()));
            }
        }
        out.push(self.row(&v.claim_bar.iter().collect::<Vec<_>>()));
        out.push(self.row(&[&v.hint_button, &v.auto_play, &v.back]));
        if let Some(h) = &v.hint {
            out.push(Line::styled(
                h.advice.clone(),
                Style::new().fg(Color::Green),
            ));
            out.push(Line::raw(h.reason.clone()));
        }
    }

    /// The head line (with the 财神), then the seats: across, left, right, and the player's
    /// own above his hand.
    fn seats(
        &self,
        mut head: Vec<Span<'static>>,
        wild: Option<&TileView>,
        seats: &[SeatView],
        out: &mut Lines,
    ) {
        if let Some(w) = wild {
            head.push(Span::raw("  "));
            head.push(self.tile(w));
        }
        out.push(Line::from(head));
        for i in [2, 3, 1, 0] {
            if let Some(s) = seats.get(i) {
                self.seat(s, out);
            }
        }
    }

    fn seat(&self, s: &SeatView, out: &mut Lines) {
        let style = if s.is_turn {
            TITLE.fg(Color::Yellow)
        } else {
            TITLE
        };
        let mut head = vec![Span::styled(
            format!("{}{}", if s.is_turn { "▶ " } else { "  " }, s.name),
            style,
        )];
        if s.name != s.wind {
            head.push(Span::raw(format!(" {}", s.wind)));
        }
        for tag in s.badge.iter().chain(&s.piao) {
            head.push(Span::styled(format!(" {tag}"), Style::new().fg(Color::Red)));
        }
        head.push(Span::raw(format!("  {}", s.score)));
        if !s.is_you {
            head.push(Span::styled(
                format!("  {}", self.back_tiles(s.concealed as usize)),
                DIM,
            ));
        }
        for meld in &s.melds {
            head.push(Span::raw("  "));
            head.extend(meld.iter().map(|t| self.tile(t)));
        }
        if !s.flowers.is_empty() {
            head.push(Span::raw("  "));
            head.extend(s.flowers.iter().map(|t| self.tile(t)));
        }
        out.push(Line::from(head));
        let mut discards = vec![Span::raw("    ")];
        for t in &s.discards {
            discards.push(self.tile(t));
            discards.push(Span::raw(" "));
        }
        out.push(Line::from(discards));
    }

    fn result(&self, v: &ResultView, buttons: bool, out: &mut Lines) {
        out.push(Line::styled(v.heading.clone(), TITLE));
        out.push(Line::raw(v.outcome.clone()));
        out.extend(
            v.fairness
                .iter()
                .map(|f| Line::styled(f.clone(), Style::new().fg(Color::Green))),
        );
        for f in &v.fans {
            let count = if f.count > 1 {
                format!(" ×{}", f.count)
            } else {
                String::new()
            };
            out.push(Line::raw(format!(
                "  {}{count}  {}",
                f.name,
                f.points * f.count
            )));
        }
        if !v.fans.is_empty() {
            out.push(Line::styled(format!("  = {}", v.total), TITLE));
        }
        let payments: Vec<Span> = v
            .payments
            .iter()
            .map(|p| {
                let style = match p.delta.signum() {
                    1 => Style::new().fg(Color::Red),
                    -1 => Style::new().fg(Color::Green),
                    _ => Style::new(),
                };
                Span::styled(format!("{} {:+}   ", p.seat, p.delta), style)
            })
            .collect();
        out.push(Line::from(payments));
        if buttons {
            let mut row = vec![&v.next];
            row.extend(&v.home);
            out.push(self.row(&row));
        }
    }

    fn replay(&self, v: &ReplayView, out: &mut Lines) {
        out.push(Line::from(vec![
            Span::styled(v.title.clone(), TITLE),
            Span::raw(format!("  {}  {}", v.step_label, v.verified)),
        ]));
        out.push(Line::raw(v.last_move.clone()));
        let head = vec![Span::raw(format!("{} {}", v.wall_label, v.wall_left))];
        self.seats(head, v.wild.as_ref(), &v.seats, out);
        out.push(Line::styled(v.status.clone(), TITLE));
        let mut hand: Vec<Span> = Vec::new();
        for t in &v.hand {
            hand.push(self.tile(t));
            hand.push(Span::raw(" "));
        }
        if let Some(d) = &v.drawn {
            hand.push(Span::raw(" "));
            hand.push(self.tile(d));
        }
        out.push(Line::from(hand));
        if let Some(r) = &v.result {
            self.result(r, false, out);
        }
        let mut row: Vec<&Button> = v.controls.iter().collect();
        row.push(&v.back);
        out.push(self.row(&row));
    }

    fn picker(&self, p: &Picker) -> Lines {
        vec![
            Line::styled(p.label.clone(), DIM),
            self.row(&p.options.iter().collect::<Vec<_>>()),
        ]
    }

    fn row(&self, buttons: &[&Button]) -> Line<'static> {
        let mut spans = Vec::new();
        for b in buttons {
            spans.extend(self.button(b));
            spans.push(Span::raw("  "));
        }
        Line::from(spans)
    }

    /// `[1]单机对战`; Esc for the way back; dim when it cannot be pressed; `●` when chosen.
    fn button(&self, b: &Button) -> Vec<Span<'static>> {
        let key = if self.keys.back.as_ref() == Some(&b.tap) {
            "Esc".to_string()
        } else {
            self.keys.key_of(b).map(String::from).unwrap_or_default()
        };
        let label = if b.selected {
            format!("●{}", b.label)
        } else {
            b.label.clone()
        };
        if !b.enabled {
            return vec![Span::styled(format!("[{key}]{label}"), DIM)];
        }
        let style = if b.selected {
            Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        };
        vec![
            Span::styled(format!("[{key}]"), KEY),
            Span::styled(label, style),
        ]
    }

    fn hand_tile(&self, h: &HandTile, i: usize) -> Vec<Span<'static>> {
        let key = Keys::hand_key(i).map(String::from).unwrap_or_default();
        let key_style = if h.enabled { KEY } else { DIM };
        let mut tile = self.tile(&h.tile);
        if h.suggested {
            tile = tile.patch_style(Style::new().add_modifier(Modifier::UNDERLINED));
        }
        vec![Span::styled(key, key_style), tile, Span::raw(" ")]
    }

    /// A tile in its suit's colour; the 财神 on yellow, a face-down one as a back.
    fn tile(&self, t: &TileView) -> Span<'static> {
        let Some(tile) = (!t.hidden).then(|| t.code.parse::<Tile>().ok()).flatten() else {
            return Span::styled(self.back_tiles(1), DIM);
        };
        let mut style = Style::new().fg(match hue(tile) {
            Hue::Red => Color::Red,
            Hue::Blue => Color::Blue,
            Hue::Green => Color::Green,
            Hue::Magenta => Color::Magenta,
            Hue::Plain => Color::Reset,
        });
        if t.wild {
            style = style.bg(Color::Yellow).add_modifier(Modifier::BOLD);
        }
        if t.taken {
            style = style.add_modifier(Modifier::DIM | Modifier::CROSSED_OUT);
        }
        Span::styled(self.face.text(tile), style)
    }

    fn back_tiles(&self, n: usize) -> String {
        match self.face {
            TileFace::Glyph => "🀫".repeat(n),
            TileFace::Notation => "##".repeat(n),
        }
    }
}

/// A line as plain text (a pipe's output).
pub fn plain(line: &Line) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tongcheng_app::{App, Event, Settings, Tap};

    fn text(view: &View) -> String {
        let keys = Keys::of(view);
        let r = Render {
            keys: &keys,
            face: TileFace::Notation,
        };
        r.view(view)
            .iter()
            .map(plain)
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn home_shows_each_button_with_its_key_in_chinese() {
        let app = App::new(Settings::default(), None, 1, 0);
        let t = text(&app.view());
        assert!(t.contains("[1]单机对战"), "{t}");
        assert!(t.contains("设置"), "{t}");
    }

    #[test]
    fn a_table_shows_the_hand_lettered_the_claim_bar_and_no_english() {
        let mut app = App::new(Settings::default(), None, 3, 0);
        for tap in [Tap::PlayBots, Tap::Start] {
            app.update(Event::Tap { tap });
        }
        app.update(Event::Tick { now_ms: 5_000 });
        let view = app.view();
        let View::Table(table) = &view else {
            panic!("at the table")
        };
        let t = text(&view);
        let first = &table.hand[0].tile.code;
        assert!(t.contains(&format!("a{first}")), "{t}");
        for claim in ["[1]吃", "[2]碰", "[3]杠", "[4]胡", "[5]过", "[Esc]"] {
            assert!(t.contains(claim), "{claim} in {t}");
        }
        // Every word is the model's Chinese: the only Latin letters are keys and tile codes.
        let words: String = t
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| w.len() > 1 && *w != "Esc")
            .collect();
        assert!(words.is_empty(), "English on the table: {words}");
    }

    #[test]
    fn english_comes_from_the_model_too() {
        let mut app = App::new(Settings::default(), None, 1, 0);
        for tap in [
            Tap::Settings,
            Tap::SetLang {
                lang: tongcheng_app::Lang::En,
            },
            Tap::Back,
        ] {
            app.update(Event::Tap { tap });
        }
        let t = text(&app.view());
        assert!(!t.contains("单机对战"), "{t}");
        assert!(t.contains("[1]"), "{t}");
    }
}
