//! The schema inferred from chunks on several threads is the one inferred
//! line by line on one (the reader before chunks, kept here as the
//! reference), whatever the chunks' size: same columns, types and errors.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::Path;

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::Value;

use super::*;

/// The schema of every line of `input`, line after line on this thread.
fn reference(path: &Path, input: &mut impl BufRead, max_line: usize) -> Result<Schema, Error> {
    let invalid = |text: String| Error::invalid(format!("{}: {text}", path.display()));
    let mut integers: HashMap<String, Integers> = HashMap::new();
    let mut kinds = Kinds::default();
    let mut line = Vec::new();
    let mut number = 0u64;
    let mut failure = None;
    let schema = {
        let lines = std::iter::from_fn(|| {
            if failure.is_some() {
                return None;
            }
            loop {
                line.clear();
                number += 1;
                let read = input
                    .by_ref()
                    .take(max_line as u64 + 1)
                    .read_until(b'\n', &mut line);
                match read {
                    Err(e) => {
                        failure = Some(Error::io_at(path, &e));
                        return None;
                    }
                    Ok(0) => return None,
                    Ok(_) => {}
                }
                if line.len() > max_line {
                    failure = Some(invalid(format!(
                        "line {number} is longer than {} KiB, the most the memory limit \
                         allows one line; raise the memory limit (--memory)",
                        max_line >> 10
                    )));
                    return None;
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let value: Value = match serde_json::from_slice(&line) {
                    Ok(value) => value,
                    Err(e) => {
                        failure = Some(invalid(format!(
                            "line {number}: not a JSON value: {}",
                            without_position(&e)
                        )));
                        return None;
                    }
                };
                let Value::Object(object) = &value else {
                    failure = Some(invalid(format!(
                        "line {number}: not a JSON object (JSON Lines holds one object per line)"
                    )));
                    return None;
                };
                if let Err(conflict) = kinds.see(path, number, object) {
                    failure = Some(conflict);
                    return None;
                }
                Integers::see(&mut integers, object);
                return Some(Ok::<Value, arrow::error::ArrowError>(value));
            }
        });
        arrow::json::reader::infer_json_schema_from_iterator(lines)
    };
    if let Some(failure) = failure {
        return Err(failure);
    }
    let schema = schema.map_err(|e| arrow_error(path, e))?;
    finish(path, &schema, &integers)
}

/// The shape of a parsed `value` (see the module's notes), written to
/// `out`: what json_shape.rs reads as the line is parsed.
fn shape_of(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(b'n'),
        Value::Bool(_) => out.push(b'b'),
        Value::Number(n) if n.is_i64() => out.push(b'i'),
        Value::Number(_) => out.push(b'f'),
        Value::String(_) => out.push(b's'),
        // The shapes of an array's elements, each once, in the order first
        // seen (an element of a shape seen before adds nothing either).
        Value::Array(values) => {
            out.push(b'[');
            let mut elements: HashSet<Vec<u8>> = HashSet::new();
            let mut element = Vec::new();
            for value in values {
                element.clear();
                shape_of(value, &mut element);
                if !elements.contains(&element) {
                    out.extend_from_slice(&element);
                    elements.insert(element.clone());
                }
            }
            out.push(b']');
        }
        Value::Object(object) => {
            out.push(b'{');
            for (key, value) in object {
                out.push(b'k');
                out.extend_from_slice(&(key.len() as u64).to_le_bytes());
                out.extend_from_slice(key.as_bytes());
                shape_of(value, out);
            }
            out.push(b'}');
        }
    }
}

fn outcome(result: Result<Schema, Error>) -> Result<Schema, String> {
    result.map_err(|e| e.message().to_owned())
}

/// A JSON value of a few types, nested a little (strings with multi-byte
/// characters and escaped newlines).
fn value() -> impl Strategy<Value = String> {
    let scalar = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        (-3i64..4).prop_map(|i| i.to_string()),
        Just("18446744073709551615".to_owned()),
        Just("2.5".to_owned()),
        Just("1e3".to_owned()),
        Just("\"x\"".to_owned()),
        Just("\"\u{e9}\u{20ac}\u{1f600}\\n\"".to_owned()),
    ];
    scalar.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(
                (prop::sample::select(vec!["p", "q", "\u{fc}"]), inner),
                0..3
            )
            .prop_map(|fields| {
                let fields: Vec<String> =
                    fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", fields.join(","))
            }),
        ]
    })
}

/// A line of a JSON Lines file: mostly objects, sometimes blank, not JSON,
/// not an object or long.
fn line() -> impl Strategy<Value = String> {
    let object = prop::collection::vec(
        (
            prop::sample::select(vec!["a", "b", "c", "\u{e9}t\u{e9}"]),
            value(),
        ),
        0..4,
    )
    .prop_map(|fields| {
        let mut seen = Vec::new();
        let fields: Vec<String> = fields
            .into_iter()
            .filter(|(k, _)| {
                let new = !seen.contains(k);
                seen.push(*k);
                new
            })
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!("{{{}}}", fields.join(", "))
    });
    prop_oneof![
        20 => object,
        1 => Just(String::new()),
        1 => Just("  \r".to_owned()),
        1 => Just("{\"a\": ".to_owned()),
        1 => Just("[1]".to_owned()),
        1 => Just(format!("{{\"a\": \"{}\"}}", "y".repeat(90))),
        // Keys written twice: at the top (its first place, its last value)
        // and inside.
        1 => Just("{\"a\": -1, \"b\": 2, \"a\": 18446744073709551615}".to_owned()),
        1 => Just("{\"a\": 18446744073709551615, \"a\": 3}".to_owned()),
        1 => Just("{\"c\": {\"p\": 1, \"p\": \"x\"}, \"a\": [{\"q\": 1, \"q\": 2.5}]}".to_owned()),
    ]
}

fn file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(line(), 0..40),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, last_newline)| {
            let mut text = lines.join(if crlf { "\r\n" } else { "\n" });
            if last_newline {
                text.push('\n');
            }
            text.into_bytes()
        })
}

/// A line whose keys keep one type each (so that most files have a
/// schema): keys in any order, some missing or null, integers, fractions
/// and integers above 2^63-1, nested objects and arrays.
fn consistent_line() -> impl Strategy<Value = String> {
    let a = prop::sample::select(vec!["1", "-2", "3.5", "18446744073709551615", "null"]);
    let b = prop::sample::select(vec!["\"\u{e9}\u{20ac}\"", "\"\\n\"", "null"]);
    let c = prop::sample::select(vec!["[1, 2]", "[2.5]", "[]", "[null]", "null"]);
    let d = prop::sample::select(vec![
        "{\"p\": 1}",
        "{\"q\": \"x\", \"p\": 2.5}",
        "{}",
        "{\"r\": [{\"s\": true}]}",
    ]);
    let e = prop::sample::select(vec!["true", "false", "18446744073709551615"]);
    (
        a,
        b,
        c,
        d,
        e,
        prop::collection::vec(any::<bool>(), 5),
        any::<u8>(),
    )
        .prop_map(|(a, b, c, d, e, with, rotate)| {
            let mut fields = vec![
                format!("\"a\": {a}"),
                format!("\"b\": {b}"),
                format!("\"c\": {c}"),
                format!("\"d\": {d}"),
                format!(
                    "\"{}\": {e}",
                    if e.starts_with('1') { "u" } else { "\u{e9}" }
                ),
            ];
            fields.rotate_left(rotate as usize % 5);
            let fields: Vec<String> = fields
                .into_iter()
                .zip(with)
                .filter_map(|(field, with)| with.then_some(field))
                .collect();
            format!("{{{}}}", fields.join(", "))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn chunks_infer_the_schema_lines_do(
        lines in prop::collection::vec(consistent_line(), 0..40),
        chunk_bytes in 1usize..200,
        workers in 1usize..4,
    ) {
        let text = lines.join("\n").into_bytes();
        let path = Path::new("t.jsonl");
        let expected = outcome(reference(path, &mut &text[..], 4096));
        let got = outcome(infer(path, &mut &text[..], 4096, workers, chunk_bytes));
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn chunks_infer_what_lines_do(
        text in file(),
        chunk_bytes in 1usize..64,
        workers in 1usize..4,
        buffer in 1usize..8,
        max_line in prop::sample::select(vec![80usize, 4096]),
    ) {
        let path = Path::new("t.jsonl");
        let expected = outcome(reference(path, &mut std::io::BufReader::new(&text[..]), max_line));
        let mut input = std::io::BufReader::with_capacity(buffer, &text[..]);
        let got = outcome(infer(path, &mut input, max_line, workers, chunk_bytes));
        prop_assert_eq!(got, expected);
    }
}

#[test]
fn shapes_keep_the_first_seen_order_and_the_uint64_rule() {
    let text = b"{\"b\": 1, \"a\": [1]}\n{\"a\": [2.5, 1], \"c\": 18446744073709551615}\n\
                 {\"b\": 2, \"a\": [3]}\n{\"c\": 1}\n";
    for chunk_bytes in [1, 5, 1000] {
        let mut input = &text[..];
        let schema = infer(Path::new("t"), &mut input, 1000, 2, chunk_bytes).unwrap();
        let names: Vec<_> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["b", "a", "c"]);
        assert_eq!(schema.field(2).data_type(), &DataType::UInt64);
        assert_eq!(
            schema.field(1).data_type(),
            &DataType::List(Arc::new(Field::new_list_field(DataType::Float64, true)))
        );
    }
}

#[test]
fn the_first_bad_line_in_file_order_is_the_one_named() {
    let text = b"{\"a\": 1}\n{\"a\": \"x\"}\nnot json\n[1]\n";
    for chunk_bytes in [1, 9, 10, 20, 1000] {
        let mut input = &text[..];
        let error = infer(Path::new("t"), &mut input, 1000, 3, chunk_bytes).unwrap_err();
        assert_eq!(
            error.message(),
            "t: line 2: field 'a' is a string here and a number on line 1; a column holds \
             one type (write every value of it as a number)"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The shape read as a line is parsed is the shape of its value when
    /// no key repeats; it tells apart at least the lines the value's shape
    /// does; its numbers are those `Integers` sees; its errors are
    /// serde_json's.
    #[test]
    fn the_shape_read_while_parsing_is_the_values(one in line(), two in line()) {
        let mut shapes = Vec::new();
        for text in [&one, &two] {
            let mut streamed = Vec::new();
            let read = json_shape::read(text.as_bytes(), &mut streamed);
            let value = serde_json::from_slice::<Value>(text.as_bytes());
            match (read, value) {
                (Ok(facts), Ok(value)) => {
                    let mut expected = Vec::new();
                    shape_of(&value, &mut expected);
                    prop_assert_eq!(facts.object, value.is_object());
                    // No key written twice (the generated lines' strings
                    // hold no `":`, which ends every key): the same shape.
                    if text.matches("\":").count() == keys_in(&value) {
                        prop_assert_eq!(&streamed, &expected);
                    }
                    if let Value::Object(object) = &value
                        && !facts.repeats(&streamed)
                    {
                        let mut integers = HashMap::new();
                        Integers::see(&mut integers, object);
                        for (at, flags) in &facts.keys {
                            let name = std::str::from_utf8(&streamed[at.clone()]).unwrap();
                            let seen = integers.get(name).copied().unwrap_or_default();
                            prop_assert_eq!(seen.fraction, flags & json_shape::FRACTION != 0);
                            prop_assert_eq!(seen.negative, flags & json_shape::NEGATIVE != 0);
                            prop_assert_eq!(seen.above_i64, flags & json_shape::ABOVE_I64 != 0);
                        }
                    }
                    shapes.push(Some((streamed, expected)));
                }
                (Err(got), Err(expected)) => {
                    prop_assert_eq!(got.to_string(), expected.to_string());
                    shapes.push(None);
                }
                (read, value) => prop_assert!(false, "{:?} against {:?}", read.err(), value.err()),
            }
        }
        if let [Some((a, value_a)), Some((b, value_b))] = &shapes[..]
            && a == b
        {
            prop_assert_eq!(value_a, value_b);
        }
    }
}

/// The keys of every object in `value`.
fn keys_in(value: &Value) -> usize {
    match value {
        Value::Object(object) => object.len() + object.values().map(keys_in).sum::<usize>(),
        Value::Array(values) => values.iter().map(keys_in).sum(),
        _ => 0,
    }
}

#[test]
fn a_line_of_the_previous_lines_shape_adds_to_that_shape() {
    // Shapes A, A, B, B, A, A in one chunk: each line's numbers count for
    // its own shape's keys, whether its shape is the previous line's or
    // found again after another (the two B lines have one shape, a number
    // that is not an i64, but only the second has a fraction: alone, the
    // first would make `c` a UInt64).
    let text = b"{\"a\": 1, \"b\": 2}\n{\"a\": 1, \"b\": 2}\n{\"c\": 18446744073709551615}\n\
                 {\"c\": 2.5}\n{\"a\": 1.5, \"b\": 2}\n{\"a\": 1, \"b\": -3}\n";
    let path = Path::new("t.jsonl");
    let schema = infer(path, &mut &text[..], 4096, 1, 4096).unwrap();
    let types: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type().clone()))
        .collect();
    assert_eq!(
        types,
        [
            ("a", DataType::Float64),
            ("b", DataType::Int64),
            ("c", DataType::Float64)
        ]
    );
    assert_eq!(Ok(schema), outcome(reference(path, &mut &text[..], 4096)));
}

#[test]
fn a_key_written_twice_at_the_top_is_seen() {
    let mut shape = Vec::new();
    let facts = json_shape::read(br#"{"a": -1, "b": 2, "a": 3}"#, &mut shape).unwrap();
    assert!(facts.repeats(&shape));
    let facts = json_shape::read(br#"{"a": -1, "b": {"a": 1}}"#, &mut shape).unwrap();
    assert!(!facts.repeats(&shape));
}

#[test]
fn shapes_of_keys_whose_length_reads_as_a_brace_differ() {
    // A key of 125 bytes: its length's first byte is `}`. Without a tag
    // before each key these two lines had one shape (and the second was
    // skipped by the inference, losing two of its columns).
    let weird = format!(
        "\\u0000nj{}{}{{{}",
        "\\u0000".repeat(7),
        "a".repeat(106),
        "\\u0000".repeat(8)
    );
    let b = format!("{{\"x\": {{\"{weird}\": null}}}}");
    let a = format!(
        "{{\"x\": {{}}, \"\": null, \"{}\": {{\"\": null}}}}",
        "a".repeat(106)
    );
    let (mut shape_a, mut shape_b) = (Vec::new(), Vec::new());
    json_shape::read(a.as_bytes(), &mut shape_a).unwrap();
    json_shape::read(b.as_bytes(), &mut shape_b).unwrap();
    assert_ne!(shape_a, shape_b);
    let text = format!("{b}\n{a}\n");
    let schema = infer(Path::new("t.jsonl"), &mut text.as_bytes(), 4096, 1, 4096).unwrap();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["x", "", &"a".repeat(106)]);
}
