//! Commit-reveal: `C = H("knuffle-vd/1 commit" || lp(mode) || P ||
//! lp(secret) || lp(beacon_ref))`, published before the draw. Naming a
//! future beacon round in the commitment stops the operator from trying
//! many secrets against a known beacon, or picking the round afterwards.

use crate::encode::Encoder;
use crate::key::Mode;

/// The domain tag of the commitment.
pub const COMMIT_TAG: &str = "knuffle-vd/1 commit";

/// The commitment to `secret` for a draw in `mode` from population digest
/// `population`, seeded by the beacon round `beacon` (`drand:<chain>:<round>`).
pub fn commitment(mode: Mode, population: &[u8; 32], secret: &str, beacon: &str) -> [u8; 32] {
    let mut enc = Encoder::tagged(COMMIT_TAG);
    enc.lp(mode.as_str().as_bytes())
        .raw(population)
        .lp(secret.as_bytes())
        .lp(beacon.as_bytes());
    enc.finish()
}

/// A fresh secret: 256 bits from the operating system, as 64 hex digits.
pub fn new_secret() -> String {
    knuffle::Seed::random_text()
}
