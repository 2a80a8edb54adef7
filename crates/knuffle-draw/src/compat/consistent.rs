//! Rivest's consistent_sampler (R. L. Rivest, consistent_sampler.py, 2018;
//! used by Arlo). Each id gets a ticket, a decimal fraction in (0, 1):
//! `"0." + reverse(zero-padded (at least 64 digits) decimal of
//! int(SHA-256(SHA256hex(seed) + id), 16))`; ids are drawn in increasing
//! ticket order (ties by id order, then generation). With replacement a
//! drawn ticket `x` is replaced by one uniform in (x, 1): keep the leading 9s
//! of `x`, then append the digits of the ticket of `x + ":" + str(i)` for
//! i = 1, 2, ... until the result exceeds `x`. A smaller sample is always a
//! prefix of a larger one.
//!
//! Tickets are kept as their count of leading 9s and the digits after them
//! (at most 78), never as the full text: with replacement the leading 9s
//! grow with each generation of an id (`-log10(1 - x)` gains about 0.43 per
//! draw), so full texts would make `k` draws from few ids cost O(k^2) time
//! and memory. String order of two tickets is the order of (leading 9s,
//! rest), since the rest starts with a digit below 9. The hash of
//! `ticket + ":" + str(i)` continues a SHA-256 state that has already
//! absorbed `"0." + 9s` (Merkle-Damgard: a hash of a shared prefix can be
//! resumed, FIPS 180-4 section 6.2), extended as the 9s grow: each draw
//! hashes O(1) new bytes, so `k` draws from `n` ids take O(n + k log n) time
//! and O(n) memory, and print as they are drawn.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use sha2::{Digest, Sha256};

use super::BiasReport;
use super::bignum::{self, from_be_bytes};
use crate::encode::{sha256, to_hex};
use knuffle_stats::reduction::{Reduction, Split};

/// One drawn ticket.
#[derive(Clone, Debug)]
pub struct Ticket {
    /// How many 9s the ticket's digits start with.
    nines: u64,
    /// The digits after the leading 9s (the first is below 9; empty when
    /// every digit is a 9).
    rest: String,
    /// The first 16 bytes of `rest`, big-endian, zero-padded: compared
    /// first, in the ticket itself (the heap's comparisons then rarely
    /// follow the pointer to `rest`).
    head: u128,
    /// The index of the id in the population.
    pub id: usize,
    /// How many times this id has been drawn, this draw included.
    pub generation: u64,
    /// SHA-256 having absorbed `"0." + 9^nines` (made when first needed).
    prefix: Option<Box<Sha256>>,
}

impl Ticket {
    fn new(digits: &str, id: usize, generation: u64) -> Ticket {
        let rest = digits.trim_start_matches('9');
        let mut head = [0u8; 16];
        let len = rest.len().min(16);
        head[..len].copy_from_slice(&rest.as_bytes()[..len]);
        Ticket {
            nines: (digits.len() - rest.len()) as u64,
            head: u128::from_be_bytes(head),
            rest: rest.to_owned(),
            id,
            generation,
            prefix: None,
        }
    }

    /// The ticket number, all digits (`0.ddd...`): its length grows with
    /// the leading 9s.
    pub fn number(&self) -> String {
        let mut out = String::with_capacity(2 + self.nines as usize + self.rest.len());
        out.push_str("0.");
        out.extend(std::iter::repeat_n('9', self.nines as usize));
        out.push_str(&self.rest);
        out
    }

    /// The ticket trimmed to its leading 9s and `digits` more significant
    /// digits (how consistent_sampler prints tickets): [`trim`] of
    /// [`Ticket::number`].
    pub fn trimmed(&self, digits: usize) -> String {
        let mut out = String::from("0.");
        out.extend(std::iter::repeat_n('9', self.nines as usize));
        out.push_str(&self.rest[..digits.min(self.rest.len())]);
        out
    }

    /// How many digits the ticket's leading 9s make.
    pub fn leading_nines(&self) -> u64 {
        self.nines
    }

    /// The next ticket of the same id: uniform in (ticket, 1).
    fn next(mut self) -> Ticket {
        let mut prefix = self.prefix.take().unwrap_or_else(|| {
            let mut hash = Sha256::new();
            hash.update(b"0.");
            absorb_nines(&mut hash, self.nines);
            Box::new(hash)
        });
        let mut x0 = self.rest.clone();
        x0.push('0');
        let mut i: u64 = 0;
        let digits = loop {
            i += 1;
            let mut hash = (*prefix).clone();
            hash.update(self.rest.as_bytes());
            hash.update(format!(":{i}").as_bytes());
            let digits = digits_of(&hash.finalize().into());
            // y = "0." + 9^nines + digits against x0 = ticket + "0": the
            // leading "0." + 9^nines is common.
            if digits.as_str() > x0.as_str() {
                break digits;
            }
        };
        let mut next = Ticket::new(&digits, self.id, self.generation + 1);
        absorb_nines(&mut prefix, next.nines);
        next.nines += self.nines;
        next.prefix = Some(prefix);
        next
    }
}

/// Feeds `count` ASCII 9s to `hash`.
fn absorb_nines(hash: &mut Sha256, mut count: u64) {
    const NINES: [u8; 64] = [b'9'; 64];
    while count > 0 {
        let now = count.min(64);
        hash.update(&NINES[..now as usize]);
        count -= now;
    }
}

impl PartialEq for Ticket {
    fn eq(&self, other: &Ticket) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ticket {}

impl PartialOrd for Ticket {
    fn partial_cmp(&self, other: &Ticket) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ticket {
    /// The string order of the numbers, then id, then generation. (A zero
    /// byte pads a head shorter than 16 digits and sorts below every digit,
    /// as a shorter string sorts below its extensions.)
    fn cmp(&self, other: &Ticket) -> Ordering {
        self.nines
            .cmp(&other.nines)
            .then(self.head.cmp(&other.head))
            .then_with(|| self.rest.cmp(&other.rest))
            .then(self.id.cmp(&other.id))
            .then(self.generation.cmp(&other.generation))
    }
}

/// The reversed, zero-padded (at least 64) decimal digits of a digest.
/// (Written lowest digit first straight from the division, with no
/// intermediate text: the sampler makes one per ticket.)
fn digits_of(digest: &[u8; 32]) -> String {
    let mut digits = bignum::decimal_digits_lowest_first(&from_be_bytes(digest));
    if digits.len() < 64 {
        digits.resize(64, b'0');
    }
    String::from_utf8(digits).expect("ASCII digits")
}

/// `"0." + reversed decimal digits` of SHA-256 of `input`, by the text of
/// the definition (the first ticket and [`next_ticket`] on full texts).
fn uniform(input: &str) -> String {
    let digits = bignum::to_decimal(&from_be_bytes(&sha256(input.as_bytes())));
    let mut out = String::from("0.");
    out.extend(format!("{digits:0>64}").chars().rev());
    out
}

/// The first ticket number of `id` under `seed`.
pub fn first_ticket(id: &str, seed: &str) -> String {
    uniform(&format!("{}{id}", to_hex(&sha256(seed.as_bytes()))))
}

/// The index of the first digit of `ticket` (from position 2) that is not 9
/// (in `ticket + "0"`).
fn first_non_nine(ticket: &str) -> usize {
    ticket
        .bytes()
        .chain(std::iter::once(b'0'))
        .enumerate()
        .skip(2)
        .find(|&(_, b)| b < b'9')
        .map(|(i, _)| i)
        .expect("a '0' was appended")
}

/// The next ticket number after `ticket`, as text: uniform in (ticket, 1).
/// (The sampler itself resumes a hash of the leading 9s instead.)
pub fn next_ticket(ticket: &str) -> String {
    let x0 = format!("{ticket}0");
    let keep = first_non_nine(ticket);
    let mut i: u64 = 0;
    loop {
        i += 1;
        let y = format!("{}{}", &x0[..keep], &uniform(&format!("{ticket}:{i}"))[2..]);
        if y > x0 {
            return y;
        }
    }
}

/// The draw of consistent_sampler: tickets in increasing order, one at a
/// time (a smaller sample is a prefix of a larger one). Memory: one ticket
/// per id.
#[derive(Debug)]
pub struct Sampler {
    heap: BinaryHeap<Reverse<Ticket>>,
    replace: bool,
}

impl Sampler {
    /// The sampler of `ids` under `seed`: every id's first ticket.
    pub fn new(ids: &[String], seed: &str, replace: bool) -> Sampler {
        let seed_hex = to_hex(&sha256(seed.as_bytes()));
        let heap = ids
            .iter()
            .enumerate()
            .map(|(id, text)| {
                let digits = digits_of(&sha256(format!("{seed_hex}{text}").as_bytes()));
                Reverse(Ticket::new(&digits, id, 1))
            })
            .collect();
        Sampler { heap, replace }
    }
}

impl Iterator for Sampler {
    type Item = Ticket;

    fn next(&mut self) -> Option<Ticket> {
        let Reverse(ticket) = self.heap.pop()?;
        if !self.replace {
            return Some(ticket);
        }
        let drawn = Ticket {
            prefix: None,
            rest: ticket.rest.clone(),
            ..ticket
        };
        self.heap.push(Reverse(ticket.next()));
        Some(drawn)
    }
}

/// The first `take` tickets drawn from `ids` under `seed`.
pub fn sample(ids: &[String], seed: &str, replace: bool, take: u64) -> Vec<Ticket> {
    Sampler::new(ids, seed, replace)
        .take(usize::try_from(take).unwrap_or(usize::MAX))
        .collect()
}

/// `ticket` (as text) trimmed to its leading 9s and `digits` more
/// significant digits (how consistent_sampler prints tickets).
pub fn trim(ticket: &str, digits: usize) -> String {
    let keep = first_non_nine(ticket).min(ticket.len());
    ticket[..(keep + digits).min(ticket.len())].to_owned()
}

/// The exact bias of the tickets' digits.
pub fn bias() -> BiasReport {
    let split = Split::new(Reduction::Modulo, 10, 256).expect("10 >= 1");
    let mut lines = vec![
        "a ticket's digits are the decimal digits of SHA-256 (a 256-bit integer), lowest first: \
         its first digit is that integer mod 10"
            .to_owned(),
    ];
    lines.extend(split.describe("first digit", &|d| d.to_string()));
    lines.push(
        "the order of tickets is uniform up to a relative error below 10^d/2^256 at digit d \
         (negligible); ties (equal tickets) fall to id order"
            .to_owned(),
    );
    BiasReport {
        scheme: "consistent-sampler",
        exact: false,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampler as first written, on full ticket texts (O(k^2) with
    /// replacement): the oracle of the one that keeps leading 9s apart.
    fn oracle(ids: &[String], seed: &str, replace: bool, take: usize) -> Vec<(String, usize, u64)> {
        let mut heap: BinaryHeap<Reverse<(String, usize, u64)>> = ids
            .iter()
            .enumerate()
            .map(|(id, text)| Reverse((first_ticket(text, seed), id, 1)))
            .collect();
        let mut out = Vec::new();
        while out.len() < take {
            let Some(Reverse((number, id, generation))) = heap.pop() else {
                break;
            };
            if replace {
                heap.push(Reverse((next_ticket(&number), id, generation + 1)));
            }
            out.push((number, id, generation));
        }
        out
    }

    #[test]
    fn the_sampler_draws_as_the_full_text_sampler() {
        for (count, take) in [(1, 400), (2, 500), (3, 90), (7, 60)] {
            let ids: Vec<String> = (0..count).map(|i| format!("id-{i}")).collect();
            for replace in [false, true] {
                let seed = format!("oracle {count}");
                let got: Vec<(String, usize, u64)> = sample(&ids, &seed, replace, take as u64)
                    .into_iter()
                    .map(|t| (t.number(), t.id, t.generation))
                    .collect();
                assert_eq!(got, oracle(&ids, &seed, replace, take), "{count} ids");
            }
        }
        // One id drawn 400 times passes well beyond a 64-byte block of 9s.
        let deep = sample(&["x".to_owned()], "oracle 1", true, 400);
        assert!(deep.last().unwrap().leading_nines() > 100);
        for t in &deep {
            assert_eq!(t.trimmed(9), trim(&t.number(), 9));
        }
    }

    #[test]
    fn digits_are_the_reversed_padded_decimal() {
        for i in 0..2000u32 {
            let digest = sha256(&i.to_be_bytes());
            assert_eq!(format!("0.{}", digits_of(&digest)), uniform_of(&digest));
        }
        for digest in [[0u8; 32], [0xff; 32], {
            let mut small = [0u8; 32];
            small[31] = 7;
            small
        }] {
            assert_eq!(format!("0.{}", digits_of(&digest)), uniform_of(&digest));
        }
    }

    fn uniform_of(digest: &[u8; 32]) -> String {
        let digits = bignum::to_decimal(&from_be_bytes(digest));
        format!(
            "0.{}",
            format!("{digits:0>64}").chars().rev().collect::<String>()
        )
    }

    #[test]
    fn many_draws_from_two_ids_stay_small_and_fast() {
        // The number of leading 9s reaches thousands; each ticket is kept in
        // a few hundred bytes and each draw hashes a few blocks.
        let ids = vec!["a".to_owned(), "b".to_owned()];
        let mut sampler = Sampler::new(&ids, "big", true);
        let last = sampler.by_ref().take(20_000).last().unwrap();
        assert!(last.leading_nines() > 2_000, "{}", last.leading_nines());
        assert!(sampler.heap.iter().all(|t| t.0.rest.len() <= 78));
    }

    #[test]
    fn next_tickets_exceed_and_keep_leading_nines() {
        let t = "0.99912".to_owned();
        let next = next_ticket(&t);
        assert!(next > t && next.starts_with("0.999"));
        assert_eq!(trim("0.9026656781853", 4), "0.90266");
        assert_eq!(trim("0.123", 9), "0.123");
    }
}
