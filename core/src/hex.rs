//! Hex: bytes as lowercase digits, and back (either case). The one implementation the record
//! ids, seeds and commitments here, and the client's and server's keys, nonces and signatures
//! all use.

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Bytes from hex digits (either case); `None` for an odd length or anything not a digit.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.as_bytes()
        .chunks(2)
        .map(|p| Some((digit(p[0])? << 4) | digit(p[1])?))
        .collect()
}

/// Exactly `N` bytes from `2 N` hex digits; `None` for anything else.
pub fn unhex_array<const N: usize>(s: &str) -> Option<[u8; N]> {
    unhex(s).and_then(|v| <[u8; N]>::try_from(v).ok())
}

fn digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_not_hex() {
        let bytes = [0u8, 1, 0x7f, 0x80, 0xab, 0xff];
        assert_eq!(hex(&bytes), "00017f80abff");
        assert_eq!(unhex(&hex(&bytes)).unwrap(), bytes);
        assert_eq!(unhex("00FF10"), Some(vec![0, 255, 16]));
        assert_eq!(unhex(""), Some(vec![]));
        for bad in ["0", "zz", "é1", "+1", " 1", "0x"] {
            assert_eq!(unhex(bad), None, "{bad}");
        }
        assert_eq!(unhex_array::<2>("beef"), Some([0xbe, 0xef]));
        assert_eq!(unhex_array::<2>("beefed"), None);
    }
}
