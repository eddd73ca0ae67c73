//! A tournament over two nodes sharing one store: its rounds' tables spread over both, the
//! node running it stops in the middle of a round, and the other takes it over — the
//! round's tables from the hands they had finished, the rounds after it — and finishes it.
//! Every round still verifies against its commitment and the standings still equal a
//! recomputation from the published rounds. In process (two servers on one SQLite store,
//! then on one PostgreSQL schema);
//! the entrants never come, so every seat is played by the stand-in (托管).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tongcheng_api::tournament::{StandingsPage, TournamentFormat};
use tongcheng_core::tournament::Format;
use tongcheng_core::tournament::simulate::RoundRecord;
use tongcheng_server::Config;
use tongcheng_server::play::OnlineConfig;
use tongcheng_server::store::Store;
use tongcheng_server::store::sqlite::SqliteStore;

use crate::support;
use crate::tournament::{ADMIN, address, check_standings, config, entrant, settings};
use support::PgSchema;
use support::online::{TestServer, login, post_from as post, start_paced};

/// A node pausing 20 ms after each discard, so that a hand lasts a second or two.
fn node(store: &Arc<dyn Store>) -> TestServer {
    node_with(store, 300)
}

/// [`node`] taking contributions for `contribute_ms`.
fn node_with(store: &Arc<dyn Store>, contribute_ms: u64) -> TestServer {
    start_paced(
        store.clone(),
        Config {
            admin_token: Some(ADMIN.into()),
            online: OnlineConfig {
                contribute_ms,
                ready_ms: 200,
                lobby_ms: 500,
                linger_ms: 500,
                tournament_lease_secs: 2,
                claim_pause_ms: 20,
                claim_jitter_ms: 0,
                ..OnlineConfig::default()
            },
            ..Config::default()
        },
    )
}

fn get(url: &str, token: &str, path: &str) -> (u16, serde_json::Value) {
    let r = reqwest::blocking::Client::new()
        .get(format!("{url}{path}"))
        .bearer_auth(token)
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

/// Waits (up to `secs`) until `f` holds, looking often (a hand of stand-ins is short).
fn wait_for(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_tournament_spreads_its_tables_over_the_nodes_and_outlives_the_node_running_it() {
    spread_and_take_over(Arc::new(SqliteStore::open_in_memory().unwrap()));
}

#[test]
fn on_postgresql_too() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    spread_and_take_over(tongcheng_server::store::open(&schema.url).unwrap());
}

fn spread_and_take_over(store: Arc<dyn Store>) {
    let a = node(&store);
    let b = node(&store);
    let (a_url, b_url) = (a.url.clone(), b.url.clone());
    // Both nodes have said they are alive before the tournament seats its first round.
    wait_for(10, "both nodes alive", || {
        store.live_nodes(tongcheng_server::now() - 2).unwrap().len() == 2
    });
    let mut s = settings(TournamentFormat::swiss(3), false);
    s.entrants = 16;
    s.hands_per_match = 2;
    let made = post(
        &a_url,
        ADMIN,
        0,
        "/v1/admin/tournaments",
        serde_json::to_value(&s).unwrap(),
    );
    assert_eq!(made.0, 200, "{made:?}");
    let id = made.1["id"].as_str().unwrap().to_string();

    // Any node answers about it and signs entrants up: sixteen, half through each node,
    // who never come.
    let (viewer, _) = login(&b_url);
    let shown = get(&b_url, &viewer, &format!("/v1/tournaments/{id}"));
    assert_eq!(
        (shown.0, shown.1["status"].as_str()),
        (200, Some("sign_up"))
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let signed: Vec<_> = (0..16)
            .map(|i| {
                let url = if i % 2 == 0 { &a_url } else { &b_url };
                tokio::spawn(entrant(url.clone(), id.clone(), address(i, false), false))
            })
            .collect();
        for e in signed {
            e.await.unwrap().unwrap();
        }
    });

    // Round 1's tables run on both nodes.
    wait_for(30, "round 1 seated", || {
        store.round_tables(&id, 1, true).unwrap().len() == 4
    });
    let mut nodes: Vec<String> = store
        .round_tables(&id, 1, true)
        .unwrap()
        .into_iter()
        .map(|t| t.node_url)
        .collect();
    nodes.sort();
    nodes.dedup();
    assert_eq!(
        nodes.len(),
        2,
        "the round's tables did not spread: {nodes:?}"
    );

    // The node running it stops once one of its tables of round 2 has finished a hand and
    // not its match (between its hands: the ready time).
    wait_for(60, "a hand of round 2", || {
        let tables = store.round_tables(&id, 2, true).unwrap();
        tables
            .iter()
            .any(|t| t.node_url == a_url && t.progress.is_some() && !t.done)
    });
    // A hand finished before the stop, on a table of the stopped node still playing.
    let kept: Vec<(u32, String)> = store
        .round_tables(&id, 2, true)
        .unwrap()
        .into_iter()
        .filter(|t| !t.done && t.node_url == a_url)
        .filter_map(|t| {
            let p: serde_json::Value = serde_json::from_str(t.progress.as_deref()?).unwrap();
            Some((t.table_no, p["hands"][0]["id"].as_str()?.to_string()))
        })
        .collect();
    assert!(!kept.is_empty());
    drop(a);

    // The other node takes it over and finishes it.
    wait_for(120, "the tournament to finish on the other node", || {
        let shown = get(&b_url, &viewer, &format!("/v1/tournaments/{id}"));
        shown.1["status"] == "finished"
    });
    let row = store.tournament(&id).unwrap().unwrap();
    assert_eq!(row.runner_url.as_deref(), Some(b_url.as_str()));
    let mut rounds = Vec::new();
    for round in 1..=3 {
        let (status, body) = get(
            &b_url,
            &viewer,
            &format!("/v1/tournaments/{id}/rounds/{round}"),
        );
        assert_eq!(status, 200);
        let record: RoundRecord = serde_json::from_value(body["record"].clone()).unwrap();
        record
            .verify()
            .unwrap_or_else(|e| panic!("round {round} does not verify: {e}"));
        assert!(record.tables.iter().all(|hands| hands.len() == 2));
        rounds.push(record);
    }
    // The stopped node's tables went on from the hands they had finished (not dealt again).
    for (table, hand) in &kept {
        let first = serde_json::to_value(&rounds[1].tables[*table as usize][0]).unwrap();
        assert_eq!(first["id"].as_str(), Some(hand.as_str()), "table {table}");
    }
    // The rounds after the stop ran on the node left.
    assert!(
        store
            .round_tables(&id, 3, true)
            .unwrap()
            .iter()
            .all(|t| t.node_url == b_url && t.done)
    );
    let (status, page) = get(
        &b_url,
        &viewer,
        &format!("/v1/tournaments/{id}/standings?limit=200"),
    );
    assert_eq!(status, 200);
    let page: StandingsPage = serde_json::from_value(page).unwrap();
    assert_eq!(page.total, 16);
    assert!(page.rows.iter().all(|r| r.matches == 3), "{:?}", page.rows);
    check_standings(&config(&s, Format::Swiss { rounds: 3 }), &rounds, &page);
}

#[test]
fn entrants_sign_up_and_are_seated_through_a_node_not_running_the_tournament() {
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open_in_memory().unwrap());
    // Time enough for a contribution through the other node (its long poll reads the store
    // every quarter second, the runner merges what it finds as often).
    let a = node_with(&store, 2_000);
    let b = node_with(&store, 2_000);
    let (a_url, b_url) = (a.url.clone(), b.url.clone());
    let mut s = settings(TournamentFormat::swiss(2), false);
    s.entrants = 8;
    let made = post(
        &a_url,
        ADMIN,
        0,
        "/v1/admin/tournaments",
        serde_json::to_value(&s).unwrap(),
    );
    assert_eq!(made.0, 200, "{made:?}");
    let id = made.1["id"].as_str().unwrap().to_string();
    // Eight come and play every round; half of them sign up, contribute and ask for their
    // table only through the node that does not run the tournament.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let players: Vec<_> = (0..8)
            .map(|i| {
                let url = if i % 2 == 0 { &a_url } else { &b_url };
                // Addresses of both parities on each node: on each, some ask for their
                // tables on their table connection and some by the HTTP long poll.
                let n = [40, 41, 43, 42, 44, 45, 47, 46][i];
                tokio::spawn(entrant(url.clone(), id.clone(), address(n, false), true))
            })
            .collect();
        for p in players {
            tokio::time::timeout(Duration::from_secs(120), p)
                .await
                .expect("an entrant did not finish in time")
                .unwrap()
                .unwrap();
        }
    });
    let row = store.tournament(&id).unwrap().unwrap();
    assert_eq!(row.status, "finished");
    let mut rounds = Vec::new();
    for round in 1..=2 {
        let text = store.round_record(&id, round).unwrap().unwrap();
        let record: RoundRecord = serde_json::from_str(&text).unwrap();
        record.verify().unwrap();
        // Everyone contributed to every round, whichever node he asked.
        assert_eq!(record.contributions.len(), 8, "round {round}");
        rounds.push(record);
    }
    let (viewer, _) = login(&b_url);
    let (status, page) = get(
        &b_url,
        &viewer,
        &format!("/v1/tournaments/{id}/standings?limit=200"),
    );
    assert_eq!(status, 200);
    let page: StandingsPage = serde_json::from_value(page).unwrap();
    assert!(page.rows.iter().all(|r| r.matches == 2), "{:?}", page.rows);
    check_standings(&config(&s, Format::Swiss { rounds: 2 }), &rounds, &page);
    drop((a, b));
}

#[test]
fn a_kept_tournament_no_node_can_read_back_is_cancelled_not_retried() {
    use tongcheng_server::store::StoredTournament;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open_in_memory().unwrap());
    // Begun by a node that stopped, its settings unreadable (as a build before tournaments
    // were kept leaves one: no lease, no entrants' details, no secrets).
    let old = StoredTournament {
        id: "old".into(),
        name: "old".into(),
        code: None,
        settings: "{}".into(),
        created_by: None,
        created_at: 1,
        node_url: "http://127.0.0.1:9".into(),
    };
    assert!(store.create_tournament(&old, 0).unwrap());
    store.set_tournament_status("old", "running", None).unwrap();
    let _a = node(&store);
    wait_for(10, "the unreadable tournament to be cancelled", || {
        store.tournament("old").unwrap().unwrap().status == "cancelled"
    });
    assert!(
        store
            .orphaned_tournaments(i64::MAX, None)
            .unwrap()
            .is_empty()
    );
}
