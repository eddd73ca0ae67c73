//! Tongcheng Mahjong core: tiles, hands and their shapes, shanten, scoring and the game engine.
//!
//! Data flows one way: [`tile`] → [`hand`] → [`shanten`] → scoring → game. The core is pure: no
//! I/O, no global mutable state (lookup tables built once are the only statics). Around it,
//! behind features: the local history (`history`), and the wall clock and data directory the
//! crates around the rules read (`host`).

pub mod bot;
#[cfg(feature = "host")]
pub mod clock;
pub mod describe;
#[cfg(feature = "host")]
pub mod dirs;
pub mod fair;
pub mod game;
pub mod hand;
pub mod hex;
pub mod hint;
#[cfg(feature = "history")]
pub mod history;
pub mod protocol;
pub mod record;
pub mod rules;
pub mod score;
pub mod seat;
pub mod shanten;
pub mod table;
pub mod tile;
pub mod tournament;
pub mod wall;

pub use hand::{Hand, KongKind, Meld, MeldKind};

/// Builds the engine's lookup tables now — the per-suit distances, the useful tiles and the
/// complete arrangements, which are otherwise built at the first analysis that needs them
/// (tens of milliseconds natively, several times that in WebAssembly) — so a face can spend
/// that time while the player looks at the first screen, not on his first tap or hint.
/// Calling it again costs nothing.
pub fn prepare() {
    hand::table::tables();
    shanten::prepare();
    score::mcr::build_tables();
}
pub use seat::{Seat, Wind};
pub use tile::{Suit, Tile, TileCounts, TileSet};
