//! The corpus of the differential test: the valid transcripts it starts
//! from, and the changes made to them (values, structure, spellings that
//! keep the meaning), each with what the verifiers must say.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::support::{draw_data as data, knuffle};

/// What an entry's change means, and so what the verifiers must say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
    /// A value or the structure changed: 1 or 2, never 0.
    NotVerified,
    /// The meaning the format defines is unchanged: 0.
    Verified,
    /// Left to serde's rules: the same status from both, whatever it is.
    Agree,
}

/// One corpus file and how it is verified.
pub(super) struct Entry {
    pub(super) name: String,
    /// The transcript argument: a file written from these bytes, or a path
    /// used as it is (`/dev/zero`, a directory, a missing file).
    pub(super) transcript: Input,
    /// Options before the transcript (`--max-size`).
    pub(super) options: Vec<String>,
    /// The population file argument, if any.
    pub(super) population: Option<PathBuf>,
    pub(super) expect: Expect,
}

pub(super) enum Input {
    Bytes(Vec<u8>),
    Path(PathBuf),
}

impl Entry {
    pub(super) fn new(name: impl Into<String>, bytes: Vec<u8>, expect: Expect) -> Entry {
        Entry {
            name: name.into(),
            transcript: Input::Bytes(bytes),
            options: Vec::new(),
            population: None,
            expect,
        }
    }
}

/// A valid transcript: its name, bytes, and population file when it does
/// not embed its items.
pub(super) struct Base {
    pub(super) name: &'static str,
    pub(super) bytes: Vec<u8>,
    pub(super) value: Value,
    pub(super) population: Option<PathBuf>,
}

/// The valid transcripts the corpus is made from, written by the binary.
pub(super) fn bases(dir: &Path) -> Vec<Base> {
    let dice = "3 6 1 4 5 2 2 6 1 3 4 5 6 1 2 3 4 5 6 1";
    let beacon = data("beacon-5000000.json");
    let secret = data("deal-committed.secret");
    let ballots = data("ballots.txt");
    let runs: Vec<(&str, Vec<&str>, Option<&str>)> = vec![
        // A range, a text seed and a drand round.
        (
            "lottery",
            vec![
                "draw", "-i", "1-500", "-n", "5", "--seed", dice, "--beacon", &beacon,
            ],
            None,
        ),
        // Embedded items (one not ASCII), without replacement.
        (
            "names",
            vec![
                "draw", "-e", "Ann", "Bob", "Cy", "Dee", "Émile", "-n", "3", "--seed", "everyone",
            ],
            None,
        ),
        // With replacement.
        (
            "replace",
            vec![
                "draw",
                "-e",
                "red",
                "green",
                "blue",
                "-n",
                "8",
                "--replace",
                "--seed",
                "with replacement",
            ],
            None,
        ),
        // A committed card deal: a commit, a text and a drand source.
        (
            "deal",
            vec![
                "deal",
                "--players",
                "2",
                "--cards",
                "2",
                "--board",
                "5",
                "--reveal",
                &secret,
                "--client-seed",
                "lucky 7",
                "--beacon",
                &beacon,
            ],
            None,
        ),
        // The items not embedded: the population file is given.
        (
            "ballots",
            vec![
                "draw",
                &ballots,
                "-n",
                "4",
                "--seed",
                "audit",
                "--omit-items",
            ],
            Some(ballots.as_str()),
        ),
    ];
    runs.into_iter()
        .map(|(name, mut args, population)| {
            let path = dir.join(format!("base-{name}.json"));
            let path_text = path.to_str().unwrap().to_owned();
            args.extend(["--transcript", &path_text]);
            let out = knuffle(&args);
            assert!(
                out.status.success(),
                "knuffle {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let bytes = std::fs::read(&path).unwrap();
            let value = serde_json::from_slice(&bytes).unwrap();
            Base {
                name,
                bytes,
                value,
                population: population.map(PathBuf::from),
            }
        })
        .collect()
}

/// The fields whose value is hexadecimal (either case means the same).
pub(super) const HEX_FIELDS: [&str; 6] = [
    "digest",
    "key",
    "signature",
    "randomness",
    "commitment",
    "previous_signature",
];

pub(super) fn lowercase_hex(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                match field {
                    Value::String(s) if HEX_FIELDS.contains(&key.as_str()) => {
                        *s = s.to_ascii_lowercase();
                    }
                    _ => lowercase_hex(field),
                }
            }
        }
        Value::Array(list) => list.iter_mut().for_each(lowercase_hex),
        _ => {}
    }
}

/// Whether `bytes` is JSON (as serde_json reads it) with the meaning of
/// `original`: the same values, hex digits in either case.
pub(super) fn same_meaning(original: &Value, bytes: &[u8]) -> bool {
    let Ok(mut value) = serde_json::from_slice::<Value>(bytes) else {
        return false;
    };
    let mut original = original.clone();
    lowercase_hex(&mut value);
    lowercase_hex(&mut original);
    value == original
}

/// A marker replaced by raw JSON text after serialising.
pub(super) const MARK: &str = "\u{1}raw\u{1}";

/// `base` pretty-printed, with the value at `pointer` replaced by the text
/// `raw` (any bytes: a number serde_json would not write, broken JSON).
pub(super) fn with_raw(base: &Value, pointer: &str, raw: &str) -> Vec<u8> {
    let mut value = base.clone();
    *value
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}")) = Value::String(MARK.to_owned());
    let text = serde_json::to_string_pretty(&value).unwrap();
    let quoted = serde_json::to_string(MARK).unwrap();
    assert_eq!(text.matches(&quoted).count(), 1);
    text.replacen(&quoted, raw, 1).into_bytes()
}

pub(super) fn pretty(value: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(value).unwrap()
}

/// The JSON pointers of every value of `value` (of an array: its first
/// and last elements), with the values.
pub(super) fn fields(value: &Value, at: &str, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, field) in map {
                let pointer = format!("{at}/{key}");
                out.push((pointer.clone(), field.clone()));
                fields(field, &pointer, out);
            }
        }
        Value::Array(list) => {
            let mut positions = vec![0];
            if list.len() > 1 {
                positions.push(list.len() - 1);
            }
            for i in positions.into_iter().filter(|&i| i < list.len()) {
                let pointer = format!("{at}/{i}");
                out.push((pointer.clone(), list[i].clone()));
                fields(&list[i], &pointer, out);
            }
        }
        _ => {}
    }
}

/// Values of another type, or out of range, for a field holding `original`.
pub(super) fn wrong_values(original: &Value) -> Vec<String> {
    let object = serde_json::to_string(original).unwrap();
    let list: &[&str] = match original {
        Value::Number(_) => &[
            "18446744073709551615",
            "18446744073709551616",
            "1000000000000000",
            "-1",
            "-0",
            "1e3",
            "5000000.0",
            "true",
            "null",
            "\"5\"",
            "[5]",
            "{}",
        ],
        Value::String(_) => &["true", "null", "5", "[\"x\"]", "{}", "\"\""],
        Value::Array(_) => &["null", "{}", "\"x\"", "5", "[null]", "[[]]"],
        Value::Object(_) => &["null", "[]", "\"x\"", "5", "true"],
        _ => &[],
    };
    let mut raws: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
    if original.is_object() {
        // The object wrapped in an array.
        raws.push(format!("[{object}]"));
    }
    raws.retain(|raw| *raw != object);
    raws
}

pub(super) fn object_at<'a>(value: &'a mut Value, pointer: &str) -> &'a mut Map<String, Value> {
    value
        .pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {pointer:?}"))
}

/// The pointers of the objects of `value` (records: the transcript, its
/// population, range, sources and result).
pub(super) fn objects(value: &Value) -> Vec<String> {
    let mut all = vec![(String::new(), value.clone())];
    fields(value, "", &mut all);
    all.into_iter()
        .filter(|(_, v)| v.is_object())
        .map(|(p, _)| p)
        .collect()
}

/// Mutations of one valid transcript, each constructed to change a value
/// or the structure (unless its `Expect` says otherwise).
pub(super) fn mutations_of(base: &Base, out: &mut Vec<Entry>) {
    let b = base.name;
    let original = &base.value;
    let bytes = &base.bytes;
    let mut add = |name: String, bytes: Vec<u8>, expect: Expect| {
        let mut entry = Entry::new(format!("{b}-{name}"), bytes, expect);
        entry.population = base.population.clone();
        out.push(entry);
    };

    // Bit flips spread over the file, each bit position in turn; whether a
    // flip keeps the meaning (a hex digit's case) is read from the result.
    let flips = 12;
    for i in 0..flips {
        let at = (i * bytes.len() / flips + i * 7) % bytes.len();
        let mut flipped = bytes.clone();
        flipped[at] ^= 1 << (i % 8);
        let expect = if same_meaning(original, &flipped) {
            Expect::Verified
        } else {
            Expect::NotVerified
        };
        add(format!("flip-{at}-{}", i % 8), flipped, expect);
    }
    // Truncations at many lengths (the last drops only the final newline).
    let cuts = 4;
    let mut lengths: Vec<usize> = (0..cuts).map(|i| i * bytes.len() / cuts).collect();
    lengths.extend([bytes.len() - 2, bytes.len() - 1]);
    for len in lengths {
        let cut = bytes[..len].to_vec();
        let expect = if same_meaning(original, &cut) {
            Expect::Verified
        } else {
            Expect::NotVerified
        };
        add(format!("truncated-{len}"), cut, expect);
    }

    // The beacon transcript: every field with values of another type, out
    // of range, negative or fractional (the whole list for k, hi and round;
    // a rotating pair elsewhere), every record with an unknown field,
    // without each field, with each field twice. The deal: the same for its
    // sources (the commitment) and records. With replacement: k (10^15
    // among the values).
    let thorough = b == "lottery" || b == "deal";
    let mut all = Vec::new();
    fields(original, "", &mut all);
    for (f, (pointer, field)) in all.iter().enumerate() {
        let wanted = b == "lottery" || (b == "deal" && pointer.starts_with("/sources"));
        let whole = ["/k", "/population/range/hi", "/sources/1/round"].contains(&pointer.as_str());
        let raws = wrong_values(field);
        let k_replace = b == "replace" && pointer == "/k";
        let chosen: Vec<&String> = if whole && (wanted || k_replace) {
            raws.iter().collect()
        } else if wanted {
            raws.iter()
                .cycle()
                .skip(f)
                .take(2.min(raws.len()))
                .collect()
        } else {
            Vec::new()
        };
        for raw in chosen {
            let name = format!("{}={raw}", pointer.replace('/', "."));
            add(name, with_raw(original, pointer, raw), Expect::NotVerified);
        }
    }
    if !thorough {
        return spellings(original, add);
    }
    for object in objects(original) {
        let place = if object.is_empty() { "top" } else { &object };
        // An unknown field; in a source, a known one in the wrong case.
        let unknowns: &[&str] = if object.starts_with("/sources/") {
            &["extra", "Kind"]
        } else {
            &["extra"]
        };
        for unknown in unknowns {
            let mut v = original.clone();
            object_at(&mut v, &object).insert((*unknown).to_owned(), Value::from(1));
            add(
                format!("{place}-unknown-{unknown}"),
                pretty(&v),
                Expect::NotVerified,
            );
        }
        let keys: Vec<String> = object_at(&mut original.clone(), &object)
            .keys()
            .cloned()
            .collect();
        for key in keys {
            // Each field missing.
            let mut v = original.clone();
            object_at(&mut v, &object).remove(&key);
            add(
                format!("{place}-without-{key}"),
                pretty(&v),
                Expect::NotVerified,
            );
            if b != "lottery" {
                continue;
            }
            // Each field twice: first with another value (which one is
            // meant is ambiguous); at the top also with the same value
            // (serde's rules: a duplicate field).
            let pointer = format!("{object}/{key}");
            let value = original.pointer(&pointer).unwrap();
            let text = serde_json::to_string(value).unwrap();
            let other = match value {
                Value::Number(n) => (n.as_u64().unwrap() + 1).to_string(),
                Value::String(s) => serde_json::to_string(&format!("{s}x")).unwrap(),
                _ => "[]".to_owned(),
            };
            add(
                format!("{place}-twice-{key}"),
                with_raw(original, &pointer, &format!("{other}, \"{key}\": {text}")),
                Expect::NotVerified,
            );
            if object.is_empty() {
                add(
                    format!("{place}-twice-same-{key}"),
                    with_raw(original, &pointer, &format!("{text}, \"{key}\": {text}")),
                    Expect::Agree,
                );
            }
        }
    }
    spellings(original, add);
}

/// Spellings of the same transcript: minified, keys in reverse order, hex
/// in capitals, the mode as \u escapes, CRLF line ends and tabs.
pub(super) fn spellings(original: &Value, mut add: impl FnMut(String, Vec<u8>, Expect)) {
    add(
        "minified".into(),
        serde_json::to_vec(original).unwrap(),
        Expect::Verified,
    );
    add(
        "keys-reversed".into(),
        keys_reversed(original).into_bytes(),
        Expect::Verified,
    );
    let mut upper = original.clone();
    uppercase_hex(&mut upper);
    add("hex-in-capitals".into(), pretty(&upper), Expect::Verified);
    add(
        "escaped-mode".into(),
        with_raw(
            original,
            "/mode",
            &escaped(original["mode"].as_str().unwrap()),
        ),
        Expect::Verified,
    );
    add(
        "crlf-and-tabs".into(),
        String::from_utf8(pretty(original))
            .unwrap()
            .replace('\n', "\r\n\t")
            .into_bytes(),
        Expect::Verified,
    );
}

/// `value` as JSON with the keys of every object in reverse order (serde_json
/// writes them sorted).
pub(super) fn keys_reversed(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .rev()
                .map(|(key, field)| {
                    format!("{}: {}", Value::from(key.as_str()), keys_reversed(field))
                })
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        Value::Array(list) => {
            let items: Vec<String> = list.iter().map(keys_reversed).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

pub(super) fn uppercase_hex(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                match field {
                    Value::String(s) if HEX_FIELDS.contains(&key.as_str()) => {
                        *s = s.to_ascii_uppercase();
                    }
                    _ => uppercase_hex(field),
                }
            }
        }
        Value::Array(list) => list.iter_mut().for_each(uppercase_hex),
        _ => {}
    }
}

/// `text` as a JSON string of `\uXXXX` escapes.
pub(super) fn escaped(text: &str) -> String {
    let mut out = String::from("\"");
    for unit in text.encode_utf16() {
        out.push_str(&format!("\\u{unit:04x}"));
    }
    out.push('"');
    out
}
