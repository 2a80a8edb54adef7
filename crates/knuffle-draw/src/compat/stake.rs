//! "Provably fair" casino cards, Stake style: bytes of
//! `HMAC-SHA256(key = server_seed, msg = client_seed + ":" + nonce + ":" + round)`
//! for round = 0, 1, ...; each 4 bytes make a float `f = sum(b_j / 256^(j+1))`
//! and a card is `CARDS[floor(f * 52)]` from an unlimited deck. Here the
//! float is the 32-bit big-endian integer `x` over 2^32, so
//! `floor(f * 52) = (x * 52) >> 32` exactly, with no float at all.

use knuffle_stats::reduction::{Reduction, Split};

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

/// The first `count` card indices of the game `(server, client, nonce)`,
/// collected (see [`deal`]).
pub fn cards(server_seed: &str, client_seed: &str, nonce: u64, count: u64) -> Vec<usize> {
    deal(server_seed, client_seed, nonce, count).collect()
}

/// The first `count` card indices of the game `(server, client, nonce)`,
/// one at a time, in constant memory (any `count`).
pub fn deal(server_seed: &str, client_seed: &str, nonce: u64, count: u64) -> Cards {
    Cards {
        server_seed: server_seed.to_owned(),
        client_seed: client_seed.to_owned(),
        nonce,
        left: count,
        round: 0,
        bytes: [0; 32],
        used: 32,
    }
}

/// The cards of a game, in order (see [`deal`]).
#[derive(Clone, Debug)]
pub struct Cards {
    server_seed: String,
    client_seed: String,
    nonce: u64,
    left: u64,
    round: u64,
    bytes: [u8; 32],
    used: usize,
}

impl Iterator for Cards {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        if self.used == 32 {
            self.bytes = hmac_sha256(
                self.server_seed.as_bytes(),
                format!("{}:{}:{}", self.client_seed, self.nonce, self.round).as_bytes(),
            );
            self.round += 1;
            self.used = 0;
        }
        let chunk: [u8; 4] = self.bytes[self.used..self.used + 4]
            .try_into()
            .expect("4 bytes");
        self.used += 4;
        self.left -= 1;
        let x = u64::from(u32::from_be_bytes(chunk));
        Some(((x * 52) >> 32) as usize)
    }

    /// The lower bound is capped: `collect` reserves it up front.
    fn size_hint(&self) -> (usize, Option<usize>) {
        (
            usize::try_from(self.left.min(1 << 12)).unwrap_or(0),
            usize::try_from(self.left).ok(),
        )
    }
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

    /// The loop as first written: whole HMAC blocks, four bytes a card.
    fn oracle(server: &str, client: &str, nonce: u64, count: u64) -> Vec<usize> {
        let mut out = Vec::new();
        let mut round: u64 = 0;
        while (out.len() as u64) < count {
            let bytes = hmac_sha256(
                server.as_bytes(),
                format!("{client}:{nonce}:{round}").as_bytes(),
            );
            for chunk in bytes.chunks(4) {
                if out.len() as u64 == count {
                    break;
                }
                let x = u64::from(u32::from_be_bytes(chunk.try_into().unwrap()));
                out.push(((x * 52) >> 32) as usize);
            }
            round += 1;
        }
        out
    }

    #[test]
    fn the_stream_deals_as_the_block_loop() {
        for count in [0, 1, 7, 8, 9, 40] {
            assert_eq!(cards("s", "c", 3, count), oracle("s", "c", 3, count));
        }
        let mut endless = deal("s", "c", 3, u64::MAX);
        assert_eq!(
            endless.by_ref().take(9).collect::<Vec<_>>(),
            oracle("s", "c", 3, 9)
        );
    }

    #[test]
    fn preimages_cover_all_words_with_48_favoured_cards() {
        let counts: Vec<u64> = (0..52).map(preimages).collect();
        assert_eq!(counts.iter().sum::<u64>(), 1 << 32);
        assert_eq!(counts.iter().filter(|&&c| c == 82_595_525).count(), 48);
        assert_eq!(counts.iter().filter(|&&c| c == 82_595_524).count(), 4);
    }
}
