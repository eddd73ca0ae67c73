//! The cryptography of login and linking: what a device signs, and the random secrets the
//! server hands out (nonces, session tokens, link codes).
//!
//! A device proves it holds its Ed25519 key by signing a server challenge. The signed message
//! is domain-separated ([`LOGIN_DOMAIN`]) and binds the nonce and the public key, so a
//! signature made for this purpose can never be replayed elsewhere, and each nonce is single
//! use with a short expiry. Tokens and link codes are random, and stored only as SHA-256
//! hashes: a leaked database holds no usable session.

use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};
use tongcheng_core::record::hex;

use crate::error::ApiError;

/// The prefix of every login signature: what the signature is for, and the protocol version.
pub const LOGIN_DOMAIN: &[u8] = b"tongcheng-login-v1\n";

/// The bytes a device signs to log in with `public_key` against challenge `nonce`.
pub fn login_message(nonce: &[u8], public_key: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(LOGIN_DOMAIN.len() + nonce.len() + public_key.len());
    m.extend_from_slice(LOGIN_DOMAIN);
    m.extend_from_slice(nonce);
    m.extend_from_slice(public_key);
    m
}

/// `N` bytes from the operating system's CSPRNG.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut b = [0u8; N];
    getrandom::getrandom(&mut b)
        .map_err(|e| ApiError::internal(format!("no randomness available: {e}")))?;
    Ok(b)
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes from hex digits (either case); `None` for anything else.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.as_bytes()
        .chunks(2)
        .map(|p| {
            let d = |c: u8| (c as char).to_digit(16);
            Some((d(p[0])? * 16 + d(p[1])?) as u8)
        })
        .collect()
}

/// Exactly `N` bytes of hex, or a 400 naming the field.
pub fn unhex_exact<const N: usize>(s: &str, field: &'static str) -> Result<[u8; N], ApiError> {
    unhex(s)
        .and_then(|v| <[u8; N]>::try_from(v).ok())
        .ok_or_else(|| {
            ApiError::bad_request(
                "bad_request",
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

/// Link codes: 8 characters of an alphabet without look-alikes (no I, O, 0, 1), 40 bits,
/// shown as `ABCD-EFGH`. With a five-minute life and rate-limited attempts they cannot be
/// guessed.
const CODE_ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

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
    fn hex_round_trips_and_refuses_garbage() {
        assert_eq!(unhex("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(unhex("0"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("é1"), None);
    }

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
