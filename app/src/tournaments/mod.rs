//! 比赛: the server's tournaments — the list of those taking entrants or in play, one
//! tournament (its state, the standings with one's own place, sign up, the next table) and
//! the check of its finished rounds' walls against their commitments, done here, in the
//! model, from the published rounds. The table itself is the online table
//! ([`crate::online_table`]), which asks for the first round's seat ([`seat_request`]) and
//! for each next one on the table's own socket once a match ends.

use tongcheng_api::endpoints::{
    EnterTournament, ListTournaments, NextTable, ShowTournament, TournamentRound,
    TournamentStandings,
};
use tongcheng_api::tournament::{
    EntryRequest, FormatKind, PublishedRound, RoundId, SeatRequest, SeatState, StandingsPage,
    TournamentId, TournamentInfo, TournamentList, TournamentSeat, TournamentStatus,
};
use tongcheng_api::{Endpoint, NoParams, PathParams};
use tongcheng_core::fair::Bytes32;
use tongcheng_core::tournament::simulate::RoundRecord;
use tongcheng_core::wall::Seed;

use crate::catalogue::{Lang, Text, preset_name};
use crate::model::{Effect, Tap};
use crate::online::{Answer, read};

fn request<E: Endpoint>(
    id: u64,
    params: &E::Params,
    query: &str,
    token: &str,
    body: Option<serde_json::Value>,
) -> Effect
where
    E::Params: PathParams,
{
    crate::online::request::<E>(id, params, query, Some(token), body)
}
use crate::view::{Button, TournamentView, TournamentsView};

/// Request ids of the tournament screens: apart from the account's and the table's.
const IDS_FROM: u64 = 2 << 32;

/// Standings rows shown.
const STANDINGS_SHOWN: u32 = 10;

/// What a request in flight was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asked {
    List,
    Show,
    Standings,
    Enter,
    /// A finished round's record, to check.
    Round(u32),
}

/// The check of a tournament's finished rounds.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Check {
    /// Round `next` is being fetched; `hands` checked so far.
    Running {
        next: u32,
        hands: usize,
    },
    Passed {
        rounds: u32,
        hands: usize,
    },
    Failed {
        round: u32,
        why: String,
    },
}

/// The tournament screens' state.
#[derive(Debug, Default)]
pub(crate) struct Tournaments {
    list: Option<Vec<TournamentInfo>>,
    open: Option<TournamentInfo>,
    standings: Option<StandingsPage>,
    check: Option<Check>,
    /// The last refusal, or that the server could not be reached.
    notice: Option<String>,
    pending: Vec<(u64, Asked)>,
    next_id: u64,
    /// The last round the player sat in, by tournament: 下一桌 asks for the one after.
    played: Vec<(String, u32)>,
}

/// The seat request of round `round` of tournament `id`: with the commitment read and our
/// contribution when the server has published one (see `tongcheng_client::tournament`).
pub(crate) fn seat_request(
    request_id: u64,
    tournament: &str,
    round: u32,
    commitment: Option<String>,
    seed: u64,
    token: &str,
) -> Effect {
    // Our 32 bytes for the round's walls: from the face's randomness (the model's seed),
    // unknown to the server, and drawn anew for each round.
    let contribution = commitment
        .as_ref()
        .map(|_| Bytes32(Seed::from_u64(seed).derive(u64::from(round)).0).to_hex());
    let body = SeatRequest {
        round,
        commitment,
        contribution,
    };
    request::<NextTable>(
        request_id,
        &TournamentId {
            id: tournament.into(),
        },
        "",
        token,
        serde_json::to_value(body).ok(),
    )
}

/// What a seat answer that is not a table says, in the player's words.
pub(crate) fn seat_words(state: &SeatState, lang: Lang) -> &'static str {
    match state {
        SeatState::Out => Text::TournamentOut.get(lang),
        SeatState::Finished => Text::TournamentFinished.get(lang),
        SeatState::Cancelled => Text::TournamentCancelled.get(lang),
        SeatState::Bye => Text::TournamentBye.get(lang),
        _ => Text::TournamentWaiting.get(lang),
    }
}

impl Tournaments {
    fn ask(&mut self, what: Asked) -> u64 {
        self.next_id += 1;
        let id = IDS_FROM + self.next_id;
        self.pending.push((id, what));
        id
    }

    pub(crate) fn awaits(&self, id: u64) -> bool {
        self.pending.iter().any(|(p, _)| *p == id)
    }

    /// The list, loaded anew.
    pub(crate) fn open_list(&mut self, token: &str, fx: &mut Vec<Effect>) {
        self.open = None;
        self.notice = None;
        let id = self.ask(Asked::List);
        fx.push(request::<ListTournaments>(
            id,
            &NoParams {},
            "",
            token,
            None,
        ));
    }

    /// One tournament: its state and standings.
    pub(crate) fn show(&mut self, id: &str, token: &str, fx: &mut Vec<Effect>) {
        if self.open.as_ref().is_none_or(|t| t.id != id) {
            self.open = self
                .list
                .as_ref()
                .and_then(|l| l.iter().find(|t| t.id == id).cloned());
            self.standings = None;
            self.check = None;
        }
        self.notice = None;
        let path = TournamentId { id: id.into() };
        let r = self.ask(Asked::Show);
        fx.push(request::<ShowTournament>(r, &path, "", token, None));
        let r = self.ask(Asked::Standings);
        let query = format!("?limit={STANDINGS_SHOWN}");
        fx.push(request::<TournamentStandings>(
            r, &path, &query, token, None,
        ));
    }

    /// The tournament shown again (its state moves on between rounds).
    pub(crate) fn refresh(&mut self, token: &str, fx: &mut Vec<Effect>) {
        if let Some(id) = self.open.as_ref().map(|t| t.id.clone()) {
            self.show(&id, token, fx);
        }
    }

    /// 报名: signs up for the tournament shown.
    pub(crate) fn enter(&mut self, token: &str, fx: &mut Vec<Effect>) {
        let Some(t) = &self.open else { return };
        let path = TournamentId { id: t.id.clone() };
        let body = serde_json::to_value(EntryRequest::default()).ok();
        let r = self.ask(Asked::Enter);
        fx.push(request::<EnterTournament>(r, &path, "", token, body));
    }

    /// 验证牌墙: fetches every finished round and checks it.
    pub(crate) fn verify(&mut self, token: &str, fx: &mut Vec<Effect>) {
        match &self.open {
            Some(t) if t.rounds_finished > 0 => {
                self.check = Some(Check::Running { next: 1, hands: 0 });
                self.fetch_round(1, token, fx);
            }
            _ => {}
        }
    }

    fn fetch_round(&mut self, round: u32, token: &str, fx: &mut Vec<Effect>) {
        let Some(t) = &self.open else { return };
        let path = RoundId {
            id: t.id.clone(),
            round,
        };
        let r = self.ask(Asked::Round(round));
        fx.push(request::<TournamentRound>(r, &path, "", token, None));
    }

    /// The player sat at a table of `round` of `tournament`.
    pub(crate) fn played(&mut self, tournament: &str, round: u32) {
        self.played.retain(|(t, _)| t != tournament);
        self.played.push((tournament.to_string(), round));
    }

    /// 下一桌: the tournament shown and the round to ask a table in (the one in play, or
    /// the next after the last one sat in).
    pub(crate) fn next_round(&self) -> Option<(String, u32)> {
        let t = self.open.as_ref()?;
        let after = self
            .played
            .iter()
            .find(|(id, _)| *id == t.id)
            .map_or(0, |(_, r)| r.saturating_add(1));
        Some((t.id.clone(), t.round.max(after).max(1)))
    }

    /// The answer to request `id`.
    pub(crate) fn answered(
        &mut self,
        id: u64,
        status: u16,
        body: serde_json::Value,
        token: &str,
        fx: &mut Vec<Effect>,
    ) {
        let Some(i) = self.pending.iter().position(|(p, _)| *p == id) else {
            return;
        };
        let (_, asked) = self.pending.remove(i);
        match asked {
            Asked::List => {
                if let Some(list) = self.take::<TournamentList>(status, body) {
                    self.list = Some(list.tournaments);
                }
            }
            Asked::Show | Asked::Enter => {
                if let Some(t) = self.take::<TournamentInfo>(status, body) {
                    let entered = asked == Asked::Enter;
                    self.open = Some(t);
                    if entered {
                        self.refresh(token, fx);
                    }
                }
            }
            Asked::Standings => {
                if let Some(page) = self.take::<StandingsPage>(status, body) {
                    self.standings = Some(page);
                }
            }
            Asked::Round(round) => self.round_answered(round, status, body, token, fx),
        }
    }

    /// A finished round's record: checked, then the next.
    fn round_answered(
        &mut self,
        round: u32,
        status: u16,
        body: serde_json::Value,
        token: &str,
        fx: &mut Vec<Effect>,
    ) {
        let Some(Check::Running { hands, .. }) = self.check else {
            return;
        };
        let checked = match read::<PublishedRound>(status, body) {
            Answer::Ok(p) => serde_json::from_str::<RoundRecord>(p.record.get())
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    r.verify().map_err(|e| e.to_string())?;
                    Ok(r.tables.iter().map(Vec::len).sum::<usize>())
                }),
            Answer::Refused(e) => Err(e.error.message),
            Answer::Unreachable => Err(String::new()),
        };
        let last = self.open.as_ref().map_or(0, |t| t.rounds_finished);
        self.check = Some(match checked {
            Ok(n) if round < last => {
                self.fetch_round(round + 1, token, fx);
                Check::Running {
                    next: round + 1,
                    hands: hands + n,
                }
            }
            Ok(n) => Check::Passed {
                rounds: round,
                hands: hands + n,
            },
            Err(why) => Check::Failed { round, why },
        });
    }

    /// An answer's body, or `None` with the refusal kept to show.
    fn take<T: serde::de::DeserializeOwned>(
        &mut self,
        status: u16,
        body: serde_json::Value,
    ) -> Option<T> {
        match read::<T>(status, body) {
            Answer::Ok(v) => Some(v),
            Answer::Refused(e) => {
                self.notice = Some(e.error.message);
                None
            }
            Answer::Unreachable => {
                self.notice = Some(String::new());
                None
            }
        }
    }

    fn notice_text(&self, lang: Lang) -> Option<String> {
        self.notice.as_ref().map(|n| {
            if n.is_empty() {
                Text::ServerUnreachable.get(lang).to_string()
            } else {
                n.clone()
            }
        })
    }

    pub(crate) fn list_view(&self, lang: Lang) -> TournamentsView {
        let items: Vec<Button> = self
            .list
            .iter()
            .flatten()
            .map(|t| {
                let label = format!("{} · {}", t.name, summary(t, lang));
                let mut b = Button::new(label, true, Tap::OpenTournament { id: t.id.clone() });
                b.name = t.name.clone();
                b
            })
            .collect();
        let empty = match &self.list {
            None => Some(Text::Loading.get(lang).to_string()),
            Some(l) if l.is_empty() => Some(Text::NoTournaments.get(lang).to_string()),
            Some(_) => None,
        };
        TournamentsView {
            title: Text::Tournaments.get(lang).into(),
            items,
            empty: self.notice_text(lang).or(empty),
            back: Button::new(Text::Back.get(lang), true, Tap::Back),
        }
    }

    pub(crate) fn view(&self, lang: Lang) -> Option<TournamentView> {
        let t = self.open.as_ref()?;
        let zh = lang == Lang::ZhCn;
        let mut lines = vec![summary(t, lang)];
        lines.push(match (zh, t.round) {
            (true, 0) => format!("{} 轮，尚未开始", t.rounds),
            (false, 0) => format!("{} rounds, not started", t.rounds),
            (true, r) => format!("第 {r} / {} 轮，已完成 {} 轮", t.rounds, t.rounds_finished),
            (false, r) => format!("Round {r} of {}, {} finished", t.rounds, t.rounds_finished),
        });
        if let Some(c) = &t.commitment {
            let short = c.get(..16).unwrap_or(c);
            lines.push(format!("{} {short}…", Text::RoundCommitment.get(lang)));
        }
        let row = |r: &tongcheng_api::tournament::StandingRow| {
            let out = r.out_after.map(|o| {
                if zh {
                    format!(" · 第 {o} 轮出局")
                } else {
                    format!(" · out after round {o}")
                }
            });
            format!(
                "{}. {} · {} {} · {} {}{}",
                r.rank,
                r.name,
                t_points(r.table_points),
                Text::TablePoints.get(lang),
                r.score,
                Text::Points.get(lang),
                out.unwrap_or_default()
            )
        };
        let standings = self
            .standings
            .as_ref()
            .map(|p| p.rows.iter().map(row).collect())
            .unwrap_or_default();
        let me = self
            .standings
            .as_ref()
            .and_then(|p| p.me.as_ref())
            .map(|r| format!("{}：{}", Text::MyPlace.get(lang), row(r)));
        let open = t.status == TournamentStatus::SignUp;
        let running = t.status == TournamentStatus::Running;
        let mut actions = Vec::new();
        if !t.entered {
            actions.push(Button::new(
                Text::SignUp.get(lang),
                open,
                Tap::EnterTournament,
            ));
        } else if open || running {
            actions.push(Button::new(
                Text::NextTable.get(lang),
                true,
                Tap::TournamentTable,
            ));
        }
        let checking = matches!(self.check, Some(Check::Running { .. }));
        actions.push(Button::new(
            Text::VerifyWalls.get(lang),
            t.rounds_finished > 0 && !checking,
            Tap::VerifyTournament,
        ));
        actions.push(Button::new(
            Text::Refresh.get(lang),
            true,
            Tap::RefreshTournament,
        ));
        let verified = self.check.as_ref().map(|c| match (c, zh) {
            (Check::Running { next, .. }, true) => format!("正在验证第 {next} 轮…"),
            (Check::Running { next, .. }, false) => format!("Checking round {next}…"),
            (Check::Passed { rounds, hands }, true) => {
                format!("{rounds} 轮、{hands} 局的牌墙全部验证通过：都来自赛前承诺的种子")
            }
            (Check::Passed { rounds, hands }, false) => format!(
                "All {rounds} rounds ({hands} hands) verified: every wall came from the seed committed to before the round"
            ),
            (Check::Failed { round, why }, true) => format!("第 {round} 轮未通过验证：{why}"),
            (Check::Failed { round, why }, false) => {
                format!("Round {round} does NOT verify: {why}")
            }
        });
        Some(TournamentView {
            title: t.name.clone(),
            lines,
            standings,
            me,
            actions,
            verified,
            notice: self.notice_text(lang),
            back: Button::new(Text::Back.get(lang), true, Tap::Back),
        })
    }
}

/// Table points as players write them (halves where tied places shared).
fn t_points(p: f64) -> String {
    let s = format!("{p:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A tournament in a line: its rule set, format, entrants and state.
fn summary(t: &TournamentInfo, lang: Lang) -> String {
    let zh = lang == Lang::ZhCn;
    let format = match (&t.format.kind, zh) {
        (FormatKind::Swiss, true) => format!("瑞士轮 {} 轮", t.format.rounds.unwrap_or(0)),
        (FormatKind::Swiss, false) => format!("Swiss, {} rounds", t.format.rounds.unwrap_or(0)),
        (_, true) => "打立出局".to_string(),
        (_, false) => "Elimination".to_string(),
    };
    let duplicate = if t.duplicate {
        if zh { " · 复式" } else { " · duplicate" }
    } else {
        ""
    };
    let status = match t.status {
        TournamentStatus::SignUp => Text::SigningUp,
        TournamentStatus::Running => Text::InPlay,
        TournamentStatus::Finished => Text::TournamentFinished,
        _ => Text::TournamentCancelled,
    };
    let people = if zh {
        format!("{}/{} 人", t.signed_up, t.entrants)
    } else {
        format!("{}/{} entrants", t.signed_up, t.entrants)
    };
    format!(
        "{} · {format}{duplicate} · {people} · {}",
        preset_name(&t.rules, lang),
        status.get(lang)
    )
}

/// What a seat answer leads to.
pub(crate) enum SeatStep {
    /// Ask again (the round's commitment is out, a poll ran out, or a bye: the next round).
    Again,
    /// Sit at `table` on `server`.
    Table { table: String, server: String },
    /// No more tables: out, finished or cancelled.
    Done(SeatState),
    /// Refused (the server's words), or unreachable (empty).
    Refused(String),
}

/// Reads a seat answer for round `*round`, moving the round and the commitment to ask
/// with next.
pub(crate) fn seat_step(
    status: u16,
    body: serde_json::Value,
    round: &mut u32,
    commitment: &mut Option<String>,
) -> SeatStep {
    let seat = match read::<TournamentSeat>(status, body) {
        Answer::Ok(s) => s,
        Answer::Refused(e) => return SeatStep::Refused(e.error.message),
        Answer::Unreachable => return SeatStep::Refused(String::new()),
    };
    match seat.state {
        SeatState::Commit => {
            *round = seat.round;
            *commitment = seat.commitment;
            SeatStep::Again
        }
        SeatState::Waiting => SeatStep::Again,
        SeatState::Bye => {
            *round = seat.round.saturating_add(1);
            *commitment = None;
            SeatStep::Again
        }
        SeatState::Seated => SeatStep::Table {
            table: seat.table.unwrap_or_default(),
            server: seat.server,
        },
        other => SeatStep::Done(other),
    }
}

#[cfg(test)]
mod tests;
