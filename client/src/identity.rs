//! The device's identity: an Ed25519 key pair made on first launch.
//!
//! The secret key is kept in a file only its owner can read (0600), created atomically: it
//! is written to a temporary file and then hard-linked into place, which fails if another
//! process got there first (then that process's key is used). A half-written key file can
//! therefore never be seen, and two first launches never end up with two keys.

use std::io::Write;
use std::path::Path;

use ed25519_dalek::{Signer, SigningKey};
use tongcheng_api::auth::{LoginRequest, login_message};
use tongcheng_core::hex::{hex, unhex, unhex_array};

use crate::error::ClientError;

/// What the key file starts with, so a wrong file is recognised.
const KEY_FILE_TAG: &str = "tongcheng-ed25519-secret-v1 ";

pub struct Identity {
    key: SigningKey,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret.
        f.debug_struct("Identity")
            .field("public_key", &self.public_hex())
            .finish()
    }
}

impl Identity {
    /// A new random identity (not saved).
    pub fn generate() -> Result<Identity, ClientError> {
        let mut secret = [0u8; 32];
        getrandom::getrandom(&mut secret)
            .map_err(|e| ClientError::Identity(format!("no randomness available: {e}")))?;
        Ok(Identity {
            key: SigningKey::from_bytes(&secret),
        })
    }

    /// The identity from 32 secret bytes (the phone's keystore may hold them).
    pub fn from_secret(secret: [u8; 32]) -> Identity {
        Identity {
            key: SigningKey::from_bytes(&secret),
        }
    }

    /// The 32 secret bytes, for a phone's keystore to keep (never sent anywhere).
    pub fn secret_bytes(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// The identity kept at `path`, made and saved (0600, atomically) if there is none.
    pub fn load_or_create(path: &Path) -> Result<Identity, ClientError> {
        match std::fs::read_to_string(path) {
            Ok(text) => return Identity::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(ClientError::Identity(format!("{}: {e}", path.display()))),
        }
        let id = Identity::generate()?;
        let text = format!("{KEY_FILE_TAG}{}\n", hex(&id.key.to_bytes()));
        let err = |e: std::io::Error| ClientError::Identity(format!("{}: {e}", path.display()));
        let tmp = temp_path(path);
        write_private(&tmp, text.as_bytes()).map_err(err)?;
        let linked = std::fs::hard_link(&tmp, path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(id),
            // Another process made the key first: use it.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Identity::parse(&std::fs::read_to_string(path).map_err(err)?, path)
            }
            Err(e) => Err(err(e)),
        }
    }

    fn parse(text: &str, path: &Path) -> Result<Identity, ClientError> {
        let bad =
            || ClientError::Identity(format!("{} is not a tongcheng key file", path.display()));
        let hexed = text
            .trim()
            .strip_prefix(KEY_FILE_TAG.trim_end())
            .ok_or_else(bad)?
            .trim();
        let secret = unhex_array::<32>(hexed).ok_or_else(bad)?;
        Ok(Identity::from_secret(secret))
    }

    /// The public key, 64 hex digits.
    pub fn public_hex(&self) -> String {
        hex(&self.key.verifying_key().to_bytes())
    }

    /// The login signature over `nonce` (hex in, hex out).
    pub fn sign_login(&self, nonce_hex: &str) -> Result<String, ClientError> {
        let nonce = unhex(nonce_hex)
            .ok_or_else(|| ClientError::Protocol("the challenge nonce is not hex".into()))?;
        let m = login_message(&nonce, &self.key.verifying_key().to_bytes());
        Ok(hex(&self.key.sign(&m).to_bytes()))
    }

    /// The device key's signature of `message` (hex in, hex out): what a key store does
    /// for the app model, which builds the message itself.
    pub fn sign_hex(&self, message_hex: &str) -> Result<String, ClientError> {
        let m = unhex(message_hex)
            .ok_or_else(|| ClientError::Protocol("the message to sign is not hex".into()))?;
        Ok(hex(&self.key.sign(&m).to_bytes()))
    }

    /// The login request answering the challenge `nonce` (hex), made by the device
    /// `device_name`, joining the account of `link_code` when given.
    pub fn login_request(
        &self,
        nonce: String,
        device_name: &str,
        link_code: Option<&str>,
    ) -> Result<LoginRequest, ClientError> {
        Ok(LoginRequest {
            public_key: self.public_hex(),
            signature: self.sign_login(&nonce)?,
            nonce,
            device_name: Some(device_name.to_string()),
            link_code: link_code.map(str::to_string),
        })
    }
}

/// A temporary name next to `path`, unique to this process and moment.
pub(crate) fn temp_path(path: &Path) -> std::path::PathBuf {
    let nanos = tongcheng_core::clock::unix_nanos() % 1_000_000_000;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}-{nanos}", std::process::id()));
    path.with_file_name(name)
}

/// Writes a new file readable by its owner only, flushed to disk.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_file_is_private_and_kept() {
        let dir = std::env::temp_dir().join(format!("tongcheng-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("history.db.key");
        let a = Identity::load_or_create(&path).unwrap();
        let b = Identity::load_or_create(&path).unwrap();
        assert_eq!(a.public_hex(), b.public_hex());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(dir.join("bad.key"), "hello").unwrap();
        assert!(Identity::load_or_create(&dir.join("bad.key")).is_err());
        assert!(!format!("{a:?}").contains(&hex(&a.key.to_bytes())));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
