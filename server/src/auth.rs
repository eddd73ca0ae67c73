//! The cryptography of login and linking: checking what a device signed, and the random
//! secrets the server hands out (nonces, session tokens, link codes, ids).
//!
//! A device proves it holds its Ed25519 key by signing a server challenge: the signed message
//! is the API's [`login_message`] (domain-separated, binding the nonce and the public key),
//! and each nonce is single use with a short expiry. Tokens and link codes are random, and
//! stored only as SHA-256 hashes: a leaked database holds no usable session.

use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};
use tongcheng_api::ErrorCode;
use tongcheng_api::auth::login_message;
use tongcheng_core::hex::{hex, unhex_array};

use crate::error::ApiError;

/// `N` bytes from the operating system's CSPRNG.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut b = [0u8; N];
    getrandom::getrandom(&mut b)
        .map_err(|e| ApiError::internal(format!("no randomness available: {e}")))?;
    Ok(b)
}

/// A random id (tables, queue tickets, nodes, process instances): 8 bytes, hex (all zeros
/// should the OS's generator ever fail).
pub fn random_id() -> String {
    hex(&random_bytes::<8>().unwrap_or_default())
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Exactly `N` bytes of hex, or a 400 naming the field.
pub fn unhex_exact<const N: usize>(s: &str, field: &'static str) -> Result<[u8; N], ApiError> {
    unhex_array(s).ok_or_else(|| {
        ApiError::new(
            ErrorCode::BadRequest,
            format!("{field} must be {} hex digits", N * 2),
        )
    })
}

/// Checks a login signature (strict Ed25519: no malleable signatures, no weak keys).
pub fn verify_login(
    public_key: &[u8; 32],
    nonce: &[u8; 32],
    signature: &[u8; 64],
) -> Result<(), ApiError> {
    let bad = || ApiError::unauthorized("the signature does not verify");
    let key = VerifyingKey::from_bytes(public_key).map_err(|_| bad())?;
    if key.is_weak() {
        return Err(bad());
    }
    let sig = Signature::from_bytes(signature);
    key.verify_strict(&login_message(nonce, public_key), &sig)
        .map_err(|_| bad())
}

/// Link codes (the api crate's alphabet, 40 bits): with a five-minute life and rate-limited
/// attempts they cannot be guessed.
const CODE_ALPHABET: &[u8; 32] = tongcheng_api::auth::LINK_CODE_ALPHABET;

pub fn new_link_code() -> Result<String, ApiError> {
    let bytes = random_bytes::<8>()?;
    let mut s = String::with_capacity(9);
    for (i, b) in bytes.iter().enumerate() {
        if i == 4 {
            s.push('-');
        }
        // 256 is a multiple of 32: no bias.
        s.push(CODE_ALPHABET[usize::from(b % 32)] as char);
    }
    Ok(s)
}

/// A typed code as stored (hashed): upper case, without dashes and spaces. Anything that is
/// not 8 characters of the alphabet gives a value no code hashes to, so a malformed code is
/// refused exactly like a wrong one.
pub fn link_code_hash(code: &str) -> String {
    let norm: String = code
        .chars()
        .filter(|c| *c != '-' && !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    sha256_hex(format!("tongcheng-link-v1\n{norm}").as_bytes())
}

/// A generated display name for a new account: `Player-` and six hex digits.
pub fn display_name() -> Result<String, ApiError> {
    Ok(format!(
        "Player-{}",
        hex(&random_bytes::<3>()?).to_uppercase()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_codes_normalize() {
        let c = new_link_code().unwrap();
        assert_eq!(c.len(), 9);
        assert_eq!(
            link_code_hash(&c),
            link_code_hash(&c.to_lowercase().replace('-', " "))
        );
        assert_ne!(link_code_hash(&c), link_code_hash("AAAA-AAAA"));
    }
}
