//! The store's side of tournaments that outlive their node, against SQLite and PostgreSQL:
//! the runner's lease (renewed by its node only, taken over once it runs out, one node
//! winning), entrants numbered in sign-up order up to the places and not after the start,
//! a seat request's answer read from the rows, contributions, cuts, a round's secret and seating, its tables
//! given to nodes, opened once, moved, their progress; the nodes alive.

use crate::support;

use support::PgSchema;
use tongcheng_server::store::{
    self, Entry, LoginOutcome, Store, StoredEntrant, StoredRoundTable, StoredTournament,
    TournamentMark,
};

fn account(s: &dyn Store, key: &str) -> (i64, i64) {
    match s.login_device(key, None, key, "phone", 1).unwrap() {
        LoginOutcome::Created(d) | LoginOutcome::Existing(d) => (d.account_id, d.id),
        o => panic!("{o:?}"),
    }
}

fn table(no: u32, node: &str, opened: bool) -> StoredRoundTable {
    StoredRoundTable {
        table_no: no,
        table_id: format!("t{no}"),
        node_url: node.into(),
        opened,
        progress: None,
        done: false,
    }
}

fn suite(s: &dyn Store) {
    let (a, b) = ("http://a", "http://b");
    let made = StoredTournament {
        id: "T1".into(),
        name: "桐城杯".into(),
        code: None,
        settings: "{}".into(),
        created_by: None,
        created_at: 100,
        node_url: a.into(),
    };
    assert!(s.create_tournament(&made, 110).unwrap());
    assert!(
        !s.create_tournament(&made, 110).unwrap(),
        "one id, one tournament"
    );
    let row = s.tournament("T1").unwrap().unwrap();
    assert_eq!(
        (row.runner_url.as_deref(), row.lease_until),
        (Some(a), Some(110))
    );
    assert_eq!(s.open_tournaments(None).unwrap(), vec!["T1".to_string()]);

    // Entrants are numbered in sign-up order, up to the places, while the sign-up is open.
    let mut entries = Vec::new();
    for key in ["ka", "kb", "kc"] {
        let (account, device) = account(s, key);
        let e = StoredEntrant {
            entrant: 0,
            account,
            device,
            name: key.into(),
            devices: vec![device, 99],
            ip: Some("127.0.0.9".into()),
            entered_at: 200,
        };
        entries.push(s.enter_tournament("T1", &e, 2).unwrap());
        entries.push(s.enter_tournament("T1", &e, 2).unwrap());
    }
    assert_eq!(
        entries,
        [
            Entry::Entered(1),
            Entry::Already(1),
            Entry::Entered(2),
            Entry::Already(2),
            Entry::Full,
            Entry::Full
        ]
    );
    assert_eq!(s.entrant_count("T1").unwrap(), 2);
    let entrants = s.tournament_entrants("T1").unwrap();
    assert_eq!(
        entrants
            .iter()
            .map(|e| (e.entrant, e.name.as_str()))
            .collect::<Vec<_>>(),
        [(1, "ka"), (2, "kb")]
    );
    assert_eq!(entrants[0].devices[1], 99);
    assert_eq!(entrants[0].ip.as_deref(), Some("127.0.0.9"));

    // The lease: renewed by its runner only; taken over once run out, by one node.
    assert!(s.renew_tournament("T1", a, 120).unwrap());
    assert!(!s.renew_tournament("T1", b, 130).unwrap());
    assert!(s.orphaned_tournaments(115, None).unwrap().is_empty());
    assert_eq!(s.orphaned_tournaments(115, Some(a)).unwrap(), ["T1"]);
    assert!(
        !s.claim_tournament("T1", b, 115, 130).unwrap(),
        "still leased"
    );
    assert_eq!(s.orphaned_tournaments(121, None).unwrap(), ["T1"]);
    assert!(s.claim_tournament("T1", b, 121, 130).unwrap());
    assert!(
        !s.claim_tournament("T1", a, 121, 130).unwrap(),
        "one node wins"
    );
    assert!(
        !s.renew_tournament("T1", a, 140).unwrap(),
        "the old runner is fenced"
    );

    // Closing the sign-up starts it: nobody signs up after.
    assert_eq!(s.close_sign_up("T1").unwrap().len(), 2);
    assert_eq!(s.tournament("T1").unwrap().unwrap().status, "running");
    let (late, device) = account(s, "kd");
    let e = StoredEntrant {
        entrant: 0,
        account: late,
        device,
        name: "kd".into(),
        devices: vec![],
        ip: None,
        entered_at: 300,
    };
    assert_eq!(s.enter_tournament("T1", &e, 64).unwrap(), Entry::Closed);
    let ka = entrants[0].account;
    let kb = entrants[1].account;
    let look = s.seat_lookup("T1", ka).unwrap().unwrap();
    assert_eq!(
        (look.entrant, look.round.clone(), look.seat.clone()),
        (Some(1), None, None)
    );
    assert_eq!(s.seat_lookup("T1", late).unwrap().unwrap().entrant, None);
    assert!(s.seat_lookup("nope", ka).unwrap().is_none());

    // A round: its secret, contributions (from any node, the first standing), seating and
    // seats kept; its tables given to nodes.
    s.announce_round("T1", 1, "c1", "s1").unwrap();
    let rounds = s.tournament_rounds("T1").unwrap();
    assert_eq!(
        (
            rounds[0].secret.as_deref(),
            rounds[0].seating.as_deref(),
            rounds[0].published
        ),
        (Some("s1"), None, false)
    );
    s.add_contribution("T1", 1, 2, "c-two").unwrap();
    s.add_contribution("T1", 1, 2, "again").unwrap();
    assert_eq!(
        s.round_contributions("T1", 1).unwrap(),
        [(2, "c-two".to_string())]
    );
    let look = s.seat_lookup("T1", ka).unwrap().unwrap();
    assert_eq!(look.round, Some((1, "c1".to_string(), false)));
    let mark = |seated, opened| TournamentMark {
        status: look.status.clone(),
        round: 1,
        seated,
        opened,
    };
    assert_eq!(s.tournament_mark("T1").unwrap(), Some(mark(false, 0)));
    assert_eq!(s.tournament_mark("nope").unwrap(), None);
    s.seat_round(
        "T1",
        1,
        "{\"seated\":1}",
        &[table(0, a, true), table(1, b, false)],
        &[(1, Some(1)), (2, None)],
    )
    .unwrap();
    s.round_seated_in("T1", 1, 12.5).unwrap();
    assert_eq!(s.tournament_rounds("T1").unwrap()[0].seating_ms, Some(12.5));
    let look = s.seat_lookup("T1", ka).unwrap().unwrap();
    assert_eq!(
        look.seat,
        Some(Some(("t1".to_string(), b.to_string(), false))),
        "at a table its node has not opened"
    );
    assert_eq!(
        s.seat_lookup("T1", kb).unwrap().unwrap().seat,
        Some(None),
        "a bye"
    );
    s.cut_entrants("T1", 1, &[2]).unwrap();
    assert_eq!(s.seat_lookup("T1", kb).unwrap().unwrap().out_after, Some(1));
    assert_eq!(s.seat_lookup("T1", ka).unwrap().unwrap().out_after, None);
    assert_eq!(
        s.tournament_rounds("T1").unwrap()[0].seating.as_deref(),
        Some("{\"seated\":1}")
    );
    let unopened = s.unopened_tables(b).unwrap();
    assert_eq!(unopened.len(), 1);
    assert_eq!(
        (
            unopened[0].0.as_str(),
            unopened[0].1,
            unopened[0].2.table_no
        ),
        ("T1", 1, 1)
    );
    assert!(!s.round_table_opened("T1", 1, "t1").unwrap());
    assert_eq!(s.tournament_mark("T1").unwrap(), Some(mark(true, 1)));
    assert!(s.open_round_table("T1", 1, 1, b).unwrap());
    assert_eq!(
        s.tournament_mark("T1").unwrap(),
        Some(mark(true, 2)),
        "a table opened changes the mark"
    );
    assert!(s.round_table_opened("T1", 1, "t1").unwrap());
    assert!(!s.open_round_table("T1", 1, 1, b).unwrap(), "opened once");
    assert!(s.unopened_tables(b).unwrap().is_empty());
    s.table_progress("T1", 1, 0, "{\"hand\":1}", false).unwrap();
    // Node a stops: its table moves to b, which opens it again from its progress.
    s.move_round_table("T1", 1, 0, b).unwrap();
    let moved = &s.unopened_tables(b).unwrap()[0].2;
    assert_eq!(
        (moved.table_no, moved.progress.as_deref()),
        (0, Some("{\"hand\":1}"))
    );
    assert!(s.open_round_table("T1", 1, 0, b).unwrap());
    // b restarts: its unfinished tables are to be opened again; a finished one is not.
    s.table_progress("T1", 1, 1, "{\"hand\":2}", true).unwrap();
    s.reset_round_tables(b).unwrap();
    let again: Vec<u32> = s
        .unopened_tables(b)
        .unwrap()
        .iter()
        .map(|t| t.2.table_no)
        .collect();
    assert_eq!(again, [0]);
    let tables = s.round_tables("T1", 1, true).unwrap();
    assert_eq!(
        tables.iter().map(|t| t.done).collect::<Vec<_>>(),
        [false, true]
    );
    s.publish_round("T1", 1, "{}").unwrap();
    assert!(s.tournament_rounds("T1").unwrap()[0].published);

    // Nodes alive: those seen since.
    s.node_seen(a, 100).unwrap();
    s.node_seen(b, 100).unwrap();
    s.node_seen(b, 150).unwrap();
    assert_eq!(s.live_nodes(120).unwrap(), [b]);
    assert_eq!(s.live_nodes(50).unwrap(), [a, b]);

    s.set_tournament_status("T1", "finished", None).unwrap();
    assert!(s.open_tournaments(None).unwrap().is_empty());
    assert!(s.orphaned_tournaments(10_000, Some(b)).unwrap().is_empty());
}

#[test]
fn sqlite_tournaments() {
    suite(&store::sqlite::SqliteStore::open_in_memory().unwrap());
}

#[test]
fn postgres_tournaments() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    suite(store::open(&schema.url).unwrap().as_ref());
}
