//! Matchmaking on the phone's side: the queue's long poll (cancellable), and the checks made
//! before a room request leaves the phone.
//!
//! `POST /v1/queue` answers only once the server has seated the player, which can take a
//! minute or more; a player must be able to give up meanwhile. A blocking request cannot be
//! abandoned (its connection would stay open and the server would keep the place, then seat
//! somebody who never comes), so the wait runs as an async request on a small tokio runtime
//! in its own thread, and cancelling drops that request: the connection closes and the server
//! takes the player out of the queue at its next run.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tongcheng_core::bot::Level;

use tongcheng_api::play::{RoomCode, RoomSettings, Seated, is_room_code};

use crate::error::ClientError;
use crate::http_async::AsyncHttpApi;
use crate::http_call::HttpOptions;
use crate::locks::{CondvarExt, LockExt};

/// The longest a queue request is held open. The server always answers sooner (bots take the
/// empty seats after its configured wait, and it gives up 30 s after that), so this only
/// guards against a server or proxy that never answers.
pub const QUEUE_POLL_LIMIT: Duration = Duration::from_secs(300);

/// A room code is exactly six ASCII digits; anything else is refused before it is sent (it
/// goes into the request's path).
pub fn check_room_code(code: &str) -> Result<RoomCode, ClientError> {
    if is_room_code(code) {
        Ok(RoomCode { code: code.into() })
    } else {
        Err(ClientError::InvalidInput(format!(
            "a room code is 6 digits, not '{}'",
            code.chars().take(20).collect::<String>()
        )))
    }
}

/// Room settings within the contract's bounds, each bot level one the core knows; bad ones
/// are refused before they are sent.
pub fn check_room(settings: &RoomSettings) -> Result<(), ClientError> {
    settings
        .check::<Level>()
        .map(drop)
        .map_err(ClientError::InvalidInput)
}

enum Outcome {
    Waiting,
    Done(Result<Seated, ClientError>),
    /// The outcome was handed to the caller.
    Taken,
}

struct Shared {
    outcome: Mutex<Outcome>,
    ended: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Outcome> {
        self.outcome.locked()
    }

    /// Records the end of the wait unless it already ended (a cancel wins over a late answer).
    fn end(&self, result: Result<Seated, ClientError>) {
        let mut o = self.lock();
        if matches!(*o, Outcome::Waiting) {
            *o = Outcome::Done(result);
        }
        self.ended.notify_all();
    }
}

/// A place in a matchmaking queue, waiting for a table. Thread-safe: one thread may wait
/// while another cancels. Dropping it cancels a wait still under way.
pub struct QueueWait {
    shared: Arc<Shared>,
    cancel: Mutex<Option<oneshot::Sender<()>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    started: Instant,
}

impl std::fmt::Debug for QueueWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueWait")
            .field("waited", &self.started.elapsed())
            .field("finished", &self.is_finished())
            .finish()
    }
}

impl QueueWait {
    /// Sends the queue request for `rules` (a preset; the server's default when `None`),
    /// ranked or casual, to the server at `base` with the session `token`.
    pub(crate) fn start(
        base: &str,
        token: Option<String>,
        rules: Option<&str>,
        ranked: bool,
    ) -> Result<QueueWait, ClientError> {
        let mut api = AsyncHttpApi::new(base, HttpOptions::default())?;
        api.set_token(token);
        let rules = rules.map(str::to_string);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClientError::Network(format!("cannot start the queue's runtime: {e}")))?;
        let shared = Arc::new(Shared {
            outcome: Mutex::new(Outcome::Waiting),
            ended: Condvar::new(),
        });
        let (cancel, cancelled) = oneshot::channel::<()>();
        let mine = shared.clone();
        let worker = std::thread::Builder::new()
            .name("tongcheng-queue".into())
            .spawn(move || {
                let ask = api.queue(rules.as_deref(), ranked);
                let result = rt.block_on(async {
                    tokio::select! {
                        r = ask => Some(r),
                        // Cancelled, or the wait dropped: the request is dropped with its
                        // connection.
                        _ = cancelled => None,
                    }
                });
                // Without waiting for a name lookup still under way on the blocking pool.
                rt.shutdown_background();
                mine.end(result.unwrap_or(Err(ClientError::Cancelled)));
            })
            .map_err(|e| ClientError::Network(format!("cannot start the queue's thread: {e}")))?;
        Ok(QueueWait {
            shared,
            cancel: Mutex::new(Some(cancel)),
            worker: Mutex::new(Some(worker)),
            started: Instant::now(),
        })
    }

    /// Waits up to `timeout` for the wait to end. `Some` once, with the table or why there
    /// is none (`Cancelled` after [`QueueWait::cancel`]); `None` while still waiting, and
    /// after the outcome was handed over.
    pub fn wait(&self, timeout: Duration) -> Option<Result<Seated, ClientError>> {
        let until = Instant::now() + timeout;
        let mut o = self.shared.lock();
        while matches!(*o, Outcome::Waiting) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            o = self.shared.ended.wait_at_most(o, left);
        }
        match std::mem::replace(&mut *o, Outcome::Taken) {
            Outcome::Done(r) => Some(r),
            Outcome::Waiting | Outcome::Taken => None,
        }
    }

    /// Gives up the place: the request is dropped, which closes its connection, and the
    /// server takes the player out of the queue. True when the wait was still under way;
    /// false when it had already ended (its outcome, maybe a table, is still in `wait`).
    pub fn cancel(&self) -> bool {
        let was_waiting = {
            let mut o = self.shared.lock();
            let waiting = matches!(*o, Outcome::Waiting);
            if waiting {
                *o = Outcome::Done(Err(ClientError::Cancelled));
            }
            waiting
        };
        if let Some(tx) = self.cancel.locked().take() {
            let _ = tx.send(());
        }
        self.shared.ended.notify_all();
        was_waiting
    }

    /// How long this player has been waiting (since the request was sent).
    pub fn waited(&self) -> Duration {
        self.started.elapsed()
    }

    /// The wait ended (seated, failed or cancelled).
    pub fn is_finished(&self) -> bool {
        !matches!(*self.shared.lock(), Outcome::Waiting)
    }
}

impl Drop for QueueWait {
    fn drop(&mut self) {
        self.cancel();
        let worker = self.worker.locked().take();
        if let Some(w) = worker {
            // Quick: cancelling drops the request at once.
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_codes_are_six_digits() {
        assert_eq!(check_room_code("012345").unwrap().code, "012345");
        for bad in [
            "12345",
            "1234567",
            "12a456",
            "",
            "../../",
            "１２３４５６",
            " 12345",
        ] {
            let e = check_room_code(bad).unwrap_err();
            assert!(matches!(e, ClientError::InvalidInput(_)), "{bad}: {e}");
        }
    }

    #[test]
    fn room_settings_are_checked_before_sending() {
        let room = |people, bots: &[&str]| RoomSettings {
            people,
            bots: bots.iter().map(|b| b.to_string()).collect(),
            ..RoomSettings::default()
        };
        assert!(check_room(&room(4, &[])).is_ok());
        assert!(check_room(&room(2, &["easy", "hard"])).is_ok());
        // The core's levels, not only the contract's bounds.
        for s in [room(5, &[]), room(3, &["godlike"])] {
            assert!(
                matches!(check_room(&s), Err(ClientError::InvalidInput(_))),
                "{s:?}"
            );
        }
    }
}
