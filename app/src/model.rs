//! The app: which screen is up, what the player chose, the match against bots, and what
//! each tap does. Faces send [`Event`]s to [`App::update`], perform the [`Effect`]s it
//! returns (keep a hand, keep the match, play a sound, wake the model at a time) and draw
//! [`App::view`]. Time and randomness come from the face: the model reads neither, so a
//! journey replays the same from the same events.

use serde::{Deserialize, Serialize};
use tongcheng_core::bot::Level;
use tongcheng_core::game::HandResult;
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::table::{Clock, SavedTable, Step, Table, TableConfig};

use crate::catalogue::{Lang, Text, clock_name, level_name, preset_name};
use crate::link::LinkForm;
use crate::my_hands::{DEFAULT_UTC_OFFSET_MIN, MyHands};
use crate::online::{Link, Online};
use crate::online_table::{OnlineTable, Seek};
use crate::replay::Replay;
use crate::rooms::RoomForm;
use crate::sync::Sync;
use crate::table::{Offline, PACE_MS};
use crate::tournaments::Tournaments;
use crate::view::{Button, HomeView, MyHandsView, NewMatchView, Picker, SettingsView, View};

pub use crate::events::{Effect, Event, Sound, Tap};

/// What the player set, kept by the face between runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub lang: Lang,
    pub sound: bool,
    pub preset: String,
    pub level: Level,
    pub clock: Clock,
    /// 飘 chosen before every hand where the rules have it (Tongcheng).
    #[serde(default)]
    pub piao: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            lang: Lang::ZhCn,
            sound: true,
            preset: "tongcheng-dianpao".into(),
            level: Level::Normal,
            clock: Clock::Relaxed,
            piao: false,
        }
    }
}

/// The rule sets a player picks from (the core also has a Botzone preset, for bot contests).
pub const PRESETS: [&str; 5] = [
    "guobiao",
    "hangzhou",
    "hangzhou-mil",
    "tongcheng-dianpao",
    "tongcheng-paofeng",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Screen {
    Home,
    NewMatch,
    Table,
    Result,
    Settings,
    MyHands,
    Replay,
    /// 快速匹配 and 好友房: the queue, the online table and its results.
    Online,
    /// 好友房's form.
    Room,
    /// 比赛: the list, and one tournament.
    Tournaments,
    Tournament,
    /// 关联设备 (from 设置).
    Link,
}

/// The app model.
#[derive(Debug)]
pub struct App {
    settings: Settings,
    screen: Screen,
    game: Option<Offline>,
    /// The kept match (the face's at start, or the one left for home), until it is
    /// continued or replaced.
    kept: Option<Table>,
    now_ms: u64,
    /// Seeds of new matches: the face's randomness, stepped (SplitMix64) for each one.
    seed: u64,
    my_hands: MyHands,
    replay: Option<Replay>,
    /// The face's time zone, for the dates it shows.
    utc_offset_min: i32,
    /// The account on the server.
    online: Online,
    /// The online table (快速匹配, 好友房), from the queue to the match's end.
    online_table: Option<OnlineTable>,
    /// 好友房's form.
    room_form: RoomForm,
    /// 比赛's screens.
    tournaments: Tournaments,
    /// 同步 on 我的牌局, where the face keeps an outbox.
    sync: Sync,
    /// 关联设备's typed code.
    link_form: LinkForm,
    /// How long each move against bots stays in view.
    pace_ms: u64,
    /// The face found its history unreadable, kept it aside and began a new one.
    history_set_aside: bool,
}

impl App {
    /// The app as it opens: the face's kept settings and match (if any), a random seed from
    /// the face, and its clock now.
    pub fn new(settings: Settings, kept_match: Option<&str>, seed: u64, now_ms: u64) -> App {
        let kept = kept_match
            .and_then(|j| SavedTable::from_json(j).ok())
            .and_then(|s| Table::resume(&s).ok())
            .filter(|t| !t.is_over());
        App {
            settings,
            screen: Screen::Home,
            game: None,
            kept,
            now_ms,
            seed,
            my_hands: MyHands::default(),
            replay: None,
            utc_offset_min: DEFAULT_UTC_OFFSET_MIN,
            online: Online::default(),
            online_table: None,
            room_form: RoomForm::default(),
            tournaments: Tournaments::default(),
            pace_ms: PACE_MS,
            sync: Sync::default(),
            link_form: LinkForm::default(),
            history_set_aside: false,
        }
    }

    /// The face's history keeps an outbox and the face can sync it (the phones): 我的牌局
    /// shows 同步.
    pub fn enable_sync(&mut self) {
        self.sync.enable();
    }

    /// The face's history could not be read and was kept aside (a new one begun): the
    /// home screen says so.
    pub fn history_set_aside(&mut self) {
        self.history_set_aside = true;
    }

    /// How long each move against bots stays in view before the next (from the next
    /// match on): [`PACE_MS`] by default; a face's tests pass a few milliseconds.
    pub fn set_pace_ms(&mut self, ms: u64) {
        self.pace_ms = ms;
    }

    /// The face's time zone (minutes east of UTC), for the dates 我的牌局 shows.
    pub fn set_utc_offset(&mut self, minutes: i32) {
        // Real zones lie within ±14 h; anything else is a face's mistake, not a zone.
        if minutes.abs() <= 14 * 60 {
            self.utc_offset_min = minutes;
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Handles one event; the effects for the face to perform.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        let mut fx = Vec::new();
        match event {
            Event::Tick { now_ms } => {
                self.now_ms = self.now_ms.max(now_ms);
                self.play_on(&mut fx);
                if let Some(t) = self.online_table.as_mut() {
                    t.tick(self.now_ms, self.online.token(), &mut fx);
                }
            }
            Event::Tap { tap } => self.tap(tap, &mut fx),
            Event::Idle => match (self.screen, self.game.as_mut(), self.online_table.as_mut()) {
                (Screen::Table, Some(g), _) => g.idle(),
                (Screen::Online, _, Some(t)) => t.idle(),
                _ => {}
            },
            Event::HandsLoaded {
                offset,
                total,
                hands,
            } => self.my_hands.hands_loaded(offset, total, hands),
            Event::StatsLoaded {
                rules,
                stats,
                rules_played,
            } => self.my_hands.stats_loaded(rules, stats, rules_played),
            Event::RecordLoaded { id, seat, record } => self.record_loaded(id, seat, record),
            Event::SyncStatus { pending, refused } => self.sync.status(pending, refused),
            Event::Synced { done, error } => {
                if self.sync.synced(done, error, &mut fx) && self.screen == Screen::MyHands {
                    self.my_hands.reload(&mut fx);
                }
            }
            Event::Network { up } => self.online.network(up, &mut fx),
            Event::KeyLoaded { public_key } => self.online.key_loaded(public_key, &mut fx),
            Event::Signed { signature } => self.online.signed(signature, &mut fx),
            Event::Answered { id, status, body } => match (
                self.online_table.as_mut().filter(|t| t.awaits(id)),
                self.online.token(),
            ) {
                (Some(t), Some(token)) => t.answered(status, body, token, &mut fx),
                (None, Some(token)) if self.tournaments.awaits(id) => {
                    let token = token.to_string();
                    self.tournaments.answered(id, status, body, &token, &mut fx);
                }
                _ => self.online.answered(id, status, body, &mut fx),
            },
            Event::SocketOpened { id, entropy } => {
                if let Some(t) = self.online_table.as_mut() {
                    t.socket_opened(id, &entropy, &mut fx);
                }
            }
            Event::Frame { id, text } => {
                let sound = self.settings.sound;
                if let Some(t) = self.online_table.as_mut() {
                    t.frame(id, &text, sound, self.online.token(), &mut fx);
                }
            }
            Event::SocketClosed { id } => {
                if let Some(t) = self.online_table.as_mut() {
                    t.socket_closed(id, self.online.token(), &mut fx);
                }
            }
        }
        let wake = [
            self.game.as_ref().and_then(|g| g.wake_at()),
            self.online_table.as_ref().and_then(OnlineTable::wake_at),
        ];
        if let Some(at) = wake.into_iter().flatten().min() {
            fx.push(Effect::WakeAt { now_ms: at });
        }
        fx
    }

    fn tap(&mut self, tap: Tap, fx: &mut Vec<Effect>) {
        match (self.screen, tap) {
            (Screen::Home, Tap::PlayBots) => self.screen = Screen::NewMatch,
            (Screen::Home, Tap::ContinueMatch) => {
                if let Some(table) = self.kept.take() {
                    // A match left at a result shows it again; its hand is kept already.
                    let finished = table.game().is_finished();
                    self.game = Some(Offline::new(table, self.pace_ms));
                    if finished {
                        self.screen = Screen::Result;
                    } else {
                        self.screen = Screen::Table;
                        self.play_on(fx);
                    }
                }
            }
            (Screen::Home, Tap::Settings) => self.screen = Screen::Settings,
            (Screen::Home, queue @ (Tap::QuickMatch | Tap::RankedMatch)) => {
                let seek = Seek::Queue {
                    preset: self.settings.preset.clone(),
                    ranked: queue == Tap::RankedMatch,
                };
                self.seek(seek, fx);
            }
            (Screen::Home, Tap::FriendsRoom) if self.online.token().is_some() => {
                self.screen = Screen::Room;
            }
            (Screen::Room, Tap::Back) => self.screen = Screen::Home,
            (Screen::Settings, Tap::LinkDevices) => {
                self.online.link = Link::Idle;
                self.link_form = LinkForm::default();
                self.screen = Screen::Link;
            }
            (Screen::Link, Tap::Back) => self.screen = Screen::Settings,
            (Screen::Link, Tap::ShowLinkCode) => self.online.show_link_code(fx),
            (Screen::Link, Tap::JoinByCode) => {
                if let Some(code) = self.link_form.whole() {
                    self.online.join_by_code(code, fx);
                }
            }
            (Screen::Link, tap) => {
                self.link_form.tap(&tap);
            }
            (Screen::Home, Tap::Tournaments) => {
                if let Some(token) = self.online.token() {
                    self.tournaments.open_list(token, fx);
                    self.screen = Screen::Tournaments;
                }
            }
            (Screen::Tournaments, Tap::Back) => self.screen = Screen::Home,
            (Screen::Tournaments, Tap::OpenTournament { id }) => {
                if let Some(token) = self.online.token() {
                    self.tournaments.show(&id, token, fx);
                    self.screen = Screen::Tournament;
                }
            }
            (Screen::Tournament, Tap::Back) => {
                if let Some(token) = self.online.token() {
                    self.tournaments.open_list(token, fx);
                }
                self.screen = Screen::Tournaments;
            }
            (Screen::Tournament, Tap::TournamentTable) => {
                if let Some((id, round)) = self.tournaments.next_round() {
                    self.seed = splitmix(self.seed);
                    let seed = self.seed;
                    self.seek(Seek::Tournament { id, round, seed }, fx);
                }
            }
            (Screen::Tournament, tap) => {
                if let Some(token) = self.online.token() {
                    match tap {
                        Tap::EnterTournament => self.tournaments.enter(token, fx),
                        Tap::VerifyTournament => self.tournaments.verify(token, fx),
                        Tap::RefreshTournament => self.tournaments.refresh(token, fx),
                        _ => {}
                    }
                }
            }
            (Screen::Room, Tap::OpenRoom) => {
                let preset = self.room_preset();
                let people = self.room_form.people;
                self.seek(Seek::OpenRoom { preset, people }, fx);
            }
            (Screen::Room, Tap::JoinRoom) => {
                if let Some(code) = self.room_form.whole_code() {
                    let code = code.to_string();
                    self.seek(Seek::JoinRoom { code }, fx);
                }
            }
            (Screen::Room, tap) => {
                self.room_form.tap(&tap);
            }
            (Screen::Online, Tap::Back) => self.leave_table(fx),
            (Screen::Online, Tap::NextHand) => {
                let token = self.online.token();
                let more = self
                    .online_table
                    .as_mut()
                    .is_some_and(|t| t.next_hand(token, fx));
                if !more {
                    self.leave_table(fx);
                }
            }
            (Screen::Online, tap) => {
                let sound = self.settings.sound;
                if let Some(t) = self.online_table.as_mut()
                    && let Some(s) = t.tap(&tap, fx)
                    && sound
                {
                    fx.push(Effect::Sound { sound: s });
                }
            }
            (Screen::Home, Tap::Reconnect) => self.online.retry(fx),
            (Screen::Home, Tap::MyHands) => {
                self.my_hands = MyHands::open(fx);
                self.sync.opened(self.online.token(), fx);
                self.screen = Screen::MyHands;
            }
            (Screen::MyHands, Tap::Back) => self.screen = Screen::Home,
            (Screen::MyHands, Tap::SyncNow) => self.sync.sync_now(self.online.token(), fx),
            (Screen::MyHands, tap) => self.my_hands.tap(tap, fx),
            (Screen::Replay, Tap::ReplayTo { step }) => {
                if let Some(r) = self.replay.as_mut() {
                    r.go(step as usize);
                }
            }
            (Screen::Replay, Tap::Back) => {
                self.replay = None;
                self.screen = Screen::MyHands;
            }
            (Screen::NewMatch, Tap::PickRules { preset }) if PRESETS.contains(&preset.as_str()) => {
                self.settings.preset = preset;
            }
            (Screen::NewMatch, Tap::PickLevel { level }) => self.settings.level = level,
            (Screen::NewMatch, Tap::PickClock { clock }) => self.settings.clock = clock,
            (Screen::NewMatch, Tap::PickPiao { each_hand }) => self.settings.piao = each_hand,
            (Screen::NewMatch, Tap::Start) => self.start_match(fx),
            (Screen::NewMatch | Screen::Settings, Tap::Back) => {
                fx.push(Effect::KeepSettings {
                    settings: self.settings.clone(),
                });
                self.screen = Screen::Home;
            }
            // Kept at once: a phone's app may be ended without a Back.
            (Screen::Settings, Tap::SetLang { lang }) => {
                self.settings.lang = lang;
                fx.push(Effect::KeepSettings {
                    settings: self.settings.clone(),
                });
            }
            (Screen::Settings, Tap::SetSound { on }) => {
                self.settings.sound = on;
                fx.push(Effect::KeepSettings {
                    settings: self.settings.clone(),
                });
            }
            (Screen::Table | Screen::Result, Tap::Back) => {
                // The match is kept: 继续牌局 takes it up again.
                if let Some(g) = self.game.take() {
                    fx.push(Effect::KeepMatch {
                        saved: Some(g.saved_json()),
                    });
                    self.kept = Some(g.into_table());
                }
                self.screen = Screen::Home;
            }
            (Screen::Table, tap) => {
                let now = self.now_ms;
                let sound = self.settings.sound;
                if let Some(g) = self.game.as_mut()
                    && let Some(s) = g.tap(&tap, now)
                    && sound
                {
                    fx.push(Effect::Sound { sound: s });
                }
                self.play_on(fx);
            }
            (Screen::Result, Tap::NextHand) => self.next_hand(fx),
            // Taps a screen does not have (a stale view's): nothing happens.
            _ => {}
        }
    }

    /// Looks for an online seat (the queue, a room), leaving any table left before (it plays
    /// on by itself on the server).
    fn seek(&mut self, seek: Seek, fx: &mut Vec<Effect>) {
        let Some(token) = self.online.token() else {
            return;
        };
        if let Some(mut old) = self.online_table.take() {
            old.leave(fx);
        }
        self.online_table = Some(OnlineTable::seek(seek, token, self.now_ms, fx));
        self.screen = Screen::Online;
    }

    /// Leaves the online table (it plays on by itself on the server): home, or back to
    /// its tournament, shown anew.
    fn leave_table(&mut self, fx: &mut Vec<Effect>) {
        let Some(mut t) = self.online_table.take() else {
            self.screen = Screen::Home;
            return;
        };
        t.leave(fx);
        self.screen = match (t.tournament(), self.online.token()) {
            (Some((id, round)), Some(token)) => {
                if let Some(round) = round {
                    self.tournaments.played(id, round);
                }
                self.tournaments.refresh(token, fx);
                Screen::Tournament
            }
            _ => {
                // A ranked match may have moved the home screen's ratings.
                self.online.refresh_ratings(fx);
                Screen::Home
            }
        };
    }

    /// A replay asked for on 我的牌局 arrived.
    fn record_loaded(&mut self, id: u64, seat: u8, record: Option<Box<HandRecord>>) {
        if self.screen != Screen::MyHands || self.my_hands.opening != Some(id) {
            return;
        }
        self.my_hands.opening = None;
        match record.and_then(|r| Replay::new(seat, *r)) {
            Some(replay) => {
                self.replay = Some(replay);
                self.screen = Screen::Replay;
            }
            None => self.my_hands.unreadable = true,
        }
    }

    /// A new match of the chosen preset, level and clock.
    fn start_match(&mut self, fx: &mut Vec<Effect>) {
        let Some(mut rules) = RuleSet::preset(&self.settings.preset) else {
            return;
        };
        if self.settings.piao {
            rules = rules.clone().with_piao_each_hand().unwrap_or(rules);
        }
        self.seed = splitmix(self.seed);
        let mut config = TableConfig::person_and_bots(rules, self.settings.level, self.seed);
        config.clock = self.settings.clock;
        let Ok(table) = Table::try_new(config) else {
            return;
        };
        fx.push(Effect::KeepSettings {
            settings: self.settings.clone(),
        });
        self.kept = None;
        self.game = Some(Offline::new(table, self.pace_ms));
        self.screen = Screen::Table;
        self.play_on(fx);
        if let Some(g) = &self.game {
            fx.push(Effect::KeepMatch {
                saved: Some(g.saved_json()),
            });
        }
    }

    /// Lets the table go on at the time now; a finished hand goes to the result screen and
    /// is kept.
    fn play_on(&mut self, fx: &mut Vec<Effect>) {
        if self.screen != Screen::Table {
            return;
        }
        let now = self.now_ms;
        let Some(g) = self.game.as_mut() else {
            return;
        };
        if g.run(now) == Step::HandOver {
            if let Some(record) = g.table().record() {
                let seat = g.table().seat_of(0).0;
                fx.push(Effect::KeepHand {
                    record: Box::new(record),
                    seat,
                });
            }
            // Kept with its hand over: an app closed at the result never keeps it twice.
            fx.push(Effect::KeepMatch {
                saved: Some(g.saved_json()),
            });
            if self.settings.sound && g.result().is_some_and(|r| r.winner.is_some()) {
                fx.push(Effect::Sound { sound: Sound::Win });
            }
            self.screen = Screen::Result;
        }
    }

    fn next_hand(&mut self, fx: &mut Vec<Effect>) {
        let Some(g) = self.game.as_mut() else {
            self.screen = Screen::Home;
            return;
        };
        if g.next_hand() {
            fx.push(Effect::KeepMatch {
                saved: Some(g.saved_json()),
            });
            self.screen = Screen::Table;
            self.play_on(fx);
        } else {
            fx.push(Effect::KeepMatch { saved: None });
            self.game = None;
            self.screen = Screen::Home;
        }
    }

    /// The screen to draw now.
    pub fn view(&self) -> View {
        let lang = self.settings.lang;
        match (self.screen, &self.game) {
            (Screen::Table, Some(g)) => View::Table(g.view(lang, self.now_ms)),
            (Screen::Result, Some(g)) => match g.result_view(lang) {
                Some(v) => View::Result(v),
                None => View::Table(g.view(lang, self.now_ms)),
            },
            (Screen::NewMatch, _) => View::NewMatch(self.new_match_view()),
            (Screen::MyHands, _) => View::MyHands(self.my_hands_view()),
            (Screen::Replay, _) => match &self.replay {
                Some(r) => View::Replay(r.view(lang)),
                None => View::MyHands(self.my_hands_view()),
            },
            (Screen::Settings, _) => View::Settings(self.settings_view()),
            (Screen::Link, _) => View::Link(self.link_form.view(&self.online, self.settings.lang)),
            (Screen::Room, _) => View::Room(self.room_form.view(
                &self.room_preset(),
                self.online.token().is_some(),
                lang,
            )),
            (Screen::Tournaments, _) => View::Tournaments(self.tournaments.list_view(lang)),
            (Screen::Tournament, _) => match self.tournaments.view(lang) {
                Some(v) => View::Tournament(v),
                None => View::Tournaments(self.tournaments.list_view(lang)),
            },
            (Screen::Online, _) => match self.online_view(lang) {
                Some(v) => v,
                None => View::Home(self.home_view()),
            },
            _ => View::Home(self.home_view()),
        }
    }

    /// The online table's screen: its result, the table, or the queue.
    fn online_view(&self, lang: Lang) -> Option<View> {
        let t = self.online_table.as_ref()?;
        if t.has_result() {
            return t.result_view(lang).map(View::Result);
        }
        match t.view(lang) {
            Some(table) => Some(View::Table(table)),
            None => t.waiting_view(lang).map(View::Queue),
        }
    }

    fn home_view(&self) -> HomeView {
        let lang = self.settings.lang;
        let mut buttons = Vec::new();
        if self.kept.is_some() {
            buttons.push(Button::new(
                Text::ContinueMatch.get(lang),
                true,
                Tap::ContinueMatch,
            ));
        }
        buttons.extend([
            Button::new(Text::PlayBots.get(lang), true, Tap::PlayBots),
            // Online, once signed in.
            Button::new(
                Text::QuickMatch.get(lang),
                self.online.token().is_some(),
                Tap::QuickMatch,
            ),
            Button::new(
                Text::RankedMatch.get(lang),
                self.online.token().is_some(),
                Tap::RankedMatch,
            ),
            Button::new(
                Text::FriendsRoom.get(lang),
                self.online.token().is_some(),
                Tap::FriendsRoom,
            ),
            Button::new(
                Text::Tournaments.get(lang),
                self.online.token().is_some(),
                Tap::Tournaments,
            ),
            Button::new(Text::MyHands.get(lang), true, Tap::MyHands),
            Button::new(Text::Settings.get(lang), true, Tap::Settings),
        ]);
        HomeView {
            title: Text::AppName.get(lang).into(),
            buttons,
            notice: if self.history_set_aside {
                Some(Text::HistorySetAside.get(lang).into())
            } else {
                self.online
                    .token()
                    .is_none()
                    .then(|| Text::NotYetOnline.get(lang).into())
            },
            online: self.online.view(lang),
        }
    }

    fn my_hands_view(&self) -> MyHandsView {
        let lang = self.settings.lang;
        let sync = self.sync.view(self.online.token().is_some(), lang);
        self.my_hands.view(lang, self.utc_offset_min, sync)
    }

    fn new_match_view(&self) -> NewMatchView {
        let lang = self.settings.lang;
        let s = &self.settings;
        let has_piao = RuleSet::preset(&s.preset).is_some_and(|r| r.tongcheng_table().is_some());
        let mut pickers = vec![
            picker(Text::RuleSet, lang, &PRESETS, s.preset.as_str(), |p| {
                (preset_name(p, lang), Tap::PickRules { preset: p.into() })
            }),
            picker(Text::BotLevel, lang, &Level::ALL, s.level, |l| {
                (level_name(l, lang).into(), Tap::PickLevel { level: l })
            }),
            picker(Text::Clock, lang, &Clock::ALL, s.clock, |c| {
                (clock_name(c, lang).into(), Tap::PickClock { clock: c })
            }),
        ];
        if has_piao {
            pickers.push(picker(Text::Piao, lang, &[false, true], s.piao, |on| {
                let label = if on { Text::PiaoEachHand } else { Text::NoPiao };
                (label.get(lang).into(), Tap::PickPiao { each_hand: on })
            }));
        }
        NewMatchView {
            title: Text::NewMatch.get(lang).into(),
            pickers,
            start: Button::new(Text::Start.get(lang), true, Tap::Start),
            back: Button::new(Text::Back.get(lang), true, Tap::Back),
        }
    }

    /// The rules a new 好友房 plays: the chosen preset, with 飘 before every hand when it
    /// is chosen and the rules have it (`…-piao`).
    fn room_preset(&self) -> String {
        let preset = &self.settings.preset;
        RuleSet::preset(preset)
            .filter(|_| self.settings.piao)
            .and_then(RuleSet::with_piao_each_hand)
            .map_or_else(|| preset.clone(), |r| r.name)
    }

    fn settings_view(&self) -> SettingsView {
        let lang = self.settings.lang;
        SettingsView {
            title: Text::Settings.get(lang).into(),
            pickers: vec![
                picker(Text::Language, lang, &Lang::ALL, lang, |l| {
                    // Each language named in itself.
                    let name = match l {
                        Lang::ZhCn => "简体中文",
                        Lang::En => "English",
                    };
                    (name.into(), Tap::SetLang { lang: l })
                }),
                picker(
                    Text::Sound,
                    lang,
                    &[true, false],
                    self.settings.sound,
                    |on| {
                        let label = if on { Text::On } else { Text::Off };
                        (label.get(lang).into(), Tap::SetSound { on })
                    },
                ),
            ],
            link: Button::new(Text::LinkDevices.get(lang), true, Tap::LinkDevices),
            back: Button::new(Text::Back.get(lang), true, Tap::Back),
        }
    }

    /// The finished hand's result (for tests and faces that show it beside the table).
    pub fn last_result(&self) -> Option<&HandResult> {
        self.game.as_ref().and_then(Offline::result)
    }
}

/// A row of choices, the current one selected: each option's label and tap from `option`.
fn picker<T: Copy + PartialEq>(
    label: Text,
    lang: Lang,
    all: &[T],
    current: T,
    option: impl Fn(T) -> (String, Tap),
) -> Picker {
    Picker {
        label: label.get(lang).into(),
        options: all
            .iter()
            .map(|&x| {
                let (text, tap) = option(x);
                Button::new(text, true, tap).selected(x == current)
            })
            .collect(),
    }
}

/// SplitMix64's step: a new match's seed from the last one.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
