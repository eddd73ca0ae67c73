//! The history as the game uses it: a whole match played by bots, stored hand by hand into a
//! file, then read back through the public API only.

use std::path::PathBuf;

use tongcheng_core::bot::{Bot, SimplePlayer};
use tongcheng_core::game::Match;
use tongcheng_core::history::{HandId, HistoryError, HistoryStore, SCHEMA_VERSION};
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::Seat;
use tongcheng_core::wall::Seed;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p =
            std::env::temp_dir().join(format!("tongcheng-history-{tag}-{}", std::process::id()));
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

/// Plays a whole match, storing every hand from player 0's side; returns the match's final
/// scores and the stored ids with their records.
fn play_match(h: &mut HistoryStore, seed: u64, t0: i64) -> ([i32; 4], Vec<(HandId, HandRecord)>) {
    let rules = RuleSet::guobiao();
    let mut m = Match::new(rules.clone(), Seed::from_u64(seed));
    let id = h.start_match(&rules.name, m.seating()[0], t0).unwrap();
    let mut players: [SimplePlayer; 4] =
        std::array::from_fn(|i| SimplePlayer::new(seed * 4 + i as u64));
    let mut stored = Vec::new();
    let mut t = t0;
    loop {
        while !m.game().is_finished() {
            for s in m.game().pending_seats() {
                let view = m.game().view(s);
                let a = players[m.player_at(s)].choose(&view);
                m.apply(s, a).unwrap();
            }
        }
        t += 300;
        let record = HandRecord::of(m.game()).unwrap();
        let hand = h.add_hand(&record, m.seating()[0], t, Some(id)).unwrap();
        stored.push((hand, record));
        if !m.next_hand() {
            break;
        }
    }
    h.finish_match(id, m.scores(), t + 1).unwrap();
    (m.scores(), stored)
}

#[test]
fn a_whole_match_is_stored_and_reads_back() {
    let dir = TempDir::new("match");
    let path = dir.0.join("history.db");
    let (scores, stored) = {
        let mut h = HistoryStore::open(&path).unwrap();
        play_match(&mut h, 7, 1_750_000_000)
    };
    let h = HistoryStore::open(&path).unwrap();
    assert_eq!(h.schema_version().unwrap(), SCHEMA_VERSION);
    let matches = h.list_matches(0, 10).unwrap();
    assert_eq!(matches.len(), 1);
    let m = &matches[0];
    assert_eq!(m.final_scores, Some(scores));
    assert_eq!(m.hands as usize, stored.len());
    // Player 0 sits in seat 0 all match long (no seat rotation in guobiao): their points over
    // the hands are their final score.
    assert_eq!(m.points, scores[0] as i64);
    let listed = h.list_hands(0, 100).unwrap();
    assert_eq!(listed.len(), stored.len());
    // Newest first: the last hand played comes first.
    assert_eq!(listed[0].id, stored.last().unwrap().0);
    for (id, record) in &stored {
        assert_eq!(&h.get_record(*id).unwrap(), record);
        let game = h.replay(*id).unwrap();
        assert_eq!(game.result(), Some(&record.result));
        let e = h.get_hand(*id).unwrap();
        assert_eq!(e.points, record.result.deltas[0]);
        assert_eq!(e.match_id, Some(m.id));
    }
    let st = h.stats().unwrap();
    assert_eq!(st.hands as usize, stored.len());
    assert_eq!(st.total_points, scores[0] as i64);
    let wins = stored
        .iter()
        .filter(|(_, r)| r.result.winner == Some(Seat(0)))
        .count();
    assert_eq!(st.wins as usize, wins);
    assert!(matches!(
        h.get_record(HandId(10_000)),
        Err(HistoryError::NotFound { .. })
    ));
}
