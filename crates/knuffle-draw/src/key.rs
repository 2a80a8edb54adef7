//! Seed sources and the key: `K = H("knuffle-vd/1 key" || lp(mode) || P ||
//! u32be(m) || lp(label_1) || lp(value_1) || ...)` over the `m` sources in
//! order. The sample size is not hashed, so a larger sample extends a
//! smaller one.

use crate::encode::{Encoder, sha256};

/// The domain tag of the key.
pub const KEY_TAG: &str = "knuffle-vd/1 key";

/// How the items are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Without replacement: the first `k` positions of a uniform permutation.
    Perm,
    /// With replacement: `k` independent uniform picks.
    Replace,
}

impl Mode {
    /// The name hashed into the key (`perm` or `replace`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Perm => "perm",
            Mode::Replace => "replace",
        }
    }

    /// Parses `perm` or `replace`.
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "perm" => Some(Mode::Perm),
            "replace" => Some(Mode::Replace),
            _ => None,
        }
    }
}

/// One seed source of a draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Public text: dice rolls, a phrase, a client seed.
    Text(String),
    /// A drand beacon round: the randomness is `H(signature)`.
    Drand {
        /// The chain hash (hex).
        chain: String,
        /// The round number.
        round: u64,
        /// The BLS signature of the round.
        signature: Vec<u8>,
        /// The 32 randomness bytes (`H(signature)`).
        randomness: [u8; 32],
        /// The previous round's signature, for chained schemes (only the
        /// BLS signature check uses it; it is not hashed into the key).
        previous_signature: Option<Vec<u8>>,
    },
    /// A committed secret, opened.
    Commit {
        /// The secret (text).
        secret: String,
        /// The commitment published before the draw.
        commitment: [u8; 32],
        /// The beacon named in the commitment (`drand:<chain>:<round>`).
        beacon: String,
    },
}

/// The name of a drand round as it appears in labels and commitments.
pub fn beacon_ref(chain: &str, round: u64) -> String {
    format!("drand:{chain}:{round}")
}

impl Source {
    /// The label hashed into the key: `text`, `drand:<chain>:<round>` or `commit`.
    pub fn label(&self) -> String {
        match self {
            Source::Text(_) => "text".to_owned(),
            Source::Drand { chain, round, .. } => beacon_ref(chain, *round),
            Source::Commit { .. } => "commit".to_owned(),
        }
    }

    /// The value hashed into the key.
    pub fn value(&self) -> &[u8] {
        match self {
            Source::Text(text) => text.as_bytes(),
            Source::Drand { randomness, .. } => randomness,
            Source::Commit { secret, .. } => secret.as_bytes(),
        }
    }

    /// A drand source whose randomness is computed from the signature.
    pub fn drand(chain: &str, round: u64, signature: Vec<u8>) -> Source {
        Source::Drand {
            chain: chain.to_owned(),
            round,
            randomness: sha256(&signature),
            signature,
            previous_signature: None,
        }
    }

    /// The source of a beacon round read from a file, on chain `chain`.
    pub fn from_beacon(chain: &str, beacon: &crate::Beacon) -> Source {
        Source::Drand {
            chain: chain.to_owned(),
            round: beacon.round,
            randomness: sha256(&beacon.signature),
            signature: beacon.signature.clone(),
            previous_signature: beacon.previous_signature.clone(),
        }
    }
}

/// The key of a draw from population digest `population` under `sources`.
///
/// # Panics
/// With more than `u32::MAX` sources.
pub fn derive_key(mode: Mode, population: &[u8; 32], sources: &[Source]) -> [u8; 32] {
    let mut enc = Encoder::tagged(KEY_TAG);
    enc.lp(mode.as_str().as_bytes())
        .raw(population)
        .u32(u32::try_from(sources.len()).expect("fewer than 2^32 sources"));
    for source in sources {
        enc.lp(source.label().as_bytes()).lp(source.value());
    }
    enc.finish()
}
