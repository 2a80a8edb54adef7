//! Seeds for `deal`, `chars` and `trace`: a fresh cryptographic seed or the
//! user's `--seed TEXT`, printed so that any run can be replayed, and the
//! entropy check (can this seed reach every order?).

use knuffle::{DefaultRng, Seed};

use crate::failure::CliError;

/// The seed text a run uses, and whether the user gave it.
pub struct RunSeed {
    text: String,
    given: bool,
}

impl RunSeed {
    /// The user's `--seed TEXT`, or a fresh one: 256 bits from the operating
    /// system, written as 64 hex digits ([`Seed::random_text`]).
    pub fn choose(given: Option<String>) -> RunSeed {
        match given {
            Some(text) => RunSeed { text, given: true },
            None => RunSeed {
                text: Seed::random_text(),
                given: false,
            },
        }
    }

    /// The seed text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The seed text quoted for a POSIX shell, ready to paste after `--seed`.
    pub fn quoted(&self) -> String {
        shell_quote(&self.text)
    }

    /// A fresh generator at the start of this seed's stream: ChaCha20 keyed
    /// with SHA-256 of the seed text.
    pub fn rng(&self) -> DefaultRng {
        Seed::from_text(&self.text).rng()
    }

    /// [`RunSeed::check_reach`] as `knuffle COMMAND` reports it: a warning
    /// is printed on standard error and the run goes on; a `--strict`
    /// refusal is the failure (exit status 2).
    pub fn announce_reach(
        &self,
        command: &str,
        n: u64,
        what: &str,
        strict: bool,
    ) -> Result<(), CliError> {
        match self.check_reach(n, what, strict) {
            Ok(None) => Ok(()),
            Ok(Some(warning)) => {
                eprintln!("knuffle {command}: warning: {warning}");
                Ok(())
            }
            Err(refusal) => Err(CliError::invalid(refusal)),
        }
    }

    /// Checks whether a seed the user gave can reach every order of `n`
    /// items. Without `strict`, a seed whose form bounds its entropy (a
    /// decimal integer: [`knuffle::entropy::seed_text_bits`]) and that cannot reach
    /// all `n!` orders gives a warning (`Ok(Some)`). With `strict`, every
    /// seed text is measured ([`crate::seed_entropy::estimate_bits`]) and one
    /// too short for `n!` orders is an error (`Err`).
    /// Fresh seeds are not checked here (see [`RunSeed::describe_reach`]).
    /// `what` names the items, e.g. "a deck of 52 cards".
    pub fn check_reach(&self, n: u64, what: &str, strict: bool) -> Result<Option<String>, String> {
        if !self.given {
            return Ok(None);
        }
        let (bits, origin) = match knuffle::entropy::seed_text_bits(&self.text) {
            _ if strict => {
                let bits = crate::seed_entropy::estimate_bits(&self.text);
                (
                    bits,
                    format!(
                        "holds at most about {bits:.0} bits of entropy by its length and \
                         characters (see --help)"
                    ),
                )
            }
            Some(bits) if bits <= 64.0 => (
                bits,
                "is a decimal integer that fits in 64 bits".to_string(),
            ),
            Some(bits) => (bits, "is a decimal number".to_string()),
            None => return Ok(None),
        };
        if knuffle::entropy::seed_can_reach_every_order(bits.floor() as u64, n) {
            return Ok(None);
        }
        let needed = knuffle::entropy::entropy_bits_needed(n);
        let message = format!(
            "the seed {} {origin}: at most 2^{bits:.0} different results, but every order of \
             {what} needs log2({n}!) = {needed:.1} bits, so some orders can never occur",
            self.quoted()
        );
        if strict {
            Err(format!(
                "{message}; refused because of --strict (omit --seed for a fresh 256-bit seed, \
                 or use a longer seed text)"
            ))
        } else {
            Ok(Some(format!(
                "{message}. Omit --seed for a fresh 256-bit seed, or use a longer seed text \
                 (a phrase, 50 dice rolls); --strict makes this an error"
            )))
        }
    }

    /// One line for `--verbose`: how much entropy every order of `n` items
    /// needs and whether this seed's generator can supply it.
    pub fn describe_reach(&self, n: u64) -> String {
        let needed = knuffle::entropy::entropy_bits_needed(n);
        let seed_bits = if self.given {
            knuffle::entropy::seed_text_bits(&self.text)
        } else {
            Some(256.0)
        };
        let source = if self.given {
            "your seed"
        } else {
            "the fresh 256-bit seed"
        };
        let verdict = match seed_bits {
            Some(bits) if knuffle::entropy::seed_can_reach_every_order(bits.floor() as u64, n) => {
                format!("{source} ({bits:.0} bits) can reach every one")
            }
            Some(bits) => format!(
                "{source} ({bits:.0} bits) cannot reach every one (a {bits:.0}-bit seed \
                 reaches every order of at most {} items)",
                knuffle::entropy::largest_fully_covered_n(bits.floor() as u64)
            ),
            None if knuffle::entropy::seed_can_reach_every_order(256, n) => format!(
                "the generator's 256-bit key can reach every one; how much entropy \
                 {source} text holds is up to you"
            ),
            None => format!(
                "the generator's 256-bit key cannot reach every one (256 bits reach every \
                 order of at most {} items)",
                knuffle::entropy::largest_fully_covered_n(256)
            ),
        };
        format!("every order of {n} items needs log2({n}!) = {needed:.2} bits; {verdict}")
    }
}

/// `text` quoted for a POSIX shell: unchanged when it is made only of safe
/// characters, otherwise in single quotes (a `'` becomes `'\''`).
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.,:/@%+=".contains(&b));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips_through_a_shell_reading() {
        assert_eq!(shell_quote("abc123"), "abc123");
        assert_eq!(shell_quote("friday poker"), "'friday poker'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn a_64_bit_seed_is_flagged_for_52_cards_but_not_for_20_items() {
        let seed = RunSeed::choose(Some("12345".into()));
        assert!(seed.check_reach(52, "the deck", false).unwrap().is_some());
        assert!(seed.check_reach(52, "the deck", true).is_err());
        assert!(seed.check_reach(20, "20 items", false).unwrap().is_none());
        assert!(
            seed.check_reach(20, "20 items", true).is_err(),
            "5 digits in a run"
        );
        let varied = RunSeed::choose(Some("Zq7#pLm2@xW9".into()));
        assert!(varied.check_reach(20, "20 items", true).unwrap().is_none());
        let phrase = RunSeed::choose(Some("friday poker night".into()));
        assert!(phrase.check_reach(52, "the deck", false).unwrap().is_none());
        assert!(phrase.check_reach(52, "the deck", true).is_err());
        for short in [
            "",
            "a",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ] {
            let seed = RunSeed::choose(Some(short.into()));
            assert!(seed.check_reach(52, "the deck", true).is_err(), "{short:?}");
        }
        let fresh = RunSeed::choose(None);
        assert_eq!(fresh.text().len(), 64);
        assert!(fresh.check_reach(52, "the deck", true).unwrap().is_none());
        assert!(
            fresh
                .describe_reach(52)
                .contains("225.58 bits; the fresh 256-bit seed (256 bits) can reach every one")
        );
        assert!(fresh.describe_reach(58).contains("cannot reach"));
    }
}
