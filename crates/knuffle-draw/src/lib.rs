//! Verifiable draws: lotteries, audit samples and card deals that anyone can
//! re-derive from public inputs with SHA-256 alone (format `knuffle-vd/1`).
//!
//! Workspace layer 2 (cli/python -> table -> records/lab/draw -> stats -> library):
//! it depends on `knuffle` and `knuffle-stats` (the exact bias of other
//! people's reductions), never on the lab, so no plotting stack comes with
//! it (checked by `crates/knuffle/tests/architecture.rs`).
//!
//! The full specification, with byte-level encodings and worked vectors, is
//! `docs/verifiable-draws.md` in the repository; an independent verifier in
//! Python (standard library only) is `docs/verifiable/reference_verifier.py`.
//!
//! # The format in brief
//! `H` = SHA-256; `lp(x)` = 4-byte big-endian length of `x`, then `x`;
//! strings are UTF-8, not normalised; `u32be`/`u64be` big-endian integers.
//!
//! 1. Population digest ([`Population::digest`]):
//!    `P = H("knuffle-vd/1 population" || u64be(n) || lp(item_0) || ... || lp(item_{n-1}))`.
//! 2. Key ([`derive_key`]): `K = H("knuffle-vd/1 key" || lp(mode) || P || u32be(m) ||
//!    lp(label_1) || lp(value_1) || ...)` over the `m` sources ([`Source`]) in
//!    order; `mode` is `perm` or `replace`. Labels and values: `text` / the
//!    text; `drand:<chain>:<round>` / the 32 randomness bytes (= `H(signature)`);
//!    `commit` / the secret. The sample size is not hashed.
//! 3. Stream ([`Sha256Stream`]): the 64-bit big-endian words of `H(K || u64be(0))`,
//!    `H(K || u64be(1))`, ... (four words per block).
//! 4. `below(b)` ([`knuffle::below`], Lemire 2019): `m = word * b` (128-bit);
//!    while `m mod 2^64 < (2^64 - b) mod b`, take the next word; the result is
//!    `m >> 64`. One call per draw.
//! 5. [`draw_indices`]: `perm` is forward Fisher-Yates on `0..n` (for `i` in
//!    `0..min(k, n-1)`: `j = i + below(n - i)`, swap), the result `a[0..k]`;
//!    `replace` is `k` draws of `below(n)`. The first `k` items of a larger
//!    draw are the smaller draw.
//! 6. Commitment ([`commitment`]): `C = H("knuffle-vd/1 commit" || lp(mode) || P ||
//!    lp(secret) || lp(beacon_ref))`, published before the beacon round exists.
//! 7. Transcript ([`Transcript`]): JSON with `format`, `mode`, `k`,
//!    `population`, `sources`, `key` and `result`; [`verify()`] re-derives it
//!    check by check.
//!
//! # Example
//! ```
//! use knuffle_draw::{Mode, Population, Source, make_transcript, verify};
//! // A public lottery: 3 winners among tickets 1..=100, seeded by dice rolls.
//! let tickets = Population::range(1, 100).unwrap();
//! let sources = [Source::Text("3 1 4 1 5 9 2 6 5 3 5 8 9 7 9 3 2 3 8 4".into())];
//! let transcript = make_transcript(Mode::Perm, &tickets, true, &sources, 3).unwrap();
//! assert_eq!(transcript.result.items.len(), 3);
//! // Anyone re-derives it from the JSON alone.
//! let again = knuffle_draw::Transcript::parse(&transcript.to_json()).unwrap();
//! let report = verify(&again, &tickets).unwrap();
//! assert!(report.verified(), "{report}");
//! ```
//!
//! The [`compat`] module re-derives the samplers election audits and online
//! games already use, and states their bias exactly.
//!
//! # Layers
//! Each module uses only those in the layers below it (no import cycles:
//! checked by `crates/knuffle/tests/architecture.rs` for every crate).
//!
//! | layer | modules | what they are |
//! | --- | --- | --- |
//! | 4 | [`verify`](mod@verify) (and `bls`, feature `bls`) | re-deriving a transcript check by check |
//! | 3 | [`transcript`] | the JSON record of a draw |
//! | 2 | [`draw`], [`commit`] | the draw itself; the commitment of commit-reveal |
//! | 1 | [`key`], [`stream`], [`population`], [`beacon`] | the key from the sources, the SHA-256 stream, the population digest, drand rounds |
//! | 0 | [`encode`], [`limits`] | length prefixes, big-endian integers, hex; the bounds on hostile numbers |
//! | beside | [`compat`] | other schemes (Rivest 2011, consistent_sampler, Stake), on [`encode`] only |

pub mod beacon;
#[cfg(feature = "bls")]
pub mod bls;
pub mod commit;
pub mod compat;
pub mod draw;
pub mod encode;
pub mod key;
pub mod limits;
pub mod population;
pub mod stream;
pub mod transcript;
pub mod verify;

pub use beacon::{Beacon, DRAND_MAINNET};
pub use commit::{commitment, new_secret};
pub use draw::{DrawError, Draws, draw_indices, draws};
pub use key::{Mode, Source, beacon_ref, derive_key};
pub use limits::{LimitError, MAX_RANGE_ITEMS};
pub use population::{Population, card_deck};
pub use stream::Sha256Stream;
pub use transcript::{FORMAT, Transcript, make_transcript};
pub use verify::{Check, Report, Trouble, population_of, verify};
