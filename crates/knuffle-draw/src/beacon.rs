//! drand beacon rounds, read from the JSON drand serves
//! (`GET /{chain}/public/{round}`: `{"round", "randomness", "signature",
//! "previous_signature"?}`), with an optional `"chain"`/`"chain_hash"` field.

use serde_json::Value;

use crate::encode::{from_hex, sha256, to_hex};

/// The chain hash of drand's League of Entropy mainnet `default` chain
/// (30-second rounds, chained BLS on G2); the chain used when none is named.
pub const DRAND_MAINNET: &str = "8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce";

/// One beacon round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beacon {
    /// The chain hash named in the file, if any.
    pub chain: Option<String>,
    /// The round number.
    pub round: u64,
    /// The round's signature.
    pub signature: Vec<u8>,
    /// The randomness published with it.
    pub randomness: [u8; 32],
    /// The previous round's signature (chained schemes), if the file has it.
    pub previous_signature: Option<Vec<u8>>,
}

impl Beacon {
    /// Parses drand's JSON and checks that the randomness is SHA-256 of the
    /// signature (what drand defines it to be).
    pub fn parse(json: &str) -> Result<Beacon, String> {
        let value: Value =
            serde_json::from_str(json).map_err(|e| format!("not a drand beacon (JSON): {e}"))?;
        let field = |name: &str| {
            value
                .get(name)
                .ok_or_else(|| format!("not a drand beacon: no \"{name}\" field"))
        };
        let round = field("round")?
            .as_u64()
            .ok_or("not a drand beacon: \"round\" is not a non-negative integer")?;
        let hex_field = |name: &str| -> Result<Vec<u8>, String> {
            let text = field(name)?
                .as_str()
                .ok_or_else(|| format!("not a drand beacon: \"{name}\" is not a string"))?;
            from_hex(text).map_err(|e| format!("drand beacon \"{name}\": {e}"))
        };
        let signature = hex_field("signature")?;
        let randomness = <[u8; 32]>::try_from(hex_field("randomness")?.as_slice())
            .map_err(|_| "drand beacon \"randomness\": expected 32 bytes".to_owned())?;
        if sha256(&signature) != randomness {
            return Err(format!(
                "drand beacon round {round}: the randomness {} is not SHA-256 of the signature ({})",
                to_hex(&randomness),
                to_hex(&sha256(&signature))
            ));
        }
        let previous_signature = match value.get("previous_signature") {
            None | Some(Value::Null) => None,
            Some(_) => Some(hex_field("previous_signature")?),
        };
        let chain = ["chain", "chain_hash"]
            .iter()
            .find_map(|name| value.get(*name).and_then(Value::as_str))
            .map(str::to_owned);
        Ok(Beacon {
            chain,
            round,
            signature,
            randomness,
            previous_signature,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn randomness_must_be_the_hash_of_the_signature() {
        let sig = "aa".repeat(48);
        let good = to_hex(&sha256(&[0xaa; 48]));
        let json = format!(r#"{{"round": 7, "signature": "{sig}", "randomness": "{good}"}}"#);
        let beacon = Beacon::parse(&json).unwrap();
        assert_eq!(beacon.round, 7);
        let bad = json.replace(&good[..2], if &good[..2] == "00" { "11" } else { "00" });
        assert!(Beacon::parse(&bad).unwrap_err().contains("not SHA-256"));
        assert!(Beacon::parse("{").is_err());
        assert!(Beacon::parse("{}").unwrap_err().contains("round"));
    }
}
