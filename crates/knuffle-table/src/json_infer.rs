//! The schema of a JSON Lines file, inferred from every line (Arrow's
//! inference, `arrow::json::reader::infer_json_schema_from_iterator`, with
//! knuffle's rules: see json_in.rs), its chunks parsed on several threads.
//!
//! Each chunk of lines (text_chunks.rs) is parsed on its own: every line
//! is parsed (serde_json, building no value: json_shape.rs reads the shape
//! as it parses), and only the first line of each *shape* is kept
//! (the shape of a line: its keys in order and the JSON type of each value,
//! integers of `i64` told from other numbers, nested objects alike, an
//! array's elements' shapes each once in the order first seen). Arrow's inference and the check of one type per
//! field (json_kinds.rs) see only shapes: what they keep of a line is its
//! shape, and a line of a shape seen before adds nothing, so they then see
//! the first line of each shape, in file order, with its number: the same
//! columns in the same order, the same types and the same first conflict
//! (its line, and the first line of the other type) as when they see every
//! line. Which integers were negative, fractions or above `i64::MAX` is
//! gathered from every line, for the UInt64 rule.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

use arrow::datatypes::{DataType, Field, Schema};
use serde_json::Value;

use crate::error::{Error, arrow_error};
use crate::json_kinds::Kinds;
use crate::json_shape;
use crate::text_chunks::{self, LineChunks};

/// What the integers of a top-level key were.
#[derive(Clone, Copy, Default)]
pub(crate) struct Integers {
    /// Some value was a number with a fraction or exponent.
    fraction: bool,
    /// Some integer was negative.
    negative: bool,
    /// Some integer was above `i64::MAX`.
    above_i64: bool,
}

impl Integers {
    fn see(integers: &mut HashMap<String, Integers>, object: &serde_json::Map<String, Value>) {
        for (key, value) in object {
            if let Value::Number(n) = value {
                let seen = match integers.get_mut(key) {
                    Some(seen) => seen,
                    None => integers.entry(key.clone()).or_default(),
                };
                seen.fraction |= n.is_f64();
                seen.negative |= n.as_i64().is_some_and(|i| i < 0);
                seen.above_i64 |= n.is_u64() && !n.is_i64();
            }
        }
    }

    fn add(&mut self, other: Integers) {
        self.fraction |= other.fraction;
        self.negative |= other.negative;
        self.above_i64 |= other.above_i64;
    }
}

/// Why the lines of a chunk stop (its line number counted in the chunk).
enum Stop {
    TooLong(u64),
    NotJson(u64, String),
    NotObject(u64),
}

/// The first line of a shape in a chunk.
struct Shape {
    line: u64,
    text: std::ops::Range<usize>,
    shape: Vec<u8>,
}

/// What the lines of one chunk hold.
struct Seen {
    lines: u64,
    /// The text of the first line of each shape, one after another.
    text: Vec<u8>,
    shapes: Vec<Shape>,
    integers: HashMap<String, Integers>,
    stop: Option<Stop>,
}

/// The schema of every line of `input` (see the module's notes); lines
/// longer than `max_line` bytes are refused. Chunks of `chunk_bytes` are
/// parsed `workers` at a time.
pub(crate) fn infer(
    path: &Path,
    input: &mut impl BufRead,
    max_line: usize,
    workers: usize,
    chunk_bytes: usize,
) -> Result<Schema, Error> {
    let invalid = |text: String| Error::invalid(format!("{}: {text}", path.display()));
    let mut chunks = LineChunks::new(input, chunk_bytes.min(max_line.max(1)), max_line);
    let mut integers: HashMap<String, Integers> = HashMap::new();
    let mut kinds = Kinds::default();
    let mut shapes_seen: HashSet<Vec<u8>> = HashSet::new();
    let mut shapes_bytes = 0usize;
    // Lines of the chunks before the ones being merged.
    let mut base = 0u64;
    let mut ready: std::collections::VecDeque<(u64, Value)> = Default::default();
    // The error after the lines in `ready`.
    let mut then: Option<Error> = None;
    let mut failure = None;
    let mut input_done = false;
    let schema = {
        let values = std::iter::from_fn(|| {
            loop {
                if failure.is_some() {
                    return None;
                }
                if let Some((line, value)) = ready.pop_front() {
                    let Value::Object(object) = &value else {
                        return None;
                    };
                    if let Err(conflict) = kinds.see(path, line, object) {
                        failure = Some(conflict);
                        return None;
                    }
                    return Some(Ok::<Value, arrow::error::ArrowError>(value));
                }
                if let Some(error) = then.take() {
                    failure = Some(error);
                    return None;
                }
                if input_done {
                    return None;
                }
                // The next chunks, parsed at once.
                let mut texts = Vec::with_capacity(workers);
                while texts.len() < workers.max(1) {
                    match chunks.next() {
                        Some(Ok(text)) => texts.push(text),
                        Some(Err(e)) => {
                            then = Some(Error::io_at(path, &e));
                            break;
                        }
                        None => {
                            input_done = true;
                            break;
                        }
                    }
                }
                if then.is_some() {
                    input_done = true;
                }
                let seen: Vec<Seen> = if texts.len() > 1 {
                    use rayon::prelude::*;
                    texts.par_iter().map(|t| see_chunk(t, max_line)).collect()
                } else {
                    texts.iter().map(|t| see_chunk(t, max_line)).collect()
                };
                let io_error = then.take();
                for chunk in seen {
                    for shape in &chunk.shapes {
                        if shapes_seen.contains(&shape.shape) {
                            continue;
                        }
                        // At most a line's memory of shapes remembered: past
                        // it they are forgotten (a line of a shape seen
                        // before is then seen again, which changes nothing).
                        shapes_bytes += shape.shape.len();
                        if shapes_bytes > max_line {
                            shapes_seen.clear();
                            shapes_bytes = shape.shape.len();
                        }
                        // Parsed once already: it parses again.
                        if let Ok(value) = serde_json::from_slice(&chunk.text[shape.text.clone()]) {
                            ready.push_back((base + shape.line, value));
                        }
                        shapes_seen.insert(shape.shape.clone());
                    }
                    for (key, seen) in chunk.integers {
                        integers.entry(key).or_default().add(seen);
                    }
                    if let Some(stop) = chunk.stop {
                        then = Some(invalid(match stop {
                            Stop::TooLong(line) => format!(
                                "line {} is longer than {} KiB, the most the memory limit \
                                 allows one line; raise the memory limit (--memory)",
                                base + line,
                                max_line >> 10
                            ),
                            Stop::NotJson(line, text) => {
                                format!("line {}: not a JSON value: {text}", base + line)
                            }
                            Stop::NotObject(line) => format!(
                                "line {}: not a JSON object (JSON Lines holds one object per \
                                 line)",
                                base + line
                            ),
                        }));
                        input_done = true;
                        break;
                    }
                    base += chunk.lines;
                }
                if then.is_none() {
                    then = io_error;
                }
            }
        });
        arrow::json::reader::infer_json_schema_from_iterator(values)
    };
    if let Some(failure) = failure {
        return Err(failure);
    }
    let schema = schema.map_err(|e| arrow_error(path, e))?;
    finish(path, &schema, &integers)
}

/// A shape of a chunk: the names of its top-level keys and the flags of
/// their numbers over its lines (json_shape.rs), or none when its keys
/// repeat (its lines are then read as values, for [`Integers::see`]).
struct LocalShape {
    keys: Option<(Vec<String>, Vec<u8>)>,
}

/// The lines of one chunk (see [`Seen`]), up to the first that is too
/// long, not JSON or not an object. Each line's shape is read as it is
/// parsed (json_shape.rs); the integers of a line whose top-level keys
/// repeat are seen from its value.
fn see_chunk(text: &[u8], max_line: usize) -> Seen {
    let mut seen = Seen {
        lines: 0,
        text: Vec::new(),
        shapes: Vec::new(),
        integers: HashMap::new(),
        stop: None,
    };
    let mut local: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut locals: Vec<LocalShape> = Vec::new();
    let mut shape = Vec::new();
    // The previous line's shape and its index: most lines have the shape
    // of the line before, found by one comparison instead of a hash.
    let mut previous: (Vec<u8>, Option<usize>) = (Vec::new(), None);
    for line in text_chunks::lines(text) {
        seen.lines += 1;
        let number = seen.lines;
        if line.len() > max_line {
            seen.stop = Some(Stop::TooLong(number));
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let facts = match json_shape::read(line, &mut shape) {
            Ok(facts) => facts,
            Err(e) => {
                seen.stop = Some(Stop::NotJson(number, without_position(&e)));
                break;
            }
        };
        if !facts.object {
            seen.stop = Some(Stop::NotObject(number));
            break;
        }
        let known = match previous {
            (ref last, Some(index)) if *last == shape => Some(index),
            _ => local.get(&shape).copied(),
        };
        let index = match known {
            Some(index) => index,
            None => {
                let keys = (!facts.repeats(&shape)).then(|| {
                    let names = facts
                        .keys
                        .iter()
                        .map(|(at, _)| String::from_utf8_lossy(&shape[at.clone()]).into_owned())
                        .collect();
                    (names, vec![0; facts.keys.len()])
                });
                locals.push(LocalShape { keys });
                local.insert(shape.clone(), locals.len() - 1);
                let start = seen.text.len();
                seen.text.extend_from_slice(line);
                seen.shapes.push(Shape {
                    line: number,
                    text: start..seen.text.len(),
                    shape: shape.clone(),
                });
                locals.len() - 1
            }
        };
        match &mut locals[index].keys {
            Some((_, flags)) => {
                for (flag, (_, number)) in flags.iter_mut().zip(&facts.keys) {
                    *flag |= number;
                }
            }
            None => {
                if let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(line) {
                    Integers::see(&mut seen.integers, &object);
                }
            }
        }
        std::mem::swap(&mut previous.0, &mut shape);
        previous.1 = Some(index);
    }
    for (names, flags) in locals.iter().filter_map(|l| l.keys.as_ref()) {
        for (name, &flags) in names.iter().zip(flags) {
            if flags != 0 {
                let integers = seen.integers.entry(name.clone()).or_default();
                integers.fraction |= flags & json_shape::FRACTION != 0;
                integers.negative |= flags & json_shape::NEGATIVE != 0;
                integers.above_i64 |= flags & json_shape::ABOVE_I64 != 0;
            }
        }
    }
    seen
}

/// Arrow's inferred `schema` with knuffle's UInt64 rule: a Float64 column
/// of integers above 2^63-1 is UInt64 when none is negative, else refused.
pub(crate) fn finish(
    path: &Path,
    schema: &Schema,
    integers: &HashMap<String, Integers>,
) -> Result<Schema, Error> {
    let mut fields = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        let seen = integers.get(field.name()).copied().unwrap_or_default();
        if field.data_type() == &DataType::Float64 && seen.above_i64 && !seen.fraction {
            if seen.negative {
                return Err(Error::invalid(format!(
                    "{}: column '{}' holds integers below 0 and above 2^63-1, which no \
                     integer type holds (and a float would change them)",
                    path.display(),
                    field.name()
                )));
            }
            fields.push(Field::new(field.name(), DataType::UInt64, true));
        } else {
            fields.push(field.as_ref().clone());
        }
    }
    Ok(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// serde_json's message without its " at line 1 column 7" (the line is
/// ours to number; the column stays as "column N").
fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => format!("{} (column {})", &text[..at], error.column()),
        None => text,
    }
}

#[cfg(test)]
#[path = "json_infer_tests.rs"]
mod tests;
