//! Just enough unsigned big-integer arithmetic for the compatibility
//! schemes: numbers as big-endian base-2^32 limbs, division by a small
//! divisor, and decimal text.

/// A non-negative integer from big-endian bytes.
pub(crate) fn from_be_bytes(bytes: &[u8]) -> Vec<u32> {
    let mut padded = vec![0u8; (4 - bytes.len() % 4) % 4];
    padded.extend_from_slice(bytes);
    padded
        .chunks(4)
        .map(|c| u32::from_be_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// `(number / divisor, number % divisor)`, schoolbook long division.
pub(crate) fn div_small(number: &[u32], divisor: u64) -> (Vec<u32>, u64) {
    assert!(divisor > 0);
    // Limb by limb with a 96-bit running remainder held in u128.
    let mut quotient = Vec::with_capacity(number.len());
    let mut rem: u128 = 0;
    for &limb in number {
        let cur = (rem << 32) | u128::from(limb);
        quotient.push((cur / u128::from(divisor)) as u32);
        rem = cur % u128::from(divisor);
    }
    (quotient, rem as u64)
}

/// Decimal text (no leading zeros; "0" for zero): nine digits per pass of
/// in-place long division by 10^9 in 64-bit arithmetic (a 96-bit divisor
/// step would need 128-bit division, several times slower; the consistent
/// sampler converts one 256-bit hash per ticket).
pub(crate) fn to_decimal(number: &[u32]) -> String {
    const BILLION: u64 = 1_000_000_000;
    let mut cur = number.to_vec();
    let mut start = cur.iter().position(|&l| l != 0).unwrap_or(cur.len());
    let mut chunks = Vec::new();
    while start < cur.len() {
        let mut rem: u64 = 0;
        for limb in &mut cur[start..] {
            // rem < 10^9 < 2^30, so the running value fits in 62 bits.
            let value = (rem << 32) | u64::from(*limb);
            *limb = (value / BILLION) as u32;
            rem = value % BILLION;
        }
        chunks.push(rem as u32);
        while start < cur.len() && cur[start] == 0 {
            start += 1;
        }
    }
    match chunks.split_last() {
        None => "0".to_owned(),
        Some((top, rest)) => {
            let mut text = top.to_string();
            for chunk in rest.iter().rev() {
                text.push_str(&format!("{chunk:09}"));
            }
            text
        }
    }
}

/// The decimal digits of `number` as ASCII, lowest first, with no leading
/// (here: trailing) zeros; empty for zero.
pub(crate) fn decimal_digits_lowest_first(number: &[u32]) -> Vec<u8> {
    const BILLION: u64 = 1_000_000_000;
    let mut cur = number.to_vec();
    let mut start = cur.iter().position(|&l| l != 0).unwrap_or(cur.len());
    let mut out = Vec::with_capacity(80);
    while start < cur.len() {
        let mut rem: u64 = 0;
        for limb in &mut cur[start..] {
            let value = (rem << 32) | u64::from(*limb);
            *limb = (value / BILLION) as u32;
            rem = value % BILLION;
        }
        while start < cur.len() && cur[start] == 0 {
            start += 1;
        }
        // Nine digits of this chunk, lowest first; the last chunk stops at
        // its highest non-zero digit.
        let last = start == cur.len();
        let mut chunk = rem;
        for _ in 0..9 {
            if last && chunk == 0 {
                break;
            }
            out.push(b'0' + (chunk % 10) as u8);
            chunk /= 10;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_zero(number: &[u32]) -> bool {
        number.iter().all(|&l| l == 0)
    }

    #[test]
    fn decimal_and_division_agree_with_u128() {
        let x: u128 = 340_282_366_920_938_463_463_374_607_431_768_211_455;
        let limbs = from_be_bytes(&x.to_be_bytes());
        assert_eq!(to_decimal(&limbs), x.to_string());
        let (q, r) = div_small(&limbs, 1000);
        assert_eq!(r as u128, x % 1000);
        assert_eq!(to_decimal(&q), (x / 1000).to_string());
        assert_eq!(to_decimal(&[0, 0]), "0");
        assert_eq!(to_decimal(&[]), "0");
    }

    /// The conversion as first written (chunks of 10^18 by 128-bit
    /// division): the oracle of the 64-bit one.
    fn oracle(number: &[u32]) -> String {
        let mut chunks = Vec::new();
        let mut cur = number.to_vec();
        while !is_zero(&cur) {
            let (q, r) = div_small(&cur, 1_000_000_000_000_000_000);
            chunks.push(r);
            cur = q;
        }
        match chunks.split_last() {
            None => "0".to_owned(),
            Some((top, rest)) => {
                let mut text = top.to_string();
                for chunk in rest.iter().rev() {
                    text.push_str(&format!("{chunk:018}"));
                }
                text
            }
        }
    }

    #[test]
    fn decimal_agrees_with_the_128_bit_conversion() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..=9 {
            for _ in 0..200 {
                let limbs: Vec<u32> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        // Some limbs zero, some all ones, some random.
                        match state & 3 {
                            0 => 0,
                            1 => u32::MAX,
                            _ => (state >> 16) as u32,
                        }
                    })
                    .collect();
                assert_eq!(to_decimal(&limbs), oracle(&limbs), "{limbs:?}");
            }
        }
        for limbs in [
            &[][..],
            &[0, 0],
            &[7],
            &[1, 0],
            &[u32::MAX; 8],
            &[0, 1_000_000_000],
        ] {
            let mut low_first = decimal_digits_lowest_first(limbs);
            low_first.reverse();
            let text = String::from_utf8(low_first).unwrap();
            let expected = oracle(limbs);
            assert_eq!(
                if text.is_empty() {
                    "0".to_owned()
                } else {
                    text
                },
                expected
            );
        }
        let max = [u32::MAX; 8];
        assert_eq!(
            to_decimal(&max),
            "115792089237316195423570985008687907853269984665640564039457584007913129639935"
        );
    }
}
