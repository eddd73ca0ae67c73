//! Where a match is kept: finished hands in the history database, and an unfinished match in
//! a small JSON file next to it (`<db>.unfinished.json`) until it is resumed or discarded.

use std::path::{Path, PathBuf};

use tongcheng_core::clock::unix_secs;
use tongcheng_core::history::{HandId, HistoryStore, MatchId};
use tongcheng_core::record::HandRecord;
use tongcheng_core::seat::Seat;

use super::table::{HUMAN, Table, Unfinished};

/// `<db>.unfinished.json`, beside the database.
pub fn unfinished_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_os_string();
    s.push(".unfinished.json");
    PathBuf::from(s)
}

/// The history database, and the match row this session's hands go to (created with the
/// first saved hand, so a match quit before any hand ends leaves no empty row).
pub struct Store {
    db: HistoryStore,
    path: PathBuf,
    match_id: Option<MatchId>,
}

impl Store {
    /// Opens (creating the directory and file if needed) the history at `path`.
    pub fn open(path: &Path) -> Result<Store, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let db = HistoryStore::open(path).map_err(|e| e.to_string())?;
        Ok(Store {
            db,
            path: path.to_path_buf(),
            match_id: None,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn match_id(&self) -> Option<i64> {
        self.match_id.map(|m| m.0)
    }

    /// Carries on a resumed match's row, if it is still there and unfinished; otherwise the
    /// next saved hand starts a new one.
    pub fn adopt_match(&mut self, id: Option<i64>) {
        self.match_id = id
            .map(MatchId)
            .filter(|&m| self.db.get_match(m).is_ok_and(|e| e.finished_at.is_none()));
    }

    /// Saves the finished hand of `t` under the match.
    pub fn save_hand(&mut self, t: &Table) -> Result<HandId, String> {
        let record = HandRecord::of(t.game()).ok_or("the hand is not over yet")?;
        let now = unix_secs();
        let m = match self.match_id {
            Some(m) => m,
            None => {
                let m = self
                    .db
                    .start_match(&t.rules().name, Seat(HUMAN as u8), now)
                    .map_err(|e| e.to_string())?;
                self.match_id = Some(m);
                m
            }
        };
        self.db
            .add_hand(&record, t.human_seat(), now, Some(m))
            .map_err(|e| e.to_string())
    }

    /// Marks the match finished with the final scores.
    pub fn finish_match(&mut self, t: &Table) -> Result<(), String> {
        let Some(m) = self.match_id else {
            return Ok(());
        };
        self.db
            .finish_match(m, t.match_state().scores(), unix_secs())
            .map_err(|e| e.to_string())
    }
}

/// Reads a saved unfinished match: `Ok(None)` when there is none.
pub fn load_unfinished(path: &Path) -> Result<Option<Unfinished>, String> {
    match std::fs::read_to_string(path) {
        Ok(s) => Unfinished::from_json(&s)
            .map(Some)
            .map_err(|e| format!("{} cannot be read as a saved match: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Writes the unfinished match through a temporary file and a rename, so a crash mid-write
/// never leaves half a file where a saved match was.
pub fn save_unfinished(path: &Path, u: &Unfinished) -> Result<(), String> {
    let json = serde_json::to_string(u).map_err(|e| e.to_string())?;
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, json).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Deletes the saved unfinished match (resumed or discarded).
pub fn remove_unfinished(path: &Path) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}

/// The kept match: the save file `<db>.unfinished.json` and whether it holds the match being
/// played. It is written after every finished hand and on quit or a hang-up, so closing the
/// game in any way loses at most the hand in play; another match's save is never overwritten.
#[derive(Debug)]
pub struct KeptMatch {
    path: PathBuf,
    ours: bool,
}

/// What [`KeptMatch::keep`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// Written: the match continues from here with `--resume`.
    Saved,
    /// Nothing played yet: nothing written.
    NothingToSave,
    /// Another match's save is there and was left as it is.
    OtherMatchThere,
    /// The match is over: its save (if it was ours) is gone.
    Closed,
}

impl KeptMatch {
    pub fn new(path: PathBuf) -> KeptMatch {
        KeptMatch { path, ours: false }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The match being played was resumed from this file: it is ours to rewrite.
    pub fn adopt(&mut self) {
        self.ours = true;
    }

    /// Brings the save up to date with `t` (the history's match row `match_id`).
    pub fn keep(&mut self, t: &Table, match_id: Option<i64>) -> Result<Kept, String> {
        if t.is_over() {
            if self.ours {
                remove_unfinished(&self.path)?;
                self.ours = false;
            }
            return Ok(Kept::Closed);
        }
        let u = t.unfinished(match_id);
        if u.hands().iter().all(Vec::is_empty) {
            return Ok(Kept::NothingToSave);
        }
        if !self.ours && self.path.exists() {
            return Ok(Kept::OtherMatchThere);
        }
        save_unfinished(&self.path, &u)?;
        self.ours = true;
        Ok(Kept::Saved)
    }
}

/// One line about a saved match: its seed, level and how far it got.
pub fn describe_unfinished(u: &Unfinished) -> String {
    let moves = u.hands().last().map_or(0, Vec::len);
    format!(
        "{} rules, seed {}, {} bots, stopped {} moves into hand {}",
        u.rules().name,
        u.seed(),
        u.level().map_or("no", |l| l.name()),
        moves,
        u.hands().len().max(1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unfinished_match_sits_beside_the_database() {
        assert_eq!(
            unfinished_path(Path::new("/a/h.db")),
            PathBuf::from("/a/h.db.unfinished.json")
        );
    }

    #[test]
    fn the_kept_match_is_rewritten_only_when_it_is_ours() {
        use crate::play::table::{Step, Table};
        use tongcheng_core::bot::Level;
        use tongcheng_core::rules::RuleSet;
        let dir = std::env::temp_dir().join(format!("tongcheng-kept-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h.db.unfinished.json");
        let mut t = Table::new(RuleSet::guobiao(), 7, Level::Easy);
        let mut kept = KeptMatch::new(path.clone());
        assert_eq!(kept.keep(&t, None), Ok(Kept::NothingToSave));
        assert!(!path.exists());
        loop {
            if let Step::Human(d) = t.advance(0).unwrap() {
                t.apply_human(d.on_timeout, 0).unwrap();
                break;
            }
        }
        assert_eq!(kept.keep(&t, Some(4)), Ok(Kept::Saved));
        assert_eq!(load_unfinished(&path).unwrap(), Some(t.unfinished(Some(4))));
        // Another session's match finds the file taken and leaves it.
        let other = KeptMatch::new(path.clone()).keep(&t, None);
        assert_eq!(other, Ok(Kept::OtherMatchThere));
        // Resumed from it, the file is ours again.
        let mut resumed = KeptMatch::new(path.clone());
        resumed.adopt();
        assert_eq!(resumed.keep(&t, Some(4)), Ok(Kept::Saved));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
