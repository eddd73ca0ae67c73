//! Online play around the table: the matchmaking queue, ratings, private rooms. The table
//! itself speaks the core's WebSocket protocol (`GET /v1/play`), not these types.

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use crate::codes::string_codes;

/// A place in the queue of a rule set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct QueueRequest {
    /// A preset this server accepts; the server's default rule set when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// Ranked (rated, seated by rating, anti-collusion) or casual.
    #[serde(default)]
    pub ranked: bool,
}

/// The WebSocket subprotocol of `GET /v1/play`: the server selects it when a client offers
/// it (a browser must be answered with one of the protocols it offered).
pub const PLAY_PROTOCOL: &str = "tongcheng.v1";

/// A browser's WebSocket cannot carry `Authorization`: it offers the session token as a
/// second subprotocol, `tongcheng.token.<token>`, beside [`PLAY_PROTOCOL`], so no token goes
/// into a URL (where logs and histories keep it). The server reads it on upgrades only and
/// never selects or echoes it.
pub const TOKEN_PROTOCOL_PREFIX: &str = "tongcheng.token.";

/// Where the queue seated the player: join this table over `GET /v1/play`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Seated {
    pub table: String,
    pub rules: String,
    pub ranked: bool,
    /// People seated, this player included (the other seats are bots).
    pub people: u8,
    pub bots: u8,
    /// The base URL of the server node that runs the table: join it there (a join on another
    /// node is answered with a `wrong_node` error naming this URL).
    pub server: String,
}

string_codes! {
    /// The rank tiers shown to players, lowest first.
    pub enum Tier {
        Bronze = "bronze",
        Silver = "silver",
        Gold = "gold",
        Platinum = "platinum",
        Diamond = "diamond",
        Master = "master",
    }
}

/// One Weng-Lin rating, per rule set (ranked matches only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Rating {
    pub rules: String,
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`: what tiers and leaderboards use.
    pub conservative: f64,
    pub games: i64,
    /// Still in its first rated matches: no tier yet.
    pub provisional: bool,
    /// Rated matches the provisional period lasts (so a screen can say "3 of 10").
    pub provisional_games: i64,
    /// `None` while provisional.
    pub tier: Option<Tier>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingsResponse {
    pub ratings: Vec<Rating>,
}

/// People a room invites, the owner included.
pub const ROOM_PEOPLE: RangeInclusive<u8> = 1..=4;
/// Hands a room's match may have.
pub const ROOM_HANDS: RangeInclusive<u8> = 1..=16;
/// A room's time limits, in seconds.
pub const ROOM_TIME_SECS: RangeInclusive<u16> = 3..=120;

/// What the owner of a private room (开房) picks. Absent fields keep the rule set's own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RoomSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// Hands in the match (dealer turns): whole rounds of four when they divide by four.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 16))]
    pub hands: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 3, maximum = 120))]
    pub first_discard_secs: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 3, maximum = 120))]
    pub discard_secs: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 3, maximum = 120))]
    pub claim_secs: Option<u16>,
    /// People invited, the owner included.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 4))]
    pub people: u8,
    /// The bots' levels in the other seats: `4 - people` of them, or none at all (then
    /// every empty seat gets a `normal` bot).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<BotLevelName>, max_items = 3))]
    pub bots: Vec<String>,
}

/// The bot levels (the core's names), for the document.
#[cfg(feature = "openapi")]
#[derive(utoipa::ToSchema)]
#[schema(as = BotLevel, rename_all = "snake_case")]
#[allow(dead_code)]
enum BotLevelName {
    Easy,
    Normal,
    Hard,
}

impl RoomSettings {
    /// The settings' bounds (the document's too), and each bot level read as an `L` (the
    /// core's `Level`): the levels, or what is wrong in words.
    pub fn check<L: std::str::FromStr>(&self) -> Result<Vec<L>, String> {
        if !ROOM_PEOPLE.contains(&self.people) {
            return Err(format!(
                "a room has 1 to 4 people (the owner included), not {}",
                self.people
            ));
        }
        let empty = usize::from(4 - self.people);
        if !self.bots.is_empty() && self.bots.len() != empty {
            return Err(format!(
                "{empty} bot levels are needed, one per seat nobody is invited to; {} given",
                self.bots.len()
            ));
        }
        if let Some(h) = self.hands.filter(|h| !ROOM_HANDS.contains(h)) {
            return Err(format!(
                "a match has {} to {} hands, not {h}",
                ROOM_HANDS.start(),
                ROOM_HANDS.end()
            ));
        }
        let limits = [self.first_discard_secs, self.discard_secs, self.claim_secs];
        if let Some(s) = limits
            .into_iter()
            .flatten()
            .find(|s| !ROOM_TIME_SECS.contains(s))
        {
            return Err(format!(
                "a time limit is {} to {} seconds, not {s}",
                ROOM_TIME_SECS.start(),
                ROOM_TIME_SECS.end()
            ));
        }
        if self.bots.is_empty() {
            return (0..empty)
                .map(|_| {
                    "normal"
                        .parse::<L>()
                        .map_err(|_| "no normal bot level".to_string())
                })
                .collect();
        }
        self.bots
            .iter()
            .map(|b| {
                b.parse::<L>().map_err(|_| {
                    let b: String = b.chars().take(20).collect();
                    format!("'{b}' is not a bot level (easy, normal, hard)")
                })
            })
            .collect()
    }
}

/// Whether `code` is a room code: exactly six ASCII digits.
pub fn is_room_code(code: &str) -> bool {
    code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit())
}

/// A room, in the path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
pub struct RoomCode {
    /// Six digits.
    #[cfg_attr(feature = "openapi", param(pattern = "^[0-9]{6}$"))]
    pub code: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomPlayer {
    pub account: i64,
    pub name: String,
}

/// A private room as its admitted players see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomInfo {
    /// The six digits friends join by.
    pub code: String,
    /// The table to sit down at once admitted.
    pub table: String,
    /// The base URL of the server node that runs the table: players sit down there.
    pub server: String,
    /// People invited, the owner included.
    pub people: u8,
    /// People admitted so far.
    pub admitted: u8,
    /// Who is in, owner first.
    pub players: Vec<RoomPlayer>,
    /// Pairs of admitted accounts that joined from one IP address (a warning, 同IP提醒).
    pub same_ip: Vec<[i64; 2]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(people: u8, bots: &[&str]) -> RoomSettings {
        RoomSettings {
            people,
            bots: bots.iter().map(|b| b.to_string()).collect(),
            ..RoomSettings::default()
        }
    }

    /// A stand-in for the core's levels.
    #[derive(Debug, PartialEq)]
    struct Level(String);

    impl std::str::FromStr for Level {
        type Err = ();
        fn from_str(s: &str) -> Result<Level, ()> {
            ["easy", "normal", "hard"]
                .contains(&s)
                .then(|| Level(s.into()))
                .ok_or(())
        }
    }

    #[test]
    fn room_settings_are_checked_against_the_bounds() {
        assert_eq!(settings(4, &[]).check::<Level>(), Ok(vec![]));
        assert_eq!(
            settings(2, &[]).check::<Level>().unwrap(),
            [Level("normal".into()), Level("normal".into())],
            "no bots named: normal ones"
        );
        assert_eq!(
            settings(2, &["easy", "hard"]).check::<Level>().unwrap(),
            [Level("easy".into()), Level("hard".into())]
        );
        let bad = [
            settings(0, &["easy", "easy", "easy", "easy"]),
            settings(5, &[]),
            settings(2, &["easy"]),
            RoomSettings {
                hands: Some(0),
                ..settings(2, &[])
            },
            settings(3, &["godlike"]),
            RoomSettings {
                hands: Some(0),
                ..settings(4, &[])
            },
            RoomSettings {
                hands: Some(17),
                ..settings(4, &[])
            },
            RoomSettings {
                claim_secs: Some(2),
                ..settings(4, &[])
            },
            RoomSettings {
                discard_secs: Some(121),
                ..settings(4, &[])
            },
        ];
        for s in bad {
            assert!(s.check::<Level>().is_err(), "{s:?}");
        }
        assert!(is_room_code("012345"));
        for bad in ["12345", "1234567", "12a456", "", "１２３４５６"] {
            assert!(!is_room_code(bad), "{bad}");
        }
    }
}
