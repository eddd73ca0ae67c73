//! Tongcheng Mahjong core: tiles, hands and their shapes, shanten, scoring and the game engine.
//!
//! Data flows one way: [`tile`] → [`hand`] → [`shanten`] → scoring → game. The core is pure: no
//! I/O, no global mutable state (lookup tables built once are the only statics).

pub mod bot;
pub mod describe;
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
pub mod wall;

pub use hand::{Hand, KongKind, Meld, MeldKind};
pub use seat::{Seat, Wind};
pub use tile::{Suit, Tile, TileCounts, TileSet};
