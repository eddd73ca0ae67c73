//! The endpoints: one unit struct each, with its method, path, authentication and body types.
//! The server routes each one to its handler; clients call them by type.

use crate::admin::{CollusionQuery, Report};
use crate::auth::{
    AccountResponse, ChallengeResponse, DeviceId, DevicesResponse, LinkResponse, LoginRequest,
    LoginResponse,
};
use crate::play::{QueueRequest, RatingsResponse, RoomCode, RoomInfo, RoomSettings, Seated};
use crate::sanctions::{
    AssistQuery, AssistReport, AuditQuery, AuditResponse, HandId, ItemId, LiftQuery,
    RankedHandResponse, ReportRequest, ReportResponse, Review, ReviewDecision, ReviewsQuery,
    ReviewsResponse, Sanction, SanctionRequest, SanctionResponse, SanctionsQuery,
    SanctionsResponse, ScanRequest, ScanResponse,
};
use crate::sync::{PullQuery, PullResponse, UploadRequest, UploadResponse};
use crate::tournament::{
    EntryRequest, NewTournament, PublishedRound, RoundId, SeatRequest, StandingsPage,
    StandingsQuery, TournamentId, TournamentInfo, TournamentList, TournamentQuery, TournamentSeat,
};
use crate::{
    Auth, Document, HealthResponse, Method, NoBody, NoContent, NoParams, PathParams, Text, Upgrade,
};

/// One endpoint of the API.
pub trait Endpoint {
    const METHOD: Method;
    /// The path as the router and the document write it: `{name}` for a path parameter.
    const PATH: &'static str;
    const AUTH: Auth;
    /// What it does, for people: the endpoint's documentation, also the document's summary
    /// (first paragraph) and description (the rest).
    const DOC: &'static str;
    /// Path parameters ([`NoParams`] when none).
    type Params: PathParams;
    /// Query parameters ([`NoParams`] when none).
    type Query;
    /// The request body ([`NoBody`] when none).
    type Request;
    /// The successful answer.
    type Response;

    /// The path to request, its parameters filled in.
    fn path(params: &Self::Params) -> String {
        params.fill(Self::PATH)
    }
}

/// The endpoint structs and their `Endpoint` impls, and `for_each_endpoint!`, which hands
/// every endpoint's type to another macro (the document lists them with it). `$d` is a `$`
/// passed in, so the inner macro can have metavariables of its own.
macro_rules! endpoints {
    ($d:tt $(
        $(#[doc = $doc:literal])*
        $name:ident: $method:ident $path:literal, auth $auth:ident,
        params $params:ty, query $query:ty, request $request:ty, response $response:ty;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct $name;

            impl Endpoint for $name {
                const METHOD: Method = Method::$method;
                const PATH: &'static str = $path;
                const AUTH: Auth = Auth::$auth;
                const DOC: &'static str = concat!($($doc, "\n"),*);
                type Params = $params;
                type Query = $query;
                type Request = $request;
                type Response = $response;
            }
        )*

        /// Calls macro `$m` with every endpoint's type, in the order above.
        #[allow(unused_macros)]
        macro_rules! for_each_endpoint {
            ($d m:ident) => {
                $d m!($(crate::endpoints::$name),*)
            };
        }
        #[allow(unused_imports)]
        pub(crate) use for_each_endpoint;
    };
}

endpoints! {
    $
    /// Liveness and the store backend.
    Health: Get "/healthz", auth None,
        params NoParams, query NoParams, request NoBody, response HealthResponse;

    /// Prometheus metrics (text format): requests by route and status, a latency histogram,
    /// sync batches, records accepted, already held, rejected and pulled, logins, rate-limit
    /// refusals by quota, connections refused, online tables, connections and players
    /// waiting. Behind the admin token (or on the server's `--metrics-listen` address).
    Metrics: Get "/metrics", auth Admin,
        params NoParams, query NoParams, request NoBody, response Text;

    /// This document.
    OpenApiDocument: Get "/v1/openapi.json", auth None,
        params NoParams, query NoParams, request NoBody, response Document;

    /// A single-use login nonce (60 s unless configured).
    ///
    /// Rate limited per IP address.
    Challenge: Post "/v1/auth/challenge", auth None,
        params NoParams, query NoParams, request NoBody, response ChallengeResponse;

    /// Log in with the device's Ed25519 key: sign `tongcheng-login-v1\n` ‖ nonce ‖ public key
    /// (raw bytes).
    ///
    /// An unknown key makes an account, or joins the account of `link_code`. Rate limited per
    /// IP address and per key; a wrong, expired or used link code all give
    /// `invalid_link_code`; `device_revoked`, `key_in_use`.
    Login: Post "/v1/auth/login", auth None,
        params NoParams, query NoParams, request LoginRequest, response LoginResponse;

    /// Revoke the session used.
    Logout: Post "/v1/auth/logout", auth Session,
        params NoParams, query NoParams, request NoBody, response NoContent;

    /// The session's account and how many records the server holds for it.
    Account: Get "/v1/account", auth Session,
        params NoParams, query NoParams, request NoBody, response AccountResponse;

    /// A single-use code (five minutes unless configured) another device logs in with to join
    /// this account.
    CreateLink: Post "/v1/link", auth Session,
        params NoParams, query NoParams, request NoBody, response LinkResponse;

    /// The account's devices.
    Devices: Get "/v1/devices", auth Session,
        params NoParams, query NoParams, request NoBody, response DevicesResponse;

    /// Revoke a device: its sessions end and its key never logs in again.
    RevokeDevice: Delete "/v1/devices/{id}", auth Session,
        params DeviceId, query NoParams, request NoBody, response NoContent;

    /// Upload finished hands.
    ///
    /// Each record is replayed against the accepted rule sets; results come back in request
    /// order: accepted, already (idempotent by record id) or rejected with a code and reason,
    /// and a refusal never holds up the rest of its batch. Uploaded hands are stored as
    /// offline (never rated).
    Upload: Post "/v1/sync/upload", auth Session,
        params NoParams, query NoParams, request UploadRequest, response UploadResponse;

    /// Records uploaded by the account's other devices after the cursor, oldest first.
    Pull: Get "/v1/sync/pull", auth Session,
        params NoParams, query PullQuery, request NoBody, response PullResponse;

    /// Online table: upgrades to a WebSocket carrying the JSON messages of the core's
    /// `protocol` module.
    ///
    /// Client: join, contribute, piao, act, auto_play, ready, leave, ping. Server: welcome,
    /// players, snapshot, commit, piao_ask, piao, event, decision, auto_play, hand_end,
    /// match_end, pong, error. A browser, which cannot
    /// set `Authorization` on a WebSocket, offers the subprotocols `tongcheng.v1` and
    /// `tongcheng.token.<token>`; the server selects `tongcheng.v1`.
    Play: Get "/v1/play", auth Session,
        params NoParams, query NoParams, request NoBody, response Upgrade;

    /// Matchmaking: waits (a long poll) in the ranked or casual queue of a rule set until
    /// seated, then answers with the table to join over `/v1/play`.
    ///
    /// Ranked seats players of close Weng-Lin rating (the band widens with waiting time) and
    /// never two accounts from one IP address or link group; bots fill the empty seats after
    /// the configured wait. Codes: `rules_not_accepted`, `queue_replaced` (a newer request of
    /// the account), `queue_timeout`.
    Queue: Post "/v1/queue", auth Session,
        params NoParams, query NoParams, request QueueRequest, response Seated;

    /// The account's Weng-Lin ratings per rule set (ranked matches only), with tiers.
    Ratings: Get "/v1/ratings", auth Session,
        params NoParams, query NoParams, request NoBody, response RatingsResponse;

    /// Make a private room (开房) and its table; the owner is admitted.
    ///
    /// The owner picks the rules, hands, time limits, people invited and the bots' levels for
    /// the other seats; the answer has the six-digit code and the table to join over
    /// `/v1/play`. A room whose table nobody joined by the end of its lobby time expires.
    /// Codes: `bad_room`, `rules_not_accepted`, `no_room`.
    CreateRoom: Post "/v1/rooms", auth Session,
        params NoParams, query NoParams, request RoomSettings, response RoomInfo;

    /// A private room as its admitted players see it (who is in, same-IP pairs); `not_found`
    /// for anyone not admitted.
    ShowRoom: Get "/v1/rooms/{code}", auth Session,
        params RoomCode, query NoParams, request NoBody, response RoomInfo;

    /// Join a private room by its code while it has a free invitation.
    ///
    /// `room_full` once exactly the invited number are in, `not_found` for an unknown or
    /// expired code; joining again gives the same answer. `same_ip` lists admitted accounts
    /// sharing an IP address (a warning, as 同IP提醒).
    JoinRoom: Post "/v1/rooms/{code}/join", auth Session,
        params RoomCode, query NoParams, request NoBody, response RoomInfo;

    /// Tournaments taking entrants or in play (a 亲友赛 only by its `code`).
    ListTournaments: Get "/v1/tournaments", auth Session,
        params NoParams, query TournamentQuery, request NoBody, response TournamentList;

    /// Make a 亲友赛: a tournament for friends (4–32 entrants), found by the six-digit code
    /// in the answer; its maker is signed up.
    ///
    /// Codes: `bad_tournament`, `rules_not_accepted`.
    CreateFriendsTournament: Post "/v1/tournaments", auth Session,
        params NoParams, query NoParams, request NewTournament, response TournamentInfo;

    /// Make a public tournament of any size (the operator's).
    ///
    /// Codes: `bad_tournament`, `rules_not_accepted`.
    CreateTournament: Post "/v1/admin/tournaments", auth Admin,
        params NoParams, query NoParams, request NewTournament, response TournamentInfo;

    /// One tournament.
    ShowTournament: Get "/v1/tournaments/{id}", auth Session,
        params TournamentId, query NoParams, request NoBody, response TournamentInfo;

    /// Sign up (a 亲友赛 needs its code); signing up again gives the same answer.
    ///
    /// Codes: `sign_up_closed` (full, started, over), `not_found`.
    EnterTournament: Post "/v1/tournaments/{id}/entry", auth Session,
        params TournamentId, query NoParams, request EntryRequest, response TournamentInfo;

    /// One's table in a round: a long poll that answers when the round seats its tables
    /// (`seated`), or `commit` (the round's commitment: ask again with it and 32 random bytes
    /// of your own, mixed into the round's walls), `waiting`, `bye`, `out`, `finished`.
    ///
    /// An entrant who does not come is seated anyway: the stand-in plays his seat (托管) and
    /// the result counts.
    NextTable: Post "/v1/tournaments/{id}/seat", auth Session,
        params TournamentId, query NoParams, request SeatRequest, response TournamentSeat;

    /// The standings, a page at a time, with the asking entrant's own row.
    TournamentStandings: Get "/v1/tournaments/{id}/standings", auth Session,
        params TournamentId, query StandingsQuery, request NoBody, response StandingsPage;

    /// A finished round as published: its commitment, the secret revealed, the
    /// contributions, the seating and every table's hands. Check it with
    /// `tongcheng tournament verify`. `not_found` until the round is over.
    TournamentRound: Get "/v1/tournaments/{id}/rounds/{round}", auth Session,
        params RoundId, query NoParams, request NoBody, response PublishedRound;

    /// The collusion report over one rule set's ranked history.
    ///
    /// For each ordered pair of accounts that shared at least `min_hands` hands: how often the
    /// account fed the partner winning tiles (against the Normal bot's play from the same
    /// view), passed claims on the partner's discards that the bot would have taken (against
    /// the account's own habit), and how many of the partner's discard wins were the account's
    /// discards (against an even share); a measure with z ≥ 3.5 and at least 4 events flags
    /// the pair. `admin_disabled` when the server has no admin token.
    Collusion: Get "/v1/admin/collusion", auth Admin,
        params NoParams, query CollusionQuery, request NoBody, response Report;

    /// Report an opponent (举报) of a hand both played online.
    ///
    /// The hand is named by its record id; both accounts must hold it as an online hand.
    /// The report joins the review queue (one per reporter, opponent and hand: reporting it
    /// again gives the same review). `bad_request`, `not_found`.
    ReportPlayer: Post "/v1/reports", auth Session,
        params NoParams, query NoParams, request ReportRequest, response ReportResponse;

    /// Sanction an account or one device key: warn, suspend until a time, or ban.
    ///
    /// A suspended or banned player cannot log in, queue, make, join or look at rooms, or
    /// sit at a table (`account_suspended` / `account_banned`, 403, with `until` and
    /// `reason`), and his open tables play his seat on 托管. A ban with `void_from` voids his
    /// ranked matches finished since then and recomputes every rating of their rule sets
    /// from ranked history without them. Audited. `bad_request`, `not_found`.
    CreateSanction: Post "/v1/admin/sanctions", auth Admin,
        params NoParams, query NoParams, request SanctionRequest, response SanctionResponse;

    /// An account's sanctions (its devices' included), newest first, lifted and expired ones
    /// too.
    ListSanctions: Get "/v1/admin/sanctions", auth Admin,
        params NoParams, query SanctionsQuery, request NoBody, response SanctionsResponse;

    /// Lift a sanction (voided matches stay voided). Audited. `not_found`; `conflict` when it
    /// was lifted already.
    LiftSanction: Delete "/v1/admin/sanctions/{id}", auth Admin,
        params ItemId, query LiftQuery, request NoBody, response Sanction;

    /// The review queue: players' reports and the collusion and assist reports' flags, with
    /// their evidence (z-scores, assist figures, hands to replay). Open ones unless `status`
    /// says otherwise.
    Reviews: Get "/v1/admin/reviews", auth Admin,
        params NoParams, query ReviewsQuery, request NoBody, response ReviewsResponse;

    /// Run the collusion and assist reports over a rule set's ranked history and file their
    /// flags in the review queue (a flag already open has its evidence brought up to date).
    ScanReviews: Post "/v1/admin/reviews/scan", auth Admin,
        params NoParams, query NoParams, request ScanRequest, response ScanResponse;

    /// Decide an open review: `dismissed` or `actioned`, with a note. Audited. `not_found`;
    /// `conflict` when it was decided already.
    DecideReview: Post "/v1/admin/reviews/{id}", auth Admin,
        params ItemId, query NoParams, request ReviewDecision, response Review;

    /// The audit trail: every sanction, lift, void and review decision, oldest first.
    Audit: Get "/v1/admin/audit", auth Admin,
        params NoParams, query AuditQuery, request NoBody, response AuditResponse;

    /// A ranked hand's record, with the account in each seat, to replay.
    AdminHand: Get "/v1/admin/hands/{id}", auth Admin,
        params HandId, query NoParams, request NoBody, response RankedHandResponse;

    /// The engine-assist report over one rule set's ranked history.
    ///
    /// For each account with at least `min_decisions` non-forced decisions: how often it
    /// played the hard bot's first choice, how far down the hard bot's ranking its choices
    /// fell, and whether it took longer over hard decisions than easy ones, each against its
    /// peers at its rating. Far outside them (top choice z ≥ 3, or z ≥ 2 with a timing z ≥
    /// 1.5: as long over easy decisions as hard ones) flags the account.
    Assist: Get "/v1/admin/assist", auth Admin,
        params NoParams, query AssistQuery, request NoBody, response AssistReport;
}
