//! 同步 for a face whose history is a [`Shelf`] (the browser): the model's [`Effect::Sync`]
//! performed as requests the face sends like any other, so the page needs no sync code of
//! its own. The same steps as the phones' sync engine over their database: the hands
//! waiting go up a batch at a time (what the server took or held leaves the outbox, what it
//! refused is marked with its reason and never sent again, a batch too large is halved),
//! then the pages since the shelf's cursor come down, each hand replayed here before it is
//! kept and none kept twice. Every step leaves the shelf consistent, so a sync cut off
//! anywhere is taken up by the next.

use tongcheng_api::endpoints;
use tongcheng_api::sync::{PullResponse, UploadResponse, UploadStatus};
use tongcheng_core::record::{HandRecord, replay};

use crate::hands::{KeptHand, Shelf};
use crate::online::{Answer, read, request};
use crate::sync::SyncDone;
use crate::{Effect, Event};

/// Request ids of the sync start here: far above the model's own, below JavaScript's 2^53.
pub const SYNC_REQUESTS: u64 = 1 << 50;
/// Hands per upload (the server takes at most 100).
const BATCH: usize = 50;
/// Hands per pulled page.
const PULL_LIMIT: u32 = 200;

#[derive(Debug)]
enum Stage {
    /// The shelf's hands (by index) in the batch sent.
    Upload(Vec<usize>),
    Pull,
}

/// One sync in progress.
#[derive(Debug)]
pub struct ShelfSync {
    token: String,
    request: u64,
    stage: Stage,
    batch: usize,
    done: SyncDone,
}

/// What the face does next: send a request, or give the model its answer.
#[derive(Debug, PartialEq)]
pub enum SyncStep {
    Send(Effect),
    Finished(Event),
}

impl ShelfSync {
    /// A sync of `shelf` as the session `token`: its first request.
    pub fn start(shelf: &Shelf, token: String) -> (ShelfSync, SyncStep) {
        let mut s = ShelfSync {
            token,
            request: SYNC_REQUESTS,
            stage: Stage::Pull,
            batch: BATCH,
            done: SyncDone::default(),
        };
        let step = s.next_upload(shelf);
        (s, step)
    }

    /// Whether the answer `id` is this sync's.
    pub fn owns(&self, id: u64) -> bool {
        id == self.request
    }

    /// The answer to this sync's request: the shelf updated, and the next step.
    pub fn answer(&mut self, shelf: &mut Shelf, status: u16, body: serde_json::Value) -> SyncStep {
        match std::mem::replace(&mut self.stage, Stage::Pull) {
            Stage::Upload(sent) => self.uploaded(shelf, sent, status, body),
            Stage::Pull => self.pulled(shelf, status, body),
        }
    }

    fn next_upload(&mut self, shelf: &Shelf) -> SyncStep {
        let sent: Vec<usize> = shelf
            .hands()
            .iter()
            .enumerate()
            .filter(|(_, h)| !h.uploaded && h.refused.is_none())
            .map(|(i, _)| i)
            .take(self.batch)
            .collect();
        if sent.is_empty() {
            return self.next_pull(shelf);
        }
        let records: Vec<serde_json::Value> = sent
            .iter()
            .map(|&i| {
                let h = &shelf.hands()[i];
                serde_json::json!({
                    "record": h.record,
                    "seat": h.seat,
                    "played_at": h.played_at,
                })
            })
            .collect();
        let body = serde_json::json!({ "records": records });
        self.stage = Stage::Upload(sent);
        self.send(request::<endpoints::Upload>(
            0,
            &Default::default(),
            "",
            Some(&self.token),
            Some(body),
        ))
    }

    fn next_pull(&mut self, shelf: &Shelf) -> SyncStep {
        let mut query = format!("?limit={PULL_LIMIT}");
        if let Some(c) = &shelf.cursor {
            query.push_str("&cursor=");
            query.push_str(&encode(c));
        }
        self.stage = Stage::Pull;
        self.send(request::<endpoints::Pull>(
            0,
            &Default::default(),
            &query,
            Some(&self.token),
            None,
        ))
    }

    /// A request under the next id of this sync.
    fn send(&mut self, mut effect: Effect) -> SyncStep {
        self.request += 1;
        if let Effect::Request { id, .. } = &mut effect {
            *id = self.request;
        }
        SyncStep::Send(effect)
    }

    fn uploaded(
        &mut self,
        shelf: &mut Shelf,
        sent: Vec<usize>,
        status: u16,
        body: serde_json::Value,
    ) -> SyncStep {
        // Too big for the server's body limit: smaller batches, and a hand too big on its own
        // is refused like any other, so it never wedges the outbox.
        if status == 413 {
            if sent.len() > 1 {
                self.batch = (sent.len() / 2).max(1);
            } else if let Some(h) = sent.first().and_then(|&i| shelf.hands_mut().get_mut(i)) {
                h.refused = Some("too_large: the hand is larger than the server takes".into());
            }
            return self.next_upload(shelf);
        }
        let resp = match read::<UploadResponse>(status, body) {
            Answer::Ok(r) if r.results.len() == sent.len() => r,
            Answer::Ok(r) => {
                return self.failed(format!(
                    "{} results for {} hands",
                    r.results.len(),
                    sent.len()
                ));
            }
            Answer::Refused(e) => return self.failed(e.error.message),
            Answer::Unreachable => return self.failed(String::new()),
        };
        for (&i, r) in sent.iter().zip(resp.results) {
            let Some(h) = shelf.hands_mut().get_mut(i) else {
                continue;
            };
            match r.status {
                UploadStatus::Accepted => {
                    self.done.uploaded += 1;
                    h.uploaded = true;
                }
                UploadStatus::Already => {
                    self.done.already += 1;
                    h.uploaded = true;
                }
                UploadStatus::Rejected => h.refused = Some(r.refusal()),
            }
        }
        self.next_upload(shelf)
    }

    fn pulled(&mut self, shelf: &mut Shelf, status: u16, body: serde_json::Value) -> SyncStep {
        let page = match read::<PullResponse>(status, body) {
            Answer::Ok(p) => p,
            Answer::Refused(e) => return self.failed(e.error.message),
            Answer::Unreachable => return self.failed(String::new()),
        };
        for item in &page.records {
            // A hand that does not read or replay here is left on the server.
            let Ok(record) = HandRecord::from_json(item.record.get()) else {
                continue;
            };
            let known = shelf.hands().iter().any(|h| h.record.id == record.id);
            if known || item.seat > 3 || replay(&record).is_err() {
                continue;
            }
            let id = shelf.hands().iter().map(|h| h.id).max().unwrap_or(0) + 1;
            shelf.push(KeptHand {
                id,
                played_at: item.played_at,
                seat: item.seat,
                record,
                uploaded: true,
                refused: None,
            });
            self.done.pulled += 1;
        }
        let stuck = shelf.cursor.as_deref() == Some(page.cursor.as_str()) && page.more;
        shelf.cursor = Some(page.cursor);
        if stuck {
            return self.failed("the pull cursor does not move".into());
        }
        if page.more {
            return self.next_pull(shelf);
        }
        SyncStep::Finished(Event::Synced {
            done: Some(std::mem::take(&mut self.done)),
            error: None,
        })
    }

    fn failed(&mut self, why: String) -> SyncStep {
        SyncStep::Finished(Event::Synced {
            done: None,
            error: Some(why),
        })
    }
}

/// A query value, percent-encoded beyond the characters that never need it.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
