//! The shape of a JSON line (json_infer.rs) read as serde_json parses it,
//! through serde's visitor: no value is built (no map, no string, no
//! allocation but the shape's), which is most of the cost of inferring a
//! schema from every line.
//!
//! The shape is written as `shape_of` of json_infer.rs writes it from a
//! parsed `serde_json::Value` (its notes say what a shape holds), with one
//! difference: a key written twice in an object is written twice here, where
//! the value keeps its first place and last value. The shape here then says
//! more, never less: two lines of one shape here are of one shape there. The
//! numbers of the top-level keys are told apart as `Integers` does (a
//! fraction, a negative integer, an integer above `i64::MAX`), by key, in
//! the order written; a line whose top-level keys repeat
//! ([`LineShape::repeats`]) is for the caller to read as a value.

use std::collections::HashSet;
use std::fmt;

use serde_core::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// A number that was a fraction (or had an exponent).
pub(crate) const FRACTION: u8 = 1;
/// A negative integer.
pub(crate) const NEGATIVE: u8 = 2;
/// An integer above `i64::MAX`.
pub(crate) const ABOVE_I64: u8 = 4;

/// What a line's shape holds besides its bytes.
#[derive(Default)]
pub(crate) struct LineShape {
    /// Whether the line is a JSON object.
    pub object: bool,
    /// Per top-level key, in the order written: where its name is in the
    /// shape (its bytes), and what its value was as a number (the flags
    /// above; 0 for a value that is not a number).
    pub keys: Vec<(std::ops::Range<usize>, u8)>,
}

impl LineShape {
    /// Whether a top-level key is written more than once.
    pub(crate) fn repeats(&self, shape: &[u8]) -> bool {
        let mut names: Vec<&[u8]> = self.keys.iter().map(|(at, _)| &shape[at.clone()]).collect();
        names.sort_unstable();
        names.windows(2).any(|pair| pair[0] == pair[1])
    }
}

/// Parses `line` (one whole JSON value, as `serde_json::from_slice`
/// does, the same errors), writing its shape to `out` (cleared first).
pub(crate) fn read(line: &[u8], out: &mut Vec<u8>) -> Result<LineShape, serde_json::Error> {
    out.clear();
    let mut facts = LineShape::default();
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    Inner {
        out,
        number: None,
        top: Some(&mut facts),
    }
    .deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(facts)
}

/// A value: its shape written to `out`, its number's flags into `number`;
/// the line's own value (`top`) also notes an object's keys.
struct Inner<'a> {
    out: &'a mut Vec<u8>,
    number: Option<&'a mut u8>,
    top: Option<&'a mut LineShape>,
}

/// An object's key: `k`, its length (8 bytes, little-endian) and its
/// bytes (the `k` tells a key from the `}` that ends the object, whatever
/// the length's first byte: the shape reads one way only).
struct Key<'a> {
    out: &'a mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for Inner<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: serde_core::de::Error>(self, key: &str) -> Result<(), E> {
        self.out.push(b'k');
        self.out
            .extend_from_slice(&(key.len() as u64).to_le_bytes());
        self.out.extend_from_slice(key.as_bytes());
        Ok(())
    }
}

impl Inner<'_> {
    fn flag(self, flags: u8, shape: u8) {
        if let Some(number) = self.number {
            *number |= flags;
        }
        self.out.push(shape);
    }
}

impl<'de> Visitor<'de> for Inner<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_unit<E: serde_core::de::Error>(self) -> Result<(), E> {
        self.out.push(b'n');
        Ok(())
    }

    fn visit_bool<E: serde_core::de::Error>(self, _: bool) -> Result<(), E> {
        self.out.push(b'b');
        Ok(())
    }

    // serde_json hands a negative integer to `visit_i64`, one at least 0
    // to `visit_u64`, any other number to `visit_f64` (as it does for
    // `Value`, whose `is_i64` these follow).
    fn visit_i64<E: serde_core::de::Error>(self, v: i64) -> Result<(), E> {
        self.flag(if v < 0 { NEGATIVE } else { 0 }, b'i');
        Ok(())
    }

    fn visit_u64<E: serde_core::de::Error>(self, v: u64) -> Result<(), E> {
        if i64::try_from(v).is_ok() {
            self.flag(0, b'i');
        } else {
            self.flag(ABOVE_I64, b'f');
        }
        Ok(())
    }

    fn visit_f64<E: serde_core::de::Error>(self, _: f64) -> Result<(), E> {
        self.flag(FRACTION, b'f');
        Ok(())
    }

    fn visit_str<E: serde_core::de::Error>(self, _: &str) -> Result<(), E> {
        self.out.push(b's');
        Ok(())
    }

    // The shapes of the elements, each once, in the order first seen.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.out.push(b'[');
        let mut element = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        loop {
            element.clear();
            let more = seq.next_element_seed(Inner {
                out: &mut element,
                number: None,
                top: None,
            })?;
            if more.is_none() {
                break;
            }
            // An element of the shape before it (most arrays' every
            // element) is looked up no further.
            if last.as_deref() == Some(&element[..]) {
                continue;
            }
            if seen.insert(element.clone()) {
                self.out.extend_from_slice(&element);
            }
            last = Some(element.clone());
        }
        self.out.push(b']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.out.push(b'{');
        let mut top = self.top;
        if let Some(facts) = top.as_deref_mut() {
            facts.object = true;
        }
        loop {
            // A key's name starts after its tag and length.
            let name = self.out.len() + 9;
            if map.next_key_seed(Key { out: self.out })?.is_none() {
                break;
            }
            let name = name..self.out.len();
            let mut number = 0;
            map.next_value_seed(Inner {
                out: self.out,
                number: top.is_some().then_some(&mut number),
                top: None,
            })?;
            if let Some(facts) = top.as_deref_mut() {
                facts.keys.push((name, number));
            }
        }
        self.out.push(b'}');
        Ok(())
    }
}
