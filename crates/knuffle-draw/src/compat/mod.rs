//! Re-deriving draws made by the schemes already in use, byte for byte, and
//! reporting their bias exactly. These reproduce other people's methods,
//! biases included; nothing knuffle itself draws goes through them.
//!
//! * [`rivest`]: Rivest's sampler (2011), used by ColoradoRLA.
//! * [`consistent`]: Rivest's consistent_sampler (2018), used by Arlo.
//! * [`stake`]: "provably fair" casino cards (Stake style: HMAC-SHA256
//!   bytes scaled to a float).

mod bignum;
pub mod consistent;
mod hmac;
pub mod rivest;
pub mod stake;

pub use hmac::hmac_sha256;

/// An exact statement of a scheme's bias, line by line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BiasReport {
    /// The scheme.
    pub scheme: &'static str,
    /// Whether the scheme is exactly uniform.
    pub exact: bool,
    /// The statement, one sentence per line.
    pub lines: Vec<String>,
}

impl std::fmt::Display for BiasReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for line in &self.lines {
            writeln!(f, "{}: {line}", self.scheme)?;
        }
        Ok(())
    }
}
