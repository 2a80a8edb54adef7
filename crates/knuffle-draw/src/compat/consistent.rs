//! Rivest's consistent_sampler (R. L. Rivest, consistent_sampler.py, 2018;
//! used by Arlo). Each id gets a ticket, a decimal fraction in (0, 1):
//! `"0." + reverse(zero-padded (at least 64 digits) decimal of
//! int(SHA-256(SHA256hex(seed) + id), 16))`; ids are drawn in increasing
//! ticket order (ties by id order, then generation). With replacement a
//! drawn ticket `x` is replaced by one uniform in (x, 1): keep the leading 9s
//! of `x`, then append the digits of the ticket of `x + ":" + str(i)` for
//! i = 1, 2, ... until the result exceeds `x`. A smaller sample is always a
//! prefix of a larger one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::BiasReport;
use super::bignum::{self, from_be_bytes};
use crate::encode::{sha256, to_hex};
use knuffle_lab::reduction::{Reduction, Split};

/// One drawn ticket.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ticket {
    /// The ticket number, all digits (`0.ddd...`).
    pub number: String,
    /// The index of the id in the population.
    pub id: usize,
    /// How many times this id has been drawn, this draw included.
    pub generation: u64,
}

/// `"0." + reversed decimal digits` of SHA-256 of `input`.
fn uniform(input: &str) -> String {
    let digits = bignum::to_decimal(&from_be_bytes(&sha256(input.as_bytes())));
    let padded = format!("{digits:0>64}");
    let mut out = String::from("0.");
    out.extend(padded.chars().rev());
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

/// The next ticket number after `ticket`: uniform in (ticket, 1).
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

/// The first `take` tickets drawn from `ids` under `seed`.
pub fn sample(ids: &[String], seed: &str, replace: bool, take: u64) -> Vec<Ticket> {
    let mut heap: BinaryHeap<Reverse<Ticket>> = ids
        .iter()
        .enumerate()
        .map(|(id, text)| {
            Reverse(Ticket {
                number: first_ticket(text, seed),
                id,
                generation: 1,
            })
        })
        .collect();
    let mut out = Vec::new();
    while (out.len() as u64) < take {
        let Some(Reverse(ticket)) = heap.pop() else {
            break;
        };
        if replace {
            heap.push(Reverse(Ticket {
                number: next_ticket(&ticket.number),
                id: ticket.id,
                generation: ticket.generation + 1,
            }));
        }
        out.push(ticket);
    }
    out
}

/// `ticket` trimmed to its leading 9s and `digits` more significant digits
/// (how consistent_sampler prints tickets).
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

    #[test]
    fn next_tickets_exceed_and_keep_leading_nines() {
        let t = "0.99912".to_owned();
        let next = next_ticket(&t);
        assert!(next > t && next.starts_with("0.999"));
        assert_eq!(trim("0.9026656781853", 4), "0.90266");
        assert_eq!(trim("0.123", 9), "0.123");
    }
}
