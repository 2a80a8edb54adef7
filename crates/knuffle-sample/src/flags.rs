//! The options of a sample or a split as the user gives them, and the one
//! decision made from them: which options go together ([`CONFLICTS`],
//! [`REQUIRES`]), which mode they ask for, and the records' framing. The
//! command line (clap, which is given these tables) and the Python
//! bindings only convert their types into [`SampleFlags`] /
//! [`RecordFlags`] and print the error; each names the options its own
//! way ([`FlagNames`]).

use crate::error::SampleError;
use crate::fields::FieldName;
use crate::options::{Mode, RandomValues};
use crate::probability::Probability;
use crate::records::Framing;

/// An option of `knuffle sample` / `knuffle split` (their Python
/// keywords are the same options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// `-n K`.
    Count,
    /// `-p P`.
    Prob,
    /// `-w FIELD`.
    Weights,
    /// `-r`.
    Replace,
    /// `-k FIELDS`.
    Key,
    /// `--per-key N`.
    PerKey,
    /// `--skip-bad-weights`.
    SkipBadWeights,
    /// `--inorder`.
    InOrder,
    /// `--print-random`.
    PrintRandom,
    /// `--gen-random-inorder`.
    GenRandomInorder,
    /// `--csv`.
    Csv,
    /// `-z`.
    ZeroTerminated,
}

/// Pairs of options no sample takes together: `(a, b)` is reported as
/// "a and b cannot be combined" (the command line declares the conflict
/// on `a`).
pub const CONFLICTS: &[(Flag, Flag)] = &[
    (Flag::Prob, Flag::Count),
    (Flag::Prob, Flag::Weights),
    (Flag::Replace, Flag::Prob),
    (Flag::Replace, Flag::InOrder),
    (Flag::Key, Flag::Count),
    (Flag::Key, Flag::Weights),
    (Flag::Key, Flag::Replace),
    (Flag::Key, Flag::InOrder),
    (Flag::PerKey, Flag::Prob),
    (Flag::PrintRandom, Flag::Replace),
    (Flag::PrintRandom, Flag::PerKey),
    (Flag::GenRandomInorder, Flag::Replace),
    (Flag::GenRandomInorder, Flag::PerKey),
    (Flag::GenRandomInorder, Flag::Count),
    (Flag::GenRandomInorder, Flag::PrintRandom),
    (Flag::Csv, Flag::ZeroTerminated),
];

/// Options that need another: `(a, b)`: "a needs b".
pub const REQUIRES: &[(Flag, Flag)] = &[
    (Flag::PerKey, Flag::Key),
    (Flag::SkipBadWeights, Flag::Weights),
    (Flag::InOrder, Flag::Count),
];

/// How a front end names its options in messages.
#[derive(Clone, Copy, Debug)]
pub struct FlagNames {
    /// The option alone: `-k` on the command line, `key=` in Python.
    pub name: fn(Flag) -> &'static str,
    /// The option as given with its value: `-p P`, `p=`.
    pub with_value: fn(Flag) -> &'static str,
}

/// The sampling options as given (their texts not parsed yet).
#[derive(Clone, Debug, Default)]
pub struct SampleFlags {
    /// `-n K`.
    pub count: Option<u64>,
    /// `-p P`, as written.
    pub prob: Option<String>,
    /// `-w FIELD`, as written.
    pub weights: Option<String>,
    /// `-r`.
    pub replace: bool,
    /// `-k FIELDS`, as written.
    pub key: Option<String>,
    /// `--per-key N`.
    pub per_key: Option<u64>,
    /// `--skip-bad-weights`.
    pub skip_bad_weights: bool,
    /// `--inorder`.
    pub in_order: bool,
    /// `--print-random`.
    pub print_random: bool,
    /// `--gen-random-inorder`.
    pub gen_random_inorder: bool,
}

/// The record-format options as given (`--csv`, `-z`, `-d CHAR`).
#[derive(Clone, Debug, Default)]
pub struct RecordFlags {
    /// `--csv`.
    pub csv: bool,
    /// `-z`.
    pub zero_terminated: bool,
    /// `-d CHAR`, as written.
    pub delimiter: Option<String>,
}

impl SampleFlags {
    /// Whether `flag` was given.
    fn given(&self, flag: Flag) -> bool {
        match flag {
            Flag::Count => self.count.is_some(),
            Flag::Prob => self.prob.is_some(),
            Flag::Weights => self.weights.is_some(),
            Flag::Replace => self.replace,
            Flag::Key => self.key.is_some(),
            Flag::PerKey => self.per_key.is_some(),
            Flag::SkipBadWeights => self.skip_bad_weights,
            Flag::InOrder => self.in_order,
            Flag::PrintRandom => self.print_random,
            Flag::GenRandomInorder => self.gen_random_inorder,
            Flag::Csv | Flag::ZeroTerminated => false,
        }
    }

    /// An error when options conflict or one lacks another (what clap
    /// checks on the command line).
    pub fn check_combination(&self, names: FlagNames) -> Result<(), SampleError> {
        check_combination(&|flag| self.given(flag), names)
    }

    /// The mode these options ask for; an error when options conflict,
    /// one lacks another, or a text does not parse.
    pub fn mode(&self, names: FlagNames) -> Result<Mode, SampleError> {
        self.check_combination(names)?;
        let name = names.name;
        let mode = if let Some(fields) = &self.key {
            let fields = FieldName::parse_list(name(Flag::Key), fields)?;
            match (&self.prob, self.per_key) {
                (Some(text), _) => Mode::Distinct {
                    fields,
                    probability: Probability::parse(text)?,
                },
                (None, Some(per_key)) => Mode::Stratified { fields, per_key },
                (None, None) => {
                    return Err(SampleError::invalid(format!(
                        "{} needs {} (distinct sampling) or {} (stratified)",
                        name(Flag::Key),
                        (names.with_value)(Flag::Prob),
                        (names.with_value)(Flag::PerKey),
                    )));
                }
            }
        } else if self.replace {
            Mode::Replacement {
                field: match &self.weights {
                    Some(field) => Some(FieldName::parse(name(Flag::Weights), field)?),
                    None => None,
                },
                count: self.count,
            }
        } else if let Some(text) = &self.prob {
            Mode::Bernoulli(Probability::parse(text)?)
        } else if let Some(field) = &self.weights {
            Mode::Weighted {
                field: FieldName::parse(name(Flag::Weights), field)?,
                count: self.count,
            }
        } else {
            Mode::Uniform { count: self.count }
        };
        Ok(mode)
    }

    /// The random values to write with the records of `mode`: an error
    /// when they are asked of a mode that draws none per record.
    pub fn random_values(
        &self,
        mode: &Mode,
        names: FlagNames,
    ) -> Result<RandomValues, SampleError> {
        let name = names.name;
        Ok(match (self.print_random, self.gen_random_inorder) {
            (false, false) => RandomValues::Off,
            (asked, every) if mode.has_random_values() => {
                debug_assert!(asked || every);
                if every {
                    RandomValues::Every
                } else {
                    RandomValues::Sampled
                }
            }
            (asked, _) => {
                let option = if asked {
                    Flag::PrintRandom
                } else {
                    Flag::GenRandomInorder
                };
                return Err(SampleError::invalid(format!(
                    "{} needs a mode that gives each record a random value: {p}, {k} with {p}, \
                     or {w} without {r} ({n}, {r} and {per_key} draw none per record)",
                    name(option),
                    p = name(Flag::Prob),
                    k = name(Flag::Key),
                    w = name(Flag::Weights),
                    r = name(Flag::Replace),
                    n = name(Flag::Count),
                    per_key = name(Flag::PerKey),
                )));
            }
        })
    }
}

impl RecordFlags {
    /// The records' framing and the field delimiter (which cannot be the
    /// records' terminator).
    pub fn decide(&self, names: FlagNames) -> Result<(Framing, u8), SampleError> {
        check_combination(
            &|flag| match flag {
                Flag::Csv => self.csv,
                Flag::ZeroTerminated => self.zero_terminated,
                _ => false,
            },
            names,
        )?;
        let framing = if self.csv {
            Framing::Csv
        } else {
            Framing::Lines(if self.zero_terminated { 0 } else { b'\n' })
        };
        let delimiter = crate::options::parse_delimiter(self.delimiter.as_deref(), self.csv)?;
        crate::options::check_delimiter(framing, delimiter)?;
        Ok((framing, delimiter))
    }
}

/// The first conflict or missing option among the options `given`.
fn check_combination(given: &dyn Fn(Flag) -> bool, names: FlagNames) -> Result<(), SampleError> {
    let name = names.name;
    if let Some((a, b)) = CONFLICTS.iter().find(|(a, b)| given(*a) && given(*b)) {
        return Err(SampleError::invalid(format!(
            "{} and {} cannot be combined",
            name(*a),
            name(*b)
        )));
    }
    if let Some((a, b)) = REQUIRES.iter().find(|(a, b)| given(*a) && !given(*b)) {
        return Err(SampleError::invalid(format!(
            "{} needs {}",
            name(*a),
            name(*b)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names as in the messages of the command line.
    fn cli(flag: Flag) -> &'static str {
        match flag {
            Flag::Count => "-n",
            Flag::Prob => "-p",
            Flag::Weights => "-w",
            Flag::Replace => "-r",
            Flag::Key => "-k",
            Flag::PerKey => "--per-key",
            Flag::SkipBadWeights => "--skip-bad-weights",
            Flag::InOrder => "--inorder",
            Flag::PrintRandom => "--print-random",
            Flag::GenRandomInorder => "--gen-random-inorder",
            Flag::Csv => "--csv",
            Flag::ZeroTerminated => "-z",
        }
    }

    const NAMES: FlagNames = FlagNames {
        name: cli,
        with_value: cli,
    };

    fn decide(flags: SampleFlags) -> Result<(Mode, RandomValues), String> {
        let mode = flags.mode(NAMES).map_err(|e| e.message().to_owned())?;
        let values = flags
            .random_values(&mode, NAMES)
            .map_err(|e| e.message().to_owned())?;
        Ok((mode, values))
    }

    #[test]
    fn each_mode_from_its_options() {
        let text = |s: &str| Some(s.to_owned());
        let cases: Vec<(SampleFlags, &str)> = vec![
            (SampleFlags::default(), "Uniform { count: None }"),
            (
                SampleFlags {
                    count: Some(3),
                    ..Default::default()
                },
                "Uniform { count: Some(3) }",
            ),
            (
                SampleFlags {
                    prob: text("1/2"),
                    ..Default::default()
                },
                "Bernoulli",
            ),
            (
                SampleFlags {
                    replace: true,
                    weights: text("2"),
                    ..Default::default()
                },
                "Replacement",
            ),
            (
                SampleFlags {
                    key: text("1"),
                    prob: text("0.1"),
                    ..Default::default()
                },
                "Distinct",
            ),
            (
                SampleFlags {
                    key: text("1"),
                    per_key: Some(2),
                    ..Default::default()
                },
                "Stratified",
            ),
            (
                SampleFlags {
                    weights: text("w"),
                    count: Some(5),
                    ..Default::default()
                },
                "Weighted",
            ),
        ];
        for (flags, mode) in cases {
            let (got, values) = decide(flags).unwrap();
            assert!(
                format!("{got:?}").starts_with(mode),
                "{got:?} is not {mode}"
            );
            assert_eq!(values, RandomValues::Off);
        }
    }

    #[test]
    fn every_conflict_and_requirement_is_refused_by_name() {
        for &(a, b) in CONFLICTS.iter().filter(|(a, _)| *a != Flag::Csv) {
            let mut flags = SampleFlags {
                key: Some("1".into()),
                ..Default::default()
            };
            set(&mut flags, a);
            set(&mut flags, b);
            let message = decide(flags).unwrap_err();
            assert!(
                message.contains(" cannot be combined"),
                "{a:?} {b:?}: {message}"
            );
        }
        for &(a, b) in REQUIRES {
            let mut flags = SampleFlags::default();
            set(&mut flags, a);
            assert_eq!(
                decide(flags).unwrap_err(),
                format!("{} needs {}", cli(a), cli(b))
            );
        }
        let record = RecordFlags {
            csv: true,
            zero_terminated: true,
            delimiter: None,
        };
        assert_eq!(
            record.decide(NAMES).unwrap_err().message(),
            "--csv and -z cannot be combined"
        );
    }

    fn set(flags: &mut SampleFlags, flag: Flag) {
        match flag {
            Flag::Count => flags.count = Some(1),
            Flag::Prob => flags.prob = Some("0.5".into()),
            Flag::Weights => flags.weights = Some("1".into()),
            Flag::Replace => flags.replace = true,
            Flag::Key => flags.key = Some("1".into()),
            Flag::PerKey => flags.per_key = Some(1),
            Flag::SkipBadWeights => flags.skip_bad_weights = true,
            Flag::InOrder => flags.in_order = true,
            Flag::PrintRandom => flags.print_random = true,
            Flag::GenRandomInorder => flags.gen_random_inorder = true,
            Flag::Csv | Flag::ZeroTerminated => {}
        }
    }

    #[test]
    fn random_values_only_for_modes_that_draw_one_per_record() {
        let with = |flags: SampleFlags| decide(flags).map(|(_, values)| values);
        let p = SampleFlags {
            prob: Some("0.5".into()),
            print_random: true,
            ..Default::default()
        };
        assert_eq!(with(p).unwrap(), RandomValues::Sampled);
        let every = SampleFlags {
            weights: Some("1".into()),
            gen_random_inorder: true,
            ..Default::default()
        };
        assert_eq!(with(every).unwrap(), RandomValues::Every);
        let n = SampleFlags {
            count: Some(2),
            print_random: true,
            ..Default::default()
        };
        assert_eq!(
            with(n).unwrap_err(),
            "--print-random needs a mode that gives each record a random value: -p, -k with \
             -p, or -w without -r (-n, -r and --per-key draw none per record)"
        );
    }

    #[test]
    fn key_needs_a_probability_or_a_count_per_key() {
        let flags = SampleFlags {
            key: Some("1".into()),
            ..Default::default()
        };
        assert_eq!(
            decide(flags).unwrap_err(),
            "-k needs -p (distinct sampling) or --per-key (stratified)"
        );
    }
}
