//! The model's thread: one loop owns the `App`, feeds it events (the shell's taps, its own
//! clock, network answers, frames) one at a time, performs the effects it gives back and
//! hands each new screen to the shell. Requests and sockets run as tasks on the same small
//! runtime and come back as events; nothing else touches the model.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tongcheng_app::{App, Effect, Event, SyncDone, View};
use tongcheng_client::online::socket_url;
use tongcheng_client::seat_async::connect;
use tongcheng_client::{HttpApi, SyncOptions};
use tongcheng_client::{Identity, LockExt};
use tongcheng_core::history::HistoryStore;

use super::store::Files;
use super::{AppConfig, AppShell};
use crate::TongchengError;

/// A long poll (the queue, a tournament's seat) answers within 25 s: wait a little longer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(40);

pub(super) enum Input {
    Event(Event),
    /// A socket's loss: the model's clock is brought up to now first (its wait before
    /// reconnecting counts from the loss).
    SocketLost(u64),
    Stop,
}

pub(super) struct Driver {
    app: App,
    files: Files,
    identity: Identity,
    shell: Arc<dyn AppShell>,
    server: Option<String>,
    http: reqwest::Client,
    /// Where tasks send their answers.
    inputs: mpsc::UnboundedSender<Input>,
    /// Each open socket's outgoing frames.
    sockets: HashMap<u64, mpsc::UnboundedSender<String>>,
    started: std::time::Instant,
    /// The model's next wake-up, on its clock.
    wake_ms: Option<u64>,
    latest: Arc<Mutex<View>>,
}

impl Driver {
    pub(super) fn new(
        config: &AppConfig,
        files: Files,
        identity: Identity,
        shell: Arc<dyn AppShell>,
        inputs: mpsc::UnboundedSender<Input>,
    ) -> Result<Driver, TongchengError> {
        let seed = {
            let mut b = [0u8; 8];
            getrandom::getrandom(&mut b).map_err(|e| TongchengError::Storage {
                detail: format!("no randomness for the walls: {e}"),
            })?;
            u64::from_le_bytes(b)
        };
        let kept = files.kept_match();
        let mut app = App::new(files.settings(), kept.as_deref(), seed, 0);
        app.set_utc_offset(config.utc_offset_min);
        if files.set_aside.is_some() {
            app.history_set_aside();
        }
        if config.server.is_some() {
            app.enable_sync();
        }
        if let Some(ms) = config.pace_ms {
            app.set_pace_ms(u64::from(ms));
        }
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| TongchengError::Network {
                detail: format!("no HTTP client: {e}"),
            })?;
        let view = app.view();
        Ok(Driver {
            app,
            files,
            identity,
            shell,
            server: config
                .server
                .as_ref()
                .map(|s| s.trim_end_matches('/').to_string()),
            http,
            inputs,
            sockets: HashMap::new(),
            started: std::time::Instant::now(),
            wake_ms: None,
            latest: Arc::new(Mutex::new(view)),
        })
    }

    pub(super) fn latest(&self) -> Arc<Mutex<View>> {
        self.latest.clone()
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Runs until [`Input::Stop`] or the model is dropped; the sockets close with it.
    pub(super) fn run(mut self, mut rx: mpsc::UnboundedReceiver<Input>) {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(r) => r,
            Err(e) => {
                eprintln!("tongcheng: the app's runtime did not start: {e}");
                return;
            }
        };
        runtime.block_on(async {
            self.shell.draw(self.app.view());
            loop {
                let deadline = self.next_deadline();
                let input = tokio::select! {
                    input = rx.recv() => input,
                    () = sleep_until(deadline) => {
                        let now_ms = self.now_ms();
                        if self.wake_ms.is_some_and(|w| w <= now_ms) {
                            self.wake_ms = None;
                        }
                        Some(Input::Event(Event::Tick { now_ms }))
                    }
                };
                match input {
                    None | Some(Input::Stop) => break,
                    Some(Input::Event(e)) => self.handle(e),
                    Some(Input::SocketLost(id)) => {
                        self.sockets.remove(&id);
                        self.handle(Event::Tick {
                            now_ms: self.now_ms(),
                        });
                        self.handle(Event::SocketClosed { id });
                    }
                }
            }
        });
    }

    /// The model's wake-up, or the next second while a countdown is shown (it redraws).
    fn next_deadline(&self) -> Option<Instant> {
        let countdown = match &*self.latest.locked() {
            View::Table(t) if t.countdown_secs.is_some() => Some(self.now_ms() + 1000),
            _ => None,
        };
        let at = match (self.wake_ms, countdown) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }?;
        Some(Instant::from_std(self.started) + Duration::from_millis(at))
    }

    /// One event and everything it leads to (answers from the store go straight back in);
    /// the screen drawn again when it changed.
    fn handle(&mut self, event: Event) {
        let mut queue = VecDeque::from([event]);
        while let Some(e) = queue.pop_front() {
            for fx in self.app.update(e) {
                if let Some(answer) = self.perform(fx) {
                    queue.push_back(answer);
                }
            }
        }
        let view = self.app.view();
        let changed = {
            let mut latest = self.latest.locked();
            let changed = *latest != view;
            if changed {
                *latest = view.clone();
            }
            changed
        };
        if changed {
            self.shell.draw(view);
        }
    }

    /// Performs one effect; an answer that is ready at once comes back to be fed in.
    fn perform(&mut self, fx: Effect) -> Option<Event> {
        match self.files.keep(&fx) {
            Ok(true) => return None,
            Ok(false) => {}
            Err(e) => {
                // Not kept this time; the app goes on (the next keep writes it whole again).
                eprintln!("tongcheng: could not keep: {e}");
                return None;
            }
        }
        if let Some(answer) = self.files.answer(&fx) {
            return Some(answer);
        }
        match fx {
            Effect::Sound { sound } => {
                self.shell.play_sound(sound);
                None
            }
            Effect::WakeAt { now_ms } => {
                self.wake_ms = Some(now_ms);
                None
            }
            Effect::LoadKey => Some(Event::KeyLoaded {
                public_key: Some(self.identity.public_hex()),
            }),
            Effect::Sign { message } => Some(Event::Signed {
                signature: self.identity.sign_hex(&message).ok(),
            }),
            Effect::Request {
                id,
                method,
                path,
                token,
                body,
            } => {
                self.request(id, &method, &path, token, body);
                None
            }
            Effect::Sync { token } => {
                self.sync(token);
                None
            }
            Effect::OpenSocket {
                id,
                server,
                path,
                token,
            } => {
                self.open_socket(id, &server, &path, token);
                None
            }
            Effect::SendFrame { id, text } => {
                if let Some(out) = self.sockets.get(&id) {
                    let _ = out.send(text);
                }
                None
            }
            Effect::CloseSocket { id } => {
                // Its task sees the channel close, closes the socket and reports nothing.
                self.sockets.remove(&id);
                None
            }
            // Kept or answered above.
            Effect::KeepHand { .. }
            | Effect::KeepMatch { .. }
            | Effect::KeepSettings { .. }
            | Effect::LoadHands { .. }
            | Effect::LoadStats { .. }
            | Effect::LoadRecord { .. }
            | Effect::LoadSyncStatus => None,
        }
    }

    fn request(
        &self,
        id: u64,
        method: &str,
        path: &str,
        token: Option<String>,
        body: Option<Value>,
    ) {
        let inputs = self.inputs.clone();
        let no_answer = Event::Answered {
            id,
            status: 0,
            body: Value::Null,
        };
        let (Some(server), Ok(method)) =
            (&self.server, reqwest::Method::from_bytes(method.as_bytes()))
        else {
            let _ = inputs.send(Input::Event(no_answer));
            return;
        };
        let mut call = self.http.request(method, format!("{server}{path}"));
        if let Some(token) = token {
            call = call.bearer_auth(token);
        }
        if let Some(body) = body {
            call = call.json(&body);
        }
        tokio::spawn(async move {
            let answer = match call.send().await {
                Ok(r) => {
                    let status = r.status().as_u16();
                    let body = read_answer(r).await;
                    Event::Answered { id, status, body }
                }
                Err(_) => no_answer,
            };
            let _ = inputs.send(Input::Event(answer));
        });
    }

    /// Uploads the outbox and pulls, off the model's thread, over a second connection to the
    /// history (SQLite keeps the two apart), with the client crate's sync engine.
    fn sync(&self, token: String) {
        let inputs = self.inputs.clone();
        let server = self.server.clone().unwrap_or_default();
        let path = self.files.dir.join(super::store::HISTORY);
        tokio::task::spawn_blocking(move || {
            let run = || -> Result<SyncDone, String> {
                let mut store = HistoryStore::open(&path).map_err(|e| e.to_string())?;
                let mut api = HttpApi::new(&server).map_err(|e| e.to_string())?;
                api.set_token(Some(token));
                let r = tongcheng_client::sync(&mut store, &api, &SyncOptions::default())
                    .map_err(|e| e.to_string())?;
                Ok(SyncDone {
                    uploaded: r.uploaded,
                    already: r.already,
                    pulled: r.pulled,
                })
            };
            let event = match run() {
                Ok(done) => Event::Synced {
                    done: Some(done),
                    error: None,
                },
                Err(e) => Event::Synced {
                    done: None,
                    error: Some(e),
                },
            };
            let _ = inputs.send(Input::Event(event));
        });
    }

    fn open_socket(&mut self, id: u64, server: &str, path: &str, token: String) {
        let inputs = self.inputs.clone();
        let base = if server.is_empty() {
            self.server.clone().unwrap_or_default()
        } else {
            server.to_string()
        };
        let (out, mut outgoing) = mpsc::unbounded_channel::<String>();
        self.sockets.insert(id, out);
        let url = socket_url(&base, path);
        tokio::spawn(async move {
            let ws = match url {
                Ok(url) => connect(&url, &token).await.ok(),
                Err(_) => None,
            };
            let Some(ws) = ws else {
                let _ = inputs.send(Input::SocketLost(id));
                return;
            };
            let mut entropy = [0u8; 32];
            if getrandom::getrandom(&mut entropy).is_err() {
                let _ = inputs.send(Input::SocketLost(id));
                return;
            }
            let _ = inputs.send(Input::Event(Event::SocketOpened {
                id,
                entropy: tongcheng_core::hex::hex(&entropy),
            }));
            let (mut sink, mut frames) = ws.split();
            loop {
                tokio::select! {
                    frame = frames.next() => match frame {
                        Some(Ok(Message::Text(text))) => {
                            let _ = inputs.send(Input::Event(Event::Frame { id, text: text.to_string() }));
                        }
                        Some(Ok(_)) => {}
                        Some(Err(_)) | None => break,
                    },
                    text = outgoing.recv() => match text {
                        Some(text) => {
                            if sink.send(Message::Text(text.into())).await.is_err() {
                                break;
                            }
                        }
                        // Closed by the model: no loss to report.
                        None => {
                            let _ = sink.close().await;
                            return;
                        }
                    },
                }
            }
            let _ = inputs.send(Input::SocketLost(id));
        });
    }
}

/// The largest answer read: a published tournament round of 10,000 entrants, every hand's
/// record in it, is tens of megabytes; anything past this is no answer of ours.
const MAX_ANSWER: usize = 256 << 20;

/// An answer's JSON body, read a piece at a time up to [`MAX_ANSWER`]; `null` when it is
/// longer, cut off or not JSON (the model then says the server could not be reached).
async fn read_answer(mut r: reqwest::Response) -> Value {
    let mut body = Vec::new();
    loop {
        match r.chunk().await {
            Ok(Some(piece)) if body.len() + piece.len() <= MAX_ANSWER => {
                body.extend_from_slice(&piece);
            }
            Ok(None) => return serde_json::from_slice(&body).unwrap_or(Value::Null),
            Ok(Some(_)) | Err(_) => return Value::Null,
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
