//! The app model on the phones: [`AppModel`] holds the app crate's `App` and performs every
//! effect it asks for, so a shell only draws the [`View`] it is given and passes on taps.
//!
//! What the shell does (the [`AppShell`] it implements): draw a view, play a sound, keep the
//! device key's 32 secret bytes in the platform's key store. What happens here, in Rust, on
//! the model's own thread: the clock and its wake-ups (timeouts, 托管, the countdown redrawn
//! each second), the history (the SQLite store answers 我的牌局), the kept match and settings
//! (files in the app's data folder), HTTP requests and the table's WebSocket to the server,
//! the device key's signature. A listener gets the screen first, then every change — the
//! shape of matrix-rust-sdk's view models; [`AppModel::view`] is the snapshot on demand.

mod driver;
mod store;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tongcheng_app::{Event, Tap, View};
use tongcheng_client::{Identity, LockExt};

use crate::TongchengError;
use crate::online::KeyVault;

pub use store::HISTORY as HISTORY_FILE;
pub use tongcheng_app::Sound;

/// What only the platform does for the model. Called on the model's thread: post to the
/// UI thread to draw.
#[uniffi::export(with_foreign)]
pub trait AppShell: Send + Sync {
    /// The screen changed: draw this (the first call comes at once with the opening screen).
    fn draw(&self, view: View);
    /// A sound for a discard, a claim or a win (only when the player has sound on).
    fn play_sound(&self, sound: Sound);
}

/// Where the model keeps its files and which server it plays on.
#[derive(Clone, Debug, uniffi::Record)]
pub struct AppConfig {
    /// The app's private folder: the history database, the kept match and the settings.
    pub data_dir: String,
    /// The server's base URL (`https://…`); `None` plays offline only.
    pub server: Option<String>,
    /// The device's time zone, minutes east of UTC (the history's dates).
    pub utc_offset_min: i32,
    /// How long each move against bots stays in view; `None`: the model's half second
    /// (tests pass a few milliseconds).
    pub pace_ms: Option<u32>,
}

/// The app: send it taps and the network's state; it draws through the shell.
#[derive(uniffi::Object)]
pub struct AppModel {
    inputs: mpsc::UnboundedSender<driver::Input>,
    latest: Arc<Mutex<View>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl std::fmt::Debug for AppModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppModel").finish_non_exhaustive()
    }
}

#[uniffi::export]
impl AppModel {
    /// Opens the app: its history, kept match and settings from `config.data_dir` (made when
    /// missing), the device key from `vault` (made and handed to it on first launch). A
    /// history file that cannot be used is renamed aside (`<name>.corrupt-<time>`), a new one
    /// begun, and the home screen says so; a folder that cannot be written is a `Storage`
    /// error.
    #[uniffi::constructor]
    pub fn new(
        config: AppConfig,
        vault: Arc<dyn KeyVault>,
        shell: Arc<dyn AppShell>,
    ) -> Result<Arc<AppModel>, TongchengError> {
        let identity = device_identity(vault.as_ref())?;
        let files = store::Files::open(&config.data_dir)?;
        let (inputs, rx) = mpsc::unbounded_channel();
        let driver = driver::Driver::new(&config, files, identity, shell, inputs.clone())?;
        let latest = driver.latest();
        let thread = std::thread::Builder::new()
            .name("tongcheng-app".into())
            .spawn(move || driver.run(rx))
            .map_err(|e| TongchengError::Storage {
                detail: format!("cannot start the app's thread: {e}"),
            })?;
        Ok(Arc::new(AppModel {
            inputs,
            latest,
            thread: Mutex::new(Some(thread)),
        }))
    }

    /// A button was tapped: send back its `tap` as the view gave it. Text that is no
    /// button's tap is an `InvalidInput` error, and nothing changes.
    pub fn tap(&self, tap: String) -> Result<(), TongchengError> {
        let tap: Tap = serde_json::from_str(&tap).map_err(|e| TongchengError::InvalidInput {
            detail: format!("not a button's tap: {e}"),
        })?;
        self.send(Event::Tap { tap });
        Ok(())
    }

    /// The network came or went (and at start): login starts when it is up.
    pub fn network(&self, up: bool) {
        self.send(Event::Network { up });
    }

    /// The screen as it stands.
    pub fn view(&self) -> View {
        self.latest.locked().clone()
    }

    /// Stops the model's thread (its sockets close); Kotlin's `close()` does it too.
    pub fn shutdown(&self) {
        let _ = self.inputs.send(driver::Input::Stop);
        if let Some(t) = self.thread.locked().take() {
            // The thread only ends its loop; a panic there has already been reported.
            let _ = t.join();
        }
    }
}

impl AppModel {
    fn send(&self, event: Event) {
        // After shutdown nobody listens: the tap is dropped, as on a closed screen.
        let _ = self.inputs.send(driver::Input::Event(event));
    }
}

impl Drop for AppModel {
    fn drop(&mut self) {
        let _ = self.inputs.send(driver::Input::Stop);
    }
}

/// The device key from the vault, or a new one handed to it.
pub(crate) fn device_identity(vault: &dyn KeyVault) -> Result<Identity, TongchengError> {
    match vault.load_secret() {
        Some(bytes) => {
            let secret: [u8; 32] =
                bytes
                    .try_into()
                    .map_err(|b: Vec<u8>| TongchengError::InvalidInput {
                        detail: format!("the kept device key has {} bytes, not 32", b.len()),
                    })?;
            Ok(Identity::from_secret(secret))
        }
        None => {
            let id = Identity::generate()?;
            vault.store_secret(id.secret_bytes().to_vec());
            Ok(id)
        }
    }
}
