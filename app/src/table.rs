//! The match against bots as the table screen sees it: the core's table host (its bots, its
//! one decision clock, 托管, the saved form) driven at the face's time, and the table and
//! result views built from the player's seat view.

use serde::{Deserialize, Serialize};
use tongcheng_core::describe::meld_tiles_laid;
use tongcheng_core::game::{Action, DecisionKind, HandResult, SeatView as CoreSeat};
use tongcheng_core::hint::{Hint, hint};
use tongcheng_core::rules::{MAX_PIAO, Piao};
use tongcheng_core::table::{Step, Table};
use tongcheng_core::tile::Tile;

use crate::catalogue::{Lang, Text, seat_name, tile_name};
use crate::model::{Sound, Tap};
use crate::view::{
    Button, FanLine, HandTile, HintView, Payment, ResultView, SeatView, TableView, TileView,
};

/// The person's player slot: the table's first.
const ME: usize = 0;

/// Between one move a player sees and the next (a bot's discard, a claim): time to see who
/// did what, as at a real table. It also keeps a tap's work to the tap itself.
pub const PACE_MS: u64 = 500;

/// The claim bar's buttons, in the order players know: 吃 碰 杠 胡 过.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    Chow,
    Pung,
    Kong,
    Win,
    Pass,
}

impl ClaimKind {
    const BAR: [ClaimKind; 5] = [
        ClaimKind::Chow,
        ClaimKind::Pung,
        ClaimKind::Kong,
        ClaimKind::Win,
        ClaimKind::Pass,
    ];

    fn text(self) -> Text {
        match self {
            ClaimKind::Chow => Text::Chow,
            ClaimKind::Pung => Text::Pung,
            ClaimKind::Kong => Text::Kong,
            ClaimKind::Win => Text::Win,
            ClaimKind::Pass => Text::Pass,
        }
    }

    /// Whether `a` is one of this button's actions.
    fn covers(self, a: &Action) -> bool {
        matches!(
            (self, a),
            (ClaimKind::Chow, Action::Chow(_))
                | (ClaimKind::Pung, Action::Pung)
                | (
                    ClaimKind::Kong,
                    Action::Kong | Action::ConcealedKong(_) | Action::AddedKong(_)
                )
                | (ClaimKind::Win, Action::Win)
                | (ClaimKind::Pass, Action::Pass)
        )
    }
}

/// A match against bots, with what the table screen shows beside it.
#[derive(Debug)]
pub struct Offline {
    table: Table,
    /// The hint asked for at this decision.
    hint: Option<Hint>,
    /// The hint of this decision worked out ahead, while the face was idle: 提示 then shows
    /// it at once.
    ready_hint: Option<Hint>,
    /// Several actions behind one tapped button (chows, kongs): the player picks one.
    choosing: Vec<Action>,
    /// The player has chosen this hand's 飘 (where the rules ask before every hand).
    piao_chosen: bool,
    /// No bot moves before this time (`pace_ms` after the last move seen).
    next_move_at: u64,
    /// How long each move stays in view before the next ([`PACE_MS`] unless the face says).
    pace_ms: u64,
    /// The time the table was last run at.
    now: u64,
    /// When the table said to step it again (a stand-in's move, a timeout), if it did.
    step_again_at: Option<u64>,
}

impl Offline {
    pub fn new(table: Table, pace_ms: u64) -> Offline {
        Offline {
            table,
            pace_ms,
            hint: None,
            ready_hint: None,
            choosing: Vec::new(),
            piao_chosen: false,
            next_move_at: 0,
            now: 0,
            step_again_at: None,
        }
    }

    /// This hand's 飘 is asked of the player: nothing moves until he answers.
    fn piao_asked(&self) -> bool {
        self.table.piao_open() && !self.piao_chosen
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn into_table(self) -> Table {
        self.table
    }

    pub fn saved_json(&self) -> String {
        self.table.saved().to_json()
    }

    pub fn result(&self) -> Option<&HandResult> {
        self.table
            .game()
            .is_finished()
            .then(|| self.table.game().result())
            .flatten()
    }

    /// Plays the bots, stand-ins and timeouts due at `now`, one move seen per `pace_ms`;
    /// stops when the person is waited for, the next move is not due yet, or the hand is over.
    pub fn run(&mut self, now: u64) -> Step {
        self.now = self.now.max(now);
        if self.piao_asked() {
            if !self.table.auto_play(ME) {
                return Step::Waiting { deadline_ms: None };
            }
            // 托管 stakes nothing for him.
            let _ = self.table.choose_piao(ME, 0);
            self.piao_chosen = true;
        }
        loop {
            if now < self.next_move_at && !self.table.game().is_finished() {
                self.step_again_at = None;
                return Step::Waiting {
                    deadline_ms: Some(self.next_move_at),
                };
            }
            match self.table.step(now) {
                Step::Acted { visible, .. } => {
                    self.hint = None;
                    self.ready_hint = None;
                    self.choosing.clear();
                    if visible {
                        self.next_move_at = now + self.pace_ms;
                    }
                }
                // Due now (a stand-in told to move): step on, as the core's own run does.
                Step::Waiting {
                    deadline_ms: Some(at),
                } if at <= now => {}
                other => {
                    self.step_again_at = match other {
                        Step::Waiting { deadline_ms } => deadline_ms,
                        _ => None,
                    };
                    return other;
                }
            }
        }
    }

    /// When the model is to be woken: the next bot move, or the person's decision timing out.
    pub fn wake_at(&self) -> Option<u64> {
        if self.table.game().is_finished() {
            return None;
        }
        // Only a move still to come: one due already waits for the person, not the clock.
        let pace = Some(self.next_move_at).filter(|&t| t > self.now);
        [self.table.deadline(ME), pace, self.step_again_at]
            .into_iter()
            .flatten()
            .min()
    }

    /// The face is idle: the hint of the player's decision is worked out ahead (once).
    pub fn idle(&mut self) {
        if self.hint.is_none()
            && self.ready_hint.is_none()
            && self.table.decision(ME).is_some()
            && !self.piao_asked()
        {
            self.ready_hint = hint(&self.table.view(ME));
        }
    }

    /// The next hand of the match; false when the match is over.
    pub fn next_hand(&mut self) -> bool {
        self.hint = None;
        self.ready_hint = None;
        self.choosing.clear();
        self.piao_chosen = false;
        self.table.next_hand()
    }

    /// A tap on the table; the sound it makes, if it did something.
    pub fn tap(&mut self, tap: &Tap, now: u64) -> Option<Sound> {
        if self.piao_asked() {
            match tap {
                Tap::Piao { stake } => {
                    self.table.choose_piao(ME, *stake).ok()?;
                    self.piao_chosen = true;
                }
                Tap::AutoPlay => {
                    self.table.set_auto_play(ME, true);
                }
                _ => {}
            }
            return None;
        }
        let legal = self.table.decision(ME).map(|d| d.legal).unwrap_or_default();
        let action = match pick(tap, &legal, &mut self.choosing)? {
            Picked::Act(a) => a,
            Picked::Hint => {
                self.hint = self
                    .ready_hint
                    .take()
                    .or_else(|| hint(&self.table.view(ME)));
                return None;
            }
            Picked::AutoPlay => {
                let on = !self.table.auto_play(ME);
                self.table.set_auto_play(ME, on);
                return None;
            }
        };
        if !legal.contains(&action) {
            return None;
        }
        self.table.act(ME, action, now).ok()?;
        self.hint = None;
        self.ready_hint = None;
        self.choosing.clear();
        self.next_move_at = now + self.pace_ms;
        Some(sound_of(&action))
    }

    /// The table screen.
    pub fn view(&self, lang: Lang, now: u64) -> TableView {
        let v = self.table.view(ME);
        let parts = TableParts {
            hint: self.hint.as_ref(),
            choosing: &self.choosing,
            piao_asked: self.piao_asked(),
            countdown_secs: self
                .table
                .remaining_ms(ME, now)
                .map(|ms| ms.div_ceil(1000) as u32),
            auto_play: self.table.auto_play(ME),
            auto_play_open: true,
            hand_number: self.table.match_state().hand_index() + 1,
            scores: self.table.match_state().scores(),
            piao_shown: self.piao_shown(&v),
        };
        table_view(&v, &parts, lang)
    }

    /// Each seat's 飘 as the seats are drawn (from the player's own), once the hand is under
    /// way: where the rules ask it before every hand.
    fn piao_shown(&self, v: &CoreSeat) -> [Option<u8>; 4] {
        let stakes = self.table.piao_chosen();
        let open = matches!(v.rules.piao, Piao::Chosen(_)) && !self.piao_asked();
        std::array::from_fn(|k| open.then(|| stakes[(v.seat.index() + k) % 4]))
    }

    /// The result screen (结算) of the finished hand.
    pub fn result_view(&self, lang: Lang) -> Option<ResultView> {
        let r = self.result()?;
        let next = if self.table.is_over() {
            Text::MatchOver
        } else {
            Text::NextHand
        };
        let mut v = result_view(
            r,
            &self.table.view(ME),
            lang,
            Button::new(next.get(lang), true, Tap::NextHand),
        );
        if !self.table.is_over() {
            v.home = Some(Button::new(Text::Home.get(lang), true, Tap::Back));
        }
        Some(v)
    }
}

/// What a tap on the table asks for.
pub(crate) enum Picked {
    /// One of the legal actions.
    Act(Action),
    Hint,
    AutoPlay,
}

/// The table tap's meaning against the decision's `legal` actions: an action, or a claim
/// button covering several (chows, kongs) that leaves them in `choosing` to pick from.
pub(crate) fn pick(tap: &Tap, legal: &[Action], choosing: &mut Vec<Action>) -> Option<Picked> {
    let action = match tap {
        Tap::Discard { tile } => Action::Discard(*tile),
        Tap::Claim { kind } => {
            let options: Vec<Action> = legal.iter().copied().filter(|a| kind.covers(a)).collect();
            match options.as_slice() {
                [] => return None,
                [one] => *one,
                _ => {
                    *choosing = options;
                    return None;
                }
            }
        }
        Tap::Choose { index } => *choosing.get(usize::from(*index))?,
        Tap::Hint => return Some(Picked::Hint),
        Tap::AutoPlay => return Some(Picked::AutoPlay),
        _ => return None,
    };
    legal.contains(&action).then_some(Picked::Act(action))
}

/// The sound an action makes.
pub(crate) fn sound_of(action: &Action) -> Sound {
    match action {
        Action::Discard(_) => Sound::Discard,
        Action::Win => Sound::Win,
        _ => Sound::Claim,
    }
}

/// What the table screen shows beside the seat's view.
pub(crate) struct TableParts<'a> {
    pub hint: Option<&'a Hint>,
    pub choosing: &'a [Action],
    /// This hand's 飘 is asked of the player.
    pub piao_asked: bool,
    pub countdown_secs: Option<u32>,
    pub auto_play: bool,
    /// 托管 can be switched here (online, the server switches it).
    pub auto_play_open: bool,
    pub hand_number: u32,
    /// Match scores by seat.
    pub scores: [i32; 4],
    /// Each seat's 飘 from the player's own.
    pub piao_shown: [Option<u8>; 4],
}

/// The table screen of seat view `v`.
pub(crate) fn table_view(v: &CoreSeat, parts: &TableParts, lang: Lang) -> TableView {
    let asked = parts.piao_asked;
    let legal = v
        .decision
        .as_ref()
        .filter(|_| !asked)
        .map(|d| d.legal.clone())
        .unwrap_or_default();
    let suggested = match parts.hint {
        Some(Hint::Turn {
            recommended: Action::Discard(t),
            ..
        }) => Some(*t),
        _ => None,
    };
    let hand_tile = |t: Tile| HandTile {
        tile: tile_view(t, v.wild, lang),
        enabled: legal.contains(&Action::Discard(t)),
        suggested: suggested == Some(t),
        tap: Tap::Discard { tile: t },
    };
    let claim_bar = ClaimKind::BAR
        .iter()
        .map(|&k| {
            Button::new(
                k.text().get(lang),
                legal.iter().any(|a| k.covers(a)),
                Tap::Claim { kind: k },
            )
        })
        .collect();
    let chow_choices = parts
        .choosing
        .iter()
        .enumerate()
        .map(|(i, a)| {
            Button::new(
                action_words(a, v, lang),
                true,
                Tap::Choose { index: i as u8 },
            )
        })
        .collect();
    let hand_number = parts.hand_number;
    TableView {
        title: match lang {
            Lang::ZhCn => format!("第 {hand_number} 局 · {}风圈", v.prevalent.name_zh()),
            Lang::En => format!("Hand {hand_number} · {} round", v.prevalent),
        },
        status: if asked {
            Text::PiaoAsk.get(lang).into()
        } else {
            status(v, lang)
        },
        piao_choices: if asked {
            (0..=MAX_PIAO)
                .map(|n| Button::new(n.to_string(), true, Tap::Piao { stake: n }))
                .collect()
        } else {
            Vec::new()
        },
        wall_left: v.wall_remaining as u32,
        wall_label: Text::WallLeft.get(lang).into(),
        seats: seats(v, parts.scores, lang)
            .into_iter()
            .zip(parts.piao_shown)
            .map(|(s, piao)| SeatView {
                piao: piao.map(|n| match lang {
                    Lang::ZhCn => format!("飘{n}"),
                    Lang::En => format!("Float {n}"),
                }),
                ..s
            })
            .collect(),
        hand: v.hand.iter().map(|&t| hand_tile(t)).collect(),
        drawn: v.drawn.map(hand_tile),
        claim_bar,
        chow_choices,
        countdown_secs: parts.countdown_secs,
        auto_play: Button::new(
            Text::AutoPlay.get(lang),
            parts.auto_play_open,
            Tap::AutoPlay,
        )
        .selected(parts.auto_play),
        hint_button: Button::new(
            Text::Hint.get(lang),
            v.decision.is_some() && !asked,
            Tap::Hint,
        ),
        hint: parts.hint.map(|h| hint_view(h, v, lang)),
        wild: v.wild.map(|w| tile_view(w, Some(w), lang)),
        back: Button::new(Text::Home.get(lang), true, Tap::Back),
    }
}

/// The result (结算) of a finished hand seen from `v`'s seat, with the button that leaves it.
pub(crate) fn result_view(r: &HandResult, v: &CoreSeat, lang: Lang, next: Button) -> ResultView {
    let me = v.seat;
    let name = |s: tongcheng_core::Seat| {
        let wind = v.seats.get(s.index()).map_or(s.index(), |p| p.wind.index());
        seat_name(wind, s == me, lang).to_string()
    };
    let outcome = match r.winner {
        None => Text::Draw.get(lang).to_string(),
        Some(w) => {
            let how = if r.self_drawn {
                Text::SelfDrawn.get(lang).to_string()
            } else {
                let from = r.discarder.map(&name).unwrap_or_default();
                format!("{from} {}", Text::OnDiscard.get(lang))
            };
            if w == me {
                format!("{}（{how}）", Text::YouWin.get(lang))
            } else {
                format!("{} {}（{how}）", name(w), Text::Wins.get(lang))
            }
        }
    };
    let fans = r
        .score
        .iter()
        .flat_map(|s| &s.fans)
        .map(|f| FanLine {
            name: match lang {
                Lang::ZhCn => f.name().to_string(),
                Lang::En => f.en().to_string(),
            },
            points: f.points,
            count: f.count,
        })
        .collect();
    let payments = (0..4u8)
        .map(|i| {
            let s = tongcheng_core::Seat(i);
            Payment {
                seat: name(s),
                delta: r.deltas[s.index()],
                kong: r.kong_deltas[s.index()],
            }
        })
        .collect();
    ResultView {
        heading: Text::Result.get(lang).into(),
        outcome,
        fans,
        total: r.score.as_ref().map_or(0, |s| s.total),
        payments,
        next,
        home: None,
        fairness: None,
    }
}

pub(crate) fn tile_view(t: Tile, wild: Option<Tile>, lang: Lang) -> TileView {
    TileView {
        code: t.to_string(),
        name: tile_name(t, lang),
        wild: wild == Some(t),
        hidden: false,
        taken: false,
    }
}

/// A tile lying face down (暗牌, a concealed kong's back).
fn hidden_tile(lang: Lang) -> TileView {
    TileView {
        code: String::new(),
        name: match lang {
            Lang::ZhCn => "牌背".into(),
            Lang::En => "Face down".into(),
        },
        wild: false,
        hidden: true,
        taken: false,
    }
}

/// The seats from the player's own, counter-clockwise: you, right, across, left.
pub(crate) fn seats(v: &CoreSeat, scores: [i32; 4], lang: Lang) -> Vec<SeatView> {
    (0..4)
        .filter_map(|k| v.seats.get((v.seat.index() + k) % 4))
        .map(|s| SeatView {
            name: seat_name(s.wind.index(), s.seat == v.seat, lang).into(),
            badge: (s.seat == v.dealer).then(|| Text::Dealer.get(lang).to_string()),
            wind: match lang {
                Lang::ZhCn => s.wind.name_zh().into(),
                Lang::En => s.wind.to_string(),
            },
            is_you: s.seat == v.seat,
            is_dealer: s.seat == v.dealer,
            is_turn: v.turn == Some(s.seat),
            score: scores[s.seat.index()],
            concealed: s.concealed_count as u32,
            melds: s
                .melds
                .iter()
                .map(|m| {
                    meld_tiles_laid(m, v.wild)
                        .into_iter()
                        .map(|t| tile_view(t, v.wild, lang))
                        .collect()
                })
                .collect(),
            discards: s
                .discards
                .iter()
                .map(|d| match d.tile {
                    Some(t) => TileView {
                        taken: d.claimed,
                        ..tile_view(t, v.wild, lang)
                    },
                    None => hidden_tile(lang),
                })
                .collect(),
            flowers: s
                .flowers
                .iter()
                .map(|&t| tile_view(t, v.wild, lang))
                .collect(),
            piao: None,
        })
        .collect()
}

/// What is asked of the player, or whom the table waits for.
pub(crate) fn status(v: &CoreSeat, lang: Lang) -> String {
    let name = |s: tongcheng_core::Seat| {
        let wind = v.seats.get(s.index()).map_or(0, |p| p.wind.index());
        seat_name(wind, s == v.seat, lang)
    };
    match v.decision.as_ref().map(|d| &d.kind) {
        Some(DecisionKind::Turn) => Text::YourTurn.get(lang).into(),
        Some(DecisionKind::Claim { tile }) | Some(DecisionKind::RobKong { tile }) => {
            let from = v.claim.map_or("", |(s, _)| name(s));
            match lang {
                Lang::ZhCn => format!("{from}打出 {}", tile_name(*tile, lang)),
                Lang::En => format!("{from} discarded {}", tile_name(*tile, lang)),
            }
        }
        None => match v.turn {
            Some(s) => format!("{} {}", Text::WaitingFor.get(lang), name(s)),
            None => String::new(),
        },
    }
}

/// An action in words: 吃 三万四万五万, 杠 东, 打 五饼.
pub(crate) fn action_words(a: &Action, v: &CoreSeat, lang: Lang) -> String {
    let t = |t: Tile| tile_name(t, lang);
    match *a {
        Action::Chow(low) => {
            let run: Vec<String> = (0..3).filter_map(|d| low.offset(d)).map(&t).collect();
            format!("{} {}", Text::Chow.get(lang), run.join(""))
        }
        Action::ConcealedKong(x) | Action::AddedKong(x) => {
            format!("{} {}", Text::Kong.get(lang), t(x))
        }
        Action::Kong => {
            let claimed = v.claim.map(|(_, x)| t(x)).unwrap_or_default();
            format!("{} {claimed}", Text::Kong.get(lang))
        }
        Action::Pung => Text::Pung.get(lang).into(),
        Action::Win => Text::Win.get(lang).into(),
        Action::Pass => Text::Pass.get(lang).into(),
        Action::Discard(x) => match lang {
            Lang::ZhCn => format!("打 {}", t(x)),
            Lang::En => format!("Discard {}", t(x)),
        },
    }
}

fn hint_view(h: &Hint, v: &CoreSeat, lang: Lang) -> HintView {
    let advice = match h {
        Hint::Win { .. } => Text::Win.get(lang).to_string(),
        Hint::Turn { recommended, .. } | Hint::Claim { recommended, .. } => {
            action_words(recommended, v, lang)
        }
    };
    let words = h.reason();
    // The player's language; a hint made before the Chinese existed falls back to English.
    let reason = match lang {
        Lang::ZhCn if !words.zh.is_empty() => words.zh,
        _ => words.en,
    };
    HintView { advice, reason }
}
