//! [`Rand09`]: a rand 0.9 generator used as a `rand_core` 0.10 generator
//! (feature `rand09`).
//!
//! knuffle takes `rand_core` 0.10 generators, as rand 0.10 does. A generator
//! written for rand 0.9 (`rand_core` 0.9's `RngCore`: `rand::rngs::StdRng`,
//! `rand_pcg`, `rand_chacha` 0.9, `rand::rng()` of rand 0.9, ...) implements
//! the older trait, so wrap it: `Rand09(&mut rng)` or `Rand09(rng)`. Each
//! word is passed through unchanged, so the shuffle is the same as with the
//! same generator algorithm from `rand_core` 0.10.

use core::convert::Infallible;

use rand_core::{TryCryptoRng, TryRng};
use rand_core09::{CryptoRng as CryptoRng09, RngCore as RngCore09};

/// A `rand_core` 0.9 generator (`RngCore`) as a `rand_core` 0.10 one
/// (`Rng`, through an infallible `TryRng`): `next_u32`, `next_u64` and
/// `fill_bytes` are forwarded as they are. Cryptographic 0.9 generators
/// stay cryptographic (`CryptoRng`).
///
/// # Example
/// ```
/// use knuffle::Rand09;
/// use rand_core09::RngCore;
///
/// // Any rand 0.9 generator; here a toy one written against rand_core 0.9.
/// struct Counter(u64);
/// impl RngCore for Counter {
///     fn next_u32(&mut self) -> u32 { self.next_u64() as u32 }
///     fn next_u64(&mut self) -> u64 { self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15); self.0 }
///     fn fill_bytes(&mut self, dst: &mut [u8]) { rand_core09::impls::fill_bytes_via_next(self, dst) }
/// }
///
/// let mut old = Counter(7);
/// let mut deck: Vec<u32> = (0..52).collect();
/// knuffle::shuffle(&mut deck, &mut Rand09(&mut old));
/// let mut sorted = deck.clone();
/// sorted.sort();
/// assert_eq!(sorted, (0..52).collect::<Vec<_>>());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rand09<R>(pub R);

impl<R: RngCore09> TryRng for Rand09<R> {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.next_u32())
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64())
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}

impl<R: RngCore09 + CryptoRng09> TryCryptoRng for Rand09<R> {}
