//! Tongcheng Mahjong's app model: every decision a screen makes, in one place, for every face.
//!
//! The shape is Crux's (a shared core, thin shells, side effects as values the shell
//! performs), written here rather than taken from `crux_core`: the model is small, its
//! faces are UniFFI (phones), wasm-bindgen (the browser) and the terminal, and plain
//! functions over serde values bind to all three without a framework's bridge. A face sends
//! [`Event`]s (a tap, its clock) to [`App::update`], performs the [`Effect`]s it gets back
//! (keep a hand, keep the match or the settings, play a sound, wake the model at a time,
//! load the device key, sign, make an HTTP request) and
//! draws [`App::view`]: every word comes from the [`catalogue`] in the player's language
//! (简体中文 unless he chose English), every button says whether it is enabled.
//!
//! This part holds the home screen, a new match against bots (any preset, bot level, clock),
//! the table (hand, discards, melds, the claim bar 吃 碰 杠 胡 过 with a chooser, the
//! countdown and 托管 from the core's one clock, hints, the 财神), the result (结算: fans in
//! Chinese with points, each seat's payment and kong money), continuing a kept match, 我的牌局
//! (kept hands a page at a time, statistics per rule set, a replay stepped move by move with
//! the table drawn at each step and the record verified) and the settings (language, sound).
//! 飘 is asked before every hand where the rules have it; the bots move one at a time, a
//! move seen every half second (the model asks the face to wake it), so a tap does only the
//! player's own move. Online, so far: login whenever the face says the network is there (the
//! device key stays in the face's key store; the model asks for the public key and one
//! signature, and names each request by the API crate's endpoint types), the account and its
//! ratings on the home screen, and why not when the server refuses; 快速匹配 and 排位赛:
//! the casual or ranked queue of the chosen rule set, then the server's table over a WebSocket the face holds
//! (the model sends and reads its frames through the core's seat stream, which checks every
//! hand's wall), drawn like the table against bots, with the players' names, the result
//! saying whether the wall verified, and a lost connection taken up again by itself.
//! 好友房: a room opened for two to four people (bots in the other seats) or joined by its
//! six-digit code typed on a keypad, played on the same online table. 比赛: the server's
//! tournaments, sign-up, each round's table on the same online table (our contribution to
//! the round's walls under the commitment read), the standings with one's own place, and
//! every finished round's walls checked here against its commitment. 托管 online is asked
//! of the server. 关联设备 (under 设置): a code shown for the other device, or typed from it.
//! 同步 on 我的牌局 where the face keeps an outbox (the phones' database, the browser's shelf
//! through `shelf_sync`). While the face is idle
//! ([`Event::Idle`]) the model works out the hint of the player's decision ahead.
//!
//! By concern: [`catalogue`] (the words), [`view`] (what a face draws), [`model`] (screens; the
//! events and effects in `events`), `table` (the match against bots and its views), [`hands`] (what the
//! history shows of a hand, and the [`Shelf`] that keeps hands for faces without a database),
//! `my_hands` and `replay` (those screens), `sync` (同步 on 我的牌局, where the face keeps an
//! outbox), `online` (the account, and linking devices), `link` (关联设备's keypad), `online_table` (快速匹配 and 好友房's table), `rooms` (好友房's form), `tournaments` (比赛: the list, one tournament, its standings and the check of its rounds' walls; its tables are the online table's).

#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!();

pub mod catalogue;
mod events;
pub mod hands;
mod link;
pub mod model;
mod my_hands;
mod online;
mod online_table;
mod replay;
mod rooms;
pub mod shelf_sync;
mod sync;
mod table;
mod tournaments;
pub mod view;

pub use catalogue::{Lang, Text};
pub use hands::{HandStats, HandSummary, KeptHand, Shelf};
pub use model::{App, Effect, Event, Settings, Sound, Tap};
pub use sync::{RefusedHand, SyncDone};
pub use table::ClaimKind;
/// The engine's lookup tables, built ahead: a face calls it once its first screen is drawn.
pub use tongcheng_core::prepare;
pub use view::{OnlineView, View};
