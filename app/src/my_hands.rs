//! The 我的牌局 screen: a page of kept hands and the statistics of a chosen rule set, loaded
//! through the face's history (effects out, events back) and drawn in the player's language.

use tongcheng_core::describe::CivilTime;

use crate::catalogue::{Lang, Text, preset_name};
use crate::hands::{HandStats, HandSummary};
use crate::model::{Effect, Tap};
use crate::view::{Button, Figure, HandRow, MyHandsView, Picker, SyncView};

/// Hands on a page.
pub const PAGE: u32 = 20;

/// China Standard Time: where the dates are shown until a face says otherwise.
pub const DEFAULT_UTC_OFFSET_MIN: i32 = 8 * 60;

#[derive(Debug, Default)]
pub struct MyHands {
    offset: u32,
    total: u32,
    /// `None` until the face answers.
    hands: Option<Vec<HandSummary>>,
    stats_rules: Option<String>,
    stats: Option<HandStats>,
    rules_played: Vec<String>,
    /// A replay asked for and not yet loaded.
    pub opening: Option<u64>,
    /// The last replay asked for could not be read.
    pub unreadable: bool,
}

impl MyHands {
    /// The screen as it opens: the newest page and the statistics over every rule set.
    pub fn open(fx: &mut Vec<Effect>) -> MyHands {
        fx.push(Effect::LoadHands {
            offset: 0,
            limit: PAGE,
        });
        fx.push(Effect::LoadStats { rules: None });
        MyHands::default()
    }

    /// A page arrived; one for another page than the one asked for last is dropped.
    /// The page and statistics read again (a sync brought hands down).
    pub fn reload(&mut self, fx: &mut Vec<Effect>) {
        fx.push(Effect::LoadHands {
            offset: self.offset,
            limit: PAGE,
        });
        fx.push(Effect::LoadStats {
            rules: self.stats_rules.clone(),
        });
    }

    pub fn hands_loaded(&mut self, offset: u32, total: u32, hands: Vec<HandSummary>) {
        if offset == self.offset {
            self.total = total;
            self.hands = Some(hands);
        }
    }

    pub fn stats_loaded(&mut self, rules: Option<String>, stats: HandStats, played: Vec<String>) {
        if rules == self.stats_rules {
            self.stats = Some(stats);
            self.rules_played = played;
        }
    }

    pub fn tap(&mut self, tap: Tap, fx: &mut Vec<Effect>) {
        match tap {
            Tap::PickStatsRules { rules } => {
                self.stats_rules = rules.clone();
                self.stats = None;
                fx.push(Effect::LoadStats { rules });
            }
            Tap::Page { offset } if offset < self.total.max(1) => {
                self.offset = offset - offset % PAGE;
                self.hands = None;
                fx.push(Effect::LoadHands {
                    offset: self.offset,
                    limit: PAGE,
                });
            }
            Tap::OpenHand { id } => {
                self.opening = Some(id);
                self.unreadable = false;
                fx.push(Effect::LoadRecord { id });
            }
            _ => {}
        }
    }

    pub fn view(&self, lang: Lang, utc_offset_min: i32, sync: Option<SyncView>) -> MyHandsView {
        let mut options = vec![None];
        options.extend(self.rules_played.iter().cloned().map(Some));
        let stats_rules = Picker {
            label: Text::Statistics.get(lang).into(),
            options: options
                .into_iter()
                .map(|r| {
                    let label = match &r {
                        None => Text::AllRules.get(lang).to_string(),
                        Some(name) => preset_name(name, lang),
                    };
                    let selected = r == self.stats_rules;
                    Button::new(label, true, Tap::PickStatsRules { rules: r }).selected(selected)
                })
                .collect(),
        };
        let notice = match &self.hands {
            _ if self.unreadable => Some(Text::Unreadable),
            None => Some(Text::Loading),
            Some(h) if h.is_empty() && self.offset == 0 => Some(Text::NoHandsYet),
            Some(_) => None,
        }
        .map(|t| t.get(lang).to_string());
        let shown = self.hands.as_ref().map_or(0, |h| h.len() as u32);
        MyHandsView {
            title: Text::MyHands.get(lang).into(),
            stats_rules,
            stats: self
                .stats
                .as_ref()
                .map_or_else(Vec::new, |s| figures(s, lang)),
            hands: self
                .hands
                .iter()
                .flatten()
                .map(|h| row(h, lang, utc_offset_min))
                .collect(),
            notice,
            previous: Button::new(
                Text::PreviousPage.get(lang),
                self.offset > 0,
                Tap::Page {
                    offset: self.offset.saturating_sub(PAGE),
                },
            ),
            next: Button::new(
                Text::NextPage.get(lang),
                self.offset + PAGE < self.total,
                Tap::Page {
                    offset: self.offset + PAGE,
                },
            ),
            page_label: if shown == 0 {
                String::new()
            } else {
                format!(
                    "{}–{} / {}",
                    self.offset + 1,
                    self.offset + shown,
                    self.total
                )
            },
            sync,
            back: Button::new(Text::Back.get(lang), true, Tap::Back),
        }
    }
}

fn figures(s: &HandStats, lang: Lang) -> Vec<Figure> {
    let per = |x: u64| {
        if s.hands == 0 {
            "—".to_string()
        } else {
            format!("{:.1}%", x as f64 * 100.0 / s.hands as f64)
        }
    };
    let average = if s.hands == 0 {
        "—".to_string()
    } else {
        format!("{:+.1}", s.points as f64 / s.hands as f64)
    };
    [
        (Text::HandsPlayed, s.hands.to_string()),
        (Text::WinRate, per(s.wins)),
        (Text::SelfDrawnWins, s.self_drawn_wins.to_string()),
        (Text::DealIns, s.deal_ins.to_string()),
        (Text::Draws, s.draws.to_string()),
        (Text::AveragePoints, average),
    ]
    .into_iter()
    .map(|(t, value)| Figure {
        label: t.get(lang).into(),
        value,
    })
    .collect()
}

fn row(h: &HandSummary, lang: Lang, utc_offset_min: i32) -> HandRow {
    let outcome = match (h.winner, h.won, h.self_drawn, h.dealt_in) {
        (None, ..) => Text::Draw.get(lang),
        (_, true, true, _) => Text::SelfDrawn.get(lang),
        (_, true, false, _) => Text::YouWin.get(lang),
        (_, false, _, true) => Text::DealIns.get(lang),
        _ => Text::OtherWon.get(lang),
    };
    let when = date(h.played_at, utc_offset_min, lang);
    let title = format!("{} · {outcome}", preset_name(&h.rules, lang));
    let detail = h
        .fans
        .iter()
        .map(|f| match lang {
            Lang::ZhCn => f.zh.as_str(),
            Lang::En => f.en.as_str(),
        })
        .collect::<Vec<_>>()
        .join(" · ");
    let mut open = Button::new(Text::Replay.get(lang), true, Tap::OpenHand { id: h.id });
    open.name = format!("{} {title} {when}", Text::Replay.get(lang));
    HandRow {
        title,
        detail: if detail.is_empty() {
            when
        } else {
            format!("{when} · {detail}")
        },
        points: format!("{:+}", h.points),
        won: h.won,
        open,
    }
}

/// A played-at time in the player's zone: "12月5日 21:13" or "Dec 5, 21:13".
fn date(unix_secs: i64, utc_offset_min: i32, lang: Lang) -> String {
    let c = CivilTime::of(unix_secs, utc_offset_min);
    let (month, day, h, m) = (c.month, c.day, c.hour, c.minute);
    match lang {
        Lang::ZhCn => format!("{month}月{day}日 {h:02}:{m:02}"),
        Lang::En => {
            const MONTHS: [&str; 12] = [
                "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
            ];
            let name = MONTHS[(month as usize).saturating_sub(1).min(11)];
            format!("{name} {day}, {h:02}:{m:02}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_in_the_players_zone() {
        // 2026-12-05 21:13:00 UTC.
        let t = 1_796_505_180;
        assert_eq!(date(t, 0, Lang::En), "Dec 5, 21:13");
        assert_eq!(date(t, 480, Lang::ZhCn), "12月6日 05:13");
    }
}
