//! The BLS signature of a drand round (feature `bls`): drand signs
//! `H(previous_signature || u64be(round))` (chained) or `H(u64be(round))`
//! (unchained) with the chain's key; checked with the `drand-verify` crate
//! (BLS12-381 pairings) for the chains whose public key knuffle knows.

use drand_verify::{G1Pubkey, Pubkey};

use crate::beacon::DRAND_MAINNET;

/// The public key of drand's League of Entropy mainnet `default` chain
/// (`pedersen-bls-chained`, key on G1), from the chain's `/info`.
const MAINNET_PUBLIC_KEY: [u8; 48] = [
    0x86, 0x8f, 0x00, 0x5e, 0xb8, 0xe6, 0xe4, 0xca, 0x0a, 0x47, 0xc8, 0xa7, 0x7c, 0xea, 0xa5, 0x30,
    0x9a, 0x47, 0x97, 0x8a, 0x7c, 0x71, 0xbc, 0x5c, 0xce, 0x96, 0x36, 0x6b, 0x5d, 0x7a, 0x56, 0x99,
    0x37, 0xc5, 0x29, 0xee, 0xda, 0x66, 0xc7, 0x29, 0x37, 0x84, 0xa9, 0x40, 0x28, 0x01, 0xaf, 0x31,
];

/// Checks the signature of round `round` of `chain`: `Ok(true)` valid,
/// `Ok(false)` invalid, `Err(why)` when it cannot be checked here.
pub fn check_signature(
    chain: &str,
    round: u64,
    previous_signature: Option<&[u8]>,
    signature: &[u8],
) -> Result<bool, String> {
    if !chain.eq_ignore_ascii_case(DRAND_MAINNET) {
        return Err(format!(
            "the public key of chain {chain} is not known to this knuffle (only drand mainnet)"
        ));
    }
    let previous = previous_signature.ok_or(
        "the mainnet chain is chained: the transcript lacks the previous round's signature",
    )?;
    let key = G1Pubkey::from_fixed(MAINNET_PUBLIC_KEY).map_err(|e| e.to_string())?;
    Ok(key.verify(round, previous, signature).unwrap_or(false))
}
