//! What goes between a face and the model: the [`Event`]s a face sends (a tap, its clock, an
//! effect's answer), every button's [`Tap`], and the [`Effect`]s the model asks the face to
//! perform.

use serde::{Deserialize, Serialize};
use tongcheng_core::bot::Level;
use tongcheng_core::record::HandRecord;
use tongcheng_core::table::Clock;
use tongcheng_core::tile::Tile;

use crate::catalogue::Lang;
use crate::hands::{HandStats, HandSummary};
use crate::model::Settings;
use crate::sync::{RefusedHand, SyncDone};
use crate::table::ClaimKind;

/// What the player did, or the time passing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A button of the current view was tapped (or its key pressed).
    Tap { tap: Tap },
    /// The face's monotonic clock, in milliseconds: timeouts and 托管 play at it.
    Tick { now_ms: u64 },
    /// The face has nothing to do (a browser's idle callback): the model works ahead on
    /// what a tap may soon ask (the hint of the player's decision). Nothing on screen
    /// changes.
    Idle,
    /// The answer to [`Effect::LoadHands`]: kept hands newest first from `offset`, of `total`.
    HandsLoaded {
        offset: u32,
        total: u32,
        hands: Vec<HandSummary>,
    },
    /// The answer to [`Effect::LoadStats`], with the rule sets played, most played first.
    StatsLoaded {
        rules: Option<String>,
        stats: HandStats,
        rules_played: Vec<String>,
    },
    /// The answer to [`Effect::LoadRecord`]: the record and the player's seat, `None` when
    /// the hand is gone or does not read.
    RecordLoaded {
        id: u64,
        seat: u8,
        record: Option<Box<HandRecord>>,
    },
    /// The network came (`up`) or went, as the face sees it; at start too. Login starts
    /// when it is up.
    Network { up: bool },
    /// The answer to [`Effect::LoadKey`]: the device's Ed25519 public key (64 hex digits),
    /// `None` when the face cannot keep a key (online play is then off).
    KeyLoaded { public_key: Option<String> },
    /// The answer to [`Effect::Sign`]: the signature (128 hex digits), `None` on failure.
    Signed { signature: Option<String> },
    /// The answer to [`Effect::Request`] `id`: its HTTP status and JSON body (status 0 and
    /// `null` when no answer came).
    Answered {
        id: u64,
        status: u16,
        #[serde(default)]
        body: serde_json::Value,
    },
    /// [`Effect::OpenSocket`] `id` is open. `entropy`: 32 bytes (64 hex digits) of the
    /// platform's secure randomness, which key this connection's contributions to the walls.
    SocketOpened { id: u64, entropy: String },
    /// A text frame on socket `id`.
    Frame { id: u64, text: String },
    /// The answer to [`Effect::LoadSyncStatus`]: hands waiting to go up, and those the
    /// server refused with its reasons.
    SyncStatus {
        pending: u64,
        refused: Vec<RefusedHand>,
    },
    /// The answer to [`Effect::Sync`]: what it did, or why it failed.
    Synced {
        done: Option<SyncDone>,
        error: Option<String>,
    },
    /// Socket `id` closed, or could not open.
    SocketClosed { id: u64 },
}

/// Every button's meaning. A view's buttons carry theirs; a face sends it back as it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tap", rename_all = "snake_case")]
pub enum Tap {
    PlayBots,
    ContinueMatch,
    QuickMatch,
    /// 排位赛: the ranked queue of the chosen rule set.
    RankedMatch,
    FriendsRoom,
    MyHands,
    Settings,
    PickRules {
        preset: String,
    },
    PickLevel {
        level: Level,
    },
    PickClock {
        clock: Clock,
    },
    /// 飘 chosen before every hand (Tongcheng rules), or none.
    PickPiao {
        each_hand: bool,
    },
    /// This hand's 飘.
    Piao {
        stake: u8,
    },
    Start,
    Back,
    Discard {
        tile: Tile,
    },
    Claim {
        kind: ClaimKind,
    },
    /// One of several chows (by its lowest tile) or kongs (by its tile).
    Choose {
        index: u8,
    },
    Hint,
    AutoPlay,
    NextHand,
    SetLang {
        lang: Lang,
    },
    SetSound {
        on: bool,
    },
    /// 我的牌局: the statistics of one rule set, or of all (`None`).
    PickStatsRules {
        rules: Option<String>,
    },
    /// 我的牌局: the page of hands from `offset`.
    Page {
        offset: u32,
    },
    /// 我的牌局: a hand's replay.
    OpenHand {
        id: u64,
    },
    /// The replay after `step` moves.
    ReplayTo {
        step: u32,
    },
    /// 重新连接: log in again after a failure.
    Reconnect,
    /// 好友房: people in a new room (the owner included; bots take the other seats).
    RoomPeople {
        people: u8,
    },
    /// 好友房: a digit of the room code typed.
    Digit {
        digit: u8,
    },
    DeleteDigit,
    /// 开房: a room of the chosen rule set and people.
    OpenRoom,
    /// 加入房间: the room of the code typed.
    JoinRoom,
    /// 比赛: the tournaments.
    Tournaments,
    /// One tournament of the list.
    OpenTournament {
        id: String,
    },
    /// 报名 for the tournament shown.
    EnterTournament,
    /// 下一桌: one's table in the tournament's round.
    TournamentTable,
    /// 验证牌墙: check every finished round's walls.
    VerifyTournament,
    RefreshTournament,
    /// 立即同步 on 我的牌局.
    SyncNow,
    /// 关联设备 (设置).
    LinkDevices,
    /// 显示关联码.
    ShowLinkCode,
    /// A key of the link code's keypad.
    LinkKey {
        key: char,
    },
    /// 关联: this device joins the account of the code typed.
    JoinByCode,
}

// Phones see a button's tap as its JSON text: a shell sends it back as it is and never reads
// it, so a new button needs no new type in Kotlin or Swift.
#[cfg(feature = "uniffi")]
uniffi::custom_type!(Tap, String, {
    lower: |tap| serde_json::to_string(&tap).unwrap_or_default(),
    try_lift: |text| Ok(serde_json::from_str(&text)?),
});

/// What the face does for the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// Keep a finished hand in the local history (the player sat in `seat`).
    KeepHand {
        record: Box<HandRecord>,
        seat: u8,
    },
    /// Keep the match as it stands, to continue it after the app closes (`None`: it is over).
    KeepMatch {
        saved: Option<String>,
    },
    /// Keep the settings.
    KeepSettings {
        settings: Settings,
    },
    Sound {
        sound: Sound,
    },
    /// Send a [`Event::Tick`] at this time (a decision's timeout).
    WakeAt {
        now_ms: u64,
    },
    /// Read a page of kept hands, newest first: answer with [`Event::HandsLoaded`].
    LoadHands {
        offset: u32,
        limit: u32,
    },
    /// Compute the player's statistics over one rule set's kept hands (`None`: all): answer
    /// with [`Event::StatsLoaded`].
    LoadStats {
        rules: Option<String>,
    },
    /// Read one kept hand's record: answer with [`Event::RecordLoaded`].
    LoadRecord {
        id: u64,
    },
    /// The device's public key from the face's key store, which makes the key on first use
    /// and never lets the private half out: answer with [`Event::KeyLoaded`].
    LoadKey,
    /// Sign `message` (hex) with the device key: answer with [`Event::Signed`].
    Sign {
        message: String,
    },
    /// One HTTP request to the server (the page's own origin in the browser): `method`,
    /// `path`, the session `token` as `Authorization: Bearer`, a JSON `body`. Answer with
    /// [`Event::Answered`] carrying `id`.
    Request {
        id: u64,
        method: String,
        path: String,
        token: Option<String>,
        body: Option<serde_json::Value>,
    },
    /// Open a WebSocket to `path` on `server` (the node that runs the table; a browser on
    /// a single node uses its own origin), authenticated with the session `token` (the
    /// browser offers it as the subprotocol `tongcheng.token.<token>` beside
    /// `tongcheng.v1`). Answer with [`Event::SocketOpened`], then every text frame as
    /// [`Event::Frame`], and [`Event::SocketClosed`] when it ends or cannot open.
    OpenSocket {
        id: u64,
        server: String,
        path: String,
        token: String,
    },
    /// How the history's outbox stands: answer with [`Event::SyncStatus`] (only faces that
    /// enabled sync are asked).
    LoadSyncStatus,
    /// Upload the outbox and pull the player's other hands, with the session `token`:
    /// answer with [`Event::Synced`].
    Sync {
        token: String,
    },
    /// Send a text frame on socket `id`.
    SendFrame {
        id: u64,
        text: String,
    },
    /// Close socket `id` (no [`Event::SocketClosed`] is needed for it).
    CloseSocket {
        id: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "snake_case")]
pub enum Sound {
    Discard,
    Claim,
    Win,
}
