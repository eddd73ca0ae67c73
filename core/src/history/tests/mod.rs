//! The history against real hands played by simple players.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

mod guards;
mod sync;

use rusqlite::params;

use super::write::Summary;
use super::*;
use crate::bot::SimplePlayer;
use crate::game::HandSetup;
use crate::game::{Game, Scorer};
use crate::rules::RuleSet;
use crate::seat::Wind;
use crate::wall::Seed;

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let p = std::env::temp_dir().join(format!(
            "tongcheng-history-unit-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn play(seed: u64) -> HandRecord {
    let setup = HandSetup {
        rules: RuleSet::guobiao(),
        seed: Seed::from_u64(seed),
        dealer: Seat((seed % 4) as u8),
        prevalent: Wind::from_index((seed / 4) as usize),
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

struct Samples {
    /// Wins on a discard.
    discard_wins: Vec<HandRecord>,
    /// Self-drawn wins.
    self_drawn: Vec<HandRecord>,
    draws: Vec<HandRecord>,
}

/// Real records: a few discard wins, self-drawn wins and drawn hands.
fn samples() -> &'static Samples {
    static S: OnceLock<Samples> = OnceLock::new();
    S.get_or_init(|| {
        let mut s = Samples {
            discard_wins: Vec::new(),
            self_drawn: Vec::new(),
            draws: Vec::new(),
        };
        for seed in 0..20_000 {
            if s.discard_wins.len() >= 4 && s.self_drawn.len() >= 2 && s.draws.len() >= 3 {
                break;
            }
            let r = play(seed);
            let list = match (r.result.winner, r.result.self_drawn) {
                (None, _) => &mut s.draws,
                (Some(_), true) => &mut s.self_drawn,
                (Some(_), false) => &mut s.discard_wins,
            };
            if list.len() < 4 {
                list.push(r);
            }
        }
        assert!(s.discard_wins.len() >= 4 && s.self_drawn.len() >= 2 && s.draws.len() >= 3);
        s
    })
}

/// `n` hands, each its own (seeds apart from the samples'), for tests that store many.
fn many(n: usize) -> Vec<&'static HandRecord> {
    static M: OnceLock<Vec<HandRecord>> = OnceLock::new();
    let all = M.get_or_init(|| (100_000..100_064).map(play).collect());
    assert!(n <= all.len());
    all[..n].iter().collect()
}

/// Every sample, wins first.
fn all_samples() -> Vec<&'static HandRecord> {
    let s = samples();
    s.discard_wins
        .iter()
        .chain(&s.self_drawn)
        .chain(&s.draws)
        .collect()
}

fn fans_of(r: &HandRecord) -> Vec<(u8, u32)> {
    let mut v: Vec<(u8, u32)> = r
        .result
        .score
        .iter()
        .flat_map(|s| s.fans.iter().map(|f| (f.id, f.count)))
        .collect();
    v.sort();
    v
}

fn stored_fans(e: &HandEntry) -> Vec<(u8, u32)> {
    let mut v: Vec<(u8, u32)> = e.fans.iter().map(|f| (f.id, f.count)).collect();
    v.sort();
    v
}

/// The summary a hand must get, worked out independently of `Summary`.
fn check_entry(e: &HandEntry, r: &HandRecord, seat: Seat) {
    let res = &r.result;
    assert_eq!(e.seat, seat);
    assert_eq!(e.rules, r.setup.rules.name);
    assert_eq!(e.winner, res.winner);
    assert_eq!(e.won, res.winner == Some(seat));
    let dealt_in = match res.winner {
        Some(w) => w != seat && res.discarder == Some(seat),
        None => false,
    };
    assert_eq!(e.dealt_in, dealt_in);
    assert_eq!(e.self_drawn, res.winner.is_some() && res.self_drawn);
    assert_eq!(e.points, res.deltas[seat.index()]);
    assert_eq!(
        e.fan_total,
        res.winner.and(res.score.as_ref().map(|s| s.total))
    );
    assert_eq!(
        stored_fans(e),
        if res.winner.is_some() {
            fans_of(r)
        } else {
            vec![]
        }
    );
    for f in &e.fans {
        let line = res
            .score
            .as_ref()
            .unwrap()
            .fans
            .iter()
            .find(|l| l.id == f.id)
            .unwrap();
        assert_eq!(
            (&f.name, &f.en, f.points),
            (
                &line.name().to_string(),
                &line.en().to_string(),
                line.points
            )
        );
    }
    // Fans are listed biggest first.
    assert!(e.fans.windows(2).all(|w| w[0].points >= w[1].points));
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[test]
fn a_hand_goes_in_and_comes_back() {
    // A hand is stored once per history: one history per seat.
    for seat in Seat::ALL {
        let mut h = HistoryStore::open_in_memory().unwrap();
        for (i, r) in all_samples().into_iter().enumerate() {
            let id = h.add_hand(r, seat, 1_700_000_000 + i as i64, None).unwrap();
            let e = h.get_hand(id).unwrap();
            check_entry(&e, r, seat);
            assert_eq!(e.played_at, 1_700_000_000 + i as i64);
            assert_eq!(e.match_id, None);
            assert_eq!(&h.get_record(id).unwrap(), r);
            let g = h.replay(id).unwrap();
            assert_eq!(g.result(), Some(&r.result));
            assert_eq!(e.record_id.as_ref(), Some(&r.id));
        }
        assert_eq!(h.count_hands().unwrap(), all_samples().len() as u64);
    }
}

#[test]
fn every_kind_of_result_is_summarised_for_every_seat() {
    let s = samples();
    let r = &s.discard_wins[0];
    let (w, d) = (r.result.winner.unwrap(), r.result.discarder.unwrap());
    // One history per point of view: a hand is stored once per history.
    let stored = |r: &HandRecord, seat: Seat| {
        let mut h = HistoryStore::open_in_memory().unwrap();
        let id = h.add_hand(r, seat, 0, None).unwrap();
        h.get_hand(id).unwrap()
    };
    let win = stored(r, w);
    assert!(win.won && !win.dealt_in && !win.self_drawn && win.points > 0);
    let dealt = stored(r, d);
    assert!(!dealt.won && dealt.dealt_in && dealt.points < 0);
    let r = &s.self_drawn[0];
    let w = r.result.winner.unwrap();
    let tsumo = stored(r, w);
    assert!(tsumo.won && tsumo.self_drawn && !tsumo.dealt_in);
    let other = stored(r, w.next());
    assert!(!other.won && other.self_drawn && !other.dealt_in && other.points < 0);
    let draw = stored(&s.draws[0], Seat(2));
    assert!(draw.winner.is_none() && !draw.won && !draw.dealt_in && draw.fans.is_empty());
    assert_eq!((draw.points, draw.fan_total), (0, None));
}

#[test]
fn hands_page_newest_first() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    // Out-of-order times, and ties broken by id (later stored first).
    let times = [50, 10, 30, 30, 70, 20, 30];
    let ids: Vec<HandId> = times
        .iter()
        .zip(many(times.len()))
        .map(|(&t, r)| h.add_hand(r, Seat(0), t, None).unwrap())
        .collect();
    let mut expected: Vec<(i64, HandId)> = times.iter().copied().zip(ids.iter().copied()).collect();
    expected.sort_by(|a, b| b.cmp(a));
    let all: Vec<(i64, HandId)> = h
        .list_hands(0, 100)
        .unwrap()
        .iter()
        .map(|e| (e.played_at, e.id))
        .collect();
    assert_eq!(all, expected);
    let mut paged = Vec::new();
    for page in 0..4 {
        let p = h.list_hands(page * 2, 2).unwrap();
        assert!(p.len() <= 2);
        paged.extend(p.iter().map(|e| (e.played_at, e.id)));
    }
    assert_eq!(paged, expected);
    assert!(h.list_hands(100, 10).unwrap().is_empty());
    assert!(h.list_hands(0, 0).unwrap().is_empty());
}

#[test]
fn matches_collect_their_hands() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let s = samples();
    let m1 = h.start_match("guobiao", Seat(1), 100).unwrap();
    let m2 = h.start_match("guobiao", Seat(0), 200).unwrap();
    let mut points = 0i64;
    let mut wins = 0u64;
    for r in s.discard_wins.iter().chain(&s.draws) {
        let id = h.add_hand(r, Seat(1), 150, Some(m1)).unwrap();
        let e = h.get_hand(id).unwrap();
        assert_eq!(e.match_id, Some(m1));
        points += e.points as i64;
        wins += e.won as u64;
    }
    h.add_hand(many(2)[0], Seat(0), 250, Some(m2)).unwrap();
    h.add_hand(many(2)[1], Seat(0), 260, None).unwrap();
    let e = h.get_match(m1).unwrap();
    assert_eq!(e.hands, (s.discard_wins.len() + s.draws.len()) as u64);
    assert_eq!(
        (e.points, e.wins, e.seat, e.started_at),
        (points, wins, Seat(1), 100)
    );
    assert_eq!((e.finished_at, e.final_scores), (None, None));
    h.finish_match(m1, [10, -20, 30, -20], 300).unwrap();
    let e = h.get_match(m1).unwrap();
    assert_eq!(
        (e.finished_at, e.final_scores),
        (Some(300), Some([10, -20, 30, -20]))
    );
    assert!(matches!(
        h.finish_match(m1, [0; 4], 301),
        Err(HistoryError::Invalid(_))
    ));
    assert!(matches!(
        h.finish_match(MatchId(99), [0; 4], 301),
        Err(HistoryError::NotFound {
            what: "match",
            id: 99
        })
    ));
    // Newest first, paged.
    let l: Vec<MatchId> = h
        .list_matches(0, 10)
        .unwrap()
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(l, vec![m2, m1]);
    assert_eq!(h.list_matches(1, 1).unwrap()[0].id, m1);
    assert_eq!(h.count_matches().unwrap(), 2);
    let hands = h.match_hands(m1).unwrap();
    assert_eq!(hands.len() as u64, h.get_match(m1).unwrap().hands);
    assert!(hands.windows(2).all(|w| w[0].id < w[1].id));
    assert_eq!(h.match_hands(m2).unwrap().len(), 1);
    assert!(matches!(
        h.match_hands(MatchId(77)),
        Err(HistoryError::NotFound { .. })
    ));
    // A hand for a match that does not exist is refused, and nothing is stored.
    let before = h.count_hands().unwrap();
    let err = h
        .add_hand(&s.draws[0], Seat(0), 0, Some(MatchId(1234)))
        .unwrap_err();
    assert!(
        matches!(
            err,
            HistoryError::NotFound {
                what: "match",
                id: 1234
            }
        ),
        "{err}"
    );
    assert_eq!(h.count_hands().unwrap(), before);
    assert!(matches!(
        h.start_match("guobiao", Seat(4), 0),
        Err(HistoryError::Invalid(_))
    ));
}

#[test]
fn an_import_is_all_or_nothing() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let s = samples();
    let good = NewHand {
        record: &s.discard_wins[0],
        seat: Seat(0),
        played_at: 1,
        match_id: None,
    };
    let bad = NewHand {
        match_id: Some(MatchId(5)),
        ..good
    };
    let other = NewHand {
        record: &s.discard_wins[1],
        ..good
    };
    assert!(h.import(&[good, other, bad]).is_err());
    assert_eq!(h.count_hands().unwrap(), 0);
    assert_eq!(h.stats().unwrap().top_fans, vec![]);
    assert_eq!(h.count_pending_uploads().unwrap(), 0);
    // The same hand twice in one batch is stored once.
    let ids = h.import(&[good, other, good]).unwrap();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[0], ids[2]);
    assert_eq!(h.count_hands().unwrap(), 2);
    assert_eq!(h.count_pending_uploads().unwrap(), 2);
    // Bad input is refused before anything is written.
    let wrong_seat = NewHand {
        seat: Seat(9),
        ..good
    };
    assert!(matches!(
        h.import(&[wrong_seat]),
        Err(HistoryError::Invalid(_))
    ));
    let mut old = s.draws[0].clone();
    old.version = 99;
    let e = h.add_hand(&old, Seat(0), 0, None).unwrap_err();
    assert!(matches!(e, HistoryError::Invalid(_)), "{e}");
    assert!(h.import(&[]).unwrap().is_empty());
    assert_eq!(h.count_hands().unwrap(), 2);
}

#[test]
fn statistics_match_a_direct_count() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let empty = h.stats().unwrap();
    assert_eq!((empty.hands, empty.wins, empty.total_points), (0, 0, 0));
    assert_eq!(
        (empty.win_rate, empty.deal_in_rate, empty.self_draw_rate),
        (0.0, 0.0, 0.0)
    );
    assert_eq!((empty.average_win_fan, empty.biggest), (None, None));
    let mut stored: Vec<(HandId, &HandRecord, Seat)> = Vec::new();
    for (i, r) in all_samples().into_iter().chain(many(64)).enumerate() {
        // Wins, deal-ins and others' wins, a seat each.
        let seat = match i % 3 {
            0 => r.result.winner,
            1 => r.result.discarder,
            _ => None,
        }
        .unwrap_or(Seat((i % 4) as u8));
        stored.push((h.add_hand(r, seat, i as i64, None).unwrap(), r, seat));
    }
    let st = h.stats_with_top(100).unwrap();
    let wins: Vec<&(HandId, &HandRecord, Seat)> = stored
        .iter()
        .filter(|(_, r, s)| r.result.winner == Some(*s))
        .collect();
    let deal_ins = stored
        .iter()
        .filter(|(_, r, s)| {
            r.result.winner.is_some_and(|w| w != *s) && r.result.discarder == Some(*s)
        })
        .count();
    let tsumo = wins.iter().filter(|(_, r, _)| r.result.self_drawn).count();
    let totals: Vec<u32> = wins
        .iter()
        .map(|(_, r, _)| r.result.score.as_ref().unwrap().total)
        .collect();
    assert_eq!(st.hands, stored.len() as u64);
    assert_eq!(st.wins, wins.len() as u64);
    assert_eq!(st.deal_ins, deal_ins as u64);
    assert_eq!(st.self_drawn_wins, tsumo as u64);
    assert_eq!(
        st.draws,
        stored
            .iter()
            .filter(|(_, r, _)| r.result.winner.is_none())
            .count() as u64
    );
    assert_eq!(st.win_rate, wins.len() as f64 / stored.len() as f64);
    assert_eq!(st.deal_in_rate, deal_ins as f64 / stored.len() as f64);
    assert_eq!(st.self_draw_rate, tsumo as f64 / wins.len() as f64);
    let avg = totals.iter().map(|&t| t as f64).sum::<f64>() / totals.len() as f64;
    assert!((st.average_win_fan.unwrap() - avg).abs() < 1e-9);
    let max = *totals.iter().max().unwrap();
    let first_max = wins
        .iter()
        .filter(|(_, r, _)| r.result.score.as_ref().unwrap().total == max)
        .map(|(id, _, _)| *id)
        .min()
        .unwrap();
    assert_eq!(
        st.biggest,
        Some(BiggestHand {
            id: first_max,
            total: max
        })
    );
    let points: i64 = stored
        .iter()
        .map(|(_, r, s)| r.result.deltas[s.index()] as i64)
        .sum();
    assert_eq!(st.total_points, points);
    // Fans: in how many of the player's wins each appears, and how often.
    let mut freq: std::collections::BTreeMap<u8, (u64, u64)> = Default::default();
    for (_, r, _) in &wins {
        for f in &r.result.score.as_ref().unwrap().fans {
            let e = freq.entry(f.id).or_default();
            e.0 += 1;
            e.1 += f.count as u64;
        }
    }
    let mut expected: Vec<(u8, u64, u64)> = freq.iter().map(|(&id, &(w, t))| (id, w, t)).collect();
    expected.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    let got: Vec<(u8, u64, u64)> = st
        .top_fans
        .iter()
        .map(|f| (f.id, f.wins, f.times))
        .collect();
    assert_eq!(got, expected);
    assert!(
        st.top_fans
            .iter()
            .all(|f| !f.name.is_empty() && !f.en.is_empty() && f.points > 0)
    );
    let top = h.stats().unwrap();
    assert_eq!(top.top_fans.len(), TOP_FANS.min(expected.len()));
    assert_eq!(top.top_fans[..], st.top_fans[..top.top_fans.len()]);
}

#[test]
fn missing_ids_are_not_found() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let nf = |e: HistoryError| {
        matches!(
            e,
            HistoryError::NotFound {
                what: "hand",
                id: 42
            }
        )
    };
    assert!(nf(h.get_hand(HandId(42)).unwrap_err()));
    assert!(nf(h.get_record(HandId(42)).unwrap_err()));
    assert!(nf(h.replay(HandId(42)).unwrap_err()));
    assert!(matches!(
        h.get_match(MatchId(3)),
        Err(HistoryError::NotFound { what: "match", .. })
    ));
    h.add_hand(&samples().draws[0], Seat(0), 0, None).unwrap();
    assert!(nf(h.get_record(HandId(42)).unwrap_err()));
}

/// Drops the triggers that keep stored hands immutable, as a hand-edited file would.
fn allow_tampering(c: &Connection) {
    c.execute_batch(
        "DROP TRIGGER hands_are_immutable; DROP TRIGGER hands_are_kept;
         DROP TRIGGER hand_fans_are_immutable; DROP TRIGGER hand_fans_are_kept;
         DROP TRIGGER hand_records_are_immutable;",
    )
    .unwrap();
}

#[test]
fn stored_hands_are_immutable_and_the_totals_are_checked() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let r = &samples().discard_wins[0];
    let w = r.result.winner.unwrap();
    let id = h.add_hand(r, w, 0, None).unwrap();
    h.add_hand(&samples().draws[0], w, 0, None).unwrap();
    h.check_integrity().unwrap();
    let before = h.stats().unwrap();
    for sql in [
        "UPDATE hands SET points = 1000 WHERE id = ?1",
        "DELETE FROM hands WHERE id = ?1",
        "UPDATE hand_fans SET count = 9 WHERE hand_id = ?1",
        "DELETE FROM hand_fans WHERE hand_id = ?1",
        "UPDATE hand_records SET record = '{}' WHERE hand_id = ?1",
    ] {
        let e = h.conn.execute(sql, [id.0]).unwrap_err();
        assert!(e.to_string().contains("stored"), "{sql}: {e}");
    }
    assert_eq!(h.stats().unwrap(), before);
    // Totals edited by hand are caught, and rebuilt from the hands.
    h.conn
        .execute("UPDATE totals SET wins = wins + 5", [])
        .unwrap();
    h.conn
        .execute("UPDATE fan_totals SET times = times + 1", [])
        .unwrap();
    let e = h.check_integrity().unwrap_err();
    assert!(matches!(e, HistoryError::Corrupt(_)), "{e}");
    assert_ne!(h.stats().unwrap(), before);
    h.rebuild_statistics().unwrap();
    h.check_integrity().unwrap();
    assert_eq!(h.stats().unwrap(), before);
    h.conn.execute("DELETE FROM totals", []).unwrap();
    assert_eq!(h.stats().unwrap().hands, 0, "read as they are…");
    assert!(matches!(h.check_integrity(), Err(HistoryError::Corrupt(_))));
    h.rebuild_statistics().unwrap();
    assert_eq!(h.stats().unwrap(), before);
}

#[test]
fn garbage_in_a_row_is_a_typed_error() {
    let mut h = HistoryStore::open_in_memory().unwrap();
    let records = many(7);
    let ids: Vec<HandId> = (0..7)
        .map(|i| h.add_hand(records[i], Seat(0), i as i64, None).unwrap())
        .collect();
    let c = &h.conn;
    allow_tampering(c);
    c.execute(
        "UPDATE hand_records SET record = 'not json' WHERE hand_id = ?1",
        [ids[0].0],
    )
    .unwrap();
    c.execute(
        "UPDATE hand_records SET record = x'fffe00' WHERE hand_id = ?1",
        [ids[1].0],
    )
    .unwrap();
    c.execute(
        "UPDATE hand_records SET record = 12 WHERE hand_id = ?1",
        [ids[2].0],
    )
    .unwrap();
    c.execute("DELETE FROM hand_records WHERE hand_id = ?1", [ids[3].0])
        .unwrap();
    // A record that parses but was tampered with: it no longer replays to what it says.
    let mut forged = records[4].clone();
    forged.result.deltas[0] += 8;
    forged.result.deltas[1] -= 8;
    c.execute(
        "UPDATE hand_records SET record = ?2 WHERE hand_id = ?1",
        params![ids[4].0, forged.to_json()],
    )
    .unwrap();
    // A record naming a seat that does not exist as its dealer.
    let mut json: serde_json::Value = serde_json::from_str(&records[5].to_json()).unwrap();
    json["setup"]["dealer"] = 7.into();
    c.execute(
        "UPDATE hand_records SET record = ?2 WHERE hand_id = ?1",
        params![ids[5].0, json.to_string()],
    )
    .unwrap();
    for id in [ids[0], ids[1], ids[2], ids[3], ids[5]] {
        let e = h.get_record(id).unwrap_err();
        assert!(
            matches!(e, HistoryError::BadRecord { id: i, .. } if i == id.0),
            "{e}"
        );
        assert!(matches!(h.replay(id), Err(HistoryError::BadRecord { .. })));
    }
    let e = h.replay(ids[4]).unwrap_err();
    assert!(
        matches!(e, HistoryError::ReplayFailed { id, .. } if id == ids[4].0),
        "{e}"
    );
    assert!(e.to_string().contains("does not verify"), "{e}");
    h.replay(ids[6]).unwrap();
    // Summary columns with values the schema would refuse.
    c.pragma_update(None, "ignore_check_constraints", true)
        .unwrap();
    c.execute("UPDATE hands SET seat = 9 WHERE id = ?1", [ids[0].0])
        .unwrap();
    c.execute("UPDATE hands SET points = 'lots' WHERE id = ?1", [ids[1].0])
        .unwrap();
    c.execute("UPDATE hands SET fan_total = -3 WHERE id = ?1", [ids[2].0])
        .unwrap();
    c.execute("UPDATE hands SET played_at = 1.5 WHERE id = ?1", [ids[3].0])
        .unwrap();
    for id in &ids[..4] {
        let e = h.get_hand(*id).unwrap_err();
        assert!(matches!(e, HistoryError::Corrupt(_)), "{e}");
    }
    assert!(matches!(h.list_hands(0, 10), Err(HistoryError::Corrupt(_))));
    // Statistics read only sums and stay available.
    h.stats().unwrap();
}

#[test]
fn a_file_history_is_wal_and_persists() {
    let dir = TempDir::new("persist");
    let path = dir.join("sub/dir/history.db");
    let r = &samples().self_drawn[0];
    let id = {
        let mut h = HistoryStore::open(&path).unwrap();
        assert_eq!(h.path(), Some(path.as_path()));
        let mode: String = h
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = h
            .conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 1, "NORMAL");
        h.add_hand(r, Seat(3), 5, None).unwrap()
    };
    let h = HistoryStore::open(&path).unwrap();
    assert_eq!(&h.get_record(id).unwrap(), r);
    assert_eq!(h.schema_version().unwrap(), SCHEMA_VERSION);
    h.check_integrity().unwrap();
    // Two stores on one file: what one writes, the other reads.
    let mut other = HistoryStore::open(&path).unwrap();
    let id2 = other.add_hand(many(1)[0], Seat(0), 6, None).unwrap();
    assert_eq!(h.get_hand(id2).unwrap().seat, Seat(0));
    assert!(matches!(
        HistoryStore::open(&dir.0),
        Err(HistoryError::Io { .. })
    ));
}

/// The schema as SQLite reports it, for comparing two databases.
fn schema_of(c: &Connection) -> Vec<(String, String, Option<String>)> {
    let mut st = c
        .prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Writes hands the way a build at schema `version` did. Every shipped version except the
/// current one needs a fixture here.
fn insert_at_version(
    c: &Connection,
    version: u32,
    r: &HandRecord,
    seat: Seat,
    played_at: i64,
) -> i64 {
    match version {
        0 => panic!("a v0 database has no tables"),
        1 => {
            let s = Summary::of(r, seat);
            c.execute(
                "INSERT INTO hands (played_at, rules, seat, winner, won, dealt_in, self_drawn,
                     points, fan_total)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    played_at,
                    r.setup.rules.name,
                    seat.0,
                    s.winner.map(|w| w.0),
                    s.won,
                    s.dealt_in,
                    s.self_drawn,
                    s.points,
                    s.fan_total
                ],
            )
            .unwrap();
            let id = c.last_insert_rowid();
            c.execute(
                "INSERT INTO hand_records (hand_id, record) VALUES (?1, ?2)",
                params![id, r.to_json()],
            )
            .unwrap();
            id
        }
        2 | 3 => {
            let id = insert_at_version(c, 1, r, seat, played_at);
            let Some(score) = r
                .result
                .score
                .as_ref()
                .filter(|_| r.result.winner.is_some())
            else {
                return id;
            };
            for f in &score.fans {
                c.execute(
                    "INSERT INTO fan_names (fan_id, name, en, points) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (fan_id) DO NOTHING",
                    params![f.id, f.name(), f.en(), f.points],
                )
                .unwrap();
                c.execute(
                    "INSERT INTO hand_fans (hand_id, fan_id, count) VALUES (?1, ?2, ?3)",
                    params![id, f.id, f.count],
                )
                .unwrap();
            }
            id
        }
        4 => {
            // v4 kept one row per record id; the test's second copy of a record (the one it
            // then breaks) is stored the way v4 left an unreadable record: no id, refused.
            let s = Summary::of(r, seat);
            let copies: i64 = c
                .query_row(
                    "SELECT count(*) FROM hands WHERE record_id = ?1",
                    [r.id.as_str()],
                    |x| x.get(0),
                )
                .unwrap();
            let dup = copies > 0;
            c.execute(
                "INSERT INTO hands (played_at, rules, seat, winner, won, dealt_in, self_drawn,
                     points, fan_total, record_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    played_at,
                    r.setup.rules.name,
                    seat.0,
                    s.winner.map(|w| w.0),
                    s.won,
                    s.dealt_in,
                    s.self_drawn,
                    s.points,
                    s.fan_total,
                    (!dup).then(|| r.id.as_str().to_string())
                ],
            )
            .unwrap();
            let id = c.last_insert_rowid();
            c.execute(
                "INSERT INTO hand_records (hand_id, record) VALUES (?1, ?2)",
                params![id, r.to_json()],
            )
            .unwrap();
            if !dup {
                schema::insert_fans(c, id, r).unwrap();
            }
            let reason = dup.then_some("the stored record cannot be read (a v4 fixture)");
            c.execute(
                "INSERT INTO outbox (hand_id, rejected) VALUES (?1, ?2)",
                params![id, reason],
            )
            .unwrap();
            id
        }
        v => panic!("no fixture for schema v{v}: add one when v{} ships", v + 1),
    }
}

#[test]
fn every_earlier_schema_migrates_with_its_data() {
    let dir = TempDir::new("migrate");
    let fresh_schema = schema_of(&HistoryStore::open(dir.join("fresh.db")).unwrap().conn);
    for k in 0..SCHEMA_VERSION {
        let path = dir.join(&format!("v{k}.db"));
        let mut stored: Vec<(i64, &HandRecord, Seat)> = Vec::new();
        let mut old_match = None;
        {
            let mut c = Connection::open(&path).unwrap();
            c.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
                .unwrap();
            assert_eq!(
                schema::migrate(&mut c, schema::MIGRATIONS, k).unwrap(),
                schema::Migrated::Done
            );
            assert_eq!(schema::user_version(&c).unwrap(), k);
            // From v3 on, stored hands are immutable; an older build's writes are done with
            // the triggers off, then the triggers come back exactly as they were.
            let triggers: Vec<String> = {
                let mut st = c
                    .prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name IN ('hands_are_immutable', 'hand_records_are_immutable')")
                    .unwrap();
                st.query_map([], |r| r.get(0))
                    .unwrap()
                    .collect::<rusqlite::Result<_>>()
                    .unwrap()
            };
            c.execute_batch(
                "DROP TRIGGER IF EXISTS hands_are_immutable;
                 DROP TRIGGER IF EXISTS hand_records_are_immutable;",
            )
            .unwrap();
            if k > 0 {
                for (i, r) in all_samples().into_iter().enumerate() {
                    let seat = r.result.winner.unwrap_or(Seat((i % 4) as u8));
                    stored.push((insert_at_version(&c, k, r, seat, 1000 + i as i64), r, seat));
                }
                // One record an older build stored that no longer parses.
                let id = insert_at_version(&c, k, all_samples()[0], Seat(0), 5000);
                c.execute(
                    "UPDATE hand_records SET record = '{\"broken' WHERE hand_id = ?1",
                    [id],
                )
                .unwrap();
            }
            if k >= 2 {
                c.execute(
                    "INSERT INTO matches (rules, seat, started_at, finished_at, score0, score1,
                         score2, score3)
                     VALUES ('guobiao', 2, 900, 990, 5, -5, 7, -7)",
                    [],
                )
                .unwrap();
                let m = c.last_insert_rowid();
                for (id, _, _) in &stored[..3] {
                    c.execute("UPDATE hands SET match_id = ?1 WHERE id = ?2", [m, *id])
                        .unwrap();
                }
                old_match = Some(m);
            }
            for sql in &triggers {
                c.execute_batch(sql).unwrap();
            }
        }
        let h = HistoryStore::open(&path).unwrap_or_else(|e| panic!("v{k}: {e}"));
        assert_eq!(h.schema_version().unwrap(), SCHEMA_VERSION, "v{k}");
        assert_eq!(
            schema_of(&h.conn),
            fresh_schema,
            "v{k}: the migrated schema is current"
        );
        let app_id: i32 = h
            .conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .unwrap();
        assert_eq!(app_id, schema::APPLICATION_ID);
        h.check_integrity().unwrap();
        for (id, r, seat) in &stored {
            let e = h.get_hand(HandId(*id)).unwrap();
            check_entry(&e, r, *seat);
            assert_eq!(e.played_at, 1000 + (*id - stored[0].0));
            assert_eq!(&h.get_record(HandId(*id)).unwrap(), *r);
            h.replay(HandId(*id)).unwrap();
        }
        let listed = h.list_hands(0, 1000).unwrap();
        assert_eq!(listed.len(), stored.len() + usize::from(k > 0), "v{k}");
        if k > 0 {
            let broken = listed.iter().find(|e| e.played_at == 5000).unwrap();
            assert!(matches!(
                h.get_record(broken.id),
                Err(HistoryError::BadRecord { .. })
            ));
            // Every stored win counts in the statistics, fans included.
            let st = h.stats_with_top(100).unwrap();
            let wins = stored
                .iter()
                .filter(|(_, r, s)| r.result.winner == Some(*s))
                .count();
            assert_eq!(
                st.wins as usize,
                wins + usize::from(all_samples()[0].result.winner == Some(Seat(0)))
            );
            assert!(!st.top_fans.is_empty());
        }
        if k > 0 {
            // v4: record ids, fans by stable key, the outbox.
            let broken = listed.iter().find(|e| e.played_at == 5000).unwrap();
            assert_eq!(broken.record_id, None);
            for (id, r, _) in &stored {
                assert_eq!(
                    h.get_hand(HandId(*id)).unwrap().record_id.as_ref(),
                    Some(&r.id)
                );
            }
            assert_eq!(h.count_pending_uploads().unwrap(), stored.len() as u64);
            let pending = h.pending_uploads(1000).unwrap();
            assert_eq!(
                pending.iter().map(|p| p.hand.0).collect::<Vec<_>>(),
                stored.iter().map(|s| s.0).collect::<Vec<_>>()
            );
            let rejected = h.rejected_uploads(0, 10).unwrap();
            assert_eq!(rejected.len(), 1);
            assert_eq!(
                (rejected[0].hand, &rejected[0].record_id),
                (broken.id, &None)
            );
            assert!(
                rejected[0].reason.contains("cannot be read"),
                "{rejected:?}"
            );
        }
        if let Some(m) = old_match {
            let e = h.get_match(MatchId(m)).unwrap();
            assert_eq!((e.hands, e.seat, e.started_at), (3, Seat(2), 900));
            assert_eq!(
                (e.finished_at, e.final_scores),
                (Some(990), Some([5, -5, 7, -7]))
            );
            let in_match: Vec<i64> = h
                .match_hands(MatchId(m))
                .unwrap()
                .iter()
                .map(|e| e.id.0)
                .collect();
            assert_eq!(
                in_match,
                stored[..3].iter().map(|s| s.0).collect::<Vec<_>>()
            );
        }
        // And the migrated history takes new hands and matches.
        drop(h);
        let mut h = HistoryStore::open(&path).unwrap();
        let m = h.start_match("guobiao", Seat(0), 1).unwrap();
        h.add_hand(many(1)[0], Seat(0), 2, Some(m)).unwrap();
    }
}

#[test]
fn a_failed_migration_step_leaves_the_previous_version() {
    fn broken(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
        tx.execute_batch("CREATE TABLE half_done (x); SELECT * FROM no_such_table;")
    }
    let steps = [
        schema::Migration {
            what: "v1",
            up: schema::MIGRATIONS[0].up,
        },
        schema::Migration {
            what: "fails halfway",
            up: broken,
        },
    ];
    let mut c = Connection::open_in_memory().unwrap();
    assert!(schema::migrate(&mut c, &steps, 2).is_err());
    assert_eq!(schema::user_version(&c).unwrap(), 1);
    let half: i64 = c
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(half, 0, "the failed step was rolled back whole");
    // The real steps take it on from there.
    assert_eq!(
        schema::migrate(&mut c, schema::MIGRATIONS, SCHEMA_VERSION).unwrap(),
        schema::Migrated::Done
    );
    assert_eq!(schema::user_version(&c).unwrap(), SCHEMA_VERSION);
}

#[test]
fn a_newer_history_is_refused_and_left_alone() {
    let dir = TempDir::new("newer");
    let path = dir.join("history.db");
    {
        let mut h = HistoryStore::open(&path).unwrap();
        h.add_hand(&samples().draws[0], Seat(0), 0, None).unwrap();
        h.conn
            .pragma_update(None, "user_version", SCHEMA_VERSION + 3)
            .unwrap();
        // Fold the WAL into the file so that the file alone is the whole database.
        h.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    let before = bytes(&path);
    let e = HistoryStore::open(&path).unwrap_err();
    assert!(
        matches!(e, HistoryError::Newer { found, known } if found == SCHEMA_VERSION + 3 && known == SCHEMA_VERSION),
        "{e:?}"
    );
    assert_eq!(
        e.to_string().split(';').next().unwrap(),
        format!(
            "this history was written by a newer version (schema v{}, this build knows up to v{})",
            SCHEMA_VERSION + 3,
            SCHEMA_VERSION
        )
    );
    assert!(e.is_unusable_file());
    assert_eq!(bytes(&path), before);
    // Moved aside, a new history starts; the old file is intact under its new name.
    let aside = HistoryStore::move_aside(&path).unwrap();
    assert!(!path.exists());
    assert_eq!(bytes(&aside), before);
    let h = HistoryStore::open(&path).unwrap();
    assert_eq!(h.count_hands().unwrap(), 0);
}

#[test]
fn a_file_that_is_not_a_history_is_refused_and_left_alone() {
    let dir = TempDir::new("garbage");
    // Garbage, and a truncated SQLite header.
    let garbage: Vec<u8> = (0..10_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut header = b"SQLite format 3\0".to_vec();
    header.extend_from_slice(&[0xff; 40]);
    for (name, content) in [("garbage.db", garbage), ("header.db", header)] {
        let path = dir.join(name);
        std::fs::write(&path, &content).unwrap();
        let e = HistoryStore::open(&path).unwrap_err();
        assert!(
            matches!(
                e,
                HistoryError::NotADatabase { .. } | HistoryError::Corrupt(_)
            ),
            "{name}: {e:?}"
        );
        assert!(e.is_unusable_file());
        assert_eq!(bytes(&path), content, "{name} was not touched");
        assert!(!dir.join(&format!("{name}-wal")).exists());
    }
    // Another program's SQLite database.
    let path = dir.join("foreign.db");
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x');")
            .unwrap();
    }
    let before = bytes(&path);
    let e = HistoryStore::open(&path).unwrap_err();
    assert!(matches!(e, HistoryError::Foreign { .. }), "{e:?}");
    assert_eq!(bytes(&path), before);
    // The same, claiming a schema version of ours.
    {
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
    }
    let before = bytes(&path);
    assert!(matches!(
        HistoryStore::open(&path),
        Err(HistoryError::Foreign { .. })
    ));
    assert_eq!(bytes(&path), before);
}

#[test]
fn damaged_pages_give_errors_not_panics() {
    let dir = TempDir::new("damage");
    let path = dir.join("history.db");
    {
        let mut h = HistoryStore::open(&path).unwrap();
        for (i, r) in many(60).into_iter().enumerate() {
            h.add_hand(r, Seat((i % 4) as u8), i as i64, None).unwrap();
        }
        h.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    let good = bytes(&path);
    let page = 4096;
    // Scribble over every page but the first in turn (and, once, cut the file short).
    let mut damaged = 0;
    for p in (1..good.len() / page).step_by(7).chain([usize::MAX]) {
        let mut b = good.clone();
        if p == usize::MAX {
            b.truncate(good.len() / 3);
        } else {
            for (i, x) in b[p * page..(p + 1) * page].iter_mut().enumerate() {
                *x = (i * 31 + p) as u8;
            }
        }
        let _ = std::fs::remove_file(dir.join("history.db-wal"));
        let _ = std::fs::remove_file(dir.join("history.db-shm"));
        std::fs::write(&path, &b).unwrap();
        match HistoryStore::open(&path) {
            Err(e) => assert!(e.is_unusable_file(), "{e:?}"),
            Ok(mut h) => {
                let mut results: Vec<Result<(), HistoryError>> = vec![
                    h.list_hands(0, 1000).map(drop),
                    h.stats().map(drop),
                    h.check_integrity(),
                    h.list_matches(0, 10).map(drop),
                ];
                for id in 1..=60 {
                    results.push(h.replay(HandId(id)).map(drop));
                }
                results.push(h.add_hand(&samples().draws[0], Seat(0), 0, None).map(drop));
                if results.iter().any(Result::is_err) {
                    damaged += 1;
                }
            }
        }
    }
    assert!(damaged > 0, "the damage was noticed somewhere");
}

#[test]
fn move_aside_keeps_the_wal_with_its_database_and_never_overwrites() {
    let dir = TempDir::new("aside");
    let path = dir.join("history.db");
    let r = &samples().discard_wins[1];
    let mut h = HistoryStore::open(&path).unwrap();
    let id = h.add_hand(r, Seat(0), 1, None).unwrap();
    // Copy the database with its WAL while open (the hand is only in the WAL).
    let copy = dir.join("copy.db");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::copy(dir.join("history.db-wal"), dir.join("copy.db-wal")).unwrap();
    drop(h);
    let first = HistoryStore::move_aside(&copy).unwrap();
    assert!(
        first
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("copy.db.corrupt-")
    );
    assert!(!copy.exists() && !dir.join("copy.db-wal").exists());
    // The moved database still holds the hand (its WAL moved with it).
    assert_eq!(
        &HistoryStore::open(&first).unwrap().get_record(id).unwrap(),
        r
    );
    std::fs::write(&copy, b"second").unwrap();
    let second = HistoryStore::move_aside(&copy).unwrap();
    assert_ne!(first, second);
    assert_eq!(bytes(&second), b"second");
    assert!(HistoryStore::open(&first).is_ok());
    assert!(matches!(
        HistoryStore::move_aside(&copy),
        Err(HistoryError::Io { .. })
    ));
}

#[test]
fn the_store_can_move_between_threads() {
    let h = std::sync::Mutex::new(HistoryStore::open_in_memory().unwrap());
    std::thread::scope(|s| {
        s.spawn(|| {
            h.lock()
                .unwrap()
                .add_hand(&samples().draws[0], Seat(1), 0, None)
                .unwrap()
        });
    });
    assert_eq!(h.lock().unwrap().count_hands().unwrap(), 1);
}
