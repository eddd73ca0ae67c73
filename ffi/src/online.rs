//! The phone's side of the server: one-tap login and sync of the history, over
//! `tongcheng-client`. The device key is the shell's to keep (Android Keystore, iOS Keychain)
//! through [`KeyVault`]; the core never stores it. Calls block on the network: shells call
//! them off the UI thread.

use std::sync::{Arc, Mutex, MutexGuard};

use tongcheng_client::{ClientError, HttpApi, Identity, LockExt, SyncOptions, sync};

use crate::TongchengError;
use crate::history::HistoryStore;

/// Where the shell keeps the device's secret key (32 bytes). Implemented in Kotlin/Swift.
#[uniffi::export(with_foreign)]
pub trait KeyVault: Send + Sync {
    /// The key saved earlier, or `None` on first launch.
    fn load_secret(&self) -> Option<Vec<u8>>;
    /// Keeps a new key (called once, on first launch).
    fn store_secret(&self, secret: Vec<u8>);
}

/// Who this device is logged in as.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct AccountModel {
    pub account_id: i64,
    pub display_name: String,
    pub device_id: i64,
    /// The login made a new account (first launch on a new player's phone).
    pub created: bool,
}

/// A hand the server refused, and why.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct RefusedModel {
    pub record_id: String,
    pub reason: String,
}

/// What a sync did.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct SyncReportModel {
    pub uploaded: u64,
    pub already: u64,
    pub rejected: Vec<RefusedModel>,
    pub pulled: u64,
}

/// A connection to one server for one history.
#[derive(uniffi::Object)]
pub struct OnlineClient {
    api: Mutex<HttpApi>,
    identity: Identity,
    history: Arc<HistoryStore>,
}

impl std::fmt::Debug for OnlineClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlineClient")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl From<ClientError> for TongchengError {
    fn from(e: ClientError) -> TongchengError {
        match e {
            ClientError::History(h) => h.into(),
            ClientError::InvalidInput(detail) => TongchengError::InvalidInput { detail },
            ClientError::Server {
                status,
                code,
                message: detail,
            } => {
                let code = Some(code);
                match status {
                    401 => TongchengError::NotLoggedIn { code, detail },
                    // A room code no room has.
                    404 => TongchengError::NotFound { code, detail },
                    _ => TongchengError::Server { code, detail },
                }
            }
            ClientError::Network(_) => TongchengError::Network {
                detail: e.to_string(),
            },
            ClientError::Cancelled => TongchengError::Cancelled {
                detail: e.to_string(),
            },
            ClientError::Protocol(_) | ClientError::Identity(_) | ClientError::SessionFile(_) => {
                TongchengError::Server {
                    code: None,
                    detail: e.to_string(),
                }
            }
        }
    }
}

impl OnlineClient {
    pub(crate) fn api(&self) -> MutexGuard<'_, HttpApi> {
        self.api.locked()
    }

    /// The session token after a login (for the online table's connection).
    pub(crate) fn token(&self) -> Option<String> {
        self.api().token().map(str::to_string)
    }

    pub(crate) fn server(&self) -> String {
        self.api().base().to_string()
    }
}

#[uniffi::export]
impl OnlineClient {
    /// A client of `server` (`https://…`) for `history`, with the device key from `vault`
    /// (made and handed to the vault on first launch). No network yet.
    #[uniffi::constructor]
    pub fn new(
        server: String,
        vault: Arc<dyn KeyVault>,
        history: Arc<HistoryStore>,
    ) -> Result<Arc<OnlineClient>, TongchengError> {
        let identity = crate::app::device_identity(vault.as_ref())?;
        Ok(Arc::new(OnlineClient {
            api: Mutex::new(HttpApi::new(&server)?),
            identity,
            history,
        }))
    }

    /// One tap: logs this device in (an unknown key makes a new account with a generated
    /// name). With `link_code` (shown on the player's other phone) it joins that account.
    pub fn login(
        &self,
        device_name: String,
        link_code: Option<String>,
    ) -> Result<AccountModel, TongchengError> {
        let r = self
            .api()
            .login(&self.identity, &device_name, link_code.as_deref())?;
        Ok(AccountModel {
            account_id: r.account.id,
            display_name: r.account.display_name,
            device_id: r.device_id,
            created: r.created_account,
        })
    }

    /// A short-lived code another phone enters to join this account.
    pub fn link_code(&self) -> Result<String, TongchengError> {
        Ok(self.api().create_link()?.code)
    }

    /// Uploads the finished hands not yet on the server (refused ones are marked in the
    /// history with their reason) and pulls the account's other devices' hands.
    pub fn sync(&self) -> Result<SyncReportModel, TongchengError> {
        let api = self.api();
        let mut store = self.history.lock();
        let r = sync(&mut store, &*api, &SyncOptions::default())?;
        Ok(SyncReportModel {
            uploaded: r.uploaded,
            already: r.already,
            rejected: r
                .rejected
                .into_iter()
                .map(|x| RefusedModel {
                    record_id: x.id,
                    reason: x.reason,
                })
                .collect(),
            pulled: r.pulled,
        })
    }
}
