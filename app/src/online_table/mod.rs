//! 快速匹配 and 好友房: a seat at one of the server's tables. The queue's long poll seats
//! the player, or a room opened or joined by its code does; the face holds the WebSocket ([`Effect::OpenSocket`], [`Effect::SendFrame`]) and hands
//! every frame to the core's seat stream, which keeps the order, resumes after a lost
//! connection and checks every hand's wall. The table is drawn from the stream's view, the
//! same way as a match against bots; a dropped connection is taken up again by itself.

use tongcheng_api::NoParams;
use tongcheng_api::endpoints::{self, Endpoint};
use tongcheng_api::play::{QueueRequest, RoomCode, RoomInfo, RoomSettings, Seated};
use tongcheng_api::tournament::SeatState;
use tongcheng_core::Seat;
use tongcheng_core::game::{Action, Game, HandResult, SeatView as CoreSeat};
use tongcheng_core::hex::unhex_array;
use tongcheng_core::hint::Hint;
use tongcheng_core::protocol::stream::{OnlineOptions, OnlineUpdate, SeatStream, Step};
use tongcheng_core::protocol::{ClientMsg, PlayerInfo};
use tongcheng_core::record;

use crate::catalogue::{Lang, Text};
use crate::model::{Effect, Sound, Tap};
use crate::online::{Answer, read, request};
use crate::table::{Picked, TableParts, pick, result_view, sound_of, table_view};
use crate::tournaments::{self, SeatStep};
use crate::view::{Button, QueueView, ResultView, TableView};

mod next;

/// Request and socket ids of the table: apart from the account's requests (which count
/// from 1), so an answer is never taken for the other's.
const IDS_FROM: u64 = 1 << 32;

/// Waits before reconnecting, doubling from the first to the last.
const RECONNECT_MS: [u64; 5] = [500, 1_000, 2_000, 4_000, 8_000];

/// How the seat is found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seek {
    /// 快速匹配 (the casual queue of a rule set) or 排位赛 (the ranked one: the match moves
    /// the rating).
    Queue { preset: String, ranked: bool },
    /// 开房: a new room of a rule set for `people` (bots in the other seats).
    OpenRoom { preset: String, people: u8 },
    /// 加入房间: a friend's room by its code.
    JoinRoom { code: String },
    /// 比赛: one's table in a tournament's round (`seed`: the face's randomness, for our
    /// contributions to the rounds' walls).
    Tournament { id: String, round: u32, seed: u64 },
}

#[derive(Debug)]
enum Phase {
    /// The queue's long poll is under way.
    Queueing { request: u64 },
    /// The queue found no table: why.
    Failed { message: String },
    /// A tournament has no more tables for the player (out, finished, cancelled).
    Done(SeatState),
    /// At the table (or coming back to it).
    Seated,
    /// A tournament match is over and the player asked for his next table: its notice is
    /// awaited on the socket ([`next`]).
    Awaiting,
}

/// A finished hand, for the result screen.
#[derive(Debug)]
struct Ended {
    /// The result as the record states it (the stream's check replayed it against the
    /// table's announced rules: `fair` says whether it held).
    result: HandResult,
    /// The seats as the player saw them at the end (whose names the result uses).
    seats: Box<CoreSeat>,
    fair: bool,
}

/// The player's online table, from the queue to the match's end.
#[derive(Debug)]
pub(crate) struct OnlineTable {
    seek: Seek,
    /// The room's code, once in one.
    room: Option<String>,
    phase: Phase,
    stream: Option<SeatStream>,
    players: Vec<PlayerInfo>,
    /// The node that runs the table (the queue's answer).
    server: String,
    /// The socket asked for or open now, and whether it is open.
    socket: Option<u64>,
    open: bool,
    /// Lost connections in a row (the next wait), and when to try again.
    losses: usize,
    reconnect_at: Option<u64>,
    hint: Option<Hint>,
    /// The decision's hint worked out while the face was idle.
    ready_hint: Option<Hint>,
    choosing: Vec<Action>,
    /// The hand just finished, while its result is up.
    ended: Option<Ended>,
    /// The last refusal or error the server sent, shown on the table.
    notice: Option<String>,
    next_id: u64,
    now: u64,
    /// A tournament's round commitment, once read (our contribution goes with it).
    commitment: Option<String>,
    /// The server's word on the next tournament table, asked on the socket after a match.
    next: Option<tongcheng_core::protocol::NextTable>,
}

impl OnlineTable {
    /// Looks for a seat as `seek` says, with session `token`.
    pub(crate) fn seek(seek: Seek, token: &str, now: u64, fx: &mut Vec<Effect>) -> OnlineTable {
        let mut t = OnlineTable {
            seek: seek.clone(),
            room: None,
            phase: Phase::Failed {
                message: String::new(),
            },
            stream: None,
            players: Vec::new(),
            server: String::new(),
            socket: None,
            open: false,
            losses: 0,
            reconnect_at: None,
            hint: None,
            ready_hint: None,
            choosing: Vec::new(),
            ended: None,
            notice: None,
            next_id: IDS_FROM,
            now,
            commitment: None,
            next: None,
        };
        let asked = t.id();
        let bearer = Some(token);
        fx.push(match seek {
            Seek::Queue { preset, ranked } => {
                let body = QueueRequest {
                    rules: Some(preset),
                    ranked,
                };
                request::<endpoints::Queue>(asked, &NoParams {}, "", bearer, json(&body))
            }
            Seek::OpenRoom { preset, people } => {
                let body = RoomSettings {
                    rules: Some(preset),
                    people,
                    ..RoomSettings::default()
                };
                request::<endpoints::CreateRoom>(asked, &NoParams {}, "", bearer, json(&body))
            }
            Seek::JoinRoom { code } => {
                request::<endpoints::JoinRoom>(asked, &RoomCode { code }, "", bearer, None)
            }
            Seek::Tournament { id, round, seed } => {
                tournaments::seat_request(asked, &id, round, None, seed, token)
            }
        });
        t.phase = Phase::Queueing { request: asked };
        t
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Whether the answer `id` is this table's.
    pub(crate) fn awaits(&self, id: u64) -> bool {
        matches!(self.phase, Phase::Queueing { request } if request == id)
    }

    /// The queue's answer: seated at a table, or why not.
    pub(crate) fn answered(
        &mut self,
        status: u16,
        body: serde_json::Value,
        token: &str,
        fx: &mut Vec<Effect>,
    ) {
        let seated = match self.seek {
            Seek::Queue { .. } => match read::<Seated>(status, body) {
                Answer::Ok(s) => Answer::Ok((s.table, s.server)),
                Answer::Refused(e) => Answer::Refused(e),
                Answer::Unreachable => Answer::Unreachable,
            },
            Seek::OpenRoom { .. } | Seek::JoinRoom { .. } => match read::<RoomInfo>(status, body) {
                Answer::Ok(r) => {
                    self.room = Some(r.code);
                    Answer::Ok((r.table, r.server))
                }
                Answer::Refused(e) => Answer::Refused(e),
                Answer::Unreachable => Answer::Unreachable,
            },
            Seek::Tournament {
                ref id,
                ref mut round,
                seed,
            } => match tournaments::seat_step(status, body, round, &mut self.commitment) {
                SeatStep::Again => {
                    let request = self.next_id + 1;
                    self.next_id = request;
                    let (id, round) = (id.clone(), *round);
                    let commitment = self.commitment.clone();
                    fx.push(tournaments::seat_request(
                        request, &id, round, commitment, seed, token,
                    ));
                    self.phase = Phase::Queueing { request };
                    return;
                }
                SeatStep::Table { table, server } => Answer::Ok((table, server)),
                SeatStep::Done(state) => {
                    self.phase = Phase::Done(state);
                    return;
                }
                SeatStep::Refused(message) => {
                    self.phase = Phase::Failed { message };
                    return;
                }
            },
        };
        match seated {
            Answer::Ok((table, server)) => self.sit_new(table, server, Some(token), fx),
            Answer::Refused(e) => {
                self.phase = Phase::Failed {
                    message: e.error.message,
                }
            }
            Answer::Unreachable => {
                self.phase = Phase::Failed {
                    message: String::new(),
                }
            }
        }
    }

    /// Sits at `table` of node `server` (empty: the one known) on a new connection.
    fn sit_new(
        &mut self,
        table: String,
        server: String,
        token: Option<&str>,
        fx: &mut Vec<Effect>,
    ) {
        let mut stream = SeatStream::new(
            OnlineOptions {
                table: Some(table),
                ..OnlineOptions::default()
            },
            [0; 32],
        );
        // The player says when he is ready for the next hand (下一局).
        stream.set_auto_ready(false);
        self.stream = Some(stream);
        if !server.is_empty() {
            self.server = server;
        }
        self.phase = Phase::Seated;
        if let Some(token) = token {
            self.connect(token, fx);
        }
    }

    fn connect(&mut self, token: &str, fx: &mut Vec<Effect>) {
        let id = self.id();
        self.socket = Some(id);
        self.open = false;
        self.reconnect_at = None;
        fx.push(Effect::OpenSocket {
            id,
            server: self.server.clone(),
            path: endpoints::Play::PATH.into(),
            token: token.into(),
        });
    }

    /// The socket `id` opened; `entropy` (hex, 32 bytes of the platform's secure
    /// randomness) keys this connection's wall contributions.
    pub(crate) fn socket_opened(&mut self, id: u64, entropy: &str, fx: &mut Vec<Effect>) {
        if self.socket != Some(id) {
            return;
        }
        let Some(stream) = self.stream.as_mut() else {
            return;
        };
        self.open = true;
        stream.rekey(unhex_array::<32>(entropy).unwrap_or([0; 32]));
        let join = stream.join(self.now);
        fx.push(send(id, &join));
    }

    /// A frame arrived on socket `id`.
    pub(crate) fn frame(
        &mut self,
        id: u64,
        text: &str,
        sound: bool,
        token: Option<&str>,
        fx: &mut Vec<Effect>,
    ) {
        if self.socket != Some(id) {
            return;
        }
        if let Some(stream) = self.stream.as_mut() {
            let step = stream.receive(text, self.now);
            self.step(step, sound, token, fx);
        }
    }

    fn step(&mut self, step: Step, sound: bool, token: Option<&str>, fx: &mut Vec<Effect>) {
        if let Some(id) = self.socket.filter(|_| self.open) {
            fx.extend(step.send.iter().map(|m| send(id, m)));
        }
        for u in step.updates {
            match u {
                OnlineUpdate::Joined { players, .. } => {
                    self.players = players;
                    self.losses = 0;
                    self.notice = None;
                }
                OnlineUpdate::Players { players } => self.players = players,
                OnlineUpdate::Decision { .. } => {
                    self.hint = None;
                    self.ready_hint = None;
                    self.choosing.clear();
                }
                OnlineUpdate::HandEnd {
                    record, seat, fair, ..
                } => {
                    fx.push(Effect::KeepHand {
                        record: record.clone(),
                        seat: seat.0,
                    });
                    let won = record.result.winner.is_some();
                    if sound && won {
                        fx.push(Effect::Sound { sound: Sound::Win });
                    }
                    // The seats as last seen, else as the record deals them.
                    let seats = self
                        .stream
                        .as_ref()
                        .and_then(SeatStream::view)
                        .cloned()
                        .or_else(|| {
                            record::check_setup(&record.setup)
                                .ok()
                                .map(|()| Game::new(record.setup.clone()).view(seat))
                        });
                    if let Some(seats) = seats {
                        self.ended = Some(Ended {
                            result: record.result,
                            seats: Box::new(seats),
                            fair: fair.is_ok(),
                        });
                    }
                }
                // A tournament's socket stays, to ask for the next table on it.
                OnlineUpdate::MatchEnd { .. } if matches!(self.seek, Seek::Tournament { .. }) => {
                    self.ask_after_match(fx);
                }
                OnlineUpdate::MatchEnd { .. } => {
                    if let Some(id) = self.socket.take() {
                        fx.push(Effect::CloseSocket { id });
                    }
                }
                OnlineUpdate::NextTable(next) => self.noticed(*next, token, fx),
                OnlineUpdate::Error { message, .. } => self.notice = Some(message),
                OnlineUpdate::Committed { .. }
                | OnlineUpdate::Event { .. }
                | OnlineUpdate::AutoPlay { .. }
                | OnlineUpdate::PiaoAsked { .. }
                | OnlineUpdate::Piao { .. }
                | OnlineUpdate::Disconnected { .. } => {}
            }
        }
    }

    /// Socket `id` closed (or never opened): come back after a wait, unless the match is
    /// over (a next table awaited on it is asked for over HTTP).
    pub(crate) fn socket_closed(&mut self, id: u64, token: Option<&str>, fx: &mut Vec<Effect>) {
        if self.socket != Some(id) {
            return;
        }
        self.socket = None;
        self.open = false;
        let Some(stream) = self.stream.as_mut() else {
            return;
        };
        let _ = stream.disconnected(None);
        if stream.is_over() {
            if self.awaits_notice() {
                self.ask_by_http(token, fx);
            }
            return;
        }
        let wait = RECONNECT_MS[self.losses.min(RECONNECT_MS.len() - 1)];
        self.losses += 1;
        self.reconnect_at = Some(self.now + wait);
    }

    /// The time passing: a reconnect or a ping falls due.
    pub(crate) fn tick(&mut self, now: u64, token: Option<&str>, fx: &mut Vec<Effect>) {
        self.now = self.now.max(now);
        if let (Some(at), Some(token)) = (self.reconnect_at, token)
            && self.now >= at
        {
            if self.relocates() {
                // A tournament table's node may have stopped and its table moved: the seat
                // request names the node that runs it now.
                self.reconnect_at = None;
                self.ask_by_http(Some(token), fx);
            } else {
                self.connect(token, fx);
            }
        }
        if let (Some(id), true, Some(stream)) = (self.socket, self.open, self.stream.as_mut())
            && let Some(ping) = stream.tick(self.now)
        {
            fx.push(send(id, &ping));
        }
    }

    /// When the model is to be woken: a reconnect, or the next ping.
    pub(crate) fn wake_at(&self) -> Option<u64> {
        let ping = self
            .stream
            .as_ref()
            .filter(|_| self.open)
            .map(SeatStream::next_tick);
        // A reconnect already due waits for a login under way: look again a little later.
        let reconnect = self.reconnect_at.map(|at| {
            if at > self.now {
                at
            } else {
                self.now + RECONNECT_MS[0]
            }
        });
        [reconnect, ping].into_iter().flatten().min()
    }

    /// A tap on the online table; the sound it makes, if it did something.
    pub(crate) fn tap(&mut self, tap: &Tap, fx: &mut Vec<Effect>) -> Option<Sound> {
        let id = self.socket.filter(|_| self.open)?;
        let stream = self.stream.as_mut()?;
        if let Tap::Piao { stake } = tap {
            fx.push(send(id, &stream.piao(*stake)?));
            return None;
        }
        let legal = stream
            .decision()
            .map(|(_, d)| d.legal.clone())
            .unwrap_or_default();
        let action = match pick(tap, &legal, &mut self.choosing)? {
            Picked::Act(a) => a,
            Picked::Hint => {
                self.hint = self.ready_hint.take().or_else(|| stream.hint());
                return None;
            }
            // 托管 online is the server's: asked for here (or on when time runs out), shown
            // when the server says it took; a move of the player's own takes it back too.
            Picked::AutoPlay => {
                let on = !stream.auto_play();
                fx.push(send(id, &stream.set_auto_play(on)));
                return None;
            }
        };
        let msg = stream.act(action).ok()?;
        fx.push(send(id, &msg));
        self.hint = None;
        self.ready_hint = None;
        self.choosing.clear();
        Some(sound_of(&action))
    }

    /// The face is idle: the decision's hint is worked out ahead (once).
    pub(crate) fn idle(&mut self) {
        if self.hint.is_none()
            && self.ready_hint.is_none()
            && let Some(stream) = &self.stream
        {
            self.ready_hint = stream.hint();
        }
    }

    /// 下一局: ready for the next hand; once the match is over, 下一桌 at a tournament's
    /// table; false when the match is over otherwise (home, then).
    pub(crate) fn next_hand(&mut self, token: Option<&str>, fx: &mut Vec<Effect>) -> bool {
        self.ended = None;
        let Some(stream) = self.stream.as_ref() else {
            return false;
        };
        if stream.is_over() {
            return self.go_next(token, fx);
        }
        if let Some(id) = self.socket.filter(|_| self.open) {
            fx.push(send(id, &ClientMsg::Ready));
        }
        true
    }

    /// Leaves the table: the seat plays on by itself until the match ends.
    pub(crate) fn leave(&mut self, fx: &mut Vec<Effect>) {
        if let Some(id) = self.socket.take() {
            if self.open {
                fx.push(send(id, &ClientMsg::Leave));
            }
            fx.push(Effect::CloseSocket { id });
        }
        if let Phase::Queueing { .. } = self.phase {
            // The long poll's answer is not awaited any more.
            self.phase = Phase::Failed {
                message: String::new(),
            };
        }
    }

    /// The screen while no table is drawn: the queue, or why it failed.
    pub(crate) fn waiting_view(&self, lang: Lang) -> Option<QueueView> {
        let status = match &self.phase {
            Phase::Queueing { .. } if matches!(self.seek, Seek::Tournament { .. }) => {
                Text::TournamentWaiting.get(lang).to_string()
            }
            Phase::Awaiting => match self.awaited_words() {
                Some(state) => tournaments::seat_words(&state, lang).to_string(),
                None => Text::TournamentWaiting.get(lang).to_string(),
            },
            Phase::Queueing { .. } => Text::Queueing.get(lang).to_string(),
            Phase::Done(state) => tournaments::seat_words(state, lang).to_string(),
            Phase::Failed { message } if message.is_empty() => {
                Text::QueueFailed.get(lang).to_string()
            }
            Phase::Failed { message } => format!("{}：{message}", Text::QueueFailed.get(lang)),
            Phase::Seated => {
                let view = self.stream.as_ref().and_then(SeatStream::view);
                if view.is_some() {
                    return None;
                }
                if self.reconnect_at.is_some() {
                    Text::TableLost.get(lang).to_string()
                } else if let Some(code) = &self.room {
                    match lang {
                        Lang::ZhCn => format!("房间号 {code}：把号码告诉好友，人齐就开局"),
                        Lang::En => format!(
                            "Room {code}: give your friends the code; the match starts when all are in"
                        ),
                    }
                } else {
                    Text::JoiningTable.get(lang).to_string()
                }
            }
        };
        let title = match self.seek {
            Seek::Queue { ranked: false, .. } => Text::QuickMatch,
            Seek::Queue { ranked: true, .. } => Text::RankedMatch,
            Seek::OpenRoom { .. } | Seek::JoinRoom { .. } => Text::FriendsRoom,
            Seek::Tournament { .. } => Text::Tournaments,
        };
        Some(QueueView {
            title: title.get(lang).into(),
            status,
            // Nothing left to wait for: back, not cancel.
            cancel: Button::new(
                match self.phase {
                    Phase::Done(_) => Text::Back,
                    _ => Text::Cancel,
                }
                .get(lang),
                true,
                Tap::Back,
            ),
        })
    }

    /// The table screen, once the seat has a view.
    pub(crate) fn view(&self, lang: Lang) -> Option<TableView> {
        // After the match: the next table's wait, not the last table.
        if matches!(self.phase, Phase::Awaiting | Phase::Done(_)) {
            return None;
        }
        let stream = self.stream.as_ref()?;
        let v = stream.view()?;
        let mut view = v.clone();
        // The decision the stream holds (answered ones are dropped at once).
        view.decision = stream.decision().map(|(_, d)| d.clone());
        let parts = TableParts {
            hint: self.hint.as_ref(),
            choosing: &self.choosing,
            // On 托管 the server stakes nothing for him: nothing to ask.
            piao_asked: stream.piao_asked() && !stream.auto_play(),
            countdown_secs: stream
                .deadline()
                .filter(|_| view.decision.is_some() || stream.piao_asked())
                .map(|at| (at.saturating_sub(self.now)).div_ceil(1000) as u32),
            auto_play: stream.auto_play(),
            auto_play_open: self.open,
            hand_number: stream.hand() + 1,
            scores: std::array::from_fn(|s| {
                self.player_at(stream, Seat(s as u8))
                    .map_or(0, |p| stream.scores()[p])
            }),
            // Each seat's 飘 from the player's own, once the server revealed them.
            piao_shown: std::array::from_fn(|k| {
                stream
                    .piao_stakes()
                    .map(|stakes| stakes[(v.seat.index() + k) % 4])
            }),
        };
        let mut table = table_view(&view, &parts, lang);
        if let Some(code) = &self.room {
            table.title = format!("{} · {} {code}", table.title, Text::RoomTitle.get(lang));
        }
        if let Some(r) = stream.round() {
            table.title = match lang {
                Lang::ZhCn => format!("比赛第 {} 轮 · {}", r.round, table.title),
                Lang::En => format!("Round {} · {}", r.round, table.title),
            };
        }
        // Seats from the player's own: each named as the server seated it.
        for (k, s) in table.seats.iter_mut().enumerate() {
            let seat = Seat(((v.seat.index() + k) % 4) as u8);
            if let Some(name) = self.name_at(stream, seat, &s.name, lang) {
                s.name = name;
            }
        }
        if self.reconnect_at.is_some() || !self.open {
            table.status = Text::TableLost.get(lang).into();
        } else if let Some(n) = &self.notice {
            table.status = format!("{} · {n}", table.status);
        }
        Some(table)
    }

    /// The player slot in `seat` this hand (the stream keeps scores and names by slot):
    /// players sit in slot order round the table, as the server seats them, so the
    /// player's own slot and seat fix the rest.
    fn player_at(&self, stream: &SeatStream, seat: Seat) -> Option<usize> {
        let me = usize::from(stream.player()? % 4);
        let my_seat = stream.view()?.seat.index() % 4;
        Some((me + 4 + seat.index() % 4 - my_seat) % 4)
    }

    /// Another seat's name: the person's account name, or the seat's (东家 …) marked as the
    /// server's bot.
    fn name_at(&self, stream: &SeatStream, seat: Seat, wind: &str, lang: Lang) -> Option<String> {
        let p = self.player_at(stream, seat)?;
        if Some(p) == stream.player().map(|me| usize::from(me % 4)) {
            return None;
        }
        let info = self.players.get(p)?;
        Some(if info.person {
            info.name.clone()
        } else {
            match lang {
                Lang::ZhCn => format!("{wind}（电脑）"),
                Lang::En => format!("{wind} (bot)"),
            }
        })
    }

    /// The result (结算) of the hand just finished, with "wall verified".
    pub(crate) fn result_view(&self, lang: Lang) -> Option<ResultView> {
        let e = self.ended.as_ref()?;
        let over = self.stream.as_ref().is_none_or(SeatStream::is_over);
        let next = match (over, &self.seek) {
            (false, _) => Text::NextHand,
            (true, Seek::Tournament { .. }) => Text::NextTable,
            (true, _) => Text::MatchOver,
        };
        let mut v = result_view(
            &e.result,
            &e.seats,
            lang,
            Button::new(next.get(lang), true, Tap::NextHand),
        );
        let round = self.stream.as_ref().and_then(SeatStream::round).is_some();
        v.fairness = Some(
            match (e.fair, round) {
                (true, false) => Text::WallFair,
                // A round's walls are checked against its commitment when it ends.
                (true, true) => Text::WallRound,
                (false, _) => Text::WallUnfair,
            }
            .get(lang)
            .into(),
        );
        if !over {
            v.home = Some(Button::new(Text::Home.get(lang), true, Tap::Back));
        }
        Some(v)
    }

    pub(crate) fn has_result(&self) -> bool {
        self.ended.is_some()
    }

    /// The tournament this table is of, when it is a round's, and the round it sat in.
    pub(crate) fn tournament(&self) -> Option<(&str, Option<u32>)> {
        match &self.seek {
            Seek::Tournament { id, .. } => {
                let round = self.stream.as_ref().and_then(SeatStream::round);
                Some((id, round.map(|r| r.round)))
            }
            _ => None,
        }
    }
}

fn send(id: u64, msg: &ClientMsg) -> Effect {
    Effect::SendFrame {
        id,
        text: msg.to_json(),
    }
}

fn json<T: serde::Serialize>(body: &T) -> Option<serde_json::Value> {
    serde_json::to_value(body).ok()
}
