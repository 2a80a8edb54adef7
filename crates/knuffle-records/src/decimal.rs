//! Fast decimal formatting for `-i LO-HI` output: two digits per step from
//! a 200-byte table (the classic itoa technique, as in the `itoa` crate and
//! Alexandrescu's "Three Optimization Tips for C++"), straight into the
//! output buffer.

const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends the decimal digits of `value` and then `delimiter` to `out`:
/// `push_number(&mut out, 1_234_567, b'\n')` appends `1234567\n` (the
/// function is private to the crate, so this is checked by the unit test
/// below rather than as a doctest that would never run).
#[inline]
pub(crate) fn push_number(out: &mut Vec<u8>, mut value: u64, delimiter: u8) {
    let digits = value.checked_ilog10().map_or(1, |d| d as usize + 1);
    // Fixed-size copies only (no call to memmove for a few bytes): write the
    // digits left-aligned into a 21-byte scratch, append all 21 bytes, then
    // cut back to the digits and the delimiter.
    let mut scratch = [0u8; 21];
    let mut pos = digits;
    while value >= 100 {
        let pair = (value % 100) as usize * 2;
        value /= 100;
        pos -= 2;
        scratch[pos..pos + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if value >= 10 {
        let pair = value as usize * 2;
        scratch[pos - 2..pos].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        scratch[pos - 1] = b'0' + value as u8;
    }
    scratch[digits] = delimiter;
    let len = out.len();
    out.extend_from_slice(&scratch);
    out.truncate(len + digits + 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_display() {
        let mut out = Vec::new();
        for v in [0, 9, 10, 99, 100, 101, 12345, 1_234_567, u64::MAX, 1 << 40] {
            out.clear();
            push_number(&mut out, v, b'\0');
            assert_eq!(out, format!("{v}\0").into_bytes());
        }
    }
}
