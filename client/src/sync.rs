//! The sync engine: the local outbox up, the account's other devices' hands down.
//!
//! It is written against [`SyncTransport`] and core's history only, with no network code, so
//! the FFI can expose it unchanged over any transport. Every step leaves the history
//! consistent, which makes a sync resumable at any point:
//!
//! - upload: a batch of the oldest waiting hands is sent; what the server took (new or
//!   already held) leaves the outbox, what it refused is marked with the server's reason and
//!   not sent again — a refusal never holds up the rest. If the connection is cut before the
//!   answer, the batch is still waiting and is sent again next time; the server keeps each
//!   record once, so nothing is lost and nothing is doubled.
//!   A batch too large for the server is split; a hand too large on its own is refused.
//! - pull: pages since the stored cursor are imported (each hand verified again locally and
//!   deduplicated by record id); the cursor moves only after its page is stored. Statistics
//!   follow by themselves (the history keeps running totals as hands are stored).

use serde::Serialize;
use serde_json::value::RawValue;
use tongcheng_core::history::{HistoryError, HistoryStore};
use tongcheng_core::record::{HandRecord, RecordId};
use tongcheng_core::seat::Seat;

use tongcheng_api::sync::{
    PullItem, PullResponse, UploadItem, UploadRequest, UploadResponse, UploadStatus,
};

use crate::error::ClientError;

/// The two calls a sync needs from the server.
pub trait SyncTransport {
    fn upload(&self, request: &UploadRequest) -> Result<UploadResponse, ClientError>;
    fn pull(&self, cursor: Option<&str>, limit: u32) -> Result<PullResponse, ClientError>;
}

#[derive(Clone, Copy, Debug)]
pub struct SyncOptions {
    /// Hands per upload batch (the server takes at most 100).
    pub batch: u32,
    /// Hands per pull page.
    pub pull_limit: u32,
}

impl Default for SyncOptions {
    fn default() -> SyncOptions {
        SyncOptions {
            batch: 50,
            pull_limit: 200,
        }
    }
}

/// A hand refused, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refused {
    pub id: String,
    pub reason: String,
}

/// What a sync did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    /// Hands the server took as new.
    pub uploaded: u64,
    /// Hands the server already had (sent before, the answer lost).
    pub already: u64,
    /// Hands the server refused in this sync.
    pub rejected: Vec<Refused>,
    /// Hands pulled and newly stored here.
    pub pulled: u64,
    /// Pulled hands this history refused (they do not read or verify here).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pull_refused: Vec<Refused>,
}

/// Uploads the outbox, then pulls. See the module documentation.
pub fn sync(
    store: &mut HistoryStore,
    transport: &impl SyncTransport,
    opts: &SyncOptions,
) -> Result<SyncReport, ClientError> {
    let mut report = SyncReport::default();
    upload(store, transport, opts, &mut report)?;
    pull(store, transport, opts, &mut report)?;
    Ok(report)
}

/// Uploads every waiting hand, a batch at a time.
pub fn upload(
    store: &mut HistoryStore,
    transport: &impl SyncTransport,
    opts: &SyncOptions,
    report: &mut SyncReport,
) -> Result<(), ClientError> {
    let mut batch = opts.batch.max(1);
    loop {
        let pending = store.pending_uploads(batch)?;
        if pending.is_empty() {
            return Ok(());
        }
        let mut request = UploadRequest {
            records: Vec::with_capacity(pending.len()),
        };
        for p in &pending {
            let hand = store.get_hand(p.hand)?;
            request.records.push(UploadItem {
                record: RawValue::from_string(p.record_json.clone())
                    .map_err(|e| ClientError::Protocol(e.to_string()))?,
                seat: hand.seat.0,
                played_at: hand.played_at,
            });
        }
        let resp = match transport.upload(&request) {
            // Too big for the server's body limit: smaller batches, and a hand too big on
            // its own is refused like any other, so it never wedges the outbox.
            Err(ClientError::Server { status: 413, .. }) if batch > 1 => {
                batch = (batch / 2).max(1);
                continue;
            }
            Err(ClientError::Server {
                status: 413,
                code,
                message,
            }) => {
                let reason = format!("{code}: {message}");
                store.mark_rejected(&pending[0].record_id, &reason)?;
                report.rejected.push(Refused {
                    id: pending[0].record_id.to_string(),
                    reason,
                });
                continue;
            }
            r => r?,
        };
        if resp.results.len() != pending.len() {
            return Err(ClientError::Protocol(format!(
                "{} results for {} records",
                resp.results.len(),
                pending.len()
            )));
        }
        let mut taken: Vec<RecordId> = Vec::new();
        let mut refused = 0;
        for (p, r) in pending.iter().zip(resp.results) {
            match r.status {
                UploadStatus::Accepted => {
                    report.uploaded += 1;
                    taken.push(p.record_id.clone());
                }
                UploadStatus::Already => {
                    report.already += 1;
                    taken.push(p.record_id.clone());
                }
                UploadStatus::Rejected => {
                    let reason = r.refusal();
                    if store.mark_rejected(&p.record_id, &reason)? {
                        refused += 1;
                    }
                    report.rejected.push(Refused {
                        id: p.record_id.to_string(),
                        reason,
                    });
                }
            }
        }
        let marked = store.mark_uploaded(&taken)?;
        if marked + refused == 0 {
            // Nothing left the outbox: going on would send the same batch forever.
            return Err(ClientError::Protocol(
                "the server's answer did not match the hands sent".into(),
            ));
        }
    }
}

/// Pulls every page since the stored cursor.
pub fn pull(
    store: &mut HistoryStore,
    transport: &impl SyncTransport,
    opts: &SyncOptions,
    report: &mut SyncReport,
) -> Result<(), ClientError> {
    let mut cursor = store.pull_cursor()?;
    loop {
        let page = transport.pull(cursor.as_deref(), opts.pull_limit.max(1))?;
        for item in &page.records {
            match import(store, item) {
                Ok(true) => report.pulled += 1,
                Ok(false) => {}
                Err(Import::Refused(reason)) => report.pull_refused.push(Refused {
                    id: item.id.clone(),
                    reason,
                }),
                Err(Import::Failed(e)) => return Err(e.into()),
            }
        }
        if cursor.as_deref() == Some(page.cursor.as_str()) && page.more {
            return Err(ClientError::Protocol(
                "the pull cursor does not move".into(),
            ));
        }
        store.set_pull_cursor(Some(&page.cursor))?;
        cursor = Some(page.cursor);
        if !page.more {
            return Ok(());
        }
    }
}

enum Import {
    /// This record cannot be kept here; the others go on.
    Refused(String),
    /// The history failed: stop.
    Failed(HistoryError),
}

/// Stores one pulled hand; whether it was new here.
fn import(store: &mut HistoryStore, item: &PullItem) -> Result<bool, Import> {
    let record =
        HandRecord::from_json(item.record.get()).map_err(|e| Import::Refused(e.to_string()))?;
    if item.seat > 3 {
        return Err(Import::Refused(format!("seat {}", item.seat)));
    }
    let known = store
        .hand_by_record(&record.id)
        .map_err(Import::Failed)?
        .is_some();
    match store.import_synced(&record, Seat(item.seat), item.played_at) {
        Ok(_) => Ok(!known),
        Err(e @ (HistoryError::Unverified { .. } | HistoryError::Invalid(_))) => {
            Err(Import::Refused(e.to_string()))
        }
        Err(e) => Err(Import::Failed(e)),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use tongcheng_core::bot::play_simple_hand;
    use tongcheng_core::game::HandSetup;
    use tongcheng_core::rules::RuleSet;
    use tongcheng_core::seat::Wind;
    use tongcheng_core::wall::Seed;

    use super::*;
    use tongcheng_api::sync::{RejectCode, UploadResult};

    fn hands(n: u64) -> Vec<HandRecord> {
        (0..n)
            .map(|i| {
                let setup = HandSetup {
                    rules: RuleSet::preset("guobiao").unwrap(),
                    seed: Seed::from_u64(50).derive(i),
                    dealer: Seat(0),
                    prevalent: Wind::from_index(0),
                    dealer_level: 0,
                };
                HandRecord::of(&play_simple_hand(setup, i)).unwrap()
            })
            .collect()
    }

    /// A server in memory: refuses batches over `max` with 413 and one record id always;
    /// serves `to_pull` in pages of two.
    struct Fake {
        max: usize,
        refuse: String,
        batches: RefCell<Vec<usize>>,
        to_pull: Vec<HandRecord>,
    }

    impl SyncTransport for Fake {
        fn upload(&self, request: &UploadRequest) -> Result<UploadResponse, ClientError> {
            let items = &request.records;
            self.batches.borrow_mut().push(items.len());
            if items.len() > self.max {
                return Err(ClientError::Server {
                    status: 413,
                    code: "body_too_large".into(),
                    message: "too big".into(),
                });
            }
            let results = items
                .iter()
                .map(|i| {
                    let r = HandRecord::from_json(i.record.get()).unwrap();
                    let id = Some(r.id.to_string());
                    if r.id.as_str() == self.refuse {
                        UploadResult::rejected(id, RejectCode::EventDiffers, "forged")
                    } else {
                        UploadResult {
                            id,
                            status: UploadStatus::Accepted,
                            code: None,
                            reason: None,
                        }
                    }
                })
                .collect();
            Ok(UploadResponse::new(results))
        }

        fn pull(&self, cursor: Option<&str>, _: u32) -> Result<PullResponse, ClientError> {
            let at: usize = cursor.map_or(0, |c| c.parse().unwrap());
            let page = &self.to_pull[at.min(self.to_pull.len())..(at + 2).min(self.to_pull.len())];
            Ok(PullResponse {
                records: page
                    .iter()
                    .map(|r| PullItem {
                        id: r.id.to_string(),
                        record: RawValue::from_string(r.to_json()).unwrap(),
                        seat: 1,
                        played_at: 5,
                        offline: true,
                    })
                    .collect(),
                cursor: (at + page.len()).to_string(),
                more: at + page.len() < self.to_pull.len(),
            })
        }
    }

    #[test]
    fn batches_split_refusals_are_marked_and_pulls_deduplicate() {
        let mine = hands(7);
        let mut store = HistoryStore::open_in_memory().unwrap();
        for (i, r) in mine.iter().enumerate() {
            store.add_hand(r, Seat(0), i as i64, None).unwrap();
        }
        let mut theirs = hands(10)[7..].to_vec();
        theirs.push(theirs[0].clone());
        let fake = Fake {
            max: 2,
            refuse: mine[3].id.to_string(),
            batches: RefCell::new(Vec::new()),
            to_pull: theirs,
        };
        let opts = SyncOptions {
            batch: 8,
            pull_limit: 2,
        };
        let r = sync(&mut store, &fake, &opts).unwrap();
        assert_eq!(r.uploaded, 6);
        assert_eq!(r.rejected.len(), 1);
        assert_eq!(r.rejected[0].reason, "event_differs: forged");
        assert_eq!(r.pulled, 3, "the repeated hand is stored once");
        assert_eq!(*fake.batches.borrow(), [7, 4, 2, 2, 2, 1]);
        assert_eq!(store.count_pending_uploads().unwrap(), 0);
        assert_eq!(store.rejected_uploads(0, 10).unwrap().len(), 1);
        assert_eq!(store.count_hands().unwrap(), 10);
        assert_eq!(store.pull_cursor().unwrap().as_deref(), Some("4"));
        // Again: nothing to send, the pull starts at the cursor.
        assert_eq!(
            sync(&mut store, &fake, &opts).unwrap(),
            SyncReport::default()
        );
    }
}
