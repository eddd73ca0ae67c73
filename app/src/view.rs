//! What a face draws: one view model per screen, every word already in the player's language,
//! every button with its label, its accessible name and whether it is enabled. A face lays
//! these out and sends back the button's [`Tap`]; it decides nothing.

use serde::Serialize;

use crate::model::Tap;

/// The screen to draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[allow(clippy::large_enum_variant)] // one is built per draw and moved once: boxing buys nothing
#[serde(tag = "screen", rename_all = "snake_case")]
pub enum View {
    Home(HomeView),
    NewMatch(NewMatchView),
    Table(TableView),
    Result(ResultView),
    Settings(SettingsView),
    MyHands(MyHandsView),
    Replay(ReplayView),
    /// 快速匹配 before the table is drawn: in the queue, taking the seat, or why not.
    Queue(QueueView),
    /// 好友房: open a room or join one by its code.
    Room(RoomView),
    /// 比赛: the tournaments taking entrants or in play.
    Tournaments(TournamentsView),
    /// 关联设备: show a code for another device, or type one from it.
    Link(LinkView),
    /// One tournament: its state, standings, sign-up, the next table, the walls' check.
    Tournament(TournamentView),
}

/// A button: what it says, the name screen readers and tests find it by, whether it can be
/// tapped now, and what tapping it sends.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Button {
    pub label: String,
    pub name: String,
    pub enabled: bool,
    /// Drawn as chosen (a picker's current option).
    pub selected: bool,
    pub tap: Tap,
}

impl Button {
    pub fn new(label: impl Into<String>, enabled: bool, tap: Tap) -> Button {
        let label = label.into();
        Button {
            name: label.clone(),
            label,
            enabled,
            selected: false,
            tap,
        }
    }

    pub fn selected(mut self, on: bool) -> Button {
        self.selected = on;
        self
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct HomeView {
    pub title: String,
    /// 单机对战, 快速匹配, 好友房, 我的牌局, 设置 (and 继续牌局 when a match is kept).
    pub buttons: Vec<Button>,
    /// A line under the buttons (what is not open yet).
    pub notice: Option<String>,
    /// The account on the server.
    pub online: OnlineView,
}

/// The home screen's account line: signed in (with the ratings), connecting, offline, or
/// why not.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct OnlineView {
    pub status: String,
    pub signed_in: bool,
    /// One line per rated rule set (tier, score, matches), or that there are none yet.
    pub ratings: Vec<String>,
    /// 重新连接, after a failure or a refusal.
    pub retry: Option<Button>,
}

/// One row of choices.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Picker {
    pub label: String,
    pub options: Vec<Button>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NewMatchView {
    pub title: String,
    pub pickers: Vec<Picker>,
    pub start: Button,
    pub back: Button,
}

/// A tile as drawn: its notation (the face's art is keyed by it), its name in the player's
/// language, and marks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TileView {
    pub code: String,
    pub name: String,
    /// The 财神 (wild): marked wherever it lies.
    pub wild: bool,
    /// Face down (暗牌, or a concealed kong's back): drawn as a back, named as a back.
    pub hidden: bool,
    /// Taken by another seat's claim: drawn greyed out.
    pub taken: bool,
}

/// A tile of the player's hand: a button, enabled when he may discard it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct HandTile {
    pub tile: TileView,
    pub enabled: bool,
    /// The hint's recommended discard.
    pub suggested: bool,
    pub tap: Tap,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SeatView {
    /// 你, or the seat's wind (东家 …).
    pub name: String,
    /// 庄 on the dealer's seat.
    pub badge: Option<String>,
    pub wind: String,
    pub is_you: bool,
    pub is_dealer: bool,
    pub is_turn: bool,
    pub score: i32,
    pub concealed: u32,
    pub melds: Vec<Vec<TileView>>,
    pub discards: Vec<TileView>,
    pub flowers: Vec<TileView>,
    /// This hand's 飘 ("飘2"), where the rules have each seat choose it.
    pub piao: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TableView {
    /// "第 3 局 · 东风圈" or "Hand 3 · East round".
    pub title: String,
    /// Whose turn, or what is asked of the player, in words.
    pub status: String,
    pub wall_left: u32,
    pub wall_label: String,
    /// Seats from the player's own, counter-clockwise (you, right, across, left).
    pub seats: Vec<SeatView>,
    pub hand: Vec<HandTile>,
    pub drawn: Option<HandTile>,
    /// 吃 碰 杠 胡 过: always the five, enabled as the decision allows.
    pub claim_bar: Vec<Button>,
    /// Several chows on offer: the face shows them to choose from.
    pub chow_choices: Vec<Button>,
    /// This hand's 飘 to choose (0 to the most), before anything moves; empty otherwise.
    pub piao_choices: Vec<Button>,
    /// Seconds left on the player's decision, from the core's clock; none when untimed.
    pub countdown_secs: Option<u32>,
    pub auto_play: Button,
    pub hint_button: Button,
    pub hint: Option<HintView>,
    pub wild: Option<TileView>,
    pub back: Button,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct HintView {
    /// The recommended action, in words.
    pub advice: String,
    /// Why (the engine's reasoning).
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FanLine {
    pub name: String,
    pub points: u32,
    pub count: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Payment {
    pub seat: String,
    pub delta: i32,
    /// The part of `delta` that is kong money.
    pub kong: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ResultView {
    /// 结算.
    pub heading: String,
    /// Who won and how, or 荒牌.
    pub outcome: String,
    pub fans: Vec<FanLine>,
    pub total: u32,
    pub payments: Vec<Payment>,
    /// 下一局, or 大厅 after the match's last hand.
    pub next: Button,
    /// 大厅 while the match goes on (it is kept, and 继续牌局 takes it up again).
    pub home: Option<Button>,
    /// Online hands: whether the wall verified against the server's commitment.
    pub fairness: Option<String>,
}

/// 好友房's form.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RoomView {
    pub title: String,
    /// The rule set a new room plays (the one chosen for matches).
    pub rules: String,
    /// People in a new room, the owner included.
    pub people: Picker,
    /// 开房.
    pub open: Button,
    pub code_label: String,
    /// The code typed so far.
    pub code: String,
    /// 1–9, 0 and 删除.
    pub keypad: Vec<Button>,
    /// 加入房间, once six digits are typed.
    pub join: Button,
    pub back: Button,
}

/// Waiting for an online table.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct QueueView {
    pub title: String,
    pub status: String,
    /// 取消 (back home).
    pub cancel: Button,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SettingsView {
    pub title: String,
    pub pickers: Vec<Picker>,
    /// 关联设备.
    pub link: Button,
    pub back: Button,
}

/// 关联设备.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LinkView {
    pub title: String,
    /// What showing a code does.
    pub show_label: String,
    /// 显示关联码.
    pub show_code: Button,
    /// The code for the other device and how long it holds, once shown.
    pub shown: Option<String>,
    /// What typing a code does.
    pub type_label: String,
    /// The code typed so far, as shown (`ABCD-EF`).
    pub typed: String,
    /// The code's alphabet and 删除.
    pub keypad: Vec<Button>,
    /// 关联, once the whole code is typed.
    pub join: Button,
    /// Joining, joined, or why not.
    pub notice: Option<String>,
    pub back: Button,
}

/// 我的牌局: the statistics of a rule set (or all), and the kept hands, newest first, a page
/// at a time.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MyHandsView {
    pub title: String,
    /// Which rule set the statistics cover: 全部玩法 and each one played.
    pub stats_rules: Picker,
    /// The statistics as label and figure, in the player's language.
    pub stats: Vec<Figure>,
    /// Each hand: a button that opens its replay.
    pub hands: Vec<HandRow>,
    /// Shown instead of the list while it loads or when there is nothing yet.
    pub notice: Option<String>,
    pub previous: Button,
    pub next: Button,
    /// "1–20 / 57".
    pub page_label: String,
    /// 同步, where the face keeps an outbox (the phones).
    pub sync: Option<SyncView>,
    pub back: Button,
}

/// 同步: what the last sync did (or that one runs, or why it failed), what waits, and each
/// hand the server refused with its reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SyncView {
    pub title: String,
    pub status: String,
    pub refused: Vec<String>,
    /// 立即同步.
    pub sync_now: Button,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Figure {
    pub label: String,
    pub value: String,
}

/// A kept hand in the list.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct HandRow {
    /// The rule set and the outcome for the player: "桐城麻将·点炮 · 自摸".
    pub title: String,
    /// The win's fans (or who won).
    pub detail: String,
    /// The player's points, signed.
    pub points: String,
    pub won: bool,
    /// Opens the replay; its name says which hand.
    pub open: Button,
}

/// 回放: the table after a number of moves, as the player saw it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReplayView {
    pub title: String,
    /// "第 12 / 87 步".
    pub step_label: String,
    /// The move just made, in words: "东家 打 五饼".
    pub last_move: String,
    pub status: String,
    pub wall_left: u32,
    pub wall_label: String,
    pub seats: Vec<SeatView>,
    pub hand: Vec<TileView>,
    pub drawn: Option<TileView>,
    pub wild: Option<TileView>,
    /// 开局, 上一步, 下一步, 终局.
    pub controls: Vec<Button>,
    /// The result once the last move is shown.
    pub result: Option<ResultView>,
    /// Whether the record replays to the events and result it states.
    pub verified: String,
    pub back: Button,
}

/// 比赛: each tournament a button (named by its name) with its summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TournamentsView {
    pub title: String,
    pub items: Vec<Button>,
    /// Loading, none yet, or the server's refusal.
    pub empty: Option<String>,
    pub back: Button,
}

/// One tournament.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TournamentView {
    pub title: String,
    /// Its rules, format, entrants and state; the round; the round's commitment.
    pub lines: Vec<String>,
    /// The top of the standings, a line each.
    pub standings: Vec<String>,
    /// The player's own place.
    pub me: Option<String>,
    /// 报名 or 下一桌, 验证牌墙, 刷新.
    pub actions: Vec<Button>,
    /// What the walls' check found.
    pub verified: Option<String>,
    pub notice: Option<String>,
    pub back: Button,
}
