//! The store's side of sanctions (`Discipline`), run by the store suite on both backends.

use tongcheng_server::store::{self, MatchToRate, NewReview, NewSanction, Store, StoredRating};

/// Sanctions, rated matches and their voiding, reviews and the audit trail.
pub fn discipline(s: &dyn Store, a: i64, c: i64, a_device: i64, now: i64) {
    let sanction = |account, device, kind: &str, until| NewSanction {
        account_id: account,
        device_id: device,
        kind: kind.into(),
        until,
        reason: format!("{kind} reason"),
        void_from: None,
        by: "ops".into(),
    };
    assert_eq!(s.device_account(a_device).unwrap(), Some(a));
    assert_eq!(s.device_account(999_999).unwrap(), None);
    assert_eq!(s.blocking_sanction(a, Some(a_device), now).unwrap(), None);
    s.add_sanction(&sanction(a, None, "warn", None), now)
        .unwrap();
    assert_eq!(
        s.blocking_sanction(a, Some(a_device), now).unwrap(),
        None,
        "a warning"
    );
    let sus = s
        .add_sanction(&sanction(a, None, "suspend", Some(now + 100)), now)
        .unwrap();
    let found = s
        .blocking_sanction(a, Some(a_device), now + 99)
        .unwrap()
        .unwrap();
    assert_eq!((found.id, found.until), (sus, Some(now + 100)));
    assert_eq!(
        s.blocking_sanction(a, Some(a_device), now + 100).unwrap(),
        None,
        "expired"
    );
    // A device's ban blocks that device only, and comes before a suspension.
    let dev = s
        .add_sanction(&sanction(a, Some(a_device), "ban", None), now)
        .unwrap();
    assert_eq!(
        s.blocking_sanction(a, Some(a_device), now)
            .unwrap()
            .unwrap()
            .id,
        dev
    );
    assert_eq!(
        s.blocking_sanction(a, Some(a_device + 1), now)
            .unwrap()
            .unwrap()
            .id,
        sus
    );
    let (lifted, first) = s
        .lift_sanction(dev, "ops2", "wrong device", now + 1)
        .unwrap()
        .unwrap();
    assert!(first && lifted.lifted_at == Some(now + 1));
    assert!(
        !s.lift_sanction(dev, "ops2", "again", now + 2)
            .unwrap()
            .unwrap()
            .1
    );
    assert_eq!(s.lift_sanction(999_999, "ops", "x", now).unwrap(), None);
    assert_eq!(
        s.sanctions(a)
            .unwrap()
            .iter()
            .map(|x| x.id)
            .collect::<Vec<_>>()[0],
        dev
    );
    assert!(s.sanctions(c).unwrap().is_empty());

    // Rated matches: once per table; voiding recomputes with the function given.
    let seats = vec![(Some(a), 30), (None, 10), (Some(c), -40), (None, 0)];
    let m = |table: &str, at| MatchToRate {
        table_id: table.into(),
        rules: "guobiao".into(),
        finished_at: at,
        seats: seats.clone(),
    };
    let rated = |id, mu| StoredRating {
        account_id: id,
        rules: "guobiao".into(),
        mu,
        sigma: 5.0,
        games: 1,
    };
    let mut seen = Vec::new();
    let mut rate = |now: Vec<Option<StoredRating>>| {
        seen.push(now.clone());
        let before: Vec<StoredRating> = [a, c]
            .iter()
            .zip(now)
            .map(|(&id, r)| r.unwrap_or_else(|| rated(id, 20.0)))
            .collect();
        (before, vec![rated(a, 31.0), rated(c, 19.0)])
    };
    assert_eq!(
        s.rate_ranked_match(&m("m1", now), &mut rate).unwrap().len(),
        2
    );
    assert!(
        s.rate_ranked_match(&m("m1", now), &mut rate)
            .unwrap()
            .is_empty(),
        "once"
    );
    assert_eq!(
        s.rate_ranked_match(&m("m2", now + 50), &mut rate)
            .unwrap()
            .len(),
        2
    );
    assert_eq!(seen.len(), 2, "a table rated already is not read again");
    assert_eq!(seen[1][0].as_ref().map(|r| r.mu), Some(31.0));
    let kept = s.ranked_matches("guobiao").unwrap();
    assert_eq!(kept.len(), 2);
    assert_eq!(
        kept[1].players.iter().map(|p| p.score).collect::<Vec<_>>(),
        [30, -40]
    );
    assert_eq!(kept[1].players[0].before.mu, 31.0);
    let ban = s
        .add_sanction(&sanction(c, None, "ban", None), now)
        .unwrap();
    let recompute = |ms: &[store::RankedMatch]| {
        // Whatever the history says: here, each account's count of matches not voided.
        [a, c]
            .iter()
            .map(|&id| StoredRating {
                games: ms.iter().filter(|m| m.voided_by.is_none()).count() as i64,
                ..rated(id, 1.0)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        s.void_matches(ban, c, now + 10, "ops", &recompute, now)
            .unwrap(),
        (1, 2)
    );
    assert_eq!(s.rating(a, "guobiao").unwrap().unwrap().games, 1);
    assert_eq!(s.ranked_matches("guobiao").unwrap()[1].voided_by, Some(ban));
    assert_eq!(
        s.void_matches(ban, c, 0, "ops", &recompute, now).unwrap(),
        (1, 2),
        "m1 only"
    );
    assert_eq!(
        s.void_matches(ban, c, 0, "ops", &recompute, now).unwrap(),
        (0, 0)
    );

    // Reviews: one per key; a decision once.
    let review = |key: &str, evidence: &str| NewReview {
        kind: "assist".into(),
        dedupe: key.into(),
        account_id: c,
        partner_id: None,
        rules: Some("guobiao".into()),
        evidence: evidence.into(),
    };
    let (r1, new) = s
        .file_review(&review("k1", "{\"v\":1}"), "scan", now)
        .unwrap();
    assert!(new);
    assert_eq!(
        s.file_review(&review("k1", "{\"v\":2}"), "scan", now + 5)
            .unwrap(),
        (r1, false)
    );
    let got = s.review(r1).unwrap().unwrap();
    assert_eq!(
        (got.evidence.as_str(), got.updated_at),
        ("{\"v\":2}", now + 5)
    );
    let (r2, _) = s.file_review(&review("k2", "{}"), "scan", now).unwrap();
    assert_eq!(s.reviews(Some("open"), None, None).unwrap().len(), 2);
    assert_eq!(s.reviews(None, Some("report"), None).unwrap().len(), 0);
    assert_eq!(s.reviews(None, None, Some(a)).unwrap().len(), 0);
    let (d, first) = s
        .decide_review(r2, "dismissed", "fine", "ops", now)
        .unwrap()
        .unwrap();
    assert!(first && d.status == "dismissed" && d.note.as_deref() == Some("fine"));
    assert!(
        !s.decide_review(r2, "actioned", "x", "ops", now)
            .unwrap()
            .unwrap()
            .1
    );
    assert_eq!(
        s.decide_review(999_999, "actioned", "x", "ops", now)
            .unwrap(),
        None
    );
    // A decided review stays as decided when its flag is found again.
    s.file_review(&review("k2", "{\"v\":3}"), "scan", now + 9)
        .unwrap();
    assert_eq!(s.review(r2).unwrap().unwrap().evidence, "{}");
    assert_eq!(
        s.reviews(Some("open"), Some("assist"), Some(c))
            .unwrap()
            .len(),
        1
    );

    // The audit trail: every change above, in order.
    let trail: Vec<String> = s
        .audit(None)
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r.action, r.actor))
        .collect();
    assert_eq!(
        trail,
        [
            "sanction ops",
            "sanction ops",
            "sanction ops",
            "lift ops2",
            "sanction ops",
            "void ops",
            "void ops",
            "void ops",
            "file scan",
            "file scan",
            "review ops",
        ]
    );
    assert_eq!(s.audit(Some(a)).unwrap().len(), 4);
    // Online hands: only those the account holds as online.
    assert!(!s.holds_online_hand(a, &"f".repeat(64)).unwrap());
}
