//! 比赛: tournaments on the server — made by an operator (any size) or by a player for
//! friends (亲友赛, found by a six-digit code), signed up for, played round by round at
//! tables the server seats, with live standings and every round's walls published for anyone
//! to check. The rules themselves (formats, seating, standings, the round's walls) are the
//! core's `tournament` module; these are the HTTP bodies around them.

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::codes::string_codes;

/// Entrants a tournament may be made for (sit-and-go: exactly this many start it).
pub const TOURNAMENT_ENTRANTS: RangeInclusive<u32> = 4..=100_000;
/// Entrants of a tournament a player makes for friends (亲友赛).
pub const FRIENDS_ENTRANTS: RangeInclusive<u32> = 4..=32;
/// Hands in each round's match.
pub const TOURNAMENT_HANDS: RangeInclusive<u8> = 1..=16;
/// Swiss rounds.
pub const SWISS_ROUNDS: RangeInclusive<u8> = 1..=20;
/// Characters in a tournament's name.
pub const NAME_CHARS: RangeInclusive<usize> = 1..=40;
/// Standings rows in one page (the most a request gets).
pub const STANDINGS_PAGE: u32 = 200;

string_codes! {
    /// A tournament's format.
    pub enum FormatKind {
        /// Swiss: every entrant plays every round, seated by standing; table points by place
        /// (4/2/1/0 unless set), then score.
        Swiss = "swiss",
        /// 打立出局: after each round only the best go on, down to a final table.
        Elimination = "elimination",
    }
}

/// How entrants meet and leave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct TournamentFormat {
    pub kind: FormatKind,
    /// Swiss: the rounds (1–20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u8>,
    /// Elimination: entrants going on after each round (multiples of four, falling, down to
    /// a final table of four); empty: the field halves each round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub survivors: Vec<u32>,
}

impl TournamentFormat {
    pub fn swiss(rounds: u8) -> TournamentFormat {
        TournamentFormat {
            kind: FormatKind::Swiss,
            rounds: Some(rounds),
            survivors: Vec::new(),
        }
    }

    pub fn elimination(survivors: Vec<u32>) -> TournamentFormat {
        TournamentFormat {
            kind: FormatKind::Elimination,
            rounds: None,
            survivors,
        }
    }
}

/// A tournament to make.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    pub name: String,
    /// A preset this server accepts; its default rule set when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    pub format: TournamentFormat,
    /// 复式: every table of a round plays the same walls, and each entrant's score is
    /// compared with the same player slot's at the other tables.
    #[serde(default)]
    pub duplicate: bool,
    /// Hands in each round's match (1–16).
    pub hands_per_match: u8,
    /// Sit-and-go (满人开赛): it starts when this many have signed up. Scheduled: the most
    /// who may sign up.
    pub entrants: u32,
    /// Scheduled (定时赛): sign-up closes and play starts at this time (Unix seconds), with
    /// whoever signed up (at least four, else it is cancelled). Absent: sit-and-go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_at: Option<i64>,
    /// Bots take the seats a round cannot fill; otherwise those left over sit it out (a bye).
    #[serde(default)]
    pub bots_allowed: bool,
    /// Each match moves its people's ratings, as a ranked match does.
    #[serde(default)]
    pub rated: bool,
    /// Table points by place, first to last (4/2/1/0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_points: Option<[u32; 4]>,
}

impl NewTournament {
    /// The bounds every tournament keeps (`friends`: a player's 亲友赛, 4–32 entrants). The
    /// server also checks what needs the rules (cut lines against the field) and the time.
    pub fn check(&self, friends: bool) -> Result<(), String> {
        let chars = self.name.trim().chars().count();
        if !NAME_CHARS.contains(&chars) || self.name.chars().any(char::is_control) {
            return Err("a name of 1–40 characters, no control characters".into());
        }
        let entrants = if friends {
            FRIENDS_ENTRANTS
        } else {
            TOURNAMENT_ENTRANTS
        };
        if !entrants.contains(&self.entrants) {
            return Err(format!(
                "entrants must be {}–{}",
                entrants.start(),
                entrants.end()
            ));
        }
        if !TOURNAMENT_HANDS.contains(&self.hands_per_match) {
            return Err("hands per match must be 1–16".into());
        }
        let f = &self.format;
        match f.kind {
            FormatKind::Swiss if !f.rounds.is_some_and(|r| SWISS_ROUNDS.contains(&r)) => {
                Err("Swiss rounds must be 1–20".into())
            }
            FormatKind::Swiss if !f.survivors.is_empty() => Err("Swiss has no cut lines".into()),
            FormatKind::Elimination if f.rounds.is_some() => {
                Err("an elimination's rounds follow from its cut lines".into())
            }
            FormatKind::Elimination if f.survivors.is_empty() && self.starts_at.is_some() => Err(
                "a scheduled elimination names its cut lines (the field is not known yet)".into(),
            ),
            FormatKind::Elimination if f.survivors.len() > usize::from(*SWISS_ROUNDS.end()) => {
                Err("at most 20 cut lines".into())
            }
            FormatKind::Other(ref k) => Err(format!("no format '{k}'")),
            _ => Ok(()),
        }
    }
}

string_codes! {
    /// Where a tournament is in its life.
    pub enum TournamentStatus {
        /// Taking entrants.
        SignUp = "sign_up",
        Running = "running",
        Finished = "finished",
        /// Too few signed up by the start time.
        Cancelled = "cancelled",
    }
}

/// A tournament as anyone may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TournamentInfo {
    pub id: String,
    pub name: String,
    /// A 亲友赛's code: shown to its maker and its entrants only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub rules: String,
    pub format: TournamentFormat,
    pub duplicate: bool,
    pub hands_per_match: u8,
    pub entrants: u32,
    pub signed_up: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_at: Option<i64>,
    pub bots_allowed: bool,
    pub rated: bool,
    pub table_points: [u32; 4],
    pub status: TournamentStatus,
    /// Rounds begun (the one in play, 1-based; 0 before the first).
    pub round: u32,
    pub rounds: u32,
    pub rounds_finished: u32,
    /// The commitment to the walls of the round in play (hex), published before any
    /// contribution is taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// Whether the asking account has signed up.
    pub entered: bool,
    /// How long the server took to seat each round so far (its order, the seats, the tables
    /// opened), in milliseconds: what a round costs between rounds.
    #[serde(default)]
    pub seating_ms: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TournamentList {
    pub tournaments: Vec<TournamentInfo>,
}

/// Which tournaments to list.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct TournamentQuery {
    /// A 亲友赛's six-digit code: lists that one (open ones are listed without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// A tournament, in the path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
pub struct TournamentId {
    pub id: String,
}

/// A round of a tournament, in the path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
pub struct RoundId {
    pub id: String,
    /// 1-based.
    pub round: u32,
}

/// Signing up.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct EntryRequest {
    /// A 亲友赛's code (required for one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// Asking for one's table in a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SeatRequest {
    /// The round (1-based) the table is asked for.
    pub round: u32,
    /// The round's commitment as the entrant read it (hex): a contribution is taken only
    /// with it, so nobody contributes before the server is bound to its secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// 32 random bytes (hex) mixed into the round's walls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contribution: Option<String>,
}

string_codes! {
    /// What a seat request got.
    pub enum SeatState {
        /// The round's commitment is out: ask again with it and a contribution.
        Commit = "commit",
        /// Not seated yet (the round is not seated, or an earlier one still plays): ask again.
        Waiting = "waiting",
        /// Join `table` over `/v1/play`.
        Seated = "seated",
        /// Sitting this round out (the field is not in fours and bots are not allowed).
        Bye = "bye",
        /// Cut (打立出局): the tournament is over for this entrant.
        Out = "out",
        Finished = "finished",
        Cancelled = "cancelled",
    }
}

/// One's table in a round, or why not (a long poll: it answers when that changes, or after
/// a while with `waiting`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TournamentSeat {
    pub state: SeatState,
    /// The round this answer is about (1-based).
    pub round: u32,
    /// That round's commitment (hex), once announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// The table to join, when seated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The base URL of the node that runs the table.
    pub server: String,
}

/// A page of the standings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct StandingsQuery {
    /// Rows to skip (0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// Rows in the page (50 when absent, at most 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// An entrant's place.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StandingRow {
    /// 1-based.
    pub rank: u32,
    /// The entrant's number in the tournament's published rounds (his place in the sign-up).
    pub entrant: u64,
    pub account: i64,
    pub name: String,
    pub table_points: f64,
    /// Match scores summed (duplicate: against the same slot at the round's other tables).
    pub score: f64,
    pub matches: u32,
    /// The round after which the entrant was cut (elimination).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_after: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StandingsPage {
    /// Rounds booked in these standings.
    pub rounds: u32,
    pub total: u32,
    pub offset: u32,
    pub rows: Vec<StandingRow>,
    /// The asking account's own row, wherever it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub me: Option<StandingRow>,
}

/// A finished round as published: the core's `RoundRecord` (commitment, secret,
/// contributions, rules, seating, every hand), which anyone checks with
/// `tongcheng tournament verify`.
#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PublishedRound {
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub record: Box<RawValue>,
}
