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

fn is_zero(number: &[u32]) -> bool {
    number.iter().all(|&l| l == 0)
}

/// Decimal text (no leading zeros; "0" for zero).
pub(crate) fn to_decimal(number: &[u32]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_and_division_agree_with_u128() {
        let x: u128 = 340_282_366_920_938_463_463_374_607_431_768_211_455;
        let limbs = from_be_bytes(&x.to_be_bytes());
        assert_eq!(to_decimal(&limbs), x.to_string());
        let (q, r) = div_small(&limbs, 1000);
        assert_eq!(r as u128, x % 1000);
        assert_eq!(to_decimal(&q), (x / 1000).to_string());
        assert_eq!(to_decimal(&[0, 0]), "0");
    }
}
