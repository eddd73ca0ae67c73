//! One suite over the store trait, run against SQLite and PostgreSQL (a fresh schema per run).

use crate::support;

use support::PgSchema;
use tongcheng_server::store::{
    self, LoginOutcome, NewRecord, QueueClaim, QueueEntry, QueueState, RankedHand, RoomJoin,
    RoomMember, Store, StoreError, StoredRating, Think,
};

fn rec(id: char, n: usize) -> NewRecord {
    NewRecord {
        record_id: id.to_string().repeat(64 - n.to_string().len()) + &n.to_string(),
        seat: (n % 4) as u8,
        played_at: 1_000 + n as i64,
        rules: "guobiao".into(),
        offline: true,
        json: format!("{{\"n\":{n}}}"),
    }
}

fn device(o: LoginOutcome) -> store::Device {
    match o {
        LoginOutcome::Created(d) | LoginOutcome::Existing(d) => d,
        o => panic!("no device: {o:?}"),
    }
}

fn suite(s: &dyn Store) {
    let now = 10_000;
    // Challenges: single use, and only before they expire.
    s.put_challenge("n1", now + 60, now).unwrap();
    s.put_challenge("n2", now + 60, now).unwrap();
    assert!(s.take_challenge("n1", now).unwrap());
    assert!(!s.take_challenge("n1", now).unwrap(), "used");
    assert!(!s.take_challenge("n2", now + 61).unwrap(), "expired");
    assert!(!s.take_challenge("nope", now).unwrap());

    // Devices and accounts.
    let a = s
        .login_device("ka", None, "Player-A", "phone", now)
        .unwrap();
    let LoginOutcome::Created(a) = a else {
        panic!("{a:?}")
    };
    let again = device(s.login_device("ka", None, "ignored", "x", now + 5).unwrap());
    assert_eq!(
        (again.id, again.account_id, again.last_seen_at),
        (a.id, a.account_id, now + 5)
    );
    assert_eq!(
        s.account(a.account_id).unwrap().unwrap().display_name,
        "Player-A"
    );
    let b = device(
        s.login_device("kb", Some(a.account_id), "ignored", "tablet", now)
            .unwrap(),
    );
    assert_eq!(b.account_id, a.account_id);
    let c = device(s.login_device("kc", None, "Player-C", "pc", now).unwrap());
    assert_ne!(c.account_id, a.account_id);
    // C's account has a second device: C's key cannot leave it for A's.
    device(
        s.login_device("kc2", Some(c.account_id), "", "pc2", now)
            .unwrap(),
    );
    assert_eq!(
        s.login_device("kc", Some(a.account_id), "", "", now)
            .unwrap(),
        LoginOutcome::KeyInUse
    );
    // D's account is the one its login made, never used: D moves to A's.
    let d = device(s.login_device("kd", None, "Player-D", "pd", now).unwrap());
    match s
        .login_device("kd", Some(a.account_id), "", "", now)
        .unwrap()
    {
        LoginOutcome::Moved(m) => assert_eq!((m.id, m.account_id), (d.id, a.account_id)),
        other => panic!("not moved: {other:?}"),
    }
    assert_eq!(
        device(s.login_device("kd", None, "", "", now).unwrap()).account_id,
        a.account_id
    );
    let names: Vec<String> = s
        .devices(a.account_id)
        .unwrap()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["phone", "tablet", "pd"]);

    // Sessions.
    s.create_session("ha", a.id, now, now + 100).unwrap();
    s.create_session("hb", b.id, now, now + 100).unwrap();
    s.create_session("hb2", b.id, now, now + 100).unwrap();
    let sa = s.session("ha", now).unwrap().unwrap();
    assert_eq!((sa.account_id, sa.device_id), (a.account_id, a.id));
    assert!(s.session("ha", now + 100).unwrap().is_none(), "expired");
    assert!(s.session("zz", now).unwrap().is_none());
    s.revoke_session("ha", now).unwrap();
    assert!(s.session("ha", now).unwrap().is_none(), "revoked");
    assert!(matches!(
        s.create_session("hb", b.id, now, now + 1),
        Err(StoreError::Conflict(_))
    ));

    // Link codes: single use, only before they expire.
    s.put_link_code("c1", a.account_id, now + 300, now).unwrap();
    s.put_link_code("c2", a.account_id, now + 300, now).unwrap();
    assert_eq!(s.take_link_code("c1", now).unwrap(), Some(a.account_id));
    assert_eq!(s.take_link_code("c1", now).unwrap(), None);
    assert_eq!(s.take_link_code("c2", now + 300).unwrap(), None);

    // Records: once per account, pulled by the other devices in order.
    let batch: Vec<NewRecord> = (0..5).map(|n| rec('a', n)).collect();
    assert_eq!(
        s.store_records(a.account_id, a.id, &batch, now).unwrap(),
        [true; 5]
    );
    assert_eq!(
        s.store_records(a.account_id, a.id, &batch, now).unwrap(),
        [false; 5]
    );
    let mixed = vec![rec('a', 4), rec('b', 0), rec('b', 0)];
    assert_eq!(
        s.store_records(a.account_id, b.id, &mixed, now).unwrap(),
        [false, true, false]
    );
    // Another account may hold the same hand.
    assert_eq!(
        s.store_records(c.account_id, c.id, &batch[..1], now)
            .unwrap(),
        [true]
    );
    assert_eq!(s.count_records(a.account_id).unwrap(), 6);
    assert_eq!(s.count_records(c.account_id).unwrap(), 1);

    let for_b = s.pull(a.account_id, b.id, 0, 3).unwrap();
    assert_eq!(for_b.len(), 3);
    assert_eq!(for_b[0], {
        let mut r = for_b[0].clone();
        r.record_id = batch[0].record_id.clone();
        r.json = batch[0].json.clone();
        r.seat = 0;
        r.played_at = 1_000;
        r.offline = true;
        r.device_id = a.id;
        r
    });
    assert!(for_b.windows(2).all(|w| w[0].seq < w[1].seq));
    let rest = s.pull(a.account_id, b.id, for_b[2].seq, 100).unwrap();
    assert_eq!(
        rest.iter().map(|r| r.record_id.clone()).collect::<Vec<_>>(),
        [batch[3].record_id.clone(), batch[4].record_id.clone()]
    );
    let for_a = s.pull(a.account_id, a.id, 0, 100).unwrap();
    assert_eq!(for_a.len(), 1, "only B's record");
    assert_eq!(for_a[0].record_id, rec('b', 0).record_id);
    assert!(s.pull(c.account_id, c.id, 0, 100).unwrap().is_empty());

    // Revoking a device ends its sessions and its logins.
    assert!(
        !s.revoke_device(c.account_id, b.id, now).unwrap(),
        "not C's device"
    );
    assert!(s.revoke_device(a.account_id, b.id, now).unwrap());
    assert!(s.session("hb2", now).unwrap().is_none());
    assert_eq!(
        s.login_device("kb", None, "", "", now).unwrap(),
        LoginOutcome::Revoked
    );
    assert!(s.devices(a.account_id).unwrap()[1].revoked);

    // Ratings: one per account and rule set, written all together, updated in place.
    assert_eq!(s.rating(a.account_id, "guobiao").unwrap(), None);
    let rating = |account_id, rules: &str, mu, games| StoredRating {
        account_id,
        rules: rules.into(),
        mu,
        sigma: 4.5,
        games,
    };
    s.put_ratings(
        &[
            rating(a.account_id, "guobiao", 27.25, 1),
            rating(c.account_id, "guobiao", 22.75, 1),
            rating(a.account_id, "hangzhou", 25.0, 3),
        ],
        now,
    )
    .unwrap();
    s.put_ratings(&[rating(a.account_id, "guobiao", 28.5, 2)], now + 1)
        .unwrap();
    assert_eq!(
        s.rating(a.account_id, "guobiao").unwrap(),
        Some(rating(a.account_id, "guobiao", 28.5, 2))
    );
    assert_eq!(
        s.ratings(a.account_id).unwrap(),
        [
            rating(a.account_id, "guobiao", 28.5, 2),
            rating(a.account_id, "hangzhou", 25.0, 3)
        ]
    );
    assert_eq!(s.ratings(c.account_id).unwrap().len(), 1);
    // An unknown account breaks the batch, and nothing of it is written.
    assert!(
        s.put_ratings(
            &[
                rating(c.account_id, "hangzhou", 30.0, 1),
                rating(999_999, "hangzhou", 30.0, 1)
            ],
            now
        )
        .is_err()
    );
    assert_eq!(s.rating(c.account_id, "hangzhou").unwrap(), None);

    // Ranked history: kept once per table and hand, read by rule set in order, in pages.
    let hand = |table: &str, n: usize, rules: &str, accounts| RankedHand {
        table_id: table.into(),
        record_id: rec('r', n).record_id,
        rules: rules.into(),
        accounts,
        played_at: now + n as i64,
        json: format!("{{\"hand\":{n}}}"),
        think: vec![Think {
            seat: (n % 4) as u8,
            at: 40 + n as u32,
            ms: 1_500 + n as u32,
        }],
    };
    let (ia, ic) = (Some(a.account_id), Some(c.account_id));
    let kept = [
        hand("t1", 1, "guobiao", [ia, None, ic, None]),
        hand("t1", 2, "guobiao", [None, ic, None, ia]),
        hand("t2", 1, "hangzhou", [ia, ic, None, None]),
        hand("t2", 3, "guobiao", [None, None, None, ic]),
    ];
    for h in &kept {
        assert!(s.put_ranked_hand(h).unwrap());
    }
    assert!(!s.put_ranked_hand(&kept[0]).unwrap(), "kept twice");
    // An unknown account is refused and nothing is kept.
    assert!(
        s.put_ranked_hand(&hand("t3", 4, "guobiao", [Some(999_999), None, None, None]))
            .is_err()
    );
    let page = s.ranked_hands("guobiao", 0, 2).unwrap();
    assert_eq!(
        page.iter().map(|(_, h)| h.clone()).collect::<Vec<_>>(),
        [kept[0].clone(), kept[1].clone()]
    );
    let rest = s.ranked_hands("guobiao", page[1].0, 10).unwrap();
    assert_eq!(
        rest.into_iter().map(|(_, h)| h).collect::<Vec<_>>(),
        [kept[3].clone()]
    );
    assert_eq!(s.ranked_hands("hangzhou", 0, 10).unwrap().len(), 1);
    assert!(s.ranked_hands("nope", 0, 10).unwrap().is_empty());
    assert_eq!(
        s.ranked_hand(&kept[1].record_id).unwrap().as_ref(),
        Some(&kept[1])
    );
    crate::store_discipline::discipline(s, a.account_id, c.account_id, a.id, now);
    several_nodes(s);
    online_hand(s, now);
}

/// An online hand's records, one per person, in one transaction: again, nothing changes.
fn online_hand(s: &dyn Store, now: i64) {
    let people: Vec<(i64, i64, NewRecord)> = ["kh2", "kh1", "kh3"]
        .iter()
        .enumerate()
        .map(|(seat, key)| {
            let d = device(s.login_device(key, None, "P", "phone", now).unwrap());
            let mut r = rec('h', 9);
            r.seat = seat as u8;
            r.offline = false;
            (d.account_id, d.id, r)
        })
        .collect();
    s.store_hand(&people, now).unwrap();
    s.store_hand(&people, now).unwrap();
    for (account, _, _) in &people {
        assert_eq!(s.count_records(*account).unwrap(), 1);
    }
    let mine = s.pull(people[1].0, 0, 0, 10).unwrap();
    assert_eq!((mine.len(), mine[0].seat, mine[0].offline), (1, 1, false));
}

/// What several nodes share: tables' homes, rooms, the queue.
fn several_nodes(s: &dyn Store) {
    let now = 20_000;
    let ids: Vec<i64> = (0..6)
        .map(|i| {
            device(
                s.login_device(&format!("node-key-{i}"), None, "N", "phone", now)
                    .unwrap(),
            )
            .account_id
        })
        .collect();
    let member = |i: usize, ip: Option<&str>| RoomMember {
        account_id: ids[i],
        ip: ip.map(str::to_string),
        name: format!("N{i}"),
    };

    // Table homes.
    assert_eq!(s.table_home("t1").unwrap(), None);
    s.put_table_home("t1", "http://a", now).unwrap();
    assert_eq!(s.table_home("t1").unwrap().as_deref(), Some("http://a"));

    // Rooms: a code is taken once; exactly `people` are admitted; re-joining changes nothing.
    assert!(
        s.create_room(
            "123456",
            "t1",
            "http://a",
            2,
            &member(0, Some("1.1.1.1")),
            now
        )
        .unwrap()
    );
    assert!(
        !s.create_room("123456", "t2", "http://b", 4, &member(1, None), now)
            .unwrap()
    );
    assert_eq!(
        s.join_room("654321", &member(1, None)).unwrap(),
        RoomJoin::NoRoom
    );
    let RoomJoin::Admitted(room) = s.join_room("123456", &member(1, Some("1.1.1.1"))).unwrap()
    else {
        panic!("not admitted");
    };
    assert_eq!(
        (room.table_id.as_str(), room.node_url.as_str(), room.people),
        ("t1", "http://a", 2)
    );
    assert_eq!(
        room.members,
        [member(0, Some("1.1.1.1")), member(1, Some("1.1.1.1"))]
    );
    assert_eq!(
        s.join_room("123456", &member(2, None)).unwrap(),
        RoomJoin::Full
    );
    assert_eq!(
        s.join_room("123456", &member(1, Some("1.1.1.1"))).unwrap(),
        RoomJoin::Admitted(room.clone())
    );
    assert_eq!(s.room("123456").unwrap(), Some(room.clone()));
    assert_eq!(s.room_of_table("t1").unwrap(), Some(room));
    // A node that stopped: its table moves to exactly one of the nodes taking it over.
    assert_eq!(s.table_home("t1").unwrap().as_deref(), Some("http://a"));
    assert!(
        s.move_table_home("t1", "http://a", "http://c", now)
            .unwrap()
    );
    assert!(
        !s.move_table_home("t1", "http://a", "http://d", now)
            .unwrap()
    );
    assert_eq!(s.table_home("t1").unwrap().as_deref(), Some("http://c"));
    assert!(
        s.move_table_home("unnoted", "http://a", "http://d", now)
            .unwrap()
    );
    assert!(
        !s.move_table_home("unnoted", "http://a", "http://e", now)
            .unwrap()
    );
    assert_eq!(
        s.table_home("unnoted").unwrap().as_deref(),
        Some("http://d")
    );
    s.drop_table("unnoted").unwrap();
    // The table's match is over: home and room go, the code is free again.
    s.drop_table("t1").unwrap();
    assert_eq!(s.table_home("t1").unwrap(), None);
    assert_eq!(s.room("123456").unwrap(), None);
    assert!(
        s.create_room("123456", "t3", "http://b", 1, &member(2, None), now)
            .unwrap()
    );

    // The queue.
    let entry = |i: usize, ticket: &str, since_ms: i64| QueueEntry {
        account_id: ids[i],
        ticket: ticket.into(),
        rules: "guobiao".into(),
        ranked: true,
        rating: 25.0 + i as f64,
        devices: vec![i as i64, 100 + i as i64],
        ip: Some(format!("10.0.0.{i}")),
        since_ms,
    };
    for i in 0..5 {
        s.queue_put(&entry(i, "a", 1_000 + i as i64), 1_000)
            .unwrap();
    }
    // A second request replaces the first's row.
    s.queue_put(&entry(0, "b", 1_100), 1_100).unwrap();
    assert_eq!(
        s.queue_poll(ids[0], "a", 1_200).unwrap(),
        QueueState::Replaced
    );
    assert_eq!(
        s.queue_poll(ids[0], "b", 5_000).unwrap(),
        QueueState::Waiting
    );
    assert_eq!(s.queue_poll(ids[5], "a", 1_200).unwrap(), QueueState::Gone);
    assert_eq!(s.queue_len("guobiao", true).unwrap(), 5);
    assert_eq!(s.queue_len("guobiao", false).unwrap(), 0);
    // Only account 0 was seen after 2_000: the others are stale and dropped by a run.
    let mut seen = Vec::new();
    let claims = s
        .queue_claim("guobiao", true, 2_000, &mut |w| {
            seen = w.clone();
            vec![QueueClaim {
                table_id: "t9".into(),
                node_url: "http://b".into(),
                accounts: vec![w[0].account_id],
            }]
        })
        .unwrap();
    assert_eq!(seen, [entry(0, "b", 1_100)]);
    assert_eq!(claims.len(), 1);
    assert_eq!(s.queue_len("guobiao", true).unwrap(), 0);
    assert_eq!(s.queue_poll(ids[1], "a", 6_000).unwrap(), QueueState::Gone);
    assert_eq!(
        s.queue_poll(ids[0], "b", 6_000).unwrap(),
        QueueState::Seated {
            table_id: "t9".into(),
            node_url: "http://b".into(),
            people: 1
        }
    );
    assert_eq!(s.queue_poll(ids[0], "b", 6_000).unwrap(), QueueState::Gone);
    // A run that names a player it does not hold changes nothing.
    s.queue_put(&entry(2, "c", 7_000), 7_000).unwrap();
    let bad = s.queue_claim("guobiao", true, 0, &mut |_| {
        vec![QueueClaim {
            table_id: "t10".into(),
            node_url: "http://b".into(),
            accounts: vec![ids[2], ids[3]],
        }]
    });
    assert!(matches!(bad, Err(StoreError::Conflict(_))), "{bad:?}");
    assert_eq!(
        s.queue_poll(ids[2], "c", 7_100).unwrap(),
        QueueState::Waiting
    );
    // Leaving takes a waiting row away (only the request's own).
    s.queue_leave(ids[2], "other").unwrap();
    assert_eq!(s.queue_len("guobiao", true).unwrap(), 1);
    s.queue_leave(ids[2], "c").unwrap();
    assert_eq!(s.queue_len("guobiao", true).unwrap(), 0);
}

#[test]
fn sqlite_store() {
    let dir = std::env::temp_dir().join(format!("tongcheng-store-{}", std::process::id()));
    let path = dir.join("nested/server.db");
    let url = format!("sqlite:{}", path.display());
    suite(store::open(&url).unwrap().as_ref());
    // Reopening runs no migration twice and keeps the data.
    let s = store::open(&url).unwrap();
    assert_eq!(s.count_records(1).unwrap(), 6);
    drop(s);
    // A database from a newer build is refused, never altered.
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute("INSERT INTO schema_migrations VALUES (99, 0)", [])
        .unwrap();
    drop(c);
    assert!(matches!(
        store::open(&url),
        Err(StoreError::Newer { found: 99, .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn postgres_store() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    suite(store::open(&schema.url).unwrap().as_ref());
    let s = store::open(&schema.url).unwrap();
    assert_eq!(s.backend(), "postgres");
    assert_eq!(s.count_records(1).unwrap(), 6);
    drop(s);
    let mut c = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
    c.execute("INSERT INTO schema_migrations VALUES (99, 0)", &[])
        .unwrap();
    drop(c);
    assert!(matches!(
        store::open(&schema.url),
        Err(StoreError::Newer { found: 99, .. })
    ));
}
