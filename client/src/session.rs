//! The session kept between runs: which server, the token, the account and device. Kept in
//! a 0600 file, replaced atomically (write a temporary file, then rename over).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::ClientError;
use crate::identity::{temp_path, write_private};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The server's base URL, as given.
    pub server: String,
    pub token: String,
    pub account_id: i64,
    pub display_name: String,
    pub device_id: i64,
}

impl Session {
    /// The session saved at `path`, if any (a file that does not read is treated as none:
    /// the device simply logs in again).
    pub fn load(path: &Path) -> Option<Session> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn save(&self, path: &Path) -> Result<(), ClientError> {
        let err = |e: std::io::Error| ClientError::SessionFile(format!("{}: {e}", path.display()));
        let tmp = temp_path(path);
        let text = serde_json::to_vec_pretty(self).expect("sessions serialize");
        write_private(&tmp, &text).map_err(err)?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            err(e)
        })
    }

    /// Forgets the session saved at `path`.
    pub fn forget(path: &Path) {
        let _ = std::fs::remove_file(path);
    }
}
