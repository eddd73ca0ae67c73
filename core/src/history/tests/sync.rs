//! Verification before storing, dedupe by record id, the outbox and the pull cursor, and
//! statistics kept per rule set.

use super::*;
use crate::record::RecordId;

fn hangzhou(seed: u64) -> HandRecord {
    played_under(RuleSet::hangzhou(), seed)
}

fn played_under(rules: RuleSet, seed: u64) -> HandRecord {
    let setup = HandSetup {
        rules,
        seed: Seed::from_u64(seed),
        dealer: Seat((seed % 4) as u8),
        prevalent: Wind::East,
        dealer_level: 0,
    };
    let mut g = Game::new(setup);
    let mut players: [SimplePlayer; 4] =
        std::array::from_fn(|i| SimplePlayer::new(seed * 4 + i as u64));
    while !g.is_finished() {
        for s in g.pending_seats() {
            let a = players[s.index()].pick(&g.legal_actions(s));
            g.apply(s, a).unwrap();
        }
    }
    HandRecord::of(&g).unwrap()
}

/// Hangzhou hands the player won, and others.
fn hangzhou_hands() -> &'static [HandRecord] {
    static H: OnceLock<Vec<HandRecord>> = OnceLock::new();
    H.get_or_init(|| {
        let mut v: Vec<HandRecord> = Vec::new();
        for seed in 0..2_000 {
            let r = hangzhou(seed);
            if r.result.winner.is_some() {
                v.push(r);
            }
            if v.len() == 6 {
                break;
            }
        }
        assert_eq!(v.len(), 6);
        v
    })
}

fn nothing_stored(h: &HistoryStore) {
    assert_eq!(h.count_hands().unwrap(), 0);
    assert_eq!(h.count_pending_uploads().unwrap(), 0);
    assert_eq!(h.stats().unwrap().hands, 0);
    assert!(h.rules_played().unwrap().is_empty());
}

#[test]
fn a_forged_record_is_refused_and_nothing_is_stored() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let r = &samples().discard_wins[0];
    let w = r.result.winner.unwrap();
    let mut forged = r.clone();
    forged.result.deltas[w.index()] += 1_000_000;
    let e = h.add_hand(&forged, w, 0, None).unwrap_err();
    assert!(matches!(e, HistoryError::Unverified { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("nothing was stored"), "{text}");
    assert!(text.contains("score changes"), "names what differs: {text}");
    assert!(text.contains(r.id.as_str()), "{text}");
    nothing_stored(&h);
    // Through every door.
    assert!(matches!(
        h.import_synced(&forged, w, 0),
        Err(HistoryError::Unverified { .. })
    ));
    let good = NewHand {
        record: &samples().draws[0],
        seat: Seat(0),
        played_at: 0,
        match_id: None,
    };
    let bad = NewHand {
        record: &forged,
        ..good
    };
    assert!(h.import(&[good, bad]).is_err());
    nothing_stored(&h);
    // Rules changed from the preset's, or a content id that is not the content's.
    let mut rules = r.clone();
    rules.setup.rules.mcr.min_points = 0;
    rules.id = RecordId::of(&rules.setup, &rules.actions);
    let e = h.add_hand(&rules, w, 0, None).unwrap_err();
    assert!(e.to_string().contains("min_points"), "{e}");
    let mut id = r.clone();
    id.id = samples().draws[0].id.clone();
    let e = h.add_hand(&id, w, 0, None).unwrap_err();
    assert!(e.to_string().contains("does not match its content"), "{e}");
    nothing_stored(&h);
    // The real one goes in.
    h.add_hand(r, w, 0, None).unwrap();
    assert_eq!(h.count_hands().unwrap(), 1);
}

#[test]
fn a_hand_is_stored_once() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let r = &samples().discard_wins[1];
    let w = r.result.winner.unwrap();
    let id = h.add_hand(r, w, 10, None).unwrap();
    let before = h.stats().unwrap();
    assert_eq!(h.add_hand(r, w, 20, None).unwrap(), id);
    assert_eq!(h.import_synced(r, w, 30).unwrap(), id);
    assert_eq!(h.count_hands().unwrap(), 1);
    assert_eq!(h.count_pending_uploads().unwrap(), 1);
    assert_eq!(h.stats().unwrap(), before);
    assert_eq!(
        h.get_hand(id).unwrap().played_at,
        10,
        "the first copy is kept"
    );
    // The same hand for another seat is a mistake, not a second hand.
    let e = h.add_hand(r, w.next(), 0, None).unwrap_err();
    assert!(matches!(e, HistoryError::Invalid(_)), "{e:?}");
    assert!(e.to_string().contains("already stored"), "{e}");
    assert_eq!(h.hand_by_record(&r.id).unwrap(), Some(id));
    assert_eq!(h.hand_by_record(&samples().draws[0].id).unwrap(), None);
}

#[test]
fn synced_hands_are_stored_once_and_never_queued() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let [a, b, c] = [&many(3)[0], &many(3)[1], &many(3)[2]];
    let local = h.add_hand(a, Seat(0), 1, None).unwrap();
    let synced = h.import_synced(b, Seat(1), 2).unwrap();
    assert_eq!(h.import_synced(b, Seat(1), 3).unwrap(), synced);
    assert_eq!(h.import_synced(b, Seat(1), 3).unwrap(), synced);
    assert_eq!(h.count_hands().unwrap(), 2);
    let pending = h.pending_uploads(10).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!((pending[0].hand, &pending[0].record_id), (local, &a.id));
    assert_eq!(&HandRecord::from_json(&pending[0].record_json).unwrap(), *a);
    // A synced hand counts in the statistics like any other.
    assert_eq!(h.stats().unwrap().hands, 2);
    // Played here after it came from the sync (a second device): still not queued.
    assert_eq!(h.add_hand(b, Seat(1), 4, None).unwrap(), synced);
    assert_eq!(h.count_pending_uploads().unwrap(), 1);
    let id = h.add_hand(c, Seat(2), 5, None).unwrap();
    assert_eq!(h.get_hand(id).unwrap().record_id.as_ref(), Some(&c.id));
    assert_eq!(h.count_pending_uploads().unwrap(), 2);
}

#[test]
fn the_outbox_lists_marks_and_keeps_refusals() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let records = many(6);
    let ids: Vec<HandId> = records
        .iter()
        .enumerate()
        .map(|(i, r)| h.add_hand(r, Seat(0), i as i64, None).unwrap())
        .collect();
    assert_eq!(h.count_pending_uploads().unwrap(), 6);
    // Oldest first, `limit` at a time.
    let first = h.pending_uploads(2).unwrap();
    assert_eq!(first.iter().map(|p| p.hand).collect::<Vec<_>>(), &ids[..2]);
    assert!(h.pending_uploads(0).unwrap().is_empty());
    // Uploaded: gone from the outbox. Unknown or repeated ids are skipped.
    let unknown = samples().draws[0].id.clone();
    let marked = h
        .mark_uploaded(&[
            records[0].id.clone(),
            records[1].id.clone(),
            unknown.clone(),
        ])
        .unwrap();
    assert_eq!(marked, 2);
    assert_eq!(h.mark_uploaded(&[records[0].id.clone()]).unwrap(), 0);
    assert_eq!(h.pending_uploads(1).unwrap()[0].hand, ids[2]);
    // Refused: kept in the history and visible with the reason, never offered again.
    assert!(
        h.mark_rejected(&records[2].id, "rules version unknown")
            .unwrap()
    );
    assert!(!h.mark_rejected(&records[2].id, "again").unwrap());
    assert!(!h.mark_rejected(&unknown, "who").unwrap());
    assert!(!h.mark_rejected(&records[0].id, "already up").unwrap());
    let pending: Vec<HandId> = h
        .pending_uploads(10)
        .unwrap()
        .iter()
        .map(|p| p.hand)
        .collect();
    assert_eq!(pending, &ids[3..]);
    assert_eq!(h.count_pending_uploads().unwrap(), 3);
    let rejected = h.rejected_uploads(0, 10).unwrap();
    assert_eq!(
        rejected,
        vec![RejectedUpload {
            hand: ids[2],
            record_id: Some(records[2].id.clone()),
            reason: "rules version unknown".into()
        }]
    );
    assert!(h.mark_uploaded(&[records[2].id.clone()]).unwrap() == 0);
    assert_eq!(h.count_hands().unwrap(), 6);
    h.replay(ids[2]).unwrap();
    // The player may ask for a retry.
    assert!(h.retry_rejected(ids[2]).unwrap());
    assert!(!h.retry_rejected(ids[2]).unwrap());
    assert!(h.rejected_uploads(0, 10).unwrap().is_empty());
    assert_eq!(h.pending_uploads(1).unwrap()[0].hand, ids[2]);
    // An empty reason still says something.
    h.mark_rejected(&records[3].id, " ").unwrap();
    assert!(
        !h.rejected_uploads(0, 10).unwrap()[0]
            .reason
            .trim()
            .is_empty()
    );
}

#[test]
fn the_pull_cursor_is_kept_in_the_file() {
    let dir = TempDir::new("cursor");
    let path = dir.join("history.db");
    {
        let mut h = HistoryStore::open(&path).unwrap();
        assert_eq!(h.pull_cursor().unwrap(), None);
        h.set_pull_cursor(Some("opaque:1")).unwrap();
        h.set_pull_cursor(Some("opaque:2 ✓")).unwrap();
    }
    let mut h = HistoryStore::open(&path).unwrap();
    assert_eq!(h.pull_cursor().unwrap().as_deref(), Some("opaque:2 ✓"));
    h.set_pull_cursor(None).unwrap();
    assert_eq!(h.pull_cursor().unwrap(), None);
}

#[test]
fn statistics_are_kept_per_rule_set_and_never_mix_scorers() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    // Guobiao: the winner's seat each time.
    let guobiao: Vec<&HandRecord> = samples().discard_wins.iter().collect();
    for (i, r) in guobiao.iter().enumerate() {
        h.add_hand(r, r.result.winner.unwrap(), i as i64, None)
            .unwrap();
    }
    let only_guobiao = h.stats_with_top(100).unwrap();
    assert_eq!(only_guobiao.scorer, Some(Scorer::Mcr));
    assert!(only_guobiao.average_win_fan.is_some() && !only_guobiao.top_fans.is_empty());
    assert_eq!(
        h.stats_for_with_top(Some("guobiao"), 100).unwrap(),
        HistoryStats {
            rules: Some("guobiao".into()),
            ..only_guobiao.clone()
        }
    );
    // Hangzhou wins, the player winning too.
    for (i, r) in hangzhou_hands().iter().enumerate() {
        h.add_hand(r, r.result.winner.unwrap(), 100 + i as i64, None)
            .unwrap();
    }
    let hz = h.stats_for_with_top(Some("hangzhou"), 100).unwrap();
    assert_eq!((hz.hands, hz.wins), (6, 6));
    assert_eq!(hz.scorer, Some(Scorer::Hangzhou));
    assert!(!hz.top_fans.is_empty());
    assert!(hz.top_fans.iter().all(|f| f.scorer == Scorer::Hangzhou));
    for f in &hz.top_fans {
        assert_eq!(
            Some((f.name.as_str(), f.en.as_str())),
            Scorer::Hangzhou.fan_names(f.id)
        );
    }
    let max = hangzhou_hands()
        .iter()
        .map(|r| r.result.score.as_ref().unwrap().total)
        .max()
        .unwrap();
    assert_eq!(hz.biggest.map(|b| b.total), Some(max));
    // Guobiao's figures are unchanged by the Hangzhou hands.
    let gb = h.stats_for_with_top(Some("guobiao"), 100).unwrap();
    assert_eq!(
        gb,
        HistoryStats {
            rules: Some("guobiao".into()),
            ..only_guobiao
        }
    );
    assert!(gb.top_fans.iter().all(|f| f.scorer == Scorer::Mcr));
    // The whole: counts add up; fan figures are left out rather than mixed.
    let all = h.stats().unwrap();
    assert_eq!(all.hands, gb.hands + hz.hands);
    assert_eq!(all.wins, gb.wins + hz.wins);
    assert_eq!(all.total_points, gb.total_points + hz.total_points);
    assert_eq!(
        (all.scorer, all.average_win_fan, all.biggest),
        (None, None, None)
    );
    assert!(all.top_fans.is_empty());
    // Rule sets with hands, most first; one without hands reads as zeros.
    assert_eq!(h.rules_played().unwrap(), ["hangzhou", "guobiao"]);
    let none = h.stats_for(Some("hangzhou-mil")).unwrap();
    assert_eq!((none.hands, none.scorer, none.top_fans.len()), (0, None, 0));
    h.check_integrity().unwrap();
    // Hand entries name the Hangzhou elements from their own table.
    for e in h.list_hands(0, 100).unwrap() {
        let expected = if e.rules == "hangzhou" {
            Scorer::Hangzhou
        } else {
            Scorer::Mcr
        };
        assert!(e.fans.iter().all(|f| f.scorer == expected), "{e:?}");
    }
}

#[test]
fn rule_sets_of_one_scorer_add_up_their_fans() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let mil: Vec<HandRecord> = (0..2_000)
        .map(|seed| played_under(RuleSet::hangzhou_mil(), seed))
        .filter(|r| r.result.winner.is_some())
        .take(3)
        .collect();
    assert_eq!(mil.len(), 3);
    for r in hangzhou_hands().iter().chain(&mil) {
        h.add_hand(r, r.result.winner.unwrap(), 0, None).unwrap();
    }
    let hz = h.stats_for_with_top(Some("hangzhou"), 100).unwrap();
    let mil_stats = h.stats_for_with_top(Some("hangzhou-mil"), 100).unwrap();
    let all = h.stats_with_top(100).unwrap();
    assert_eq!(all.scorer, Some(Scorer::Hangzhou));
    assert_eq!(all.hands, 9);
    // Each fan's wins over both rule sets, summed by stable key.
    let mut expected: std::collections::BTreeMap<u8, u64> = Default::default();
    for f in hz.top_fans.iter().chain(&mil_stats.top_fans) {
        *expected.entry(f.id).or_default() += f.wins;
    }
    let got: std::collections::BTreeMap<u8, u64> =
        all.top_fans.iter().map(|f| (f.id, f.wins)).collect();
    assert_eq!(got, expected);
    assert!(all.top_fans.windows(2).all(|w| w[0].wins >= w[1].wins));
    assert!(all.biggest.is_some() && all.average_win_fan.is_some());
}
