//! Tournaments end to end, in process: 64 entrants as async clients, each logging in from
//! its own loopback address (two accounts share each address in the Swiss test), signing up,
//! asking for its table each round (commitment read, then a contribution) and playing it
//! with the quick answers. One entrant never comes: the stand-in plays his seat. Then the
//! standings are checked against a recomputation from the published rounds alone, every
//! round's walls against its commitment, and the seating against the same-address rule.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use tongcheng_api::NoParams;
use tongcheng_api::endpoints::{
    CreateTournament, EnterTournament, ShowTournament, TournamentRound, TournamentStandings,
};
use tongcheng_api::tournament::{
    EntryRequest, NewTournament, RoundId, SeatState, StandingsPage, StandingsQuery,
    TournamentFormat, TournamentId, TournamentInfo, TournamentStatus,
};
use tongcheng_client::tournament::next_table;
use tongcheng_client::{
    AsyncHttpApi, AsyncSeat, ClientError, HttpOptions, Identity, OnlineOptions, OnlineUpdate,
};
use tongcheng_core::protocol::NextTableState;
use tongcheng_core::tournament::simulate::{RoundRecord, recompute};
use tongcheng_core::tournament::{EntrantId, Format, TournamentConfig};
use tongcheng_server::Config;
use tongcheng_server::play::OnlineConfig;

use crate::support;
use support::online::{TestServer, quick};

pub(crate) const ADMIN: &str = "tournament-admin-token";

pub(crate) fn start() -> TestServer {
    support::online::start_with(Config {
        admin_token: Some(ADMIN.into()),
        online: OnlineConfig {
            contribute_ms: 3_000,
            ready_ms: 500,
            lobby_ms: 3_000,
            linger_ms: 1_000,
            ..OnlineConfig::default()
        },
        ..Config::default()
    })
}

/// Entrant `i`'s address: two entrants to an address when `pairs`.
pub(crate) fn address(i: usize, pairs: bool) -> IpAddr {
    let n = if pairs { i / 2 } else { i };
    IpAddr::V4(Ipv4Addr::new(
        127,
        0,
        10 + (n / 200) as u8,
        2 + (n % 200) as u8,
    ))
}

/// A logged-in client from `ip`, and its account.
async fn client(url: &str, ip: IpAddr) -> (AsyncHttpApi, i64) {
    let options = HttpOptions {
        local_address: Some(ip),
        keep_alive: true,
    };
    let mut api = AsyncHttpApi::new(url, options).unwrap();
    let login = api
        .login(&Identity::generate().unwrap(), "entrant", None)
        .await
        .unwrap();
    (api, login.account.id)
}

/// Plays one table's match with the quick answers; fails on a hand that does not verify.
async fn play_table(url: &str, token: &str, table: &str, ip: IpAddr) -> Result<(), String> {
    let options = OnlineOptions {
        table: Some(table.to_string()),
        ..OnlineOptions::default()
    };
    let mut seat = AsyncSeat::connect(url, token, options, Some(ip), true)
        .await
        .map_err(|e| format!("join {table}: {e}"))?;
    let result = play_match(&mut seat, table).await;
    seat.close().await;
    result
}

/// The match at the table `seat` sits at, to its end.
async fn play_match(seat: &mut AsyncSeat, table: &str) -> Result<(), String> {
    loop {
        let update = seat.next_update(None).await.map_err(|e| e.to_string())?;
        match update {
            Some(OnlineUpdate::Decision { decision, .. }) => {
                let _ = seat.act(quick(&decision)).await;
            }
            Some(OnlineUpdate::HandEnd { fair: Err(e), .. }) => {
                return Err(format!("a hand at {table} does not replay: {e}"));
            }
            Some(OnlineUpdate::MatchEnd { .. }) => break,
            Some(OnlineUpdate::Disconnected { reason }) => return Err(reason),
            _ => {}
        }
    }
    if seat.stream().round().is_none() {
        return Err(format!("{table}'s welcome did not name its round"));
    }
    Ok(())
}

/// One entrant's tournament: signs up and (unless a no-show) plays every round he is in.
/// His account. Entrants from an even address ask for their tables on one table connection
/// for the whole tournament, the others by the HTTP long poll (a connection per table).
pub(crate) async fn entrant(
    url: String,
    id: String,
    ip: IpAddr,
    comes: bool,
) -> Result<i64, String> {
    let (api, account) = client(&url, ip).await;
    let path = TournamentId { id: id.clone() };
    api.call::<EnterTournament>(&path, &NoParams {}, &EntryRequest::default())
        .await
        .map_err(|e| format!("sign up: {e}"))?;
    if !comes {
        return Ok(account);
    }
    let token = api.token().unwrap_or_default().to_string();
    if matches!(ip, IpAddr::V4(v) if v.octets()[3] % 2 == 0) {
        return on_socket(&url, &token, &id, ip).await.map(|()| account);
    }
    let mut round = 1;
    loop {
        let seat = next_table(&api, &id, round)
            .await
            .map_err(|e| format!("seat in round {round}: {e}"))?;
        match seat.state {
            SeatState::Seated => {
                let table = seat.table.clone().unwrap_or_default();
                let node = if seat.server.is_empty() {
                    url.as_str()
                } else {
                    &seat.server
                };
                play_table(node, &token, &table, ip).await?;
            }
            SeatState::Bye => {}
            SeatState::Out | SeatState::Finished => return Ok(account),
            other => return Err(format!("round {round}: {other:?}")),
        }
        round = seat.round + 1;
    }
}

/// Every round on one connection: 下一桌 asked on it, each table joined on it (or on a
/// new one to the table's node).
async fn on_socket(url: &str, token: &str, id: &str, ip: IpAddr) -> Result<(), String> {
    let mut seat = AsyncSeat::entrant(url, token, Some(ip), true)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let mut round = 1;
    loop {
        let next = seat
            .next_table(id, round)
            .await
            .map_err(|e| format!("next table in round {round}: {e}"))?;
        match next.state {
            NextTableState::Seated => {
                let table = next.table.clone().unwrap_or_default();
                seat.sit_at(&table, &next.server)
                    .await
                    .map_err(|e| format!("join {table}: {e}"))?;
                play_match(&mut seat, &table).await?;
            }
            NextTableState::Bye => {}
            NextTableState::Out | NextTableState::Finished => break,
            other => return Err(format!("round {round}: {other:?}")),
        }
        round = next.round + 1;
    }
    seat.close().await;
    Ok(())
}

/// A run's published rounds, its final standings, and each client's account in spawn
/// order (clients `2k` and `2k + 1` share an address when `pairs`).
struct Run {
    rounds: Vec<RoundRecord>,
    page: StandingsPage,
    accounts: Vec<i64>,
}

/// Makes the tournament as the operator, runs 64 entrants through it (entrant `no_show`
/// never asks for a table), and checks everything a player could check afterwards.
fn run(settings: NewTournament, pairs: bool, no_show: usize) -> Run {
    let server = start();
    let url = server.url.clone();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut admin = AsyncHttpApi::new(&url, HttpOptions::default()).unwrap();
        admin.set_token(Some(ADMIN.into()));
        let made = admin
            .call::<CreateTournament>(&NoParams {}, &NoParams {}, &settings)
            .await
            .unwrap();
        assert_eq!(made.status, TournamentStatus::SignUp);
        let entrants: Vec<_> = (0..64)
            .map(|i| {
                let (url, id) = (url.clone(), made.id.clone());
                tokio::spawn(entrant(url, id, address(i, pairs), i != no_show))
            })
            .collect();
        let mut accounts = Vec::new();
        for e in entrants {
            let r = tokio::time::timeout(Duration::from_secs(240), e)
                .await
                .expect("an entrant did not finish in time");
            accounts.push(r.unwrap().unwrap());
        }
        let (viewer, _) = client(&url, address(200, false)).await;
        let path = TournamentId {
            id: made.id.clone(),
        };
        let info: TournamentInfo = viewer
            .call::<ShowTournament>(&path, &NoParams {}, &tongcheng_api::NoBody)
            .await
            .unwrap();
        assert_eq!(info.status, TournamentStatus::Finished);
        assert_eq!(info.rounds_finished, info.rounds);
        let mut rounds = Vec::new();
        for round in 1..=info.rounds {
            let published = viewer
                .call::<TournamentRound>(
                    &RoundId {
                        id: made.id.clone(),
                        round,
                    },
                    &NoParams {},
                    &tongcheng_api::NoBody,
                )
                .await
                .unwrap();
            let record: RoundRecord = serde_json::from_str(published.record.get()).unwrap();
            record
                .verify()
                .unwrap_or_else(|e| panic!("round {round} does not verify: {e}"));
            rounds.push(record);
        }
        let page = viewer
            .call::<TournamentStandings>(
                &path,
                &StandingsQuery {
                    offset: None,
                    limit: Some(200),
                },
                &tongcheng_api::NoBody,
            )
            .await
            .unwrap();
        assert_eq!(page.total, 64);
        Run {
            rounds,
            page,
            accounts,
        }
    })
}

/// The core's configuration the server made of `settings`, for the recomputation.
pub(crate) fn config(s: &NewTournament, format: Format) -> TournamentConfig {
    TournamentConfig {
        rules: s.rules.clone().unwrap_or_else(|| "guobiao".into()),
        format,
        duplicate: s.duplicate,
        hands_per_match: s.hands_per_match,
        table_points: s.table_points.unwrap_or([4, 2, 1, 0]),
        bots_allowed: s.bots_allowed,
    }
}

/// The standings served equal a recomputation from the published rounds alone.
pub(crate) fn check_standings(
    config: &TournamentConfig,
    rounds: &[RoundRecord],
    page: &StandingsPage,
) {
    let ids: Vec<EntrantId> = (1..=u64::from(page.total)).collect();
    let again = recompute(config, &ids, rounds).expect("the rounds recompute");
    let served: Vec<_> = page
        .rows
        .iter()
        .map(|r| (r.entrant, r.table_points, r.score, r.matches, r.out_after))
        .collect();
    let recomputed: Vec<_> = again
        .ranked()
        .iter()
        .map(|s| (s.entrant, s.table_points, s.score, s.matches, s.out_after))
        .collect();
    assert_eq!(served, recomputed);
}

pub(crate) fn settings(format: TournamentFormat, duplicate: bool) -> NewTournament {
    NewTournament {
        name: "桐城杯".into(),
        rules: Some("guobiao".into()),
        format,
        duplicate,
        hands_per_match: 1,
        entrants: 64,
        starts_at: None,
        bots_allowed: false,
        rated: false,
        table_points: None,
    }
}

#[test]
fn a_swiss_tournament_of_64_keeps_address_mates_apart_and_plays_a_no_show_on() {
    let s = settings(TournamentFormat::swiss(3), false);
    let no_show = 17;
    let Run {
        rounds,
        page,
        accounts,
    } = run(s.clone(), true, no_show);
    check_standings(&config(&s, Format::Swiss { rounds: 3 }), &rounds, &page);
    // Entrants who signed up from one address never shared a table.
    let pair_of: HashMap<i64, usize> = accounts
        .iter()
        .enumerate()
        .map(|(i, &a)| (a, i / 2))
        .collect();
    let address_of: HashMap<EntrantId, usize> = page
        .rows
        .iter()
        .map(|r| (r.entrant, pair_of[&r.account]))
        .collect();
    assert_eq!(address_of.len(), 64);
    for r in &rounds {
        assert_eq!(r.seating.len(), 16);
        for table in &r.seating {
            let mut addresses: Vec<usize> = table.iter().flatten().map(|e| address_of[e]).collect();
            assert_eq!(addresses.len(), 4, "no bots, no byes in a field of 64");
            addresses.sort_unstable();
            addresses.dedup();
            assert_eq!(
                addresses.len(),
                4,
                "two entrants of one address met: {table:?}"
            );
        }
    }
    // Everyone, the no-show included, played every round: his seat was played for him.
    assert!(page.rows.iter().all(|r| r.matches == 3), "{:?}", page.rows);
    // Table points are 4/2/1/0 shared on ties: 7 per table per round.
    let total: f64 = page.rows.iter().map(|r| r.table_points).sum();
    assert_eq!(total, 7.0 * 16.0 * 3.0);
}

#[test]
fn a_duplicate_elimination_of_64_cuts_to_a_final_table_with_one_wall_per_round() {
    let s = settings(TournamentFormat::elimination(vec![]), true);
    let Run { rounds, page, .. } = run(s.clone(), false, 64);
    let format = Format::halving(64);
    check_standings(&config(&s, format.clone()), &rounds, &page);
    let Format::Elimination { survivors } = format else {
        unreachable!()
    };
    assert_eq!(rounds.len(), survivors.len() + 1);
    let mut field = 64;
    for (r, round) in rounds.iter().enumerate() {
        let seated: usize = round
            .seating
            .iter()
            .map(|t| t.iter().flatten().count())
            .sum();
        assert_eq!(seated, field, "round {} seats the field still in", r + 1);
        // Duplicate: every table of the round played the same walls.
        let first: Vec<_> = round.tables[0].iter().map(|h| h.setup.seed).collect();
        assert!(
            round
                .tables
                .iter()
                .all(|t| t.iter().map(|h| h.setup.seed).collect::<Vec<_>>() == first)
        );
        field = survivors.get(r).map_or(4, |&n| n as usize);
    }
    // The cut lines: who was out after which round.
    let out_after = |round: u32| {
        page.rows
            .iter()
            .filter(|r| r.out_after == Some(round))
            .count()
    };
    assert_eq!(
        [out_after(1), out_after(2), out_after(3), out_after(4)],
        [32, 16, 8, 4]
    );
    assert!(
        page.rows[..4]
            .iter()
            .all(|r| r.out_after.is_none() && r.matches == 5)
    );
}

fn get(url: &str, token: &str, path: &str) -> (u16, serde_json::Value) {
    let r = reqwest::blocking::Client::new()
        .get(format!("{url}{path}"))
        .bearer_auth(token)
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

fn code(v: &(u16, serde_json::Value)) -> (u16, &str) {
    (v.0, v.1["error"]["code"].as_str().unwrap_or(""))
}

#[test]
fn a_friends_tournament_is_found_by_its_code_and_bad_requests_change_nothing() {
    use serde_json::json;
    use support::online::post_from as post;
    let server = start();
    let url = server.url.as_str();
    let [maker, friend, stranger] = [0; 3].map(|_| support::online::login(url).0);
    let body = json!({"name": "周末赛", "format": {"kind": "swiss", "rounds": 2},
                      "hands_per_match": 1, "entrants": 8});
    // Bounds: a player's 亲友赛 is 4–32; the operator's endpoint needs the admin token.
    for bad in [
        json!({"name": "", "format": {"kind": "swiss", "rounds": 2}, "hands_per_match": 1, "entrants": 8}),
        json!({"name": "x", "format": {"kind": "swiss", "rounds": 2}, "hands_per_match": 1, "entrants": 64}),
        json!({"name": "x", "format": {"kind": "swiss"}, "hands_per_match": 1, "entrants": 8}),
        json!({"name": "x", "format": {"kind": "elimination", "survivors": [6, 4]}, "hands_per_match": 1, "entrants": 8}),
        json!({"name": "x", "format": {"kind": "swiss", "rounds": 2}, "hands_per_match": 0, "entrants": 8}),
        json!({"name": "x", "format": {"kind": "swiss", "rounds": 2}, "hands_per_match": 1, "entrants": 8, "starts_at": 1}),
        json!({"name": "x", "format": {"kind": "knockout"}, "hands_per_match": 1, "entrants": 8}),
    ] {
        let r = post(url, &maker, 1, "/v1/tournaments", bad.clone());
        assert!(
            matches!(code(&r), (400, "bad_tournament" | "bad_json")),
            "{bad}: {r:?}"
        );
    }
    assert_eq!(
        code(&post(url, &maker, 1, "/v1/admin/tournaments", body.clone())).0,
        401
    );
    let listed = |token: &str, q: &str| {
        get(url, token, &format!("/v1/tournaments{q}")).1["tournaments"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(listed(&stranger, ""), 0, "nothing made yet");

    let made = post(url, &maker, 1, "/v1/tournaments", body);
    assert_eq!(made.0, 200, "{:?}", made.1);
    let id = made.1["id"].as_str().unwrap().to_string();
    let c = made.1["code"].as_str().unwrap().to_string();
    assert_eq!(made.1["signed_up"], 1, "its maker is in");
    assert!(made.1["entered"].as_bool().unwrap());
    // Not listed without its code; found with it; a wrong code finds nothing.
    assert_eq!(listed(&stranger, ""), 0);
    assert_eq!(listed(&friend, &format!("?code={c}")), 1);
    let wrong = if c == "000000" { "000001" } else { "000000" };
    assert_eq!(
        code(&get(url, &friend, &format!("/v1/tournaments?code={wrong}"))),
        (404, "not_found")
    );
    // The code is its entrants' and maker's to see.
    assert!(
        get(url, &stranger, &format!("/v1/tournaments/{id}"))
            .1
            .get("code")
            .is_none()
    );
    let entry = format!("/v1/tournaments/{id}/entry");
    assert_eq!(
        code(&post(url, &friend, 2, &entry, json!({}))),
        (404, "not_found")
    );
    let joined = post(url, &friend, 2, &entry, json!({"code": c}));
    assert_eq!((joined.0, &joined.1["signed_up"]), (200, &json!(2)));
    let again = post(url, &friend, 2, &entry, json!({"code": c}));
    assert_eq!(again.1["signed_up"], 2, "signing up again changes nothing");

    // Seat requests: a stranger is not in it; a contribution that is not 32 bytes of hex
    // is refused; before the start, the long poll would wait (a round not announced).
    let seat = format!("/v1/tournaments/{id}/seat");
    assert_eq!(
        code(&post(url, &stranger, 3, &seat, json!({"round": 1}))),
        (404, "not_found")
    );
    let r = post(
        url,
        &friend,
        2,
        &seat,
        json!({"round": 1, "contribution": "xyz"}),
    );
    assert_eq!(code(&r), (400, "bad_tournament"));
    let r = post(url, &friend, 2, &seat, json!({"round": 1, "extra": true}));
    assert_eq!(code(&r).0, 400);
    // No round is published before it ends.
    let r = get(url, &friend, &format!("/v1/tournaments/{id}/rounds/1"));
    assert_eq!(code(&r), (404, "not_found"));
    let standings = get(url, &friend, &format!("/v1/tournaments/{id}/standings"));
    assert_eq!((standings.0, &standings.1["rounds"]), (200, &json!(0)));

    // The same questions on a table connection: refused with a typed error frame, and the
    // connection stays (it is asked again, and answered again).
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut socket = AsyncSeat::entrant(url, &stranger, None, true)
            .await
            .unwrap();
        for (tournament, why) in [
            (id.as_str(), "not signed up"),
            ("nope", "no such tournament"),
        ] {
            let e = socket.next_table(tournament, 1).await.unwrap_err();
            assert!(
                matches!(&e, ClientError::Server { code, message, .. }
                    if code == "bad_tournament" && message.contains(why)),
                "{e:?}"
            );
        }
        socket.close().await;
    });
}
