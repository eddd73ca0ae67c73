//! Drawing: the table, the hand, the status line, results and popups, from the app state
//! (nothing here changes it).

use super::*;

pub(super) fn hue_color(h: Hue) -> Color {
    match h {
        Hue::Red => Color::LightRed,
        Hue::Blue => Color::LightBlue,
        Hue::Green => Color::LightGreen,
        Hue::Plain => Color::Reset,
        Hue::Magenta => Color::LightMagenta,
    }
}

pub(super) fn tile_style(t: Tile) -> Style {
    Style::default().fg(hue_color(hue(t)))
}

impl App {
    pub(super) fn draw(&self, f: &mut Frame) {
        let area = f.area();
        if too_small(area) {
            // Cut-off tiles and a hidden clock are worse than a clear request.
            let msg = format!(
                "The table needs a terminal of at least {MIN_WIDTH}×{MIN_HEIGHT}; this one is {}×{}. Enlarge the window (the clock waits), or press q to quit.",
                area.width, area.height
            );
            f.render_widget(self.para(msg).wrap(Wrap { trim: false }), area);
            return;
        }
        match &self.screen {
            Screen::AskResume(u) => self.draw_ask(f, area, u),
            Screen::Play => self.draw_table(f, area),
            Screen::HandOver { lines, .. } => f.render_widget(
                self.para(Text::from(lines.clone()))
                    .wrap(Wrap { trim: false }),
                area,
            ),
            Screen::MatchOver => self.draw_final(f, area),
        }
        match &self.overlay {
            None => {}
            Some(Overlay::ConfirmQuit) => {
                let text = if self.table.is_over() {
                    "Leave the game? [y] yes · [n] no".to_string()
                } else {
                    "Quit? The match is saved so you can resume it later.\n\n[y] quit · [n] keep playing".to_string()
                };
                self.popup(f, area, " Quit ", Text::from(text), (60, 6), 0);
            }
            Some(Overlay::Piao { sel }) => {
                let text = format!(
                    "Your 飘 (stake) on this hand: < {sel} >\n\nAdded to every payment between you and a winner or payer.\n←/→ or 0–9 · Enter stake it · Esc none"
                );
                self.popup(f, area, " 飘 ", Text::from(text), (64, 7), 0);
            }
            Some(Overlay::Hint { lines, scroll }) => {
                let text: Vec<Line> = lines.iter().map(|l| Line::from(l.clone())).collect();
                let h = (lines.len() as u16 + 3).min(area.height.saturating_sub(2));
                self.popup(
                    f,
                    area,
                    " Hint (↑/↓ scroll, h close) ",
                    Text::from(text),
                    (HINT_WIDTH, h),
                    *scroll,
                );
            }
            Some(Overlay::Choose {
                title,
                actions,
                sel,
            }) => {
                let mut spans = Vec::new();
                for (i, a) in actions.iter().enumerate() {
                    let label = format!(" {}: {} ", i + 1, self.action_label(*a));
                    let st = if i == *sel {
                        Style::default().add_modifier(Modifier::REVERSED)
                    } else {
                        Style::default()
                    };
                    spans.push(Span::styled(label, st));
                }
                let text = Text::from(vec![
                    Line::from(spans),
                    Line::default(),
                    Line::from("←/→ choose · Enter take it · Esc cancel"),
                ]);
                self.popup(f, area, &format!(" {title} "), text, (60, 6), 0);
            }
        }
    }

    /// A chow or kong as tiles: "chow 🀙🀚🀛".
    pub(super) fn action_label(&self, a: Action) -> String {
        let face = self.setup.face;
        let run = |t: Tile, n: usize, chow: bool| -> String {
            (0..n as i8)
                .filter_map(|d| if chow { t.offset(d) } else { Some(t) })
                .map(|x| face.padded(x, face.cells()))
                .collect::<String>()
                .trim_end()
                .to_string()
        };
        match a {
            Action::Chow(t) => format!("chow {}", run(t, 3, true)),
            Action::ConcealedKong(t) => format!("concealed kong {}", run(t, 4, false)),
            Action::AddedKong(t) => format!("add to pung {}", run(t, 4, false)),
            Action::Kong => match self.pending.as_ref().map(|p| p.decision.kind) {
                Some(DecisionKind::Claim { tile }) => format!("kong {}", run(tile, 4, false)),
                _ => "kong".into(),
            },
            other => action_text(other),
        }
    }

    pub(super) fn draw_ask(&self, f: &mut Frame, area: Rect, u: &Unfinished) {
        let text = Text::from(vec![
            Line::from("An unfinished match was saved when you last quit:"),
            Line::default(),
            Line::from(format!("  {}", describe_unfinished(u))),
            Line::default(),
            Line::from("[r] resume it · [d] discard it and start a new match · [q] quit"),
        ]);
        self.popup(f, area, " 桐城麻将 Tongcheng Mahjong ", text, (76, 9), 0);
        if let Some((m, err)) = &self.message {
            let st = if *err {
                Style::default().fg(Color::LightRed)
            } else {
                Style::default()
            };
            let y = area.y + area.height.saturating_sub(1);
            f.render_widget(
                self.para(m.clone()).style(st),
                Rect::new(area.x, y, area.width, 1),
            );
        }
    }

    pub(super) fn draw_final(&self, f: &mut Frame, area: Rect) {
        let mut lines = vec![
            Line::from(format!(
                "Match over — final standings after {} hands",
                self.table.match_state().hands_played()
            ))
            .style(Style::default().add_modifier(Modifier::BOLD)),
            Line::default(),
        ];
        for (i, (name, s)) in self.table.standings().iter().enumerate() {
            lines.push(Line::from(vec![
                Span::raw(format!("  {}. {name:<6} ", i + 1)),
                score_span(*s),
            ]));
        }
        lines.push(Line::default());
        if let Some(id) = self.store.match_id() {
            lines.push(Line::from(format!(
                "Every hand is in the history ({}, match {id}).",
                self.store.path().display()
            )));
        }
        lines.push(Line::from("[Enter] leave"));
        f.render_widget(
            self.para(Text::from(lines)).wrap(Wrap { trim: false }),
            area,
        );
    }

    pub(super) fn draw_table(&self, f: &mut Frame, area: Rect) {
        let v = self.table.view();
        let me = v.seat;
        let rows = Layout::vertical([
            Constraint::Length(1), // header
            Constraint::Length(3), // next seat
            Constraint::Length(3), // across
            Constraint::Length(3), // previous seat
            Constraint::Length(3), // you
            Constraint::Length(1), // rule
            Constraint::Length(3), // log
            Constraint::Length(1), // rule
            Constraint::Length(2), // hand
            Constraint::Length(1), // status
            Constraint::Length(1), // message
            Constraint::Min(0),
        ])
        .split(area);
        f.render_widget(self.para(self.header_line(&v)), rows[0]);
        for (i, d) in [1u8, 2, 3, 0].into_iter().enumerate() {
            let seat = me.after(d);
            if let Some(sp) = v.seats.iter().find(|s| s.seat == seat) {
                self.draw_seat(f, rows[1 + i], &v, sp);
            }
        }
        let rule = "─".repeat(area.width as usize);
        let dim = Style::default().fg(Color::DarkGray);
        f.render_widget(self.para(rule.clone()).style(dim), rows[5]);
        let log: Vec<Line> = self
            .log
            .iter()
            .rev()
            .take(rows[6].height as usize)
            .rev()
            .map(|l| Line::from(l.clone()))
            .collect();
        f.render_widget(self.para(Text::from(log)), rows[6]);
        f.render_widget(self.para(rule).style(dim), rows[7]);
        self.draw_hand(f, rows[8], &v);
        f.render_widget(self.para(self.status_line(&v, area.width)), rows[9]);
        if let Some((m, err)) = &self.message {
            let st = if *err {
                Style::default().fg(Color::LightRed)
            } else {
                Style::default().fg(Color::Yellow)
            };
            f.render_widget(self.para(m.clone()).style(st), rows[10]);
        }
    }

    pub(super) fn header_line(&self, v: &SeatView) -> Line<'static> {
        let t = &self.table;
        let mut spans = vec![
            Span::styled(
                "桐城麻将",
                Style::default()
                    .fg(Color::LightRed)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!(
                "  Hand {} · {} {} round · Wall {} · seed {} · {} bots",
                t.hand_label(),
                v.prevalent.name_zh(),
                wind_name(v.prevalent.index()),
                v.wall_remaining,
                t.seed(),
                t.level().name()
            )),
        ];
        // Under wild rules the wild (财神) is named first thing, with the tile turned up for it.
        if let Some(w) = v.wild {
            let face = self.setup.face;
            let name = |x: Tile| match face {
                TileFace::Glyph => format!("{} {x}", face.text(x)),
                TileFace::Notation => x.to_string(),
            };
            let turned = v
                .wild_indicator
                .map(|i| format!(" (turned up {})", name(i)))
                .unwrap_or_default();
            let word = match face {
                TileFace::Glyph => "财神 wild",
                TileFace::Notation => "wild",
            };
            let stand_in = v
                .stand_in
                .map(|s| format!(", {} plays it", name(s)))
                .unwrap_or_default();
            spans.push(Span::styled(
                format!(" · {word} {}{turned}{stand_in}", name(w)),
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ));
        }
        // 补花 with an honor tile (发), and who is 跑风 (any draw wins).
        if let Some(f) = v.flower_tile {
            let word = match self.setup.face {
                TileFace::Glyph => "花 flower",
                TileFace::Notation => "flower",
            };
            spans.push(Span::raw(format!(" · {word} {}", self.setup.face.text(f))));
        }
        if !v.paofeng.is_empty() {
            let who: Vec<String> = v
                .paofeng
                .iter()
                .map(|&s| self.table.name(s).to_string())
                .collect();
            let word = match self.setup.face {
                TileFace::Glyph => "跑风",
                TileFace::Notation => "paofeng",
            };
            spans.push(Span::styled(
                format!(" · {word}: {}", who.join(", ")),
                Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            ));
        }
        Line::from(spans)
    }

    pub(super) fn draw_seat(&self, f: &mut Frame, area: Rect, v: &SeatView, sp: &SeatPublic) {
        let face = self.setup.face;
        let on_turn = v.turn == Some(sp.seat) || v.claim.is_some_and(|(s, _)| s == sp.seat);
        let mut head = vec![
            Span::styled(
                if on_turn { "▶ " } else { "  " },
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("{} {} ", sp.wind, sp.wind.name_zh()),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!("{:<6}", self.table.name(sp.seat))),
            score_span_w(self.table.score(sp.seat), 5),
        ];
        if sp.seat == v.dealer {
            head.push(Span::styled(" 庄", Style::default().fg(Color::Yellow)));
        }
        if sp.seat != v.seat {
            head.push(Span::raw(format!("  {:>2} tiles", sp.concealed_count)));
        }
        if !sp.flowers.is_empty() {
            head.push(Span::raw("  花 "));
            for &t in &sp.flowers {
                head.push(Span::styled(face.padded(t, face.cells()), tile_style(t)));
            }
        }
        for m in &sp.melds {
            head.push(Span::raw("  "));
            head.extend(self.meld_spans(m, v.wild));
        }
        let mut disc = vec![Span::raw("    ")];
        let last = sp.discards.len().saturating_sub(1);
        for (i, d) in sp.discards.iter().enumerate() {
            // 暗牌: another seat's discard lies face down, as a concealed kong does.
            let Some(t) = d.tile else {
                disc.push(Span::styled("## ", Style::default().fg(Color::DarkGray)));
                continue;
            };
            let mut st = tile_style(t);
            if d.claimed {
                st = Style::default()
                    .fg(Color::DarkGray)
                    .add_modifier(Modifier::CROSSED_OUT);
            } else if i == last && v.claim == Some((sp.seat, t)) {
                st = st.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            disc.push(Span::styled(face.padded(t, face.cells()), st));
        }
        let text = Text::from(vec![Line::from(head), Line::from(disc)]);
        f.render_widget(self.para(text).wrap(Wrap { trim: false }), area);
    }

    /// A meld as it lies; `wild` is the 财神 face, whose 白 stand-ins show as 白.
    pub(super) fn meld_spans(&self, m: &TableMeld, wild: Option<Tile>) -> Vec<Span<'static>> {
        let face = self.setup.face;
        let Some(t) = m.tile else {
            return vec![Span::styled("[####]", Style::default().fg(Color::DarkGray))];
        };
        if face == TileFace::Notation {
            return vec![Span::styled(meld_text(m, face, wild), tile_style(t))];
        }
        let tiles = tongcheng_core::describe::meld_tiles_laid(m, wild);
        let concealed = m.kind == MeldKind::Kong(KongKind::Concealed);
        let mut spans = Vec::new();
        if concealed {
            spans.push(Span::raw("["));
        }
        spans.extend(
            tiles
                .iter()
                .map(|&x| Span::styled(face.padded(x, 2), tile_style(x))),
        );
        if concealed {
            spans.push(Span::raw("]"));
        }
        spans
    }

    pub(super) fn draw_hand(&self, f: &mut Frame, area: Rect, v: &SeatView) {
        let face = self.setup.face;
        let deciding_turn = self
            .pending
            .as_ref()
            .is_some_and(|p| p.decision.kind == DecisionKind::Turn);
        let mut tiles_row = vec![Span::raw(" ")];
        let mut label_row = vec![Span::raw(" ")];
        let all: Vec<(Tile, bool)> = v
            .hand
            .iter()
            .map(|&t| (t, false))
            .chain(v.drawn.map(|t| (t, true)))
            .collect();
        for (i, &(t, drawn)) in all.iter().enumerate() {
            if drawn {
                tiles_row.push(Span::raw("  "));
                label_row.push(Span::raw("  "));
            }
            let selected = deciding_turn && i == self.sel;
            let wild = v.wild == Some(t);
            let mut st = tile_style(t).add_modifier(Modifier::BOLD);
            if selected {
                st = st.add_modifier(Modifier::REVERSED);
            }
            if wild {
                st = st.add_modifier(Modifier::UNDERLINED).bg(Color::Yellow);
            }
            tiles_row.push(Span::styled(face.padded(t, 3), st));
            let label = match face {
                TileFace::Glyph if wild => "财 ".into(),
                TileFace::Glyph => format!("{t} "),
                TileFace::Notation if selected => "^^ ".into(),
                TileFace::Notation if wild => "wld".into(),
                TileFace::Notation => "   ".into(),
            };
            let lst = if selected {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default().fg(Color::DarkGray)
            };
            label_row.push(Span::styled(label, lst));
        }
        f.render_widget(
            self.para(Text::from(vec![
                Line::from(tiles_row),
                Line::from(label_row),
            ])),
            area,
        );
    }

    pub(super) fn status_line(&self, v: &SeatView, width: u16) -> Line<'static> {
        if self.pending.is_none() && self.table.auto_play() {
            return Line::from(Span::styled(
                "Auto-play (托管): your seat plays itself — press any key to take it back",
                Style::default().fg(Color::Yellow),
            ));
        }
        let Some(p) = &self.pending else {
            let who_moves = v
                .turn
                .or(v.claim.map(|(s, _)| s))
                .map(|s| format!("{} to play…", self.table.name(s)))
                .unwrap_or_default();
            return Line::from(Span::styled(
                who_moves,
                Style::default().fg(Color::DarkGray),
            ));
        };
        let d = &p.decision;
        let has = |f: fn(&Action) -> bool| d.legal.iter().any(f);
        let mut keys: Vec<&str> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        match d.kind {
            DecisionKind::Turn => {
                spans.push(Span::styled(
                    "Your turn: ",
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                keys.push("←→ Enter discard");
            }
            DecisionKind::Claim { tile } | DecisionKind::RobKong { tile } => {
                let from = v
                    .claim
                    .map(|(s, _)| who(&self.table, s))
                    .unwrap_or_default();
                spans.push(Span::styled(
                    format!("{from} "),
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                spans.push(Span::styled(
                    self.setup.face.text(tile),
                    tile_style(tile).add_modifier(Modifier::BOLD),
                ));
                spans.push(Span::raw(": "));
            }
        }
        if has(|a| matches!(a, Action::Chow(_))) {
            keys.push("c chow");
        }
        if has(|a| *a == Action::Pung) {
            keys.push("p pung");
        }
        if has(|a| {
            matches!(
                a,
                Action::Kong | Action::ConcealedKong(_) | Action::AddedKong(_)
            )
        }) {
            keys.push("k kong");
        }
        if has(|a| *a == Action::Win) {
            keys.push("w WIN");
        }
        if has(|a| *a == Action::Pass) {
            keys.push("space pass");
        }
        keys.push("h hint");
        keys.push("q quit");
        spans.push(Span::raw(keys.join(" · ")));
        let (timer, color) = match self.table.remaining_ms(self.now_ms()) {
            Some(ms) => {
                let secs = ms.div_ceil(1000);
                let color = if secs <= 3 {
                    Color::LightRed
                } else {
                    Color::Yellow
                };
                (format!("⏱ {secs:>2}s"), color)
            }
            None => ("no clock".to_string(), Color::DarkGray),
        };
        let used: usize = spans.iter().map(|s| self.width_shown(&s.content)).sum();
        let pad = (width as usize)
            .saturating_sub(used + self.width_shown(&timer) + 1)
            .max(1);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(
            timer,
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ));
        Line::from(spans)
    }

    pub(super) fn result_lines(&self, r: &HandResult) -> Vec<Line<'static>> {
        let t = &self.table;
        let face = self.setup.face;
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let mut lines = Vec::new();
        let head = match (r.winner, r.win_tile) {
            (Some(w), Some(tile)) => {
                let how = match r.discarder {
                    None => "self-drawn".to_string(),
                    Some(d) => format!("from {}", t.name(d)),
                };
                let total = r.score.as_ref().map_or(0, |s| s.total);
                let also: String = r
                    .winners
                    .iter()
                    .skip(1)
                    .map(|&o| format!(" and {}", who(t, o)))
                    .collect();
                let verb = if also.is_empty() { "wins" } else { "win" };
                vec![
                    Span::styled(
                        format!("Hand {} — {}{also} {verb} on ", t.hand_label(), who(t, w)),
                        bold,
                    ),
                    Span::styled(
                        face.text(tile),
                        tile_style(tile).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(
                        format!(", {how} — {}", tongcheng_core::describe::points(total)),
                        bold,
                    ),
                ]
            }
            _ => vec![Span::styled(
                format!(
                    "Hand {} — the wall is exhausted: a drawn hand (荒牌), no payments",
                    t.hand_label()
                ),
                bold,
            )],
        };
        lines.push(Line::from(head));
        lines.push(Line::default());
        if let Some(s) = &r.score {
            let fans: Vec<String> = s
                .fans
                .iter()
                .map(|f| {
                    let times = if f.count > 1 {
                        format!(" ×{}", f.count)
                    } else {
                        String::new()
                    };
                    format!("{:>3}  {} {}{times}", f.points * f.count, f.name(), f.en())
                })
                .collect();
            if fans.len() > 9 {
                let half = fans.len().div_ceil(2);
                for i in 0..half {
                    let a = &fans[i];
                    let b = fans.get(half + i).cloned().unwrap_or_default();
                    let pad = 40usize.saturating_sub(display_width(a)).max(1);
                    lines.push(Line::from(format!("{a}{}{b}", " ".repeat(pad))));
                }
            } else {
                lines.extend(fans.into_iter().map(Line::from));
            }
            lines.push(Line::from(format!("{:>3}  total", s.total)).style(bold));
            lines.push(Line::default());
        }
        for (&o, s) in r.winners.iter().skip(1).zip(&r.other_scores) {
            let fans: Vec<String> = s
                .fans
                .iter()
                .map(|f| format!("{} {}×{}", f.name(), f.points, f.count))
                .collect();
            lines.push(Line::from(format!(
                "{} also wins: {} — {}",
                t.name(o),
                fans.join(" · "),
                tongcheng_core::describe::points(s.total)
            )));
        }
        if r.kong_deltas != [0; 4] {
            let kongs: Vec<String> = Seat::ALL
                .iter()
                .map(|&s| format!("{} {:+}", t.name(s), r.kong_deltas[s.index()]))
                .collect();
            lines.push(Line::from(format!(
                "kong money (杠钱, included): {}",
                kongs.join(" · ")
            )));
        }
        for s in Seat::ALL {
            let mark = if r.is_winner(s) { "★" } else { " " };
            let mut spans = vec![Span::raw(format!(
                "{mark}{} {:<6}",
                t.game().seat_wind(s),
                t.name(s)
            ))];
            for &x in &r.hands[s.index()] {
                spans.push(Span::styled(face.padded(x, face.cells()), tile_style(x)));
            }
            for m in &r.melds[s.index()] {
                spans.push(Span::raw(" "));
                spans.extend(self.meld_spans(&TableMeld::of(m), t.game().wild()));
            }
            if !r.flowers[s.index()].is_empty() {
                spans.push(Span::raw(" 花"));
                for &x in &r.flowers[s.index()] {
                    spans.push(Span::styled(face.padded(x, face.cells()), tile_style(x)));
                }
            }
            lines.push(Line::from(spans));
        }
        lines.push(Line::default());
        let mut changes = vec![Span::raw("Score changes: ")];
        for (i, s) in Seat::ALL.iter().enumerate() {
            if i > 0 {
                changes.push(Span::raw(" · "));
            }
            changes.push(Span::raw(format!("{} ", t.name(*s))));
            changes.push(score_span(r.deltas[s.index()]));
        }
        lines.push(Line::from(changes));
        lines
    }
}

pub(super) fn wind_name(i: usize) -> &'static str {
    ["East", "South", "West", "North"][i % 4]
}

pub(super) fn score_span(s: i32) -> Span<'static> {
    score_span_w(s, 0)
}

/// A score right-aligned in `width` cells, green when up, red when down.
pub(super) fn score_span_w(s: i32, width: usize) -> Span<'static> {
    let color = match s {
        0 => Color::Reset,
        s if s > 0 => Color::LightGreen,
        _ => Color::LightRed,
    };
    Span::styled(format!("{s:>+width$}"), Style::default().fg(color))
}

/// A bordered box centred in `area`, at most `w`×`h`.
/// The smallest terminal the table fits.
pub(super) const MIN_WIDTH: u16 = 80;
pub(super) const MIN_HEIGHT: u16 = 22;

pub(super) fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// Box corners and edges in ASCII, for a terminal that shows nothing else.
const ASCII_BORDER: ratatui::symbols::border::Set = ratatui::symbols::border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};

/// Text as the terminal can show it: as it is with glyphs, in ASCII words (see
/// [`ascii_words`]) with notation (`--ascii`, or a locale that is not UTF-8).
pub(super) fn shown(face: TileFace, text: Text<'_>) -> Text<'_> {
    if face == TileFace::Glyph {
        return text;
    }
    let lines = text
        .lines
        .into_iter()
        .map(|l| {
            let spans: Vec<Span> = l
                .spans
                .into_iter()
                .map(|s| Span::styled(ascii_words(&s.content), s.style))
                .collect();
            Line {
                spans,
                style: l.style,
                alignment: l.alignment,
            }
        })
        .collect::<Vec<_>>();
    Text {
        lines,
        style: text.style,
        alignment: text.alignment,
    }
}

impl App {
    /// Columns `s` takes once shown (ASCII words can be wider than the marks they replace).
    pub(super) fn width_shown(&self, s: &str) -> usize {
        match self.setup.face {
            TileFace::Glyph => display_width(s),
            TileFace::Notation => display_width(&ascii_words(s)),
        }
    }

    /// A paragraph of text as this terminal can show it.
    pub(super) fn para<'a>(&self, text: impl Into<Text<'a>>) -> Paragraph<'a> {
        Paragraph::new(shown(self.setup.face, text.into()))
    }
}

impl App {
    /// A bordered box in the middle of `area`.
    pub(super) fn popup(
        &self,
        f: &mut Frame,
        area: Rect,
        title: &str,
        text: Text<'static>,
        (w, h): (u16, u16),
        scroll: u16,
    ) {
        let face = self.setup.face;
        let w = w.min(area.width);
        let h = h.max(3).min(area.height);
        let r = Rect::new(
            area.x + (area.width - w) / 2,
            area.y + (area.height - h) / 2,
            w,
            h,
        );
        f.render_widget(Clear, r);
        let mut block = Block::default()
            .borders(Borders::ALL)
            .title(shown(face, Text::from(title.to_string())).to_string());
        if face == TileFace::Notation {
            block = block.border_set(ASCII_BORDER);
        }
        f.render_widget(
            Paragraph::new(shown(face, text))
                .block(block)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0)),
            r,
        );
    }
}
