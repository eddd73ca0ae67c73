//! A history written by the previous release (schema v3, records in format v1: one guobiao
//! match of 16 hands and one hangzhou match of 20) opens in this build: upgraded to v4, every
//! record replays, record ids are set, statistics are kept per rule set, fan names are those
//! of the right scorer, and every hand waits in the outbox.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tongcheng_core::game::Scorer;
use tongcheng_core::history::{HandId, HistoryStore, SCHEMA_VERSION};
use tongcheng_core::record::{HandRecord, RecordId};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/history-v3.sqlite"
);

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "tongcheng-history-fixture-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_fixture(dir: &Path) -> PathBuf {
    let path = dir.join("history.db");
    std::fs::copy(FIXTURE, &path).unwrap();
    path
}

#[test]
fn the_previous_release_history_upgrades_to_v4() {
    let dir = TempDir::new("upgrade");
    let path = copy_fixture(&dir.0);
    let h = HistoryStore::open(&path).unwrap();
    assert_eq!(h.schema_version().unwrap(), SCHEMA_VERSION);
    h.check_integrity().unwrap();
    let hands = h.list_hands(0, 1000).unwrap();
    assert_eq!(hands.len(), 36);

    // Every record reads (upgraded from v1), replays, and carries its id.
    let mut ids = HashSet::new();
    for e in &hands {
        let record = h.get_record(e.id).unwrap();
        h.replay(e.id)
            .unwrap_or_else(|err| panic!("hand {}: {err}", e.id.0));
        let id = e.record_id.clone().expect("a record id");
        assert_eq!(id, record.id);
        assert_eq!(id, RecordId::of(&record.setup, &record.actions));
        assert!(ids.insert(id), "record ids are unique");
        assert_eq!(h.hand_by_record(&record.id).unwrap(), Some(e.id));
    }

    // Statistics per rule set.
    let mut rules = h.rules_played().unwrap();
    rules.sort();
    assert_eq!(rules, ["guobiao", "hangzhou"]);
    let guobiao = h.stats_for(Some("guobiao")).unwrap();
    let hangzhou = h.stats_for(Some("hangzhou")).unwrap();
    let all = h.stats().unwrap();
    assert_eq!((guobiao.hands, hangzhou.hands, all.hands), (16, 20, 36));
    assert_eq!(guobiao.scorer, Some(Scorer::Mcr));
    assert_eq!(hangzhou.scorer, Some(Scorer::Hangzhou));
    assert_eq!(guobiao.draws + hangzhou.draws, all.draws);
    assert_eq!(
        guobiao.total_points + hangzhou.total_points,
        all.total_points
    );
    for (name, st) in [("guobiao", &guobiao), ("hangzhou", &hangzhou)] {
        let points: i64 = hands
            .iter()
            .filter(|e| e.rules == name)
            .map(|e| i64::from(e.points))
            .sum();
        assert_eq!(st.total_points, points, "{name}");
        assert!(st.top_fans.iter().all(|f| Some(f.scorer) == st.scorer));
    }
    // The whole history mixes scorers: no fan figures that would add them up.
    assert_eq!(all.scorer, None);
    assert!(all.top_fans.is_empty() && all.biggest.is_none() && all.average_win_fan.is_none());

    // Fans by stable key, named from the right scorer's table.
    let mut hangzhou_wins = 0;
    for e in hands.iter().filter(|e| e.winner.is_some()) {
        let record: HandRecord = h.get_record(e.id).unwrap();
        let score = record.result.score.as_ref().unwrap();
        let mut expected: Vec<(Scorer, u8, String)> = score
            .fans
            .iter()
            .map(|f| (f.scorer, f.id, f.name().to_string()))
            .collect();
        let mut got: Vec<(Scorer, u8, String)> = e
            .fans
            .iter()
            .map(|f| (f.scorer, f.id, f.name.clone()))
            .collect();
        expected.sort();
        expected.dedup();
        got.sort();
        assert_eq!(got, expected, "hand {}", e.id.0);
        let scorer = if e.rules == "hangzhou" {
            Scorer::Hangzhou
        } else {
            Scorer::Mcr
        };
        assert!(e.fans.iter().all(|f| f.scorer == scorer), "{e:?}");
        if scorer == Scorer::Hangzhou {
            hangzhou_wins += 1;
            for f in &e.fans {
                assert_ne!(f.name, "大四喜", "hand {}: {f:?}", e.id.0);
                assert_eq!(
                    Some((f.name.as_str(), f.en.as_str())),
                    Scorer::Hangzhou.fan_names(f.id)
                );
            }
        }
    }
    assert!(hangzhou_wins > 0);
    // A plain Hangzhou win reads 平胡 (id 1), where the old rows said 大四喜 or nothing.
    assert!(
        hands
            .iter()
            .filter(|e| e.rules == "hangzhou")
            .flat_map(|e| &e.fans)
            .any(|f| f.id == 1 && f.name == "平胡"),
        "a Hangzhou 平胡"
    );

    // Never uploaded: all 36 wait in the outbox, as v2 records with their ids.
    assert_eq!(h.count_pending_uploads().unwrap(), 36);
    let pending = h.pending_uploads(100).unwrap();
    assert_eq!(pending.len(), 36);
    for p in &pending {
        let r = HandRecord::from_json(&p.record_json).unwrap();
        assert_eq!((r.version, &r.id), (2, &p.record_id));
        assert!(
            p.record_json
                .contains(&format!("\"id\":\"{}\"", p.record_id))
        );
    }
    assert!(h.rejected_uploads(0, 10).unwrap().is_empty());
    assert_eq!(h.pull_cursor().unwrap(), None);
    let first: Vec<HandId> = h
        .pending_uploads(5)
        .unwrap()
        .iter()
        .map(|p| p.hand)
        .collect();
    assert_eq!(
        first,
        pending[..5].iter().map(|p| p.hand).collect::<Vec<_>>()
    );
}

#[test]
fn the_upgraded_history_takes_new_hands_and_opens_again() {
    let dir = TempDir::new("reopen");
    let path = copy_fixture(&dir.0);
    let before = {
        let h = HistoryStore::open(&path).unwrap();
        (
            h.stats_for(Some("guobiao")).unwrap(),
            h.list_hands(0, 100).unwrap(),
        )
    };
    let h = HistoryStore::open(&path).unwrap();
    assert_eq!(h.stats_for(Some("guobiao")).unwrap(), before.0);
    assert_eq!(h.list_hands(0, 100).unwrap(), before.1);
    // A hand already in the history, stored again from the sync, changes nothing.
    let mut h = h;
    let e = &before.1[0];
    let record = h.get_record(e.id).unwrap();
    assert_eq!(h.import_synced(&record, e.seat, 0).unwrap(), e.id);
    assert_eq!(h.count_hands().unwrap(), 36);
    assert_eq!(h.count_pending_uploads().unwrap(), 36);
}
