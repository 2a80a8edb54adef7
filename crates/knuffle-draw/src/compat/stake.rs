//! "Provably fair" casino cards, Stake style: bytes of
//! `HMAC-SHA256(key = server_seed, msg = client_seed + ":" + nonce + ":" + round)`
//! for round = 0, 1, ...; each 4 bytes make a float `f = sum(b_j / 256^(j+1))`
//! and a card is `CARDS[floor(f * 52)]` from an unlimited deck. Here the
//! float is the 32-bit big-endian integer `x` over 2^32, so
//! `floor(f * 52) = (x * 52) >> 32` exactly, with no float at all.

use knuffle_lab::reduction::{Reduction, Split};

use super::BiasReport;
use super::hmac_sha256;

/// The ranks, low to high.
pub const RANKS: [&str; 13] = [
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
];
/// The suits, in the order of the scheme's card list.
pub const SUITS: [&str; 4] = ["♦", "♥", "♠", "♣"];

/// Card `index` of the scheme's list (`2♦ 2♥ 2♠ 2♣ 3♦ ...`).
pub fn card(index: usize) -> String {
    format!("{}{}", RANKS[index / 4], SUITS[index % 4])
}

/// The first `count` card indices of the game `(server, client, nonce)`.
pub fn cards(server_seed: &str, client_seed: &str, nonce: u64, count: u64) -> Vec<usize> {
    let mut out = Vec::with_capacity(count as usize);
    let mut round: u64 = 0;
    while (out.len() as u64) < count {
        let bytes = hmac_sha256(
            server_seed.as_bytes(),
            format!("{client_seed}:{nonce}:{round}").as_bytes(),
        );
        for chunk in bytes.chunks(4) {
            if out.len() as u64 == count {
                break;
            }
            let x = u64::from(u32::from_be_bytes(chunk.try_into().expect("4 bytes")));
            out.push(((x * 52) >> 32) as usize);
        }
        round += 1;
    }
    out
}

/// How many of the 2^32 float values give card `index`: the `x` with
/// `index * 2^32 <= 52 x < (index + 1) * 2^32`.
pub fn preimages(index: usize) -> u64 {
    let ceil_div = |a: u64| a.div_ceil(52);
    ceil_div((index as u64 + 1) << 32) - ceil_div((index as u64) << 32)
}

/// The exact probability of each card, and the report.
pub fn bias() -> BiasReport {
    let split = Split::new(Reduction::FloatScaling, 52, 32).expect("52 >= 1");
    BiasReport {
        scheme: "stake",
        exact: split.is_uniform(),
        lines: split.describe("card", &|i| card(i as usize)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preimages_cover_all_words_with_48_favoured_cards() {
        let counts: Vec<u64> = (0..52).map(preimages).collect();
        assert_eq!(counts.iter().sum::<u64>(), 1 << 32);
        assert_eq!(counts.iter().filter(|&&c| c == 82_595_525).count(), 48);
        assert_eq!(counts.iter().filter(|&&c| c == 82_595_524).count(), 4);
    }
}
