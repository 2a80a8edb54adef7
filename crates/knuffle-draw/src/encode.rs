//! Byte encodings of `knuffle-vd/1`: SHA-256 over a domain tag, 4-byte
//! big-endian length prefixes (`lp`), big-endian integers, and lowercase hex.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// An incremental hash over the encodings of the spec: a domain tag first
/// (raw UTF-8, no length), then fields.
pub(crate) struct Encoder(Sha256);

impl Encoder {
    /// Starts `H(tag || ...)`.
    pub(crate) fn tagged(tag: &str) -> Encoder {
        let mut hash = Sha256::new();
        hash.update(tag.as_bytes());
        Encoder(hash)
    }

    /// `lp(bytes)`: the 4-byte big-endian length, then the bytes.
    ///
    /// # Panics
    /// When `bytes` is 4 GiB or longer (no field of the format can be).
    pub(crate) fn lp(&mut self, bytes: &[u8]) -> &mut Self {
        let len = u32::try_from(bytes.len()).expect("a field of at most 4 GiB");
        self.0.update(len.to_be_bytes());
        self.0.update(bytes);
        self
    }

    /// Raw bytes (fixed-size fields: digests).
    pub(crate) fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(bytes);
        self
    }

    /// `u32be(x)`.
    pub(crate) fn u32(&mut self, x: u32) -> &mut Self {
        self.0.update(x.to_be_bytes());
        self
    }

    /// `u64be(x)`.
    pub(crate) fn u64(&mut self, x: u64) -> &mut Self {
        self.0.update(x.to_be_bytes());
        self
    }

    /// The digest.
    pub(crate) fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// Lowercase hexadecimal.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// Parses hexadecimal (either case, even length).
pub fn from_hex(text: &str) -> Result<Vec<u8>, String> {
    if !text.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in {text:?}"));
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(format!("not a hex digit: {:?} in {text:?}", c as char)),
    };
    text.as_bytes()
        .chunks(2)
        .map(|pair| Ok(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// Parses exactly 32 bytes of hexadecimal (a digest).
pub fn digest_from_hex(text: &str) -> Result<[u8; 32], String> {
    let bytes = from_hex(text)?;
    <[u8; 32]>::try_from(bytes.as_slice())
        .map_err(|_| format!("expected 64 hex digits (32 bytes), got {}", text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_garbage() {
        assert_eq!(to_hex(&[0, 0xab, 0xff]), "00abff");
        assert_eq!(from_hex("00ABff").unwrap(), vec![0, 0xab, 0xff]);
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
        assert!(digest_from_hex("00").is_err());
    }

    #[test]
    fn sha256_is_the_standard_one() {
        assert_eq!(
            to_hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
